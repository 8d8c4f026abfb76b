"""dyadic_merge of per-site dyadic_agg sketches across 2, 16 and 64 sites, against exact Spark SQL
answers over the union of the sites' rows (GROUP BY counts, exact ranks), with each site's rows in
time order, shuffled, or late (docs/design/dyadic.md, "Dyadic ECM-sketch": every bound is carried through
merges at the merge depth). Integer keys (heavy hitters, top-k, range counts, quantiles) and string
keys (heavy hitters return the original keys above the candidate recall floor)."""
from __future__ import annotations

import numpy as np
import pytest
from pyspark.sql import functions as SF

from conftest import bursty_ticks, rows_df

from ecmsketch import functions as E

N_ROWS = 24_000
SPAN = 12_000
WINDOW = 4_000
EPS = 0.1
DELTA = 0.05
BITS = 16
PHI = 0.03
RANGES = (200, WINDOW)
# every site count and every row order, each once (the full 3 x 3 grid took ten minutes of make test)
SITE_CASES = [(2, "late"), (16, "sorted"), (64, "shuffled")]


@pytest.fixture(scope="module")
def rows(spark):
    rng = np.random.default_rng(64)
    ts = bursty_ticks(rng, N_ROWS, SPAN)
    p = np.arange(1, 1001, dtype=np.float64) ** -1.1
    ids = rng.integers(-(1 << (BITS - 1)), 1 << (BITS - 1), size=1000)
    keys = ids[rng.choice(1000, size=N_ROWS, p=p / p.sum())].astype(np.int64)
    pages = np.array([f"/p/{k}" for k in keys], dtype=object)
    site = rng.integers(0, 64, size=N_ROWS)
    late = (np.arange(N_ROWS) % 40 == 0).astype(np.int64)  # one row in 40 arrives 1,500 rows later
    pos = np.arange(N_ROWS) + late * 1500
    df = rows_df(spark, {"k": keys, "page": pages, "ts": ts, "site": site, "pos": pos},
                 "k bigint, page string, ts bigint, site int, pos bigint", partitions=4)
    df.createOrReplaceTempView("dy_sites")
    return df


def _site_sketches(spark, df, sites, order, col):
    d = df.withColumn("s_id", SF.col("site") % sites)
    if order == "shuffled":
        d = d.orderBy(SF.rand(sites))
    elif order == "late":
        d = d.orderBy("pos")
    else:
        d = d.orderBy("ts")
    agg = E.dyadic_agg(col, "ts", WINDOW, EPS, DELTA, universe_bits=BITS, merge_levels=1, candidates=128)
    per_site = d.groupBy("s_id").agg(agg.alias("s"))
    return per_site.agg(E.dyadic_merge("s").alias("s"), SF.count("*").alias("n")).first()


def _exact(spark, col, r):
    now = spark.sql("SELECT max(ts) FROM dy_sites").first()[0]
    got = spark.sql(f"SELECT {col} AS k, count(*) AS c FROM dy_sites WHERE ts > {now - r} GROUP BY {col}").collect()
    return {x.k: x.c for x in got}


@pytest.mark.parametrize("sites,order", SITE_CASES)
def test_integer_keys_merged_across_sites(spark, rows, sites, order):
    merged = _site_sketches(spark, rows, sites, order, "k")
    assert merged.n == sites
    spark.createDataFrame([(merged.s,)], "s binary").createOrReplaceTempView("dy_m")
    info = spark.sql("SELECT sketch_info(s) AS i FROM dy_m").first().i
    assert info.merge_depth >= 1 and info.total_weight == N_ROWS
    e = info.total_error_bound
    for r in RANGES:
        freqs = _exact(spark, "k", r)
        a = sum(freqs.values())
        row = spark.sql(f"""SELECT ecm_total(s, {r}) AS t, ecm_heavy_hitters(s, {PHI}, {r}) AS hh, ecm_top_k(s, 5, {r}) AS top,
            ecm_range_count(s, -1000, 20000, {r}) AS rc, ecm_quantile(s, array(0.5, 0.9), {r}) AS q FROM dy_m""").first()
        assert abs(row.t - a) <= e * a + 1e-9
        got = {x.key: x for x in row.hh}
        gap = ((1 + e) / (1 - e)) ** 2 * (PHI + info.cm_epsilon) - PHI
        must = {k for k, f in freqs.items() if f >= (PHI + gap) * a}
        assert must <= set(got), (sites, order, r, must - set(got))
        assert all(x.lower <= freqs.get(k, 0) <= x.upper + 1e-9 for k, x in got.items())
        top = [x.key for x in row.top]
        bound = 2 * e * (1 + info.cm_epsilon) / (1 - e) + info.cm_epsilon
        assert max(f for k, f in freqs.items() if k not in top) - min(freqs.get(k, 0) for k in top) <= bound * a
        f_rc = sum(f for k, f in freqs.items() if -1000 <= k <= 20000)
        assert (1 - e) * f_rc - 1e-9 <= row.rc <= f_rc + info.range_error_bound * a + 1e-9
        ks = np.array(sorted(freqs))
        cum = np.cumsum([freqs[k] for k in ks])
        for q, v in zip((0.5, 0.9), row.q):
            i = np.searchsorted(ks, v, side="right")
            at_most = int(cum[i - 1]) if i > 0 else 0
            j = np.searchsorted(ks, v, side="left")
            below = int(cum[j - 1]) if j > 0 else 0
            assert below < (q + 2 * e / (1 - e)) * a + 1e-9 and at_most >= (q - info.quantile_rank_error_bound) * a - 1e-9


@pytest.mark.parametrize("sites,order", SITE_CASES)
def test_string_keys_merged_across_sites(spark, rows, sites, order):
    merged = _site_sketches(spark, rows, sites, order, "page")
    spark.createDataFrame([(merged.s,)], "s binary").createOrReplaceTempView("dy_ms")
    info = spark.sql("SELECT sketch_info(s) AS i FROM dy_ms").first().i
    assert info.key_type == "string" and info.candidates == 128
    floor = info.candidate_recall_floor
    e = info.total_error_bound
    for r in RANGES:
        freqs = _exact(spark, "page", r)
        a = sum(freqs.values())
        row = spark.sql(f"""SELECT ecm_heavy_hitters(s, {PHI}, {r}, key_type => 'string') AS hh,
            ecm_top_k(s, 5, {r}, key_type => 'string') AS top FROM dy_ms""").first()
        got = {x.key: x for x in row.hh}
        gap = ((1 + e) / (1 - e)) ** 2 * (PHI + info.cm_epsilon) - PHI
        must = {k for k, f in freqs.items() if f >= (PHI + gap) * a and f > floor}
        assert must <= set(got), (sites, order, r, floor, must - set(got))
        assert all(k in freqs and x.lower <= freqs[k] <= x.upper + 1e-9 for k, x in got.items())
        top = [x.key for x in row.top]
        assert len(top) == 5 and max(freqs, key=freqs.get) in top
