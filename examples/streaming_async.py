"""Structured Streaming with late events: async sketches in the state of a streaming aggregation.

Three sites write their request logs as JSON files, one micro-batch per file. Each batch holds the
next minute of requests plus 5 % late ones, up to ten minutes old (retries, a site catching up). A
streaming aggregation keeps, per site, an async count sketch, an async sum sketch of bytes sent and
an async quantile sketch of latencies over a one-hour window. The query stops halfway and restarts
from its checkpoint, as a redeployed job would. Then the per-site sketches are merged (losslessly)
and queried for the last 5, 15 and 60 minutes beside the exact answers over all rows.

Async sketches take late rows directly: no reorder buffer, no merge error, and the state after any
number of micro-batches has the bytes of one batch aggregate over the same rows.

Run: .venv/bin/python examples/streaming_async.py   (about a minute; STREAM_BATCHES=20 by default)
"""
from __future__ import annotations

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

import ecmsketch  # noqa: E402
from ecmsketch import functions as E  # noqa: E402

BATCHES = int(os.environ.get("STREAM_BATCHES", "20"))
PER_BATCH = 3_000
START = 1_700_000_000  # seconds
EPS, DELTA = 0.1, 0.05
SCHEMA = "request_id bigint, site int, ts timestamp, bytes_sent bigint, latency_ms double"


def make_batches():
    rng = np.random.default_rng(2026)
    out, next_id = [], 0
    for k in range(BATCHES):
        n_late = PER_BATCH // 20
        on_time = START + k * 60 + rng.integers(0, 60, PER_BATCH - n_late)
        late = START + k * 60 - rng.integers(1, 600, n_late)  # up to ten minutes behind this minute
        secs = np.concatenate([on_time, late])
        rows = [{"request_id": next_id + i, "site": int(rng.integers(0, 3)),
                 "ts": f"{np.datetime64(int(s), 's')}Z",
                 "bytes_sent": int(rng.integers(200, 50_000)), "latency_ms": float(rng.gamma(2.0, 40.0))}
                for i, s in enumerate(secs)]
        next_id += len(rows)
        out.append(rows)
    return out


def write_batch(src, k, rows):
    tmp = os.path.join(src, f".tmp-{k:04d}.json")
    with open(tmp, "w") as f:
        f.write("\n".join(json.dumps(r) for r in rows))
    os.rename(tmp, os.path.join(src, f"batch-{k:04d}.json"))  # the file source never sees a partial file


def run_stream(spark, src, checkpoint):
    """Runs the streaming aggregation over every file present, then stops (a restart resumes here)."""
    events = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(src)
    per_site = events.groupBy("site").agg(
        E.async_count_agg("ts", "1 hour", EPS, DELTA, id="request_id").alias("requests"),
        E.async_sum_agg("bytes_sent", "ts", "1 hour", EPS, DELTA, id="request_id").alias("bytes"),
        E.async_quantile_agg("latency_ms", "ts", "1 hour", EPS, DELTA, id="request_id").alias("latency"))
    q = (per_site.writeStream.outputMode("complete").format("memory").queryName("site_sketches")
         .option("checkpointLocation", checkpoint).start())
    try:
        q.processAllAvailable()
        return sum(1 for p in q.recentProgress if p["numInputRows"] > 0)
    finally:
        q.stop()


def main() -> None:
    spark = (ecmsketch.configure(SparkSession.builder)
             .master("local[2]").appName("ecmsketch-streaming-async")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4").config("spark.sql.session.timeZone", "UTC")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    data = make_batches()
    with tempfile.TemporaryDirectory() as tmp:
        src, ck = os.path.join(tmp, "logs"), os.path.join(tmp, "checkpoint")
        os.makedirs(src)
        half = BATCHES // 2
        for k in range(half):
            write_batch(src, k, data[k])
        n1 = run_stream(spark, src, ck)
        for k in range(half, BATCHES):
            write_batch(src, k, data[k])
        n2 = run_stream(spark, src, ck)  # restarted from the checkpoint
        print(f"{n1} micro-batches, a restart from the checkpoint, then {n2} more")

        spark.table("site_sketches").createOrReplaceTempView("site_sketches_now")
        merged = spark.sql("""SELECT async_merge(requests) AS requests, async_merge(bytes) AS bytes,
                                     async_merge(latency) AS latency FROM site_sketches_now""")
        merged.createOrReplaceTempView("all_sites")
        rows = spark.read.schema(SCHEMA).json(src)  # the same files, read as one batch
        rows.createOrReplaceTempView("all_rows")

        info = spark.sql("SELECT sketch_info(requests) AS i FROM all_sites").first().i
        print(f"merged count sketch: merge depth {info.merge_depth}, certified epsilon {info.error_bound} "
              f"(delta {info.delta}), {info.size_bytes} bytes")
        print(f"{'last':>6} {'requests':>10} {'exact':>8} {'bytes sent':>12} {'exact':>12} "
              f"{'p99 latency':>11} {'exact p99':>9}")
        for minutes in (5, 15, 60):
            est = spark.sql(f"""SELECT async_sum(requests, INTERVAL {minutes} MINUTES) AS n,
                                       async_sum(bytes, INTERVAL {minutes} MINUTES) AS b,
                                       async_quantile(latency, 0.99, INTERVAL {minutes} MINUTES) AS p99
                                FROM all_sites""").first()
            ex = spark.sql(f"""SELECT count(*) AS n, sum(bytes_sent) AS b, percentile(latency_ms, 0.99) AS p99
                               FROM all_rows WHERE ts > (SELECT max(ts) FROM all_rows) - INTERVAL {minutes} MINUTES""").first()
            print(f"{minutes:>4} m {est.n:>10.0f} {ex.n:>8d} {est.b:>12.0f} {ex.b:>12d} {est.p99:>11.1f} {ex.p99:>9.1f}")
            assert abs(est.n - ex.n) <= EPS * ex.n and abs(est.b - ex.b) <= EPS * ex.b
        # lossless: the streamed state has the bytes of one batch aggregation over the same rows
        batch = rows.groupBy("site").agg(
            E.async_count_agg("ts", "1 hour", EPS, DELTA, id="request_id").alias("requests")) \
            .agg(E.async_merge("requests").alias("requests")).first()
        same = bytes(batch.requests) == bytes(merged.first().requests)
        print(f"streamed, restarted and merged sketch == one batch aggregate over all rows: {same}")
        assert same
    spark.stop()


if __name__ == "__main__":
    main()
