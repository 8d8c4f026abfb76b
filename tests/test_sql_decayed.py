"""decayed_agg / decayed_merge and the decayed queries in Spark SQL, against exact decayed answers
computed by Spark SQL over the DISTINCT rows, for streams with 30 % duplicate rows spread over 2 to
64 sites, shuffled and late (docs/design/decayed.md, "Decayed sketch")."""
from __future__ import annotations

import numpy as np
import pytest
from pyspark.sql import functions as SF

from conftest import error_message, rows_df

from ecmsketch import functions as E

N_DISTINCT = 4000
SPAN = 5000
EPS = 0.1
DELTA = 0.05


@pytest.fixture(scope="module")
def rows(spark):
    rng = np.random.default_rng(23)
    ids = rng.permutation(10 * N_DISTINCT)[:N_DISTINCT].astype(np.int64)
    w = rng.integers(1, 6, size=N_DISTINCT)
    v = np.where(rng.random(N_DISTINCT) < 0.2, 7, rng.integers(1, 60, size=N_DISTINCT)).astype(np.int64)
    # denser recently, and late: timestamps are not in arrival order
    ts = (SPAN - 1 - (rng.random(N_DISTINCT) * rng.random(N_DISTINCT) * SPAN).astype(np.int64)).astype(np.int64)
    dup = rng.integers(0, N_DISTINCT, size=int(N_DISTINCT * 0.3 / 0.7))
    idx = rng.permutation(np.concatenate([np.arange(N_DISTINCT), dup]))
    site = rng.integers(0, 64, size=len(idx))
    cols = {"id": ids[idx], "w": w[idx], "v": v[idx], "ts": ts[idx], "site": site}
    df = rows_df(spark, cols, "id bigint, w int, v bigint, ts bigint, site int", partitions=4)
    df.createOrReplaceTempView("decay_rows")
    spark.sql("SELECT DISTINCT id, w, v, ts FROM decay_rows").createOrReplaceTempView("decay_distinct")
    return df


def _sk(spark, df, **kw):
    return df.agg(E.decayed_agg("w", "ts", EPS, DELTA, value="v", id="id", max_weight=8, **kw).alias("s")).first().s


def _sites(spark, df, nsites, **kw):
    agg = E.decayed_agg("w", "ts", EPS, DELTA, value="v", id="id", max_weight=8, **kw)
    return (df.withColumn("g", SF.col("site") % nsites).groupBy("g").agg(agg.alias("s"))
            .agg(E.decayed_merge("s").alias("s")).first().s)


def _q(spark, sk, sql):
    spark.createDataFrame([(sk,)], "s binary").createOrReplaceTempView("decay_sk")
    return spark.sql(f"SELECT {sql} FROM decay_sk").first()


def _exact(spark, weight_expr, where="true"):
    return spark.sql(f"SELECT sum({weight_expr}) AS x FROM decay_distinct WHERE ts <= {SPAN - 1} AND ({where})").first().x


DECAYS = [("window", 300, "CASE WHEN {now} - ts < 300 THEN w ELSE 0 END"),
          ("exp", 400, "w * pow(2, -({now} - ts) / 400.0)"),
          ("poly", 1.0, "w * pow({now} - ts + 1, -1.0)")]


@pytest.mark.parametrize("nsites", [2, 16, 64])
def test_general_sketch_sums_and_merge_bytes(spark, rows, nsites):
    one = _sk(spark, rows.orderBy(SF.rand(nsites)))
    merged = _sites(spark, rows, nsites)
    # lossless and duplicate-insensitive: the per-site merge has the bytes of one aggregate over all rows
    assert merged == one
    now = SPAN - 1
    for name, p, expr in DECAYS:
        want = _exact(spark, expr.format(now=now))
        got = _q(spark, merged, f"decayed_sum(s, '{name}', {p}) AS x").x
        assert abs(got - want) <= EPS * want, (name, got, want)


def test_fixed_decay_sketches(spark, rows):
    now = SPAN - 1
    for name, p, expr in DECAYS:
        sk = _sites(spark, rows, 8, decay=name, decay_param=p)
        # the integral decay the sketch is built for: floor(w * resolution * g) / resolution (the window
        # keeps integer weights)
        integral = expr.format(now=now) if name == "window" else f"floor(1024 * ({expr.format(now=now)})) / 1024"
        want = _exact(spark, integral)
        r = _q(spark, sk, f"decayed_sum(s) AS a, decayed_sum(s, '{name}', {p}) AS b, decayed_sum(s, '{name}', {p}, {now}) AS c")
        assert r.a == r.b == r.c
        assert abs(r.a - want) <= EPS * want, (name, r.a, want)


def test_selectivity_quantile_frequent(spark, rows):
    now = SPAN - 1
    for sk, name, p, expr in [(_sites(spark, rows, 4), "exp", 400, DECAYS[1][2]),
                              (_sites(spark, rows, 4, decay="exp", decay_param=400), "exp", 400, DECAYS[1][2])]:
        e = expr.format(now=now)
        tot = _exact(spark, e)
        r = _q(spark, sk, f"""decayed_selectivity(s, 10, 30, '{name}', {p}) AS sel,
            decayed_quantile(s, 0.5, '{name}', {p}) AS med, decayed_frequent(s, 0.15, '{name}', {p}) AS fr""")
        sel = _exact(spark, e, "v BETWEEN 10 AND 30") / tot
        assert abs(r.sel - sel) <= EPS
        below = _exact(spark, e, f"v <= {r.med}") / tot
        strictly_below = (_exact(spark, e, f"v < {r.med}") or 0.0) / tot
        assert below >= 0.5 - EPS and strictly_below < 0.5 + EPS
        shares = {x.value: x.share for x in r.fr}
        assert 7.0 in shares  # value 7 holds about a fifth of the decayed weight
        for val in shares:
            assert _exact(spark, e, f"v = {val}") / tot >= 0.15 - EPS


@pytest.mark.parametrize("decay", [None, "exp"])
def test_conflicting_versions_of_an_id_count_once_in_any_order(spark, decay):
    # every id arrives in 1-3 versions (other weight, value or ts): the sketch keeps one version per
    # level by a fixed rule, so row order and the split into sites do not change its bytes
    rng = np.random.default_rng(41)
    n = 3000
    ids = rng.integers(0, 1200, size=n)
    cols = {"id": ids, "w": rng.integers(1, 6, size=n), "v": rng.integers(1, 60, size=n),
            "ts": rng.integers(0, SPAN, size=n), "site": rng.integers(0, 64, size=n)}
    df = rows_df(spark, cols, "id bigint, w int, v bigint, ts bigint, site int")
    kw = {} if decay is None else {"decay": "exp", "decay_param": 400}
    one = _sk(spark, df, **kw)
    assert _sk(spark, df.orderBy(SF.rand(3)), **kw) == one
    assert _sk(spark, df.orderBy(SF.col("ts").desc()), **kw) == one
    assert _sites(spark, df, 16, **kw) == one
    # few enough ids that level 0 holds them all: each id counts once, as its latest version
    small = rows_df(spark, {"id": [1, 1, 2, 2, 2], "w": [5, 7, 3, 4, 2], "v": [1, 2, 9, 9, 9], "ts": [10, 20, 5, 30, 30]},
                    "id bigint, w int, v bigint, ts bigint")
    got = [small.orderBy(SF.rand(k)).agg(E.decayed_agg("w", "ts", EPS, DELTA, value="v", id="id", max_weight=8)
                                         .alias("s")).first().s for k in range(4)]
    assert len(set(got)) == 1
    # id 1: (7, ts 20); id 2 at ts 30: weights 4 and 2 tie on ts, the larger weight wins
    assert _q(spark, got[0], "decayed_sum(s, 'window', 1000, 30) AS x").x == 11.0


def test_timestamps_ages_in_seconds(spark):
    rng = np.random.default_rng(5)
    n = 3000
    secs = (1_700_000_000 + rng.integers(0, 3600, size=n)).astype(np.int64)
    df = rows_df(spark, {"id": np.arange(n), "sec": secs}, "id bigint, sec bigint")
    df = df.withColumn("ts", SF.col("sec").cast("timestamp"))
    sk = df.agg(E.decayed_agg(SF.lit(1), "ts", 0.1, 0.05, id="id").alias("s")).first().s
    now = int(secs.max())
    want = float(np.sum(2.0 ** (-(now - secs) / 600.0)))
    got = _q(spark, sk, "decayed_sum(s, 'exp', 600) AS x").x
    assert abs(got - want) <= 0.1 * want
    win = float(np.sum(now - secs < 900))
    assert abs(_q(spark, sk, "decayed_sum(s, 'window', 900) AS x").x - win) <= 0.1 * win


def test_nulls_skipped_and_bad_input(spark):
    df = spark.createDataFrame([(1, 10, 1), (None, 11, 2), (2, None, 3), (3, 12, None)], "w int, ts bigint, id bigint")
    sk = df.agg(E.decayed_agg("w", "ts", id="id").alias("s")).first().s
    assert _q(spark, sk, "decayed_sum(s, 'window', 100) AS x").x == 1.0  # level 0 holds everything: exact
    # INT timestamps, the id's rows counted once (fewer than tau distinct ids: level 0, exact)
    r = spark.sql("SELECT decayed_sum(decayed_agg(1, cast(id % 100 AS INT), id => id % 100), 'window', 1000) AS x "
                  "FROM range(300)").first()
    assert r.x == 100.0
    fixed = df.agg(E.decayed_agg("w", "ts", decay="exp", decay_param=10).alias("s")).first().s
    with pytest.raises(Exception) as ei:
        _q(spark, fixed, "decayed_sum(s, 'exp', 11) AS x")
    assert "was built with decay => 'exp', decay_param => 10.0" in error_message(ei)
    with pytest.raises(Exception) as ei:
        _q(spark, sk, "decayed_sum(s) AS x")
    assert "built without a decay" in error_message(ei)
    with pytest.raises(Exception) as ei:
        _q(spark, sk, "decayed_sum(s, 'linear', 1) AS x")
    assert "decay must be 'window', 'exp' or 'poly'" in error_message(ei)
    with pytest.raises(Exception) as ei:
        spark.sql("SELECT decayed_agg(1.5, 1) FROM range(3)").collect()
    assert "weight must be an integer type" in error_message(ei)
    with pytest.raises(Exception) as ei:
        spark.sql("SELECT decayed_agg(2000, id) FROM range(3)").collect()
    assert "max_weight" in error_message(ei)
    with pytest.raises(Exception) as ei:
        _q(spark, b"ECMS\x01\x07\x00\x00" + b"\x00" * 10, "decayed_sum(s, 'exp', 1) AS x")
    assert "corrupt sketch" in error_message(ei)
    with pytest.raises(Exception) as ei:
        spark.sql("SELECT decayed_merge(s) FROM (SELECT decayed_agg(1, id) AS s FROM range(3) "
                  "UNION ALL SELECT decayed_agg(1, id, 0.2) AS s FROM range(3))").collect()
    assert "different parameters: epsilon" in error_message(ei)
