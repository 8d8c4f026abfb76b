"""Dyadic ECM-sketch benchmark, one Spark session, same cached rows for every query:

1. dyadic_agg rows/s (integer keys, universe_bits 32; string keys) beside count_min_sketch, medians
   of interleaved runs;
2. ecm_quantile from one dyadic_agg sketch (DOUBLE latencies) beside approx_percentile recomputed
   from the rows of each range: rank error against the exact rank, size, rows/s;
3. top-k recall and precision beside the exact GROUP BY ... ORDER BY count DESC LIMIT k for ranges
   10^1 .. 10^6 ticks (one row per tick), integer and string keys.

Writes bench/results/dyadic.{md,json}. Run with `make bench` (DYADIC_ROWS, DYADIC_RUNS override; the
defaults keep it to a few minutes).
"""
from __future__ import annotations

import os
import statistics
import time

from _common import session, timed, write_results  # noqa: E402  (bench/ is the script's directory)

ROWS = int(os.environ.get("DYADIC_ROWS", "1000000"))
RUNS = int(os.environ.get("DYADIC_RUNS", "3"))
K = 10
QS = (0.5, 0.9, 0.99)
EPS, DELTA = 0.05, 0.01


def main() -> None:
    spark = session("ecmsketch-dyadic-bench", "4g")
    # one row per tick: range 10^j holds the last 10^j rows; Zipf(1.1) keys over 100,000 ids; log-normal latencies
    spark.sql(f"""SELECT cast(floor(pow(1.0 - rand(3), -1.0 / 1.1)) % 100000 AS BIGINT) AS key,
                         concat('/page/', cast(floor(pow(1.0 - rand(3), -1.0 / 1.1)) % 100000 AS STRING)) AS page,
                         id AS ts, round(exp(randn(5) * 0.8 + 3.0), 3) AS lat
                  FROM range(0, {ROWS}, 1, 8)""").cache().createOrReplaceTempView("dy")
    spark.table("dy").count()
    now = ROWS - 1
    window = 1_000_000
    # ---------------------------------------------------------------- 1. build speed
    speed_q = {
        "count_min_sketch (Spark, eps=0.05, conf=0.99)": "SELECT length(count_min_sketch(key, 0.05D, 0.99D, 1)) FROM dy",
        "dyadic_agg BIGINT keys (universe_bits 32)": f"SELECT length(dyadic_agg(key, ts, {window}, {EPS}, {DELTA})) FROM dy",
        "dyadic_agg BIGINT keys (universe_bits 18)": f"SELECT length(dyadic_agg(key, ts, {window}, {EPS}, {DELTA}, universe_bits => 18)) FROM dy",
        "dyadic_agg STRING keys (universe_bits 32, 1024 candidates)": f"SELECT length(dyadic_agg(page, ts, {window}, {EPS}, {DELTA})) FROM dy",
        "dyadic_agg DOUBLE latencies (universe_bits 32)": f"SELECT length(dyadic_agg(lat, ts, {window}, {EPS}, {DELTA})) FROM dy",
    }
    times = {n: [] for n in speed_q}
    sizes = {}
    for n, q in speed_q.items():  # warm-up, and the serialized size
        sizes[n] = spark.sql(q).first()[0]
    for _ in range(RUNS):  # interleaved, so that machine noise hits every query alike
        for n, q in speed_q.items():
            times[n].append(timed(spark, q))
    base = statistics.median(times["count_min_sketch (Spark, eps=0.05, conf=0.99)"])
    lines = [f"# Dyadic ECM-sketch benchmark: {ROWS:,} cached rows (one per tick), local[2], {RUNS} interleaved runs (medians)",
             "", f"epsilon {EPS}, delta {DELTA}, window {window:,}", "",
             "| query | median s | rows/s | speed vs count_min_sketch | serialized bytes |", "|---|---|---|---|---|"]
    speed = []
    for n, ts in times.items():
        med = statistics.median(ts)
        speed.append({"query": n, "median_s": round(med, 3), "rows_per_s": round(ROWS / med),
                      "vs_count_min_sketch": round(base / med, 3), "bytes": sizes[n], "runs": [round(t, 3) for t in ts]})
        lines.append(f"| {n} | {med:.3f} | {ROWS / med:,.0f} | {base / med:.2f}x | {sizes[n]:,} |")
    # ---------------------------------------------------------------- 2. quantiles
    spark.sql(f"SELECT dyadic_agg(lat, ts, {window}, {EPS}, {DELTA}) AS s FROM dy").cache().createOrReplaceTempView("dq")
    t0 = time.perf_counter()
    spark.table("dq").count()
    build_s = time.perf_counter() - t0
    qsize = spark.sql("SELECT length(s) FROM dq").first()[0]
    bound = spark.sql("SELECT sketch_info(s).quantile_rank_error_bound FROM dq").first()[0]
    qarr = "array(" + ", ".join(str(q) for q in QS) + ")"
    lines += ["", f"## Quantiles of DOUBLE latencies: ecm_quantile (one sketch, {qsize:,} bytes, built at "
                  f"{ROWS / build_s:,.0f} rows/s, certified rank error {bound:.3f}) beside approx_percentile recomputed per range",
              "", "| range (rows) | q | exact | ecm_quantile | rank error | approx_percentile | rank error | "
                  "ecm query ms | approx_percentile rows/s |", "|---|---|---|---|---|---|---|---|---|"]
    quant = []
    for j in range(1, 7):
        r = 10 ** j
        if r > ROWS:
            break
        where = f"ts > {now - r}"
        t0 = time.perf_counter()
        ours = spark.sql(f"SELECT ecm_quantile(s, {qarr}, {r}) FROM dq").first()[0]
        ours_ms = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        theirs = spark.sql(f"SELECT approx_percentile(lat, {qarr}) FROM dy WHERE {where}").first()[0]
        ap_s = time.perf_counter() - t0
        exact = spark.sql(f"SELECT percentile(lat, {qarr}) FROM dy WHERE {where}").first()[0]
        for i, q in enumerate(QS):
            def rank_err(v: float) -> float:
                lo, hi, n = spark.sql(f"SELECT count_if(lat < {v!r}), count_if(lat <= {v!r}), count(*) FROM dy WHERE {where}").first()
                # the rank of v is any value in [lo, hi]: error is the distance of q * n to that interval
                t = q * n
                return max(0.0, lo - t, t - hi) / n
            e_ours, e_ap = rank_err(ours[i]), rank_err(theirs[i])
            quant.append({"range": r, "q": q, "exact": exact[i], "ecm": ours[i], "ecm_rank_err": e_ours,
                          "approx_percentile": theirs[i], "ap_rank_err": e_ap, "ecm_query_ms": round(ours_ms, 1),
                          "ap_rows_per_s": round(r / ap_s)})
            lines.append(f"| {r:,} | {q} | {exact[i]:.3f} | {ours[i]:.3f} | {e_ours:.4f} | {theirs[i]:.3f} | {e_ap:.4f} | "
                         f"{ours_ms:.0f} | {r / ap_s:,.0f} |")
    # ---------------------------------------------------------------- 3. top-k recall / precision
    spark.sql(f"""SELECT dyadic_agg(key, ts, {window}, {EPS}, {DELTA}) AS si,
                         dyadic_agg(page, ts, {window}, {EPS}, {DELTA}) AS ss FROM dy""").cache().createOrReplaceTempView("dk")
    spark.table("dk").count()
    floor = spark.sql("SELECT sketch_info(ss).candidate_recall_floor FROM dk").first()[0]
    lines += ["", f"## Top-{K} beside exact GROUP BY ... ORDER BY count DESC LIMIT {K} (string sketch: 1024 candidates, "
                  f"candidate_recall_floor {floor:,.1f} rows)", "",
              "recall: returned keys among the exact top-k (ties broken by key); precision: returned keys whose count "
              "reaches the exact k-th count", "",
              "| range (rows) | keys | recall | precision | query ms | exact query ms |", "|---|---|---|---|---|---|"]
    topk = []
    for col, sk, kt in (("key", "si", "bigint"), ("page", "ss", "string")):
        for j in range(1, 7):
            r = 10 ** j
            if r > ROWS:
                break
            t0 = time.perf_counter()
            got = [x.key for x in spark.sql(f"SELECT ecm_top_k({sk}, {K}, {r}, key_type => '{kt}') AS t FROM dk").first().t]
            q_ms = (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            exact = spark.sql(f"SELECT {col} AS k, count(*) AS c FROM dy WHERE ts > {now - r} GROUP BY {col} "
                              f"ORDER BY c DESC, k LIMIT {K}").collect()
            e_ms = (time.perf_counter() - t0) * 1000
            kth = exact[-1].c
            counts = {row.k: row.c for row in spark.sql(
                f"SELECT {col} AS k, count(*) AS c FROM dy WHERE ts > {now - r} GROUP BY {col} HAVING count(*) >= {kth}").collect()}
            recall = len(set(got) & {row.k for row in exact}) / len(exact)
            precision = sum(1 for k in got if counts.get(k, 0) >= kth) / max(1, len(got))
            topk.append({"range": r, "keys": kt, "recall": recall, "precision": precision, "returned": len(got),
                         "query_ms": round(q_ms, 1), "exact_ms": round(e_ms, 1)})
            lines.append(f"| {r:,} | {kt} | {recall:.2f} | {precision:.2f} | {q_ms:.0f} | {e_ms:.0f} |")
    text = "\n".join(lines)
    print(text)
    write_results("dyadic", text, {"rows": ROWS, "runs": RUNS, "epsilon": EPS, "delta": DELTA, "speed": speed,
                                   "quantile_sketch_bytes": qsize, "quantile_build_rows_per_s": round(ROWS / build_s),
                                   "quantile_rank_error_bound": bound, "quantiles": quant,
                                   "candidate_recall_floor": floor, "top_k": topk})
    spark.stop()


if __name__ == "__main__":
    main()
