"""decayed_agg beside Spark SQL's exact duplicate-insensitive decayed sum over the same cached rows:
rows/s (medians of interleaved runs) and the relative error of the sketch's answer. The exact query is
`sum(w * exp(-a * (now - ts)))` over DISTINCT rows (a = ln 2 / half-life), which must shuffle every
distinct row; the sketch answers from a few KB and merges across sites. Writes
bench/results/decayed.{md,json}. `make bench` runs it (BENCH_ROWS and BENCH_RUNS override).
"""
from __future__ import annotations

import math
import os
import statistics

from _common import session, timed, write_results  # noqa: E402  (bench/ is the script's directory)

ROWS = int(os.environ.get("BENCH_ROWS_DECAYED", "2000000"))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
HALF_LIFE = 20000.0


def main() -> None:
    spark = session("ecmsketch-decayed-bench", "3g")
    # 30 % duplicate rows: of every 10 rows, the last 3 repeat the 7th reading
    spark.sql(f"""SELECT rid AS id, cast(1 + rid % 5 AS INT) AS w, cast(rid DIV 7 AS BIGINT) AS ts
                  FROM (SELECT least(id % 10, 6) + id DIV 10 * 7 AS rid FROM range(0, {ROWS}, 1, 8))""") \
        .cache().createOrReplaceTempView("dv")
    spark.table("dv").count()
    a = math.log(2) / HALF_LIFE
    queries = {
        "exact: sum(w * exp(-a (now - ts))) over DISTINCT rows":
            f"""SELECT sum(w * exp(-{a} * (m - ts))) FROM (SELECT DISTINCT id, w, ts FROM dv),
                (SELECT max(ts) AS m FROM dv)""",
        "decayed_agg (general, eps 0.1) + decayed_sum 'exp'":
            f"SELECT decayed_sum(decayed_agg(w, ts, 0.1, 0.05, id => id, max_weight => 8), 'exp', {HALF_LIFE}) FROM dv",
        "decayed_agg (decay 'exp', eps 0.1) + decayed_sum":
            f"SELECT decayed_sum(decayed_agg(w, ts, 0.1, 0.05, id => id, max_weight => 8, decay => 'exp', "
            f"decay_param => {HALF_LIFE})) FROM dv",
    }
    times = {k: [] for k in queries}
    for k, q in queries.items():
        timed(spark, q)
    for _ in range(RUNS):
        for k, q in queries.items():
            times[k].append(timed(spark, q))
    answers = {k: spark.sql(q).first()[0] for k, q in queries.items()}
    exact = answers[next(iter(queries))]
    lines = [f"decayed_agg vs exact, {ROWS} rows (30 % duplicates), local[2], medians of {RUNS} runs", "",
             "| query | rows/s | answer | relative error |", "|---|---|---|---|"]
    data = {}
    for k in queries:
        m = statistics.median(times[k])
        err = abs(answers[k] - exact) / exact
        lines.append(f"| {k} | {ROWS / m:,.0f} | {answers[k]:.1f} | {err:.4f} |")
        data[k] = {"rows_per_s": ROWS / m, "answer": answers[k], "rel_error": err}
    text = "\n".join(lines)
    print(text)
    write_results("decayed", text, data)


if __name__ == "__main__":
    main()
