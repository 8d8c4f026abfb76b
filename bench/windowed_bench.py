"""Windowed quantiles and top-k beside Spark's own sketches, on one set of cached rows:

one hour of ROWS requests (TIMESTAMP ts uniform over the hour, so the rows are in no time order) at 3
sites, Zipf(1.1) page ids over 100,000 pages (STRING keys '/p/<id>'), log-normal latencies.

1. quantile_agg per site (merge_levels 1), then quantile_merge: per-site and merged bytes, the
   certified rank error, the measured worst rank error of the merged sketch for ranges from 1 s to
   the hour, and build rows/s beside kll_sketch_agg_double over the same rows (medians of interleaved
   runs); the per-minute KLL set a Spark user keeps instead (its bytes, and its rank error over the
   last m whole minutes, the only ranges it answers).
2. top_k_agg per site, then top_k_merge: bytes, the certified heavy-hitter error, the measured worst
   error of every key's estimate and of its interval, top-10 recall, and build rows/s beside
   approx_top_k; the per-minute approx_top_k_accumulate set (maxItemsTracked 10,000).
3. Build speed at BIG_ROWS rows (10^7 by default), the same shape.

Writes bench/results/windowed.{md,json} and docs/figures/windowed-error-vs-range.png. Run with
`make bench` (WINDOWED_ROWS, WINDOWED_BIG_ROWS, WINDOWED_RUNS override the sizes); `--figure-only`
redraws the figure from the JSON.
"""
from __future__ import annotations

import os
import statistics

import numpy as np

from _common import session, timed, write_results  # noqa: E402  (bench/ is the script's directory)

ROWS = int(os.environ.get("WINDOWED_ROWS", "1000000"))
BIG_ROWS = int(os.environ.get("WINDOWED_BIG_ROWS", "10000000"))
RUNS = int(os.environ.get("WINDOWED_RUNS", "3"))
HOUR_US = 3_600_000_000
Q_EPS = (0.05, 0.01, 0.005)
K_EPS = (0.01, 0.001)
QS = [round(0.01 * i, 2) for i in range(1, 100)]
RANGES = [("1 s", 1), ("10 s", 10), ("1 min", 60), ("5 min", 300), ("30 min", 1800), ("1 h", 3600)]
FIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "figures", "windowed-error-vs-range.png")


def make_rows(spark, n: int, view: str) -> None:
    """Caches `n` rows of the shape above as the temp view `view`."""
    spark.sql(f"""SELECT timestamp_micros(1700000000000000 + cast(rand(1) * {HOUR_US} AS BIGINT)) AS ts,
                         cast(id % 3 AS INT) AS site,
                         cast(floor(pow(1.0 - rand(2), -1.0 / 1.1)) % 100000 AS BIGINT) AS pid,
                         round(exp(randn(3) + 3.0), 3) AS lat
                  FROM range(0, {n}, 1, 4)""").selectExpr(
        "ts", "site", "pid", "concat('/p/', pid) AS page", "lat").cache().createOrReplaceTempView(view)
    spark.table(view).count()


def speed(spark, queries: dict) -> dict:
    """Median seconds of each query over RUNS interleaved runs (after one warm-up each)."""
    for q in queries.values():
        spark.sql(q).collect()
    times = {k: [] for k in queries}
    for _ in range(RUNS):
        for k, q in queries.items():
            times[k].append(timed(spark, q))
    return {k: statistics.median(v) for k, v in times.items()}


def sites_and_merge(spark, per_site: str, merge: str, sketch: str, bound: str, view: str):
    """Caches the per-site sketches of the query `per_site` (column s) and their merge by `merge` as
    the temp view `view`; returns (the two cached frames, the largest site's bytes, the merged bytes,
    the merged sketch's sketch_info field `bound`). `sketch` is the bytes of column s (s or s.sketch)."""
    sites = spark.sql(per_site).cache()
    sites.createOrReplaceTempView(view + "_sites")
    site_max = spark.sql(f"SELECT max(length({sketch})) FROM {view}_sites").first()[0]
    m = spark.sql(f"SELECT {merge}(s) AS s FROM {view}_sites").cache()
    m.createOrReplaceTempView(view)
    merged, b = spark.sql(f"SELECT length({sketch}), sketch_info(s).{bound} FROM {view}").first()
    return (sites, m), site_max, merged, b


def rank_error(vals: np.ndarray, answers, n: int) -> float:
    """Worst distance, over QS, from q n to the exact rank interval of the returned value, over n."""
    worst = 0.0
    for q, x in zip(QS, answers):
        lt = np.searchsorted(vals, x, side="left")
        le = np.searchsorted(vals, x, side="right")
        target = q * n
        worst = max(worst, max(0.0, lt - target, target - le) / n)
    return worst


def main() -> None:
    """Runs every measure, writes the results and draws the figure."""
    spark = session("ecmsketch-windowed-bench", "6g")
    make_rows(spark, ROWS, "req")
    pdf = spark.table("req").selectExpr("unix_micros(ts) AS tsu", "pid", "lat").toPandas()
    ts_abs = pdf["tsu"].to_numpy().astype(np.int64)
    ts_s = ts_abs - ts_abs.min()
    lat = pdf["lat"].to_numpy()
    pid = pdf["pid"].to_numpy()
    now = int(ts_s.max())
    qarr = "array(" + ", ".join(str(q) for q in QS) + ")"
    out = {"rows": ROWS, "big_rows": BIG_ROWS, "runs": RUNS}
    lines = [f"# Windowed quantiles and top-k beside Spark's sketches",
             "",
             f"{ROWS:,} cached rows: one hour, TIMESTAMP ts uniform over it (rows in no time order), 3 sites, "
             "Zipf(1.1) page ids over 100,000 STRING pages, log-normal latencies; local[2]; medians of "
             f"{RUNS} interleaved runs. Machine load at start: {os.getloadavg()[0]:.2f}.", ""]

    # ---------------------------------------------------------------- 1. quantiles
    per_site = "SELECT site, quantile_agg(lat, ts, INTERVAL 1 HOUR, {e}, merge_levels => 1) AS s FROM req GROUP BY site"
    qspeed = speed(spark, {**{f"quantile_agg eps {e}": f"SELECT site, length(quantile_agg(lat, ts, INTERVAL 1 HOUR, {e}, merge_levels => 1)) FROM req GROUP BY site" for e in Q_EPS},
                           "kll_sketch_agg_double": "SELECT site, length(kll_sketch_agg_double(lat)) FROM req GROUP BY site"})
    kll_s = qspeed["kll_sketch_agg_double"]
    lines += ["## Quantiles: quantile_agg per site, merged with quantile_merge", "",
              "| epsilon | bytes per site (max) | merged bytes | certified rank error | build s | rows/s | vs kll_sketch_agg_double |",
              "|---|---|---|---|---|---|---|"]
    qrows, qerr = [], {}
    for e in Q_EPS:
        cached, site_max, merged, bound = sites_and_merge(spark, per_site.format(e=e), "quantile_merge", "s",
                                                          "quantile_rank_error_bound", "qm")
        t = qspeed[f"quantile_agg eps {e}"]
        qrows.append({"epsilon": e, "site_bytes": site_max, "merged_bytes": merged, "bound": bound, "s": t,
                      "rows_per_s": ROWS / t, "vs_kll": kll_s / t})
        lines.append(f"| {e} | {site_max:,} | {merged:,} | {bound} | {t:.2f} | {ROWS / t:,.0f} | {kll_s / t:.2f}x |")
        errs = []
        for name, r in RANGES:
            ans = spark.sql(f"SELECT ecm_quantile(s, {qarr}, INTERVAL {r} SECONDS) AS q FROM qm").first().q
            mask = ts_s > now - r * 1_000_000
            vals = np.sort(lat[mask])
            errs.append({"range": name, "seconds": r, "rows": int(mask.sum()), "worst": rank_error(vals, ans, len(vals))})
        qerr[e] = errs
        for c in cached:
            c.unpersist()
    lines += ["", f"kll_sketch_agg_double (k = 200, one sketch per site): {kll_s:.2f} s, {ROWS / kll_s:,.0f} rows/s.", "",
              "Rank error of the merged sketch: the worst over q = 0.01 .. 0.99 of the distance from q n to the "
              "returned value's exact rank interval, over n (the certified bound is epsilon for every range).", "",
              "| range | rows | " + " | ".join(f"eps {e}" for e in Q_EPS) + " |", "|---|---|" + "---|" * len(Q_EPS)]
    for i, (name, r) in enumerate(RANGES):
        lines.append(f"| {name} | {qerr[Q_EPS[0]][i]['rows']:,} | " + " | ".join(f"{qerr[e][i]['worst']:.5f}" for e in Q_EPS) + " |")
    out["quantiles"] = {"rows": qrows, "errors": {str(e): v for e, v in qerr.items()}, "kll_s": kll_s}

    # the per-minute KLL set: 60 sketches (sites merged per minute); it answers the last m whole minutes
    spark.sql("SELECT date_trunc('MINUTE', ts) AS minute, kll_sketch_agg_double(lat) AS k FROM req GROUP BY 1") \
        .cache().createOrReplaceTempView("kll_min")
    kll_bytes, kll_n = spark.sql("SELECT sum(length(k)), count(*) FROM kll_min").first()
    kll_err = []
    minute_of = ts_abs // 60_000_000  # the minutes date_trunc makes
    minutes = np.sort(np.unique(minute_of))
    for name, r in RANGES:
        m = r // 60
        if m < 1:
            kll_err.append({"range": name, "worst": None})
            continue
        qs = ", ".join(f"kll_sketch_get_quantile_double(k, {q})" for q in QS)
        ans = spark.sql(f"SELECT array({qs}) AS q FROM (SELECT kll_merge_agg_double(k) AS k FROM "
                        f"(SELECT k FROM kll_min ORDER BY minute DESC LIMIT {m}))").first().q
        first_minute = minutes[-m]
        vals = np.sort(lat[minute_of >= first_minute])
        kll_err.append({"range": name, "worst": rank_error(vals, ans, len(vals))})
    lines += ["", f"Per-minute kll_sketch_agg_double set: {kll_n} sketches, {kll_bytes:,} bytes in all; rank error "
              "over the last m whole minutes (it cannot answer a range that does not start on a minute):", "",
              "| range | worst rank error |", "|---|---|"]
    lines += ["| %s | %s |" % (x["range"], "n/a" if x["worst"] is None else "%.5f" % x["worst"]) for x in kll_err]
    out["kll_minutes"] = {"bytes": kll_bytes, "sketches": kll_n, "errors": kll_err}

    # ---------------------------------------------------------------- 2. top-k
    kspeed = speed(spark, {**{f"top_k_agg eps {e}": f"SELECT site, length(top_k_agg(page, ts, INTERVAL 1 HOUR, {e}, merge_levels => 1).sketch) FROM req GROUP BY site" for e in K_EPS},
                           "approx_top_k": "SELECT site, approx_top_k(page, 10) FROM req GROUP BY site"})
    atk = kspeed["approx_top_k"]
    lines += ["", "## Top-k: top_k_agg per site (STRING pages), merged with top_k_merge", "",
              "| epsilon | bytes per site (max) | merged bytes | certified error | build s | rows/s | vs approx_top_k |",
              "|---|---|---|---|---|---|---|"]
    krows, kerr = [], {}
    for e in K_EPS:
        cached, site_max, merged, bound = sites_and_merge(
            spark, f"SELECT site, top_k_agg(page, ts, INTERVAL 1 HOUR, {e}, merge_levels => 1) AS s FROM req GROUP BY site",
            "top_k_merge", "s.sketch", "heavy_hitter_error_bound", "km")
        t = kspeed[f"top_k_agg eps {e}"]
        krows.append({"epsilon": e, "site_bytes": site_max, "merged_bytes": merged, "bound": bound, "s": t,
                      "rows_per_s": ROWS / t, "vs_approx_top_k": atk / t})
        lines.append(f"| {e} | {site_max:,} | {merged:,} | {bound:.6f} | {t:.2f} | {ROWS / t:,.0f} | {atk / t:.2f}x |")
        errs = []
        for name, r in RANGES:
            top = spark.sql(f"SELECT ecm_top_k(s, 100000, INTERVAL {r} SECONDS) AS t FROM km").first().t
            mask = ts_s > now - r * 1_000_000
            ids, counts = np.unique(pid[mask], return_counts=True)
            exact = dict(zip((f"/p/{i}" for i in ids.tolist()), counts.tolist()))
            n = int(mask.sum())
            worst = max((abs(it.estimate - exact.get(it.key, 0)) for it in top), default=0.0) / n
            held = {it.key for it in top}
            absent = max((c for k, c in exact.items() if k not in held), default=0) / n  # estimate 0 for keys not listed
            outside = sum(1 for it in top if not it.lower <= exact.get(it.key, 0) <= it.upper)
            order = sorted(counts.tolist(), reverse=True)
            clear = {k for k, c in exact.items() if len(order) > 10 and c > order[10] + 2 * bound * n}
            recall = len(clear & {it.key for it in top[:10]}) / len(clear) if clear else 1.0
            errs.append({"range": name, "seconds": r, "rows": n, "worst": max(worst, absent), "outside": outside,
                         "clear_top10": len(clear), "recall": recall})
        kerr[e] = errs
        for c in cached:
            c.unpersist()
    lines += ["", f"approx_top_k(page, 10) (one per site): {atk:.2f} s, {ROWS / atk:,.0f} rows/s.", "",
              "Error of the merged sketch: the worst |estimate - exact| / n over every key (keys not listed count as "
              "estimate 0), the intervals [lower, upper] that missed the exact count, and top-10 recall of the keys "
              "clearly in the top 10 (count above the 11th's by more than twice the certified error).", "",
              "| range | rows | " + " | ".join(f"eps {e}: worst, missed, recall" for e in K_EPS) + " |",
              "|---|---|" + "---|" * len(K_EPS)]
    for i, (name, r) in enumerate(RANGES):
        cells = [f"{kerr[e][i]['worst']:.5f}, {kerr[e][i]['outside']}, {kerr[e][i]['recall']:.2f} ({kerr[e][i]['clear_top10']})" for e in K_EPS]
        lines.append(f"| {name} | {kerr[K_EPS[0]][i]['rows']:,} | " + " | ".join(cells) + " |")
    out["top_k"] = {"rows": krows, "errors": {str(e): v for e, v in kerr.items()}, "approx_top_k_s": atk}
    acc_bytes, acc_n = spark.sql("SELECT sum(length(a.sketch)), count(*) FROM (SELECT date_trunc('MINUTE', ts) AS minute, "
                                 "approx_top_k_accumulate(page, 10000) AS a FROM req GROUP BY 1)").first()
    lines += ["", f"Per-minute approx_top_k_accumulate(page, 10000) set: {acc_n} sketches, {acc_bytes:,} bytes in all "
              "(whole minutes only)."]
    out["approx_top_k_minutes"] = {"bytes": acc_bytes, "sketches": acc_n}

    # ---------------------------------------------------------------- row order: the runs a site's sketch holds
    spark.table("req").sortWithinPartitions("ts").cache().createOrReplaceTempView("req_sorted")
    spark.table("req_sorted").count()
    order_q = {
        "quantile_agg eps 0.01": "SELECT max(length(s)), max(sketch_info(s).runs) FROM (SELECT quantile_agg(lat, ts, INTERVAL 1 HOUR, 0.01, merge_levels => 1) AS s FROM {t} GROUP BY site)",
        "top_k_agg eps 0.001": "SELECT max(length(s.sketch)), max(sketch_info(s).scales) FROM (SELECT top_k_agg(page, ts, INTERVAL 1 HOUR, 0.001, merge_levels => 1) AS s FROM {t} GROUP BY site)",
    }
    lines += ["", "## Row order: one site's sketch from rows in no time order, and sorted within each of the 4 partitions", "",
              "| sketch | rows in no order: bytes per site | sorted within partitions: bytes per site |", "|---|---|---|"]
    out["row_order"] = {}
    for k, q in order_q.items():
        a = spark.sql(q.format(t="req")).first()
        b = spark.sql(q.format(t="req_sorted")).first()
        out["row_order"][k] = {"unsorted": a[0], "sorted": b[0]}
        lines.append(f"| {k} | {a[0]:,} | {b[0]:,} |")
    lines += ["", "Either way a site's aggregate merges at least 4 runs that each span the hour, one per partition: "
              "both aggregates buffer up to 2^20 rows of a group in a partition, so their runs do not depend on the "
              "order. quantile_agg folds them into one run, top_k_agg into scales of one sketch's size."]
    spark.catalog.uncacheTable("req_sorted")

    # ---------------------------------------------------------------- 3. build speed at BIG_ROWS
    spark.catalog.uncacheTable("req")
    make_rows(spark, BIG_ROWS, "big")
    big = speed(spark, {
        "quantile_agg eps 0.01": "SELECT site, length(quantile_agg(lat, ts, INTERVAL 1 HOUR, 0.01, merge_levels => 1)) FROM big GROUP BY site",
        "kll_sketch_agg_double": "SELECT site, length(kll_sketch_agg_double(lat)) FROM big GROUP BY site",
        "top_k_agg eps 0.001": "SELECT site, length(top_k_agg(page, ts, INTERVAL 1 HOUR, 0.001, merge_levels => 1).sketch) FROM big GROUP BY site",
        "approx_top_k": "SELECT site, approx_top_k(page, 10) FROM big GROUP BY site"})
    lines += ["", f"## Build speed at {BIG_ROWS:,} rows (same shape)", "", "| query | median s | rows/s | ratio |", "|---|---|---|---|"]
    for k, base in (("quantile_agg eps 0.01", "kll_sketch_agg_double"), ("top_k_agg eps 0.001", "approx_top_k")):
        lines.append(f"| {k} | {big[k]:.2f} | {BIG_ROWS / big[k]:,.0f} | {big[base] / big[k]:.2f}x {base} |")
        lines.append(f"| {base} | {big[base]:.2f} | {BIG_ROWS / big[base]:,.0f} | |")
    out["big"] = big
    write_results("windowed", "\n".join(lines), out)
    figure(qerr, kerr, kll_err, qrows, krows)
    print("\n".join(lines))


def figure(qerr, kerr, kll_err, qrows, krows) -> None:
    """Draws the worst measured error against the range, beside the certified bounds."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    xs = [r for _, r in RANGES]
    for e, c in zip(Q_EPS, ("tab:blue", "tab:orange", "tab:green")):
        a.plot(xs, [max(x["worst"], 1e-6) for x in qerr[e]], "o-", color=c, label=f"quantile_agg eps {e}: measured")
        a.axhline(e, color=c, ls="--", lw=1)
    kx = [r for (_, r), x in zip(RANGES, kll_err) if x["worst"] is not None]
    a.plot(kx, [x["worst"] for x in kll_err if x["worst"] is not None], "s:", color="gray", label="per-minute KLL set (whole minutes)")
    a.set(xscale="log", yscale="log", xlabel="range (seconds)", ylabel="worst rank error / n",
          title="Quantiles: measured (solid) and certified (dashed)")
    a.text(1.0, 1.5e-6, "exact answers (error 0) drawn at 1e-6", fontsize=7, color="gray")
    a.legend(fontsize=7)
    for e, c in zip(K_EPS, ("tab:blue", "tab:orange")):
        b.plot(xs, [max(x["worst"], 1e-6) for x in kerr[e]], "o-", color=c, label=f"top_k_agg eps {e}: measured")
        bound = next(r["bound"] for r in krows if r["epsilon"] == e)
        b.axhline(bound, color=c, ls="--", lw=1)
    b.set(xscale="log", yscale="log", xlabel="range (seconds)", ylabel="worst |estimate - count| / n",
          title="Top-k: measured (solid) and certified (dashed)")
    b.text(1.0, 1.5e-6, "exact answers (error 0) drawn at 1e-6", fontsize=7, color="gray")
    b.legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(os.path.dirname(FIG), exist_ok=True)
    fig.savefig(FIG, dpi=110)


def figure_from_results() -> None:
    """Redraws the figure from bench/results/windowed.json (no Spark)."""
    import json
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "windowed.json")) as f:
        d = json.load(f)
    qerr = {float(e): v for e, v in d["quantiles"]["errors"].items()}
    kerr = {float(e): v for e, v in d["top_k"]["errors"].items()}
    figure(qerr, kerr, d["kll_minutes"]["errors"], d["quantiles"]["rows"], d["top_k"]["rows"])


if __name__ == "__main__":
    import sys
    if "--figure-only" in sys.argv:
        figure_from_results()
    else:
        main()
