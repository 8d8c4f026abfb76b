"""Spark-level benchmark of the async sketches (docs/design/async.md, "Asynchronous streams"):
async_sum_agg, async_count_agg and async_quantile_agg rows/s beside eh_agg and Spark's sum and
approx_percentile over the same cached rows, in time order and with 10 % late rows, medians of
interleaved runs; then, on the 10 %-late stream, the error and size of async_count_agg (with ids)
and eh_agg (which buffers late rows) beside the exact count for ranges 10^1..10^6.
Writes bench/results/async.{md,json}. BENCH_ROWS and BENCH_RUNS override the defaults.
"""
from __future__ import annotations

import os
import statistics

from _common import session, timed, write_results  # noqa: E402  (bench/ is the script's directory)

ROWS = int(os.environ.get("BENCH_ROWS", "2000000"))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
W = 1_000_000


def main() -> None:
    spark = session("ecmsketch-async-bench", "4g")
    # one row per tick; the late copy moves 10 % of the rows up to 100,000 ticks into the past
    spark.sql(f"""SELECT id, id AS ts, cast(1 + id % 1000 AS BIGINT) AS v, exp(rand(5) * 5) AS x
                  FROM range(0, {ROWS}, 1, 8)""").cache().createOrReplaceTempView("ev")
    spark.sql(f"""SELECT id, CASE WHEN rand(9) < 0.1 THEN id - cast(rand(10) * 100000 AS BIGINT) ELSE id END AS ts,
                         v, x FROM ev""").cache().createOrReplaceTempView("ev_late")
    spark.table("ev").count()
    spark.table("ev_late").count()
    q = {
        "async_sum_agg (eps 0.1, delta 0.05)": f"SELECT length(async_sum_agg(v, ts, {W}, 0.1, 0.05)) FROM ev",
        "async_sum_agg, 10 % late rows": f"SELECT length(async_sum_agg(v, ts, {W}, 0.1, 0.05)) FROM ev_late",
        "async_count_agg (id => id)": f"SELECT length(async_count_agg(ts, {W}, 0.1, 0.05, id => id)) FROM ev",
        "async_quantile_agg (eps 0.1, delta 0.05)": f"SELECT length(async_quantile_agg(x, ts, {W}, 0.1, 0.05)) FROM ev",
        "async_quantile_agg, 10 % late rows": f"SELECT length(async_quantile_agg(x, ts, {W}, 0.1, 0.05)) FROM ev_late",
        "eh_agg (eps 0.1)": f"SELECT length(eh_agg(ts, {W}, 0.1, value => v)) FROM ev",
        "eh_agg, 10 % late rows": f"SELECT length(eh_agg(ts, {W}, 0.1, value => v)) FROM ev_late",
        "sum (Spark, whole table)": "SELECT sum(v) FROM ev",
        "approx_percentile (Spark, whole table)": "SELECT approx_percentile(x, 0.5) FROM ev",
        "count(*) (scan baseline)": "SELECT count(*) FROM ev",
    }
    times = {name: [] for name in q}
    for name, sql in q.items():  # warm-up
        timed(spark, sql)
    for _ in range(RUNS):  # interleaved
        for name, sql in q.items():
            times[name].append(timed(spark, sql))
    med = {name: statistics.median(t) for name, t in times.items()}
    lines = [f"Async sketches in Spark: {ROWS:,} cached rows, 8 partitions, local[2], medians of {RUNS} interleaved runs", "",
             "| query | seconds | rows/s |", "|---|---:|---:|"]
    for name in q:
        lines.append(f"| {name} | {med[name]:.2f} | {ROWS / med[name]:,.0f} |")

    # error and size on the 10 %-late stream
    sk = spark.sql(f"""SELECT async_count_agg(ts, {W}, 0.1, 0.05, id => id) AS a, eh_agg(ts, {W}, 0.1) AS e,
                              max(ts) AS now FROM ev_late""").first()
    spark.createDataFrame([(sk.a, sk.e)], "a binary, e binary").createOrReplaceTempView("late_sk")
    info = spark.sql("SELECT sketch_info(a) AS ia, sketch_info(e) AS ie FROM late_sk").first()
    lines += ["", f"10 %-late stream (count): async_count_agg {info.ia.size_bytes:,} bytes ({info.ia.retained:,} elements), "
              f"eh_agg {info.ie.size_bytes:,} bytes (merge depth {info.ie.merge_depth}, certified bound {info.ie.error_bound:.4f})", "",
              "| range | exact | async_count | rel. error | eh_count | rel. error |", "|---:|---:|---:|---:|---:|---:|"]
    errs = []
    for r in (10, 100, 1_000, 10_000, 100_000, 1_000_000):
        row = spark.sql(f"""SELECT (SELECT count(*) FROM ev_late WHERE ts > {sk.now} - {r}) AS exact,
                                   async_sum(a, {r}) AS a, eh_count(e, {r}) AS e FROM late_sk""").first()
        ea, ee = (row.a - row.exact) / row.exact, (row.e - row.exact) / row.exact
        errs.append({"range": r, "exact": row.exact, "async": row.a, "async_rel_err": ea, "eh": row.e, "eh_rel_err": ee})
        lines.append(f"| {r:,} | {row.exact:,} | {row.a:,.0f} | {ea:+.4f} | {row.e:,.0f} | {ee:+.4f} |")
    text = "\n".join(lines)
    print(text)
    write_results("async", text, {"rows": ROWS, "runs": RUNS, "seconds": med, "late_errors": errs,
                                  "async_bytes": info.ia.size_bytes, "eh_bytes": info.ie.size_bytes})
    spark.stop()


if __name__ == "__main__":
    main()
