"""eh_agg / eh_merge / eh_count in Spark SQL: the deterministic relative bound must hold for every
range of the window (exact answers from numpy over the same rows, plus Spark SQL spot checks)."""
from __future__ import annotations

import numpy as np
import pytest
from pyspark.sql import functions as SF

from conftest import check_bound_relation, make_stream, rows_df, scalar, sketch_info, sketch_view


def exact_by_range(ts: np.ndarray, values: np.ndarray, now: int, ranges: np.ndarray) -> np.ndarray:
    """Exact weight in (now - r, now] for every r (numpy, ts in any order)."""
    order = np.argsort(ts, kind="stable")
    sts, svs = ts[order], values[order]
    cum = np.concatenate([[0], np.cumsum(svs)])
    hi = np.searchsorted(sts, now, side="right")
    lo = np.searchsorted(sts, now - ranges, side="right")
    return cum[hi] - cum[lo]


def every_range(spark, view: str, window: int, column: str = "s", now=None) -> np.ndarray:
    """eh_count of the sketch in `view` for ranges 0..window (one query)."""
    now_sql = "" if now is None else f", {now}"
    rows = spark.sql(f"""SELECT r, eh_count({column}, r{now_sql}) AS c
                         FROM {view} CROSS JOIN (SELECT explode(sequence(0, {window})) AS r) ORDER BY r""").collect()
    assert [r.r for r in rows] == list(range(window + 1))
    return np.array([r.c for r in rows], dtype=np.float64)


def assert_deterministic_bound(est: np.ndarray, exact: np.ndarray, bound: float, what: str) -> None:
    err = np.abs(est - exact)
    bad = np.nonzero(err > bound * exact + 1e-9)[0]
    assert len(bad) == 0, (f"{what}: {len(bad)} ranges outside the bound {bound}; first r={bad[0]} "
                           f"est={est[bad[0]]} exact={exact[bad[0]]}")


@pytest.fixture(scope="module")
def eh_stream(spark):
    s = make_stream(seed=41, n=40_000, distinct=10, span=12_000, max_value=7)
    df = rows_df(spark, {"ts": s.ts, "value": s.values}, "ts bigint, value bigint", partitions=4)
    df.createOrReplaceTempView("eh_rows")
    return s, df


@pytest.mark.parametrize("order", ["sorted", "shuffled"])
def test_time_window_every_range(spark, eh_stream, order):
    s, df = eh_stream
    src = df if order == "sorted" else df.orderBy(SF.rand(9))
    src.createOrReplaceTempView("eh_src")
    window = 3000
    sk = scalar(spark, f"SELECT eh_agg(ts, {window}) FROM eh_src")
    sketch_view(spark, sk, "eh_sk")
    info = sketch_info(spark, "eh_sk")
    assert info["kind"] == "eh" and info["window"] == window and info["epsilon"] == 0.05
    assert info["width"] is None and info["key_type"] is None and info["delta"] is None
    assert info["merge_depth"] <= 1 and info["planned_merge_levels"] == 1
    check_bound_relation(info)
    assert info["last_ts"] == int(s.ts.max())
    now = info["last_ts"]
    ranges = np.arange(window + 1)
    exact = exact_by_range(s.ts, np.ones(len(s), dtype=np.int64), now, ranges)
    est = every_range(spark, "eh_sk", window)
    assert_deterministic_bound(est, exact, info["error_bound"], f"eh time/{order}")
    assert est[0] == 0.0
    # spot check against Spark SQL's own count and the default range (= window)
    row = spark.sql(f"""SELECT eh_count(s) AS d, eh_count(s, 777) AS c,
                               (SELECT count(*) FROM eh_rows WHERE ts > {now} - 777) AS x FROM eh_sk""").collect()[0]
    assert row.d == est[window]
    assert abs(row.c - row.x) <= info["error_bound"] * row.x


def test_value_weights_every_range_and_now(spark, eh_stream):
    s, _ = eh_stream
    window = 2500
    sk = scalar(spark, f"SELECT eh_agg(ts, {window}, 0.02, value => value) FROM eh_rows")
    sketch_view(spark, sk, "eh_wsk")
    info = sketch_info(spark, "eh_wsk")
    assert info["epsilon"] == 0.02 and info["total_weight"] == int(s.values.sum())
    check_bound_relation(info)
    now = info["last_ts"]
    ranges = np.arange(window + 1)
    est = every_range(spark, "eh_wsk", window)
    assert_deterministic_bound(est, exact_by_range(s.ts, s.values, now, ranges), info["error_bound"], "eh weighted")
    # a later `now` slides the range forward
    later = now + 1000
    est = every_range(spark, "eh_wsk", window, now=later)
    assert_deterministic_bound(est, exact_by_range(s.ts, s.values, later, ranges), info["error_bound"],
                               "eh weighted, later now")
    x = scalar(spark, f"SELECT sum(value) FROM eh_rows WHERE ts > {later} - 2000 AND ts <= {later}")
    assert abs(scalar(spark, f"SELECT eh_count(s, 2000, {later}) FROM eh_wsk") - x) <= info["error_bound"] * x


def test_count_window_every_range(spark):
    rng = np.random.default_rng(8)
    n = 12_000
    vals = rng.integers(0, 4, size=n)
    df = rows_df(spark, {"seq": np.arange(1, n + 1), "value": vals}, "seq bigint, value int", partitions=4)
    df.createOrReplaceTempView("eh_cnt")
    window = 1500
    row = spark.sql(f"""SELECT eh_agg(seq, {window}, window_type => 'count') AS c,
                               eh_agg(seq, {window}, window_type => 'count', value => value) AS w
                        FROM eh_cnt""").collect()[0]
    spark.createDataFrame([(row.c, row.w)], "c binary, w binary").createOrReplaceTempView("eh_cnt_sk")
    ic, iw = sketch_info(spark, "eh_cnt_sk", "c"), sketch_info(spark, "eh_cnt_sk", "w")
    assert ic["window_type"] == "count" and ic["ts_unit"] == "sequence" and ic["last_ts"] == n
    check_bound_relation(ic)
    check_bound_relation(iw)
    ranges = np.arange(window + 1)
    seq = np.arange(1, n + 1)
    est = every_range(spark, "eh_cnt_sk", window, column="c")
    assert_deterministic_bound(est, ranges.astype(np.float64), ic["error_bound"], "eh count window")
    est = every_range(spark, "eh_cnt_sk", window, column="w")
    assert_deterministic_bound(est, exact_by_range(seq, vals, n, ranges), iw["error_bound"], "eh count window weighted")


def test_timestamp_window(spark):
    rng = np.random.default_rng(12)
    secs = np.sort(rng.integers(0, 7200, size=15_000))
    rows_df(spark, {"sec": secs}, "sec bigint", partitions=4) \
        .selectExpr("timestamp_seconds(1600000000 + sec) AS ts").createOrReplaceTempView("eh_ts")
    sk = scalar(spark, "SELECT eh_agg(ts, INTERVAL '1' HOUR) FROM eh_ts")
    sketch_view(spark, sk, "eh_ts_sk")
    info = sketch_info(spark, "eh_ts_sk")
    assert info["ts_unit"] == "microseconds" and info["window"] == 3600 * 1_000_000
    rows = spark.sql("""
        WITH last AS (SELECT max(ts) AS now FROM eh_ts)
        SELECT eh_count(s, INTERVAL '90' SECOND) AS a,
               (SELECT count(*) FROM eh_ts, last WHERE ts > now - INTERVAL '90' SECOND) AS xa,
               eh_count(s, '20 minutes') AS b,
               (SELECT count(*) FROM eh_ts, last WHERE ts > now - INTERVAL '20' MINUTE) AS xb,
               eh_count(s) AS c,
               (SELECT count(*) FROM eh_ts, last WHERE ts > now - INTERVAL '1' HOUR) AS xc,
               eh_count(s, INTERVAL '30' MINUTE, (SELECT now + INTERVAL '10' MINUTE FROM last)) AS d,
               (SELECT count(*) FROM eh_ts, last WHERE ts > now - INTERVAL '20' MINUTE) AS xd
        FROM eh_ts_sk""").collect()[0]
    for est, ex in ((rows.a, rows.xa), (rows.b, rows.xb), (rows.c, rows.xc), (rows.d, rows.xd)):
        assert ex > 0
        assert abs(est - ex) <= info["error_bound"] * ex + 1e-9, (est, ex)


def test_eh_merge_across_sites_every_range(spark):
    frames = [make_stream(seed=60 + i, n=6_000, distinct=5, span=5_000) for i in range(5)]
    site = np.concatenate([np.full(len(f), i) for i, f in enumerate(frames)])
    ts = np.concatenate([f.ts for f in frames])
    rows_df(spark, {"site": site, "ts": ts}, "site int, ts bigint", partitions=4).createOrReplaceTempView("eh_sites")
    spark.sql("""SELECT site, eh_agg(ts, 2000, merge_levels => 1) AS s FROM eh_sites GROUP BY site
                 UNION ALL SELECT 99, CAST(NULL AS BINARY)""").cache().createOrReplaceTempView("eh_site_sk")
    merged = scalar(spark, "SELECT eh_merge(s) FROM eh_site_sk")
    sketch_view(spark, merged, "eh_merged")
    info = sketch_info(spark, "eh_merged")
    assert info["planned_merge_levels"] == 2 and 1 <= info["merge_depth"] <= 2
    check_bound_relation(info)
    assert info["total_weight"] == len(ts) and info["last_ts"] == int(ts.max()) and info["first_ts"] == int(ts.min())
    ranges = np.arange(2001)
    est = every_range(spark, "eh_merged", 2000)
    assert_deterministic_bound(est, exact_by_range(ts, np.ones(len(ts), dtype=np.int64), int(ts.max()), ranges),
                               info["error_bound"], "eh merged")
    # NULL handling
    assert spark.sql("SELECT eh_merge(s) AS m FROM eh_site_sk WHERE s IS NULL").collect()[0].m is None
    assert scalar(spark, "SELECT eh_count(CAST(NULL AS BINARY), 10)") is None
    assert scalar(spark, "SELECT sketch_info(CAST(NULL AS BINARY))") is None
