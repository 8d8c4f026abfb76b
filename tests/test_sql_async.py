"""async_sum_agg / async_count_agg / async_quantile_agg / async_merge and their queries in Spark SQL
(docs/design/async.md, "Asynchronous streams"), against exact answers computed by Spark SQL over the same
rows: sorted, reversed, shuffled and late orders, and sites merged with async_merge."""
from __future__ import annotations

import numpy as np
import pytest
from pyspark.sql import functions as SF

from conftest import rows_df

from ecmsketch import functions as E

N_ROWS = 30_000
SPAN = 50_000
WINDOW = 20_000
RANGES = (200, 2_000, WINDOW)
EPS = 0.25
DELTA = 0.01
Q_EPS = 0.3
QS = (0.1, 0.5, 0.9)


@pytest.fixture(scope="module")
def data(spark):
    rng = np.random.default_rng(23)
    ts = rng.integers(0, SPAN, size=N_ROWS).astype(np.int64)
    v = rng.integers(1, 101, size=N_ROWS).astype(np.int64)
    lat = np.round(rng.lognormal(3.0, 1.0, size=N_ROWS), 3)
    ids = rng.permutation(N_ROWS).astype(np.int64)
    sites = rng.integers(0, 8, size=N_ROWS)
    cols = {"v": v, "ts": ts, "lat": lat, "id": ids, "site": sites}
    schema = "v bigint, ts bigint, lat double, id bigint, site int"
    srt = np.argsort(ts, kind="stable")
    # late: the newest 95 % in time order, then the oldest 5 %, newest of them first
    late = np.concatenate([srt[N_ROWS // 20:], srt[:N_ROWS // 20][::-1]])
    dfs = {
        "sorted": rows_df(spark, {k: c[srt] for k, c in cols.items()}, schema),
        "reversed": rows_df(spark, {k: c[srt[::-1]] for k, c in cols.items()}, schema),
        "shuffled": rows_df(spark, cols, schema),
        "late": rows_df(spark, {k: c[late] for k, c in cols.items()}, schema),
    }
    dfs["shuffled"].createOrReplaceTempView("async_rows")
    return dfs


def _aggs():
    return [E.async_sum_agg("v", "ts", WINDOW, EPS, DELTA).alias("s"),
            E.async_count_agg("ts", WINDOW, EPS, DELTA, id="id").alias("c"),
            E.async_count_agg("ts", WINDOW, EPS, DELTA).alias("cd"),
            E.async_quantile_agg("lat", "ts", WINDOW, Q_EPS, DELTA).alias("q")]


@pytest.fixture(scope="module")
def sketches(data):
    out = {name: df.agg(*_aggs()).first() for name, df in data.items()}
    per_site = data["shuffled"].groupBy("site").agg(*_aggs())
    out["sites"] = per_site.agg(*[E.async_merge(c).alias(c) for c in ("s", "c", "cd", "q")]).first()
    return out


def _exact(spark, r):
    now = spark.sql("SELECT max(ts) AS m FROM async_rows").first().m
    lo = now - r  # the range (now - r, now], now = the newest ts
    return spark.sql(f"""
        SELECT (SELECT max(ts) FROM async_rows) AS now,
               (SELECT sum(v) FROM (SELECT DISTINCT v, ts FROM async_rows WHERE ts > {lo})) AS s,
               (SELECT count(*) FROM async_rows WHERE ts > {lo}) AS c,
               (SELECT count(DISTINCT ts) FROM async_rows WHERE ts > {lo}) AS cd,
               (SELECT sort_array(collect_list(lat)) FROM (SELECT DISTINCT lat, ts FROM async_rows WHERE ts > {lo})) AS lats
    """).first()


def _query(spark, row, sql):
    spark.createDataFrame([(row.s, row.c, row.cd, row.q)], "s binary, c binary, cd binary, q binary") \
        .createOrReplaceTempView("async_sk")
    return spark.sql(f"SELECT {sql} FROM async_sk").first()


def test_every_order_and_the_site_merge_give_the_same_bytes(sketches):
    ref = sketches["sorted"]
    for name in ("reversed", "shuffled", "late", "sites"):
        for c in ("s", "c", "cd", "q"):
            assert bytes(sketches[name][c]) == bytes(ref[c]), (name, c)


@pytest.mark.parametrize("order", ["sorted", "late", "sites"])
def test_answers_within_epsilon_of_exact_sql(spark, sketches, order):
    row = sketches[order]
    for r in RANGES:
        ex = _exact(spark, r)
        got = _query(spark, row, f"""async_sum(s, {r}) AS s, async_sum(c, {r}) AS c, async_sum(cd, {r}) AS cd,
            async_quantile(q, array({', '.join(map(str, QS))}), {r}) AS q, async_quantile(q, 0.5, {r}) AS med""")
        for k in ("s", "c", "cd"):
            assert abs(got[k] - ex[k]) <= EPS * ex[k], (r, k, got[k], ex[k])
        lats = np.array(ex.lats)
        n = len(lats)
        for q, x in zip(QS, got.q):
            below, at_most = np.count_nonzero(lats < x), np.count_nonzero(lats <= x)
            assert at_most >= (q - Q_EPS) * n and below <= (q + Q_EPS) * n, (r, q, x)
        assert got.med == got.q[1]


def test_exact_when_the_range_holds_at_most_alpha_elements(spark):
    rng = np.random.default_rng(4)
    n = 500  # alpha is about 12 ln(800) / 0.0625 = 1284 for the sum, above 500
    df = rows_df(spark, {"v": rng.integers(1, 10**12, size=n), "ts": rng.permutation(n), "x": rng.normal(size=n)},
                 "v bigint, ts bigint, x double", partitions=3)
    df.createOrReplaceTempView("async_small")
    got = spark.sql(f"""SELECT async_sum(async_sum_agg(v, ts, 1000, {EPS}, {DELTA}), 100) AS s,
        async_quantile(async_quantile_agg(x, ts, 1000, 0.3, {DELTA}), array(0.0, 0.25, 0.5, 1.0), 100) AS q
        FROM async_small""").first()
    ex = spark.sql("""SELECT sum(v) AS s, sort_array(collect_list(x)) AS xs FROM async_small WHERE ts > 499 - 100""").first()
    assert got.s == float(ex.s)
    xs = ex.xs
    assert got.q == [xs[max(0, int(np.ceil(q * len(xs))) - 1)] for q in (0.0, 0.25, 0.5, 1.0)]


def test_nulls_are_skipped_and_sketch_info(spark):
    df = spark.createDataFrame([(1, 10, 1.5, 1), (None, 11, 2.5, 2), (3, None, None, 3), (4, 12, 0.5, None)],
                               "v bigint, ts bigint, x double, id bigint")
    row = df.agg(E.async_sum_agg("v", "ts").alias("s"), E.async_sum_agg("v", "ts", id="id").alias("si"),
                 E.async_quantile_agg("x", "ts").alias("q")) \
        .select(E.async_sum("s").alias("s"), E.async_sum("si").alias("si"), E.async_quantile("q", 1.0).alias("q"),
                E.sketch_info("s").alias("i"), E.sketch_info("q").alias("iq")).first()
    assert row.s == 5.0 and row.si == 1.0 and row.q == 2.5
    assert row.i.kind == "async" and row.i.measure == "sum" and row.i.merge_depth == 0 and row.i.error_bound == 0.1
    assert row.i.sample_capacity == int(np.ceil(12 * np.log(8 / 0.05) / 0.01)) and row.i.identity == "(value, ts)"
    assert row.iq.measure == "quantile" and row.iq.sample_capacity == int(np.ceil(96 * np.log(8 / 0.05) / 0.01))
    empty = spark.sql("SELECT async_sum(async_sum_agg(v, ts)) AS s, async_quantile(async_quantile_agg(v, ts), 0.5) AS q "
                      "FROM VALUES (CAST(NULL AS BIGINT), CAST(NULL AS BIGINT)) AS t(v, ts)").first()
    assert empty.s == 0.0 and empty.q is None


def test_timestamps_and_intervals(spark):
    df = spark.sql("""SELECT id % 7 + 1 AS v, TIMESTAMP'2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id) AS ts
                      FROM range(1000)""")
    row = df.agg(E.async_sum_agg("v", "ts", "10 minutes").alias("s")) \
        .select(E.async_sum("s", "100 seconds").alias("a"), E.sketch_info("s").alias("i")).first()
    assert row.i.ts_unit == "microseconds"
    exact = df.where("ts > TIMESTAMP'2024-01-01 00:00:00' + INTERVAL 999 SECONDS - INTERVAL 100 SECONDS") \
        .selectExpr("sum(v) AS s").first().s
    assert row.a == float(exact)  # 100 rows <= alpha: exact


@pytest.mark.parametrize("sql, msg", [
    ("SELECT async_sum(async_sum_agg(v, ts)) FROM VALUES (0L, 1L) AS t(v, ts)", "positive integer weights, got 0"),
    ("SELECT async_sum_agg(v, ts, window_type => 'count') FROM VALUES (1L, 1L) AS t(v, ts)", "window_type => 'time' only"),
    ("SELECT async_sum_agg(v, ts, 10, 0.5, 2.0) FROM VALUES (1L, 1L) AS t(v, ts)", "delta must be in (0, 1)"),
    ("SELECT async_quantile_agg(v, ts, 10, 0.6) FROM VALUES (1L, 1L) AS t(v, ts)", "must be in [0.001, 0.5)"),
    ("SELECT async_sum_agg(v, ts) FROM VALUES ('a', 1L) AS t(v, ts)", "value must be a positive integer"),
    ("SELECT async_sum_agg(v, ts, tradeoff => 63) FROM VALUES (1L, 1L) AS t(v, ts)", "tradeoff must be in [0, 62]"),
    ("SELECT async_quantile(async_sum_agg(v, ts), 0.5) FROM VALUES (1L, 1L) AS t(v, ts)", "needs an async quantile sketch"),
    ("SELECT async_sum(async_quantile_agg(v, ts)) FROM VALUES (1L, 1L) AS t(v, ts)", "needs an async sum or count sketch"),
    ("SELECT async_quantile(async_quantile_agg(v, ts), 1.5) FROM VALUES (1L, 1L) AS t(v, ts)", "q must be in [0, 1]"),
    ("SELECT async_sum(eh_agg(ts)) FROM VALUES (1L, 1L) AS t(v, ts)", "expected an async sketch"),
    ("SELECT async_merge(s) FROM (SELECT async_sum_agg(v, ts, 10, 0.2) AS s FROM VALUES (1L, 1L) AS t(v, ts) "
     "UNION ALL SELECT async_sum_agg(v, ts, 10, 0.3) FROM VALUES (1L, 1L) AS t(v, ts))", "epsilon 0.2 vs 0.3"),
    ("SELECT async_merge(s) FROM (SELECT async_sum_agg(v, ts) AS s FROM VALUES (1L, 1L) AS t(v, ts) "
     "UNION ALL SELECT async_count_agg(ts) FROM VALUES (1L, 1L) AS t(v, ts))", "measure"),
])
def test_bad_input_is_refused_with_a_clear_message(spark, sql, msg):
    with pytest.raises(Exception) as ei:
        spark.sql(sql).collect()
    assert msg in str(ei.value)


def test_guide_async_sql_runs(spark):
    """The async example of docs/guide/late-and-duplicate-rows.md (the SQL block with async_sum_agg, epsilon
    0.1) answers within epsilon of exact (tests/test_guides.py checks its printed result)."""
    import os
    from docblocks import ROOT, blocks, run_sql
    found = [b for b in blocks(os.path.join(ROOT, "docs", "guide", "late-and-duplicate-rows.md"))
             if b.lang == "sql" and "async_sum_agg(" in b.code]
    assert len(found) == 1
    _, row = run_sql(spark, found[0].code)
    (row,) = row
    eps = 0.1
    assert row.depth == 0
    ex = spark.sql("""SELECT sum(bytes_sent) AS b, count(*) AS c FROM late_events
                      WHERE ts > (SELECT max(ts) FROM late_events) - INTERVAL '15 minutes'""").first()
    assert abs(row.bytes_15m - ex.b) <= eps * ex.b
    assert abs(row.requests_15m - ex.c) <= eps * ex.c
    lat = np.sort(np.array([r.x for r in spark.sql("""SELECT latency_ms AS x FROM late_events
                      WHERE ts > (SELECT max(ts) FROM late_events) - INTERVAL '1 hour'""").collect()]))
    for q, x in zip((0.5, 0.9), row.p50_p90):
        assert np.count_nonzero(lat <= x) >= (q - eps) * len(lat)
        assert np.count_nonzero(lat < x) <= (q + eps) * len(lat)
