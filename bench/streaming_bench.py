"""A real Structured Streaming run beside the state-store cycle of StreamingBench (docs/design/streaming.md,
"Streaming and late rows"): STREAM_BATCHES micro-batches (200 by default) from a file source, two
files a batch, 100 rows a batch over 100 ticks with 5 % late rows up to 10 batches behind, window
5,000 ticks (50 batches), eh_agg and ecm_agg (epsilon 0.1, delta 0.1, 50 keys) in the state of one
global streaming aggregation (complete mode). The same shape as StreamCycle: it confirms that the
cycle is what Spark does. After 1, 10, 100 and the last batch: the state store's memory
(stateOperators.memoryUsedBytes, every loaded version of the one state row), the batch's
trigger time, and the merge depth, certified bound and size of the sketches the batch emits.
Writes bench/results/streaming_spark.md.

Run: .venv/bin/python bench/streaming_bench.py
"""
from __future__ import annotations

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

import ecmsketch  # noqa: E402
from ecmsketch import functions as E  # noqa: E402

BATCHES = int(os.environ.get("STREAM_BATCHES", "200"))
TICKS, WINDOW, LATE, LAG = 100, 5_000, 0.05, 10
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "streaming_spark.md")


def main() -> None:
    spark = (ecmsketch.configure(SparkSession.builder).master("local[2]").appName("streaming-bench")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "1")
             .config("spark.sql.streaming.numRecentProgressUpdates", str(BATCHES + 10)).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    rng = np.random.default_rng(5)
    marks = sorted({1, 10, 100, BATCHES} & set(range(1, BATCHES + 1)))
    seen = {}

    def record(df, batch_id):
        # run the batch's plan every batch (that is what commits the state), then read its output
        (row,) = df.collect()
        if batch_id + 1 in marks:
            out = spark.createDataFrame([(row.e, row.m)], "e binary, m binary")
            seen[batch_id + 1] = out.select(E.sketch_info("e").alias("e"), E.sketch_info("m").alias("m")).first()

    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        os.makedirs(src)
        for k in range(BATCHES):
            for j in range(2):
                n_late = int(50 * LATE) if k else 0
                ts = np.concatenate([k * TICKS + rng.integers(0, TICKS, 50 - n_late),
                                     rng.integers(max(0, (k - LAG) * TICKS), max(1, k * TICKS), n_late)])
                rng.shuffle(ts)
                with open(os.path.join(src, f"b-{k:05d}-{j}.json"), "w") as f:
                    f.write("\n".join(json.dumps({"key": int(rng.integers(0, 50)), "ts": int(t),
                                                  "v": int(1 + rng.integers(0, 3))}) for t in ts))
        df = spark.readStream.schema("key bigint, ts bigint, v bigint").option("maxFilesPerTrigger", 2).json(src)
        agg = df.agg(E.eh_agg("ts", WINDOW, 0.1, value="v").alias("e"),
                     E.ecm_agg("key", "ts", WINDOW, 0.1, 0.1, value="v").alias("m"))
        q = agg.writeStream.outputMode("complete").foreachBatch(record) \
            .option("checkpointLocation", os.path.join(tmp, "ck")).start()
        try:
            q.processAllAvailable()
            progress = [p for p in q.recentProgress if p["numInputRows"] > 0]
        finally:
            q.stop()
    spark.stop()
    lines = ["# A real streaming run beside the state-store cycle", "",
             "`bench/streaming_bench.py`: " + (__doc__ or "").split("\n\n")[0].replace("\n", " "), "",
             "| batches | state store memory bytes | trigger ms (median of the batches since the previous row) "
             "| EH depth | EH bound | EH bytes | ECM depth | ECM total bound | ECM bytes |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    prev = 0
    for b in marks:
        p = progress[b - 1]
        ms = sorted(x["durationMs"]["triggerExecution"] for x in progress[prev:b])
        prev = b
        i = seen[b]
        lines.append(f"| {b} | {p['stateOperators'][0]['memoryUsedBytes']} | {ms[len(ms) // 2]} | "
                     f"{i.e.merge_depth} | {i.e.error_bound:.4f} | {i.e.size_bytes} | "
                     f"{i.m.merge_depth} | {i.m.total_error_bound:.4f} | {i.m.size_bytes} |")
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
