"""Structured Streaming: ECM-sketches, exponential histograms, deterministic waves and distinct-count
sketches in the state of a streaming aggregation.

Three sites write their request logs as JSON files, two files a micro-batch. Each batch holds the
next minute of requests plus 5 % late ones, up to ten minutes old. A streaming aggregation keeps, per
site, over a one-hour window: an ECM-sketch of bytes sent per client, an exponential histogram of
bytes sent, a deterministic wave of requests and a distinct-count sketch of clients. The query
stops halfway and restarts from its checkpoint, as a redeployed job would. Then each site's sketches
are queried for the last 5, 15 and 60 minutes beside the exact answers over all rows.

The state keeps each sketch as a bundle of runs (docs/design/streaming.md, "Streaming and late rows"): the
runs of every micro-batch of the last window, merged once when the sketch is emitted, so the
certified bound stays the one planned (merge depth 1) however many batches run and however late
rows are, and runs a whole window old leave the state.

Run: .venv/bin/python examples/streaming.py   (about a minute; STREAM_BATCHES=20 by default)
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
PER_FILE = 1_000
START = 1_700_000_000  # seconds
EPS, DELTA = 0.1, 0.05
SCHEMA = "client bigint, site int, ts timestamp, bytes_sent bigint"


def make_batches():
    rng = np.random.default_rng(2027)
    out = []
    for k in range(BATCHES):
        files = []
        for _ in range(2):
            n_late = PER_FILE // 20 if k else 0
            secs = np.concatenate([START + k * 60 + rng.integers(0, 60, PER_FILE - n_late),
                                   START + k * 60 - rng.integers(1, 600, n_late)])  # up to ten minutes behind
            files.append([{"client": int(min(rng.zipf(1.4), 500)), "site": int(rng.integers(0, 3)),
                           "ts": f"{np.datetime64(int(s), 's')}Z", "bytes_sent": int(rng.integers(200, 50_000))}
                          for s in secs])
        out.append(files)
    return out


def write_batch(src, k, files):
    for j, rows in enumerate(files):
        tmp = os.path.join(src, f".tmp-{k:04d}-{j}.json")
        with open(tmp, "w") as f:
            f.write("\n".join(json.dumps(r) for r in rows))
        os.rename(tmp, os.path.join(src, f"batch-{k:04d}-{j}.json"))  # the file source never sees a partial file


def run_stream(spark, src, checkpoint):
    """Runs the streaming aggregation over every file present, then stops (a restart resumes here)."""
    events = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 2).json(src)
    per_site = events.groupBy("site").agg(
        E.ecm_agg("client", "ts", "1 hour", EPS, DELTA, value="bytes_sent").alias("per_client"),
        E.eh_agg("ts", "1 hour", EPS, value="bytes_sent").alias("bytes"),
        E.dwave_agg("ts", "1 hour", EPS).alias("requests"),
        E.distinct_agg("client", "ts", "1 hour", EPS, DELTA).alias("clients"))
    q = (per_site.writeStream.outputMode("complete").format("memory").queryName("site_sketches")
         .option("checkpointLocation", checkpoint).start())
    try:
        q.processAllAvailable()
        return sum(1 for p in q.recentProgress if p["numInputRows"] > 0)
    finally:
        q.stop()


def main() -> None:
    spark = (ecmsketch.configure(SparkSession.builder)
             .master("local[2]").appName("ecmsketch-streaming")
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
        spark.read.schema(SCHEMA).json(src).createOrReplaceTempView("all_rows")  # the same files, as one batch
        ok = True
        for site in range(3):
            info = spark.sql(f"""SELECT sketch_info(per_client) AS m, sketch_info(bytes) AS e,
                                        sketch_info(requests) AS d FROM site_sketches_now WHERE site = {site}""").first()
            print(f"site {site}: merge depth {info.e.merge_depth}, certified bounds: bytes {info.e.error_bound:.4f}, "
                  f"requests {info.d.error_bound:.4f}, per-client point {info.m.point_error_bound:.4f} of the total")
            print(f"{'last':>6} {'requests':>9} {'exact':>7} {'bytes sent':>11} {'exact':>11} "
                  f"{'clients':>8} {'exact':>6} {'client 1 bytes':>14} {'exact':>9}")
            for minutes in (5, 15, 60):
                r = f"INTERVAL {minutes} MINUTES"
                est = spark.sql(f"""SELECT dwave_count(requests, {r}) AS n, eh_count(bytes, {r}) AS b,
                                           distinct_count(clients, {r}) AS c, ecm_point(per_client, 1L, {r}) AS p
                                    FROM site_sketches_now WHERE site = {site}""").first()
                ex = spark.sql(f"""SELECT count(*) AS n, sum(bytes_sent) AS b, count(DISTINCT client) AS c,
                                          coalesce(sum(CASE WHEN client = 1 THEN bytes_sent END), 0) AS p
                                   FROM all_rows WHERE site = {site}
                                   AND ts > (SELECT max(ts) FROM all_rows WHERE site = {site}) - {r}""").first()
                print(f"{minutes:>4} m {est.n:>9.0f} {ex.n:>7d} {est.b:>11.0f} {ex.b:>11d} {est.c:>8.0f} {ex.c:>6d} "
                      f"{est.p:>14.0f} {ex.p:>9d}")
                ok &= abs(est.n - ex.n) <= info.d.error_bound * ex.n and abs(est.b - ex.b) <= info.e.error_bound * ex.b
                ok &= abs(est.p - ex.p) <= info.m.point_error_bound * ex.b
        print(f"every count, sum and client's bytes within its certified bound of the exact answer: {ok}")
        assert ok
    spark.stop()


if __name__ == "__main__":
    main()
