"""dyadic_agg / dyadic_merge and the dyadic queries (heavy hitters, top-k, range counts, ranks,
quantiles) in Spark SQL, against exact answers computed in Python over the same rows, for rows in
time order, shuffled, late, and merged across sites (docs/design/dyadic.md, "Dyadic ECM-sketch")."""
from __future__ import annotations

import numpy as np
import pytest
from pyspark.sql import functions as SF

from conftest import bursty_ticks, rows_df

from ecmsketch import functions as E

N_ROWS = 30_000
SPAN = 20_000
WINDOW = 5_000
RANGES = (100, 1000, WINDOW)
EPS = 0.05
DELTA = 0.01
BITS = 20


@pytest.fixture(scope="module")
def stream():
    rng = np.random.default_rng(17)
    ts = bursty_ticks(rng, N_ROWS, SPAN)
    ranks = np.arange(1, 401, dtype=np.float64)
    p = ranks ** -1.1
    p /= p.sum()
    ids = rng.integers(-(1 << (BITS - 1)), 1 << (BITS - 1), size=400)  # signed keys scattered over the universe
    keys = ids[rng.choice(400, size=N_ROWS, p=p)].astype(np.int64)
    sites = rng.integers(0, 5, size=N_ROWS)
    return keys, ts, sites


@pytest.fixture(scope="module")
def sketches(spark, stream):
    keys, ts, sites = stream
    df = rows_df(spark, {"k": keys, "ts": ts, "site": sites}, "k bigint, ts bigint, site int", partitions=4)
    order = np.argsort(np.arange(N_ROWS) + np.where(np.arange(N_ROWS) % 50 == 0, 3000.5, 0.0), kind="stable")
    late = rows_df(spark, {"k": keys[order], "ts": ts[order], "site": sites[order]}, "k bigint, ts bigint, site int")
    agg = E.dyadic_agg("k", "ts", WINDOW, EPS, DELTA, universe_bits=BITS, merge_levels=1)
    out = {
        "sorted": df.agg(agg.alias("s")).first().s,
        "shuffled": df.orderBy(SF.rand(3)).agg(agg.alias("s")).first().s,
        "late": late.agg(agg.alias("s")).first().s,
        "sites": df.groupBy("site").agg(agg.alias("s")).agg(E.dyadic_merge("s").alias("s")).first().s,
    }
    return out


def _exact(stream, r):
    keys, ts, _ = stream
    now = int(ts.max())
    m = ts > now - r
    ks, counts = np.unique(keys[m], return_counts=True)
    return dict(zip(ks.tolist(), counts.tolist())), int(m.sum())


def _query(spark, sk, sql):
    spark.createDataFrame([(sk,)], "s binary").createOrReplaceTempView("dyadic_sk")
    return spark.sql(f"SELECT {sql} FROM dyadic_sk").first()


@pytest.mark.parametrize("order", ["sorted", "shuffled", "late", "sites"])
def test_dyadic_answers_within_certified_bounds(spark, stream, sketches, order):
    sk = sketches[order]
    info = _query(spark, sk, "sketch_info(s) AS i").i
    assert info.kind == "dyadic" and info.universe_bits == BITS and info.key_type == "bigint"
    assert info.heavy_hitter_error_bound <= EPS
    e = info.total_error_bound
    for r in RANGES:
        freqs, a = _exact(stream, r)
        row = _query(spark, sk, f"""ecm_total(s, {r}) AS t, ecm_heavy_hitters(s, 0.02, {r}) AS hh,
            ecm_top_k(s, 5, {r}) AS top, ecm_quantile(s, array(0.1, 0.5, 0.9, 0.99), {r}) AS q,
            ecm_range_count(s, -100000, 100000, {r}) AS rc, ecm_rank(s, 0, {r}) AS rk""")
        assert abs(row.t - a) <= e * a + 1e-9
        # heavy hitters: recall of every key >= (phi + eps) A (deterministic); each reported key's interval holds
        got = {x.key: x for x in row.hh}
        must = {k for k, f in freqs.items() if f >= (0.02 + EPS) * a}
        assert must <= set(got), (order, r, must - set(got))
        for k, x in got.items():
            assert x.lower <= freqs.get(k, 0) <= x.upper + 1e-9, (order, r, k, x)
        ests = [x.estimate for x in row.hh]
        assert ests == sorted(ests, reverse=True)
        # top-k: no key left out beats a returned one by more than the top-k bound
        top = [x.key for x in row.top]
        assert len(top) == 5
        cm = info.cm_epsilon
        bound = 2 * e * (1 + cm) / (1 - e) + cm
        left = max(f for k, f in freqs.items() if k not in top)
        assert left - min(freqs.get(k, 0) for k in top) <= bound * a
        exact_top = sorted(freqs, key=lambda k: (-freqs[k], k))[:5]
        print(f"{order} r={r}: top-5 recall {len(set(top) & set(exact_top))}/5, hh {len(got)} reported, {len(must)} required")
        # range count and rank: under-count <= e F, over-count within the certified range bound
        f_rc = sum(f for k, f in freqs.items() if -100000 <= k <= 100000)
        assert (1 - e) * f_rc - 1e-9 <= row.rc <= f_rc + info.range_error_bound * a + 1e-9
        f_rk = sum(f for k, f in freqs.items() if k <= 0)
        assert (1 - e) * f_rk - 1e-9 <= row.rk <= f_rk + info.range_error_bound * a + 1e-9
        # quantiles: R(v - 1) < (q + 2e/(1-e)) A and R(v) >= (q - rank bound) A
        sk_keys = np.array(sorted(freqs))
        cum = np.cumsum([freqs[k] for k in sk_keys])
        for q, v in zip((0.1, 0.5, 0.9, 0.99), row.q):
            i = np.searchsorted(sk_keys, v, side="right")
            at_most = int(cum[i - 1]) if i > 0 else 0
            j = np.searchsorted(sk_keys, v, side="left")
            below = int(cum[j - 1]) if j > 0 else 0
            assert below < (q + 2 * e / (1 - e)) * a + 1e-9, (order, r, q, v)
            assert at_most >= (q - info.quantile_rank_error_bound) * a - 1e-9, (order, r, q, v)
            print(f"  q={q}: rank error {max(below - q * a, q * a - at_most, 0) / a:.4f} A")


def test_dyadic_point_and_errors(spark, stream, sketches):
    sk = sketches["sorted"]
    freqs, a = _exact(stream, WINDOW)
    k = max(freqs, key=freqs.get)
    row = _query(spark, sk, f"ecm_point(s, {k}) AS p, ecm_point(s, array({k}, 1)) AS pa")
    assert row.p >= freqs[k] * (1 - EPS) and row.pa[0] == row.p
    df = spark.createDataFrame([(sk,)], "s binary")
    with pytest.raises(Exception, match="key_type => 'bigint'"):
        df.select(E.ecm_top_k("s", 3, key_type="double")).collect()
    with pytest.raises(Exception, match="outside the dyadic sketch's universe"):
        spark.range(1).select(E.dyadic_agg(SF.lit(1 << 40), "id", universe_bits=32)).collect()
    with pytest.raises(Exception, match="STRING or BINARY, got BOOLEAN"):
        spark.range(1).select(E.dyadic_agg(SF.lit(True), "id")).collect()
    with pytest.raises(Exception, match="or a dyadic ECM-sketch"):
        spark.range(10).agg(E.ecm_agg("id", "id").alias("s")).select(E.ecm_quantile("s", 0.5)).collect()


def test_dyadic_double_keys(spark):
    rng = np.random.default_rng(3)
    xs = np.round(np.exp(rng.normal(3, 1, size=5000)), 3)
    df = rows_df(spark, {"x": xs, "ts": np.arange(5000)}, "x double, ts bigint", partitions=2)
    row = df.agg(E.dyadic_agg("x", "ts", 10_000, 0.05).alias("s")).select(
        E.ecm_quantile("s", [0.5, 0.99]).alias("q"), E.sketch_info("s").alias("i"),
        E.ecm_range_count("s", 10.0, 30.0).alias("rc")).first()
    srt = np.sort(xs)
    for q, v in zip((0.5, 0.99), row.q):
        rank = np.searchsorted(srt, v, side="right") / len(xs)
        assert abs(rank - q) <= row.i.quantile_rank_error_bound + 2 ** -20, (q, v, rank)
        print(f"double q={q}: value {v}, exact quantile {np.quantile(xs, q):.4f}, rank error {abs(rank - q):.4f}")
    f = int(((xs >= 10.0) & (xs <= 30.0)).sum())
    assert (1 - row.i.total_error_bound) * f - 1e-9 <= row.rc <= f + row.i.range_error_bound * len(xs)
