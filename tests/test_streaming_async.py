"""Structured Streaming with late rows (issue 10): 20 micro-batches, 5 % of each batch older than the
newest row already in the state, an async sketch kept in the streaming aggregation state, the query
restarted from its checkpoint after 10 batches. The final async sketch has the bytes of a batch
aggregate over all rows (lossless) and answers within epsilon of the exact counts; eh_agg over the
same stream is reported beside it (its merge depth and certified bound after the 20 batches)."""
from __future__ import annotations

import json
import os

import numpy as np

from ecmsketch import functions as E

BATCHES = 20
PER_BATCH = 2_000
EPS = 0.1
DELTA = 0.01
WINDOW = 100_000
SCHEMA = "id bigint, ts bigint, v bigint"


def _batches():
    rng = np.random.default_rng(31)
    out, next_id = [], 0
    for k in range(BATCHES):
        n_late = PER_BATCH // 20  # 5 %: older than every row of the earlier batches' newest tick
        ts = rng.integers(k * 1_000, (k + 1) * 1_000, size=PER_BATCH - n_late)
        late = rng.integers(max(0, k * 1_000 - 5_000), max(1, k * 1_000 - 1), size=n_late) if k else \
            rng.integers(0, 500, size=n_late)
        t = np.concatenate([ts, late])
        rows = [{"id": next_id + i, "ts": int(x), "v": int(1 + (next_id + i) % 97)} for i, x in enumerate(t)]
        next_id += len(rows)
        out.append(rows)
    return out


def _write(src, k, rows):
    tmp = os.path.join(src, f".tmp-{k:03d}.json")
    with open(tmp, "w") as f:
        f.write("\n".join(json.dumps(r) for r in rows))
    os.rename(tmp, os.path.join(src, f"batch-{k:03d}.json"))  # atomic: the source never sees a partial file


def _run(spark, src, ck, name):
    df = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(src)
    agg = df.agg(E.async_count_agg("ts", WINDOW, EPS, DELTA, id="id").alias("c"),
                 E.async_sum_agg("v", "ts", WINDOW, EPS, DELTA, id="id").alias("s"),
                 E.eh_agg("ts", WINDOW, EPS).alias("e"),
                 E.ecm_agg("v", "ts", WINDOW, EPS, DELTA).alias("m"))
    q = agg.writeStream.outputMode("complete").format("memory").queryName(name) \
        .option("checkpointLocation", ck).start()
    try:
        q.processAllAvailable()
        batches = [p["batchId"] for p in q.recentProgress if p["numInputRows"] > 0]
    finally:
        q.stop()
    return spark.table(name).first(), batches


def test_streaming_late_rows_with_restart(spark, tmp_path):
    src, ck = str(tmp_path / "src"), str(tmp_path / "ck")
    os.makedirs(src)
    data = _batches()
    for k in range(BATCHES // 2):
        _write(src, k, data[k])
    first, b1 = _run(spark, src, ck, "async_stream_1")
    assert len(b1) == BATCHES // 2 and first.c is not None
    for k in range(BATCHES // 2, BATCHES):
        _write(src, k, data[k])
    final, b2 = _run(spark, src, ck, "async_stream_2")  # restarted from the checkpoint
    assert len(b2) == BATCHES // 2 and min(b2) > max(b1)

    rows = [r for b in data for r in b]
    all_df = spark.createDataFrame([(r["id"], r["ts"], r["v"]) for r in rows], SCHEMA)
    batch = all_df.agg(E.async_count_agg("ts", WINDOW, EPS, DELTA, id="id").alias("c"),
                       E.async_sum_agg("v", "ts", WINDOW, EPS, DELTA, id="id").alias("s")).first()
    assert bytes(final.c) == bytes(batch.c) and bytes(final.s) == bytes(batch.s)  # lossless across batches and restart

    ts = np.array([r["ts"] for r in rows])
    vs = np.array([r["v"] for r in rows])
    now = int(ts.max())
    spark.createDataFrame([(final.c, final.s, final.e, final.m)], "c binary, s binary, e binary, m binary") \
        .createOrReplaceTempView("st_sk")
    for r in (100, 1_000, 10_000, WINDOW):
        m = ts > now - r
        got = spark.sql(f"SELECT async_sum(c, {r}) AS c, async_sum(s, {r}) AS s, eh_count(e, {r}) AS e FROM st_sk").first()
        assert abs(got.c - m.sum()) <= EPS * m.sum(), r
        assert abs(got.s - vs[m].sum()) <= EPS * vs[m].sum(), r
    info = spark.sql("SELECT sketch_info(c) AS a, sketch_info(e) AS e, sketch_info(m) AS m FROM st_sk").first()
    assert info.a.merge_depth == 0 and info.a.error_bound == EPS
    # eh_agg's and ecm_agg's state across micro-batches: report what their merge depth and certified bound became
    print(f"\nafter {BATCHES} micro-batches: async merge depth {info.a.merge_depth}, bound {info.a.error_bound}; "
          f"eh_agg merge depth {info.e.merge_depth}, certified bound {info.e.error_bound:.4f}; "
          f"ecm_agg merge depth {info.m.merge_depth}, certified bound {info.m.error_bound:.4f}; "
          f"sizes: async count {info.a.size_bytes}, eh {info.e.size_bytes}, ecm {info.m.size_bytes} bytes")
