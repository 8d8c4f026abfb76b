"""ecmsketch demo: sliding-window sketches of a multi-site stream, summarised per site and merged.

33 web mirrors log 3,000,000 requests (Zipf-distributed URLs, bursty timestamps in seconds). Each
site is summarised with ecm_agg in local Spark; the 33 site sketches are merged with ecm_merge (the
way sketches from separate clusters would be combined); then point, total and self-join queries for
ranges of 10^k seconds are compared with exact answers computed by Spark SQL over the raw events,
next to the bound the merged sketch certifies. Finally distinct URLs per range over all sites, from
per-site distinct_agg sketches merged with distinct_merge.

Run: make demo
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from pyspark.sql import SparkSession  # noqa: E402

import ecmsketch  # noqa: E402
from ecmsketch import EcmSketch  # noqa: E402

EVENTS = int(os.environ.get("DEMO_EVENTS", "3000000"))
SITES = 33
WINDOW = 1_000_000  # seconds, as in the ECM paper's experiments
EPS, DELTA = 0.05, 0.05


def main() -> None:
    spark = (ecmsketch.configure(SparkSession.builder)
             .master("local[2]").appName("ecmsketch-demo")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "8")
             .config("spark.driver.memory", "3g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")

    # Bursty time: the request rate swings between ~2 and ~12 per second, plus a flash crowd.
    spark.sql(f"""
      SELECT cast(id % {SITES} AS INT) AS site,
             concat('/page/', cast(least(floor(pow(1.0 - rand(7), -1.0 / 1.1)), 100000) AS BIGINT)) AS url,
             cast(floor(id * 0.3 + 40000 * sin(id / 180000.0)
                        - CASE WHEN id > {int(EVENTS * 0.8)} THEN (id - {int(EVENTS * 0.8)}) * 0.25 ELSE 0 END) AS BIGINT) AS ts
      FROM range({EVENTS})
    """).cache().createOrReplaceTempView("events")
    n = spark.table("events").count()
    now = spark.sql("SELECT max(ts) FROM events").first()[0]
    print(f"{n:,} events from {SITES} sites over {now:,} seconds; window {WINDOW:,} s; "
          f"epsilon {EPS}, delta {DELTA}")

    t0 = time.time()
    # 1. every site summarises its own stream (budgeting one cross-site merge level)
    spark.sql(f"""
      SELECT site, ecm_agg(url, ts, {WINDOW}, {EPS}, {DELTA}, merge_levels => 1) AS sketch
      FROM events GROUP BY site
    """).cache().createOrReplaceTempView("site_sketches")
    sizes = spark.sql("SELECT sum(length(sketch)), max(sketch_info(sketch).merge_depth) FROM site_sketches").first()
    t1 = time.time()
    # 2. merge across sites (order-preserving)
    spark.sql("SELECT ecm_merge(sketch) AS sketch FROM site_sketches").cache().createOrReplaceTempView("merged")
    info = spark.sql("SELECT sketch_info(sketch) AS i FROM merged").first().i
    t2 = time.time()
    print(f"site sketches: {sizes[0]:,} bytes in all (merge depth <= {sizes[1]}), built in {t1 - t0:.1f}s; "
          f"merged sketch: {info.size_bytes:,} bytes, {info.width}x{info.depth} cells, merge depth {info.merge_depth} "
          f"of {info.planned_merge_levels} planned, in {t2 - t1:.1f}s")
    print(f"certified: |point error| <= {info.point_error_bound:.4f} x total in range (probability >= {1 - DELTA}), "
          f"|total error| <= {info.total_error_bound:.4f} x total, "
          f"|self-join error| <= {info.inner_product_error_bound:.4f} x total^2 (optimized for point queries)\n")

    top = [r.url for r in spark.sql(
        f"SELECT url FROM events WHERE ts > {now} - 10000 GROUP BY url ORDER BY count(*) DESC LIMIT 3").collect()]
    probes = top + ["/page/50", "/page/5000"]
    sketch_bytes = spark.table("merged").first().sketch
    local = EcmSketch.from_bytes(sketch_bytes)  # the same bytes, queried in Python without Spark

    header = f"{'range (s)':>10} {'query':<22} {'estimate':>14} {'exact':>14} {'|error|':>11} {'bound':>12}"
    print(header)
    print("-" * len(header))
    worst = 0.0
    for k in range(1, 7):
        r = 10 ** k
        exact_total = spark.sql(f"SELECT count(*) FROM events WHERE ts > {now} - {r}").first()[0]
        exact = {row.url: row.c for row in spark.sql(
            f"SELECT url, count(*) AS c FROM events WHERE ts > {now} - {r} GROUP BY url").collect()}
        f2 = float(sum(c * c for c in exact.values()))
        est = spark.sql(f"""
          SELECT ecm_total(sketch, {r}) AS total, ecm_self_join(sketch, {r}) AS f2,
                 {", ".join(f"ecm_point(sketch, '{u}', {r}) AS p{i}" for i, u in enumerate(probes))}
          FROM merged""").first()
        bound_p = info.point_error_bound * exact_total
        rows = [("total", est.total, exact_total, info.total_error_bound * exact_total),
                ("self-join (F2)", est.f2, f2, info.inner_product_error_bound * exact_total ** 2)]
        rows += [(f"point {u}", est[f"p{i}"], exact.get(u, 0), bound_p) for i, u in enumerate(probes)]
        for name, e, x, b in rows:
            err = abs(e - x)
            worst = max(worst, err / b if b else 0.0)
            print(f"{r:>10,} {name:<22} {e:>14,.1f} {x:>14,} {err:>11,.1f} {b:>12,.1f}")
        # the same bytes, queried through JPype, agree with SQL
        assert abs(local.point(probes[0], range=r) - est.p0) < 1e-9
    print(f"\nworst |error| / certified bound over all queries above: {worst:.3f}")

    # 3. distinct URLs per range over all sites: per-site distinct_agg, merged losslessly
    t3 = time.time()
    spark.sql(f"""SELECT distinct_merge(d) AS d FROM (
                    SELECT site, distinct_agg(url, ts, {WINDOW}) AS d FROM events GROUP BY site)""") \
        .cache().createOrReplaceTempView("distinct_merged")
    dinfo = spark.sql("SELECT sketch_info(d) AS i FROM distinct_merged").first().i
    print(f"\ndistinct URLs (distinct_agg per site, distinct_merge; {dinfo.size_bytes:,} bytes, "
          f"{dinfo.wave_instances} instances, built in {time.time() - t3:.1f}s): "
          f"|error| <= {dinfo.epsilon} x exact with probability >= {1 - dinfo.delta}")
    print(f"{'range (s)':>10} {'estimate':>12} {'exact':>10} {'rel. error':>11}")
    dworst = 0.0
    for k in range(1, 7):
        r = 10 ** k
        row = spark.sql(f"""SELECT (SELECT distinct_count(d, {r}) FROM distinct_merged) AS est,
                                   count(DISTINCT url) AS exact FROM events WHERE ts > {now} - {r}""").first()
        rel = abs(row.est - row.exact) / row.exact
        dworst = max(dworst, rel)
        print(f"{r:>10,} {row.est:>12,.1f} {row.exact:>10,} {rel:>11.4f}")
    print(f"worst relative error of the distinct counts: {dworst:.4f} (epsilon {dinfo.epsilon})")
    spark.stop()


if __name__ == "__main__":
    main()
