"""Deterministic waves (dwave_*), distinct-count sketches (distinct_*) and ECM-sketches with wave
cells (ecm_agg(..., cell => 'dwave' | 'rwave')) in Spark SQL, the Python wrappers and the bytes-level
objects, against exact answers computed from the same rows."""
from __future__ import annotations

import numpy as np
import pytest
from pyspark.sql import functions as SF

import ecmsketch.functions as F
from ecmsketch import DetWave, DistinctSketch, EcmSketch, SketchError
from conftest import (check_bound_relation, check_point_bounds, error_message, exact_total, exact_weights,
                      expect_error, make_stream, rows_df, scalar, sketch_info, sketch_view)
from test_sql_eh import assert_deterministic_bound, every_range, exact_by_range

WINDOW = 3000


@pytest.fixture(scope="module")
def wave_rows(spark):
    s = make_stream(seed=77, n=30_000, distinct=400, span=10_000, max_value=9)
    df = rows_df(spark, {"key": s.keys, "ts": s.ts, "value": s.values, "site": np.arange(len(s)) % 5},
                 "key string, ts bigint, value bigint, site int", partitions=4)
    df.createOrReplaceTempView("wave_rows")
    return s


def wave_every_range(spark, view: str, window: int, fn: str = "dwave_count") -> np.ndarray:
    rows = spark.sql(f"""SELECT r, {fn}(s, r) AS c FROM {view}
                         CROSS JOIN (SELECT explode(sequence(0, {window})) AS r) ORDER BY r""").collect()
    return np.array([r.c for r in rows], dtype=np.float64)


# --------------------------------------------------------------------------- dwave_*


@pytest.mark.parametrize("order", ["sorted", "shuffled"])
@pytest.mark.parametrize("weighted", [False, True])
def test_dwave_every_range(spark, wave_rows, order, weighted):
    s = wave_rows
    src = spark.table("wave_rows")
    if order == "shuffled":
        src = src.orderBy(SF.rand(5))
    src.createOrReplaceTempView("dw_src")
    val = ", value => value" if weighted else ""
    sk = scalar(spark, f"SELECT dwave_agg(ts, {WINDOW}, 0.05{val}) FROM dw_src")
    sketch_view(spark, sk, "dw_sk")
    info = sketch_info(spark, "dw_sk")
    assert info["kind"] == "dwave" and info["cell_kind"] == "dwave" and info["window"] == WINDOW
    assert info["max_arrivals"] is None and info["width"] is None
    assert info["total_weight"] == (int(s.values.sum()) if weighted else len(s))
    check_bound_relation(info)
    values = s.values if weighted else np.ones(len(s), dtype=np.int64)
    exact = exact_by_range(s.ts, values, info["last_ts"], np.arange(WINDOW + 1))
    est = wave_every_range(spark, "dw_sk", WINDOW)
    assert_deterministic_bound(est, exact, info["error_bound"], f"dwave {order} weighted={weighted}")
    assert est[0] == 0.0


def test_dwave_merge_across_sites_and_max_arrivals(spark, wave_rows):
    s = wave_rows
    sites = spark.sql(f"""SELECT site, dwave_agg(ts, {WINDOW}, 0.05, merge_levels => 1, max_arrivals => 20000) AS s
                          FROM wave_rows GROUP BY site""")
    sites.createOrReplaceTempView("dw_sites")
    merged = scalar(spark, "SELECT dwave_merge(s) FROM dw_sites")
    sketch_view(spark, merged, "dw_m")
    info = sketch_info(spark, "dw_m")
    assert info["merge_depth"] == 2 and info["planned_merge_levels"] == 2
    # a site's partial aggregates keep U (one stream); the merge of the five sites has their sum
    site_u = [r.u for r in spark.sql("SELECT sketch_info(s).max_arrivals AS u FROM dw_sites").collect()]
    assert site_u == [20000] * 5
    assert info["max_arrivals"] == 5 * 20000
    check_bound_relation(info)
    exact = exact_by_range(s.ts, np.ones(len(s), dtype=np.int64), info["last_ts"], np.arange(WINDOW + 1))
    est = wave_every_range(spark, "dw_m", WINDOW)
    assert_deterministic_bound(est, exact, info["error_bound"], "dwave merged")


def test_dwave_max_arrivals_exceeded_is_an_error_not_a_wrong_answer(spark):
    # 2000 rows per 100 ticks, but max_arrivals claims 50: the top level overflows within a window
    sk = scalar(spark, "SELECT dwave_agg(id DIV 20, 100, 0.1, max_arrivals => 50) FROM range(2000)")
    sketch_view(spark, sk, "dw_over")
    info = sketch_info(spark, "dw_over")
    assert info["max_arrivals"] == 50
    with pytest.raises(Exception) as ei:
        spark.sql("SELECT dwave_count(s) FROM dw_over").collect()
    assert "max_arrivals" in error_message(ei)
    # a short range after the overflowed stretch still answers within the bound
    short = spark.sql("SELECT dwave_count(s, 1) AS c FROM dw_over").collect()[0].c
    assert abs(short - 20) <= info["error_bound"] * 20


def test_dwave_count_window(spark):
    sk = scalar(spark, "SELECT dwave_agg(id, 500, 0.1, window_type => 'count') FROM range(5000)")
    sketch_view(spark, sk, "dw_cnt")
    info = sketch_info(spark, "dw_cnt")
    assert info["window_type"] == "count"
    for r in (1, 7, 100, 499, 500):
        est = spark.sql(f"SELECT dwave_count(s, {r}) AS c FROM dw_cnt").collect()[0].c
        assert abs(est - r) <= info["error_bound"] * r


# --------------------------------------------------------------------------- distinct_*


def exact_distinct(values: np.ndarray, ts: np.ndarray, now: int, r: int) -> int:
    m = (ts > now - r) & (ts <= now)
    return len(set(values[m].tolist()))


def test_distinct_against_exact_and_approx_count_distinct(spark, wave_rows):
    s = wave_rows
    sk = scalar(spark, f"SELECT distinct_agg(key, ts, {WINDOW}) FROM wave_rows")
    sketch_view(spark, sk, "ds_sk")
    info = sketch_info(spark, "ds_sk")
    assert info["kind"] == "distinct" and info["cell_kind"] == "rwave"
    assert info["epsilon"] == 0.1 and info["delta"] == 0.05 and info["key_type"] == "string"
    assert info["wave_capacity"] == 3600 and info["wave_instances"] % 2 == 1
    now = info["last_ts"]
    ranges = list(range(1, WINDOW + 1, 37)) + [WINDOW]
    est = {r.r: r.c for r in spark.sql(f"""SELECT r, distinct_count(s, r) AS c FROM ds_sk
        CROSS JOIN (SELECT explode(array({', '.join(map(str, ranges))})) AS r)""").collect()}
    bad = 0
    for r in ranges:
        truth = exact_distinct(s.keys, s.ts, now, r)
        if abs(est[r] - truth) > info["error_bound"] * truth + 1e-9:
            bad += 1
    assert bad <= info["delta"] * len(ranges), f"{bad}/{len(ranges)} distinct counts outside the bound"
    # the same number from Spark's exact count(DISTINCT) for the full window
    full = scalar(spark, f"SELECT count(DISTINCT key) FROM wave_rows WHERE ts > {now} - {WINDOW}")
    assert full == exact_distinct(s.keys, s.ts, now, WINDOW)


def test_distinct_merge_is_lossless(spark, wave_rows):
    """distinct_merge of per-site sketches answers exactly like one sketch over all rows."""
    spark.sql(f"SELECT site, distinct_agg(key, ts, {WINDOW}) AS s FROM wave_rows GROUP BY site") \
        .createOrReplaceTempView("ds_sites")
    merged = scalar(spark, "SELECT distinct_merge(s) FROM ds_sites")
    whole = scalar(spark, f"SELECT distinct_agg(key, ts, {WINDOW}) FROM wave_rows")
    a, b = DistinctSketch.from_bytes(merged), DistinctSketch.from_bytes(whole)
    for r in (1, 10, 100, 1000, WINDOW):
        assert a.count(r) == b.count(r), r


def test_distinct_integer_and_binary_values(spark):
    n = 20_000
    sk = scalar(spark, f"SELECT distinct_agg(id % 5000, id, 10000, 0.2, 0.1) FROM range({n})")
    d = DistinctSketch.from_bytes(sk)
    assert d.info()["key_type"] == "bigint"
    for r in (100, 4999, 5000, 10000):
        truth = min(r, 5000)
        assert abs(d.count(r) - truth) <= 0.2 * truth
    skb = scalar(spark, "SELECT distinct_agg(cast(cast(id % 300 AS STRING) AS BINARY), id, 1000, 0.2) FROM range(3000)")
    assert DistinctSketch.from_bytes(skb).info()["key_type"] == "binary"


# --------------------------------------------------------------------------- ECM cells


@pytest.mark.parametrize("cell", ["eh", "dwave", "rwave"])
def test_ecm_cells_point_queries(spark, wave_rows, cell):
    s = wave_rows
    eps = 0.1 if cell != "rwave" else 0.25
    sk = scalar(spark, f"SELECT ecm_agg(key, ts, {WINDOW}, {eps}, 0.1, cell => '{cell}') FROM wave_rows")
    e = EcmSketch.from_bytes(sk)
    info = e.info()
    assert info["cell_kind"] == cell and info["kind"] == "ecm"
    if cell == "rwave":
        assert info["inner_product_error_bound"] is None and info["total_error_bound"] is None
        assert info["wave_capacity"] == int(np.ceil(36 / eps ** 2)) and info["cell_delta"] < 0.1 / (2 * info["depth"]) + 1e-15
        teb = 1.0  # randomized cells: no deterministic lower side
    else:
        check_bound_relation(info)
        teb = info["total_error_bound"]
    now = info["last_ts"]
    rows = []
    ones = np.ones(len(s), dtype=np.int64)
    keys = list(dict.fromkeys(s.keys.tolist()))[:60]
    for r in (10, 100, 1000, WINDOW):
        ex = exact_weights(s.keys, s.ts, ones, now, r)
        a = exact_total(s.ts, ones, now, r)
        for k in keys:
            rows.append((e.point(k, r), ex.get(k, 0), a, info["point_error_bound"], teb))
    check_point_bounds(rows, info["delta"], f"ecm {cell}")


def test_ecm_dwave_merge_and_sql_queries(spark, wave_rows):
    s = wave_rows
    spark.sql(f"""SELECT site, ecm_agg(key, ts, {WINDOW}, 0.1, 0.1, cell => 'dwave', merge_levels => 1) AS s
                  FROM wave_rows GROUP BY site""").createOrReplaceTempView("ecm_dw_sites")
    merged = scalar(spark, "SELECT ecm_merge(s) FROM ecm_dw_sites")
    sketch_view(spark, merged, "ecm_dw_m")
    info = sketch_info(spark, "ecm_dw_m")
    assert info["cell_kind"] == "dwave" and info["merge_depth"] == 2
    check_bound_relation(info)
    now = info["last_ts"]
    row = spark.sql(f"SELECT ecm_total(s, 1000) AS t, ecm_self_join(s, 1000) AS f2, ecm_point(s, 'k1', 1000) AS p FROM ecm_dw_m").collect()[0]
    ones = np.ones(len(s), dtype=np.int64)
    a = exact_total(s.ts, ones, now, 1000)
    assert abs(row.t - a) <= info["total_error_bound"] * a
    ex = exact_weights(s.keys, s.ts, ones, now, 1000)
    f2 = sum(v * v for v in ex.values())
    assert abs(row.f2 - f2) <= info["inner_product_error_bound"] * a * a
    assert row.p >= (1 - info["total_error_bound"]) * ex.get("k1", 0)


def test_ecm_rwave_bytes_are_identical_across_runs(spark, wave_rows):
    """Issue 13 section 4: event ids of randomized-wave cells derive from the partition, the buffer
    and the rows (docs/design/rwave.md, "Event ids"), so the same rows in the same partitions give the same
    bytes on every run: one sketch, per-site sketches, their merge, and per-site sketches whose partial
    aggregates go through Spark's sort-based fallback (serialized and read back mid-aggregation)."""
    queries = [
        f"SELECT ecm_agg(key, ts, {WINDOW}, 0.25, 0.1, cell => 'rwave') FROM wave_rows",
        f"""SELECT ecm_merge(s) FROM (SELECT site, ecm_agg(key, ts, {WINDOW}, 0.25, 0.1, cell => 'rwave') AS s
            FROM wave_rows GROUP BY site)""",
        f"""SELECT concat_ws('|', transform(array_sort(collect_list(named_struct('site', site, 's', hex(s)))), x -> x.s))
            FROM (SELECT site, ecm_agg(key, ts, {WINDOW}, 0.25, 0.1, cell => 'rwave') AS s FROM wave_rows GROUP BY site)""",
    ]
    key = "spark.sql.objectHashAggregate.sortBased.fallbackThreshold"
    old = spark.conf.get(key, None)
    try:
        for threshold in ("128", "2"):  # 2: five sites per partition exceed it, so the fallback runs
            spark.conf.set(key, threshold)
            for q in queries:
                first, second = scalar(spark, q), scalar(spark, q)
                assert first == second, f"fallback threshold {threshold}: two runs differ: {q}"
    finally:
        if old is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, old)


def test_ecm_rwave_sites_and_partitions_never_share_event_ids(spark):
    """Three sites with identical rows, grouped in the same tasks, in two partitions that hold
    identical rows: while every cell holds fewer events than the wave capacity its answers are
    exact, so the merge of the per-site sketches must answer exactly like one sketch over all rows,
    three times a site's answer (events sharing an id would be counted once, and answer less)."""
    n = 200
    rng = np.random.default_rng(21)
    keys = rng.integers(0, 30, size=n)
    ts = np.sort(rng.integers(0, 500, size=n))
    # partition slice = each row once per site (site 0, 1, 2 in turn); two identical slices
    k6, t6 = np.tile(np.repeat(keys, 3), 2), np.tile(np.repeat(ts, 3), 2)
    df = rows_df(spark, {"key": k6, "ts": t6, "site": np.tile(np.arange(3), 2 * n)},
                 "key bigint, ts bigint, site int", partitions=2)
    df.createOrReplaceTempView("rw_twins")
    # eps 0.25: capacity 576 per cell, more than the 1,200 rows over 30 keys put into any cell of 11+ columns
    agg = "ecm_agg(key, ts, 1000, 0.25, 0.1, cell => 'rwave')"
    spark.sql(f"SELECT site, {agg} AS s FROM rw_twins GROUP BY site").createOrReplaceTempView("rw_twin_sites")
    merged = EcmSketch.from_bytes(scalar(spark, "SELECT ecm_merge(s) FROM rw_twin_sites"))
    single = EcmSketch.from_bytes(scalar(spark, f"SELECT {agg} FROM rw_twins"))
    per_site = [EcmSketch.from_bytes(r.s) for r in spark.sql("SELECT s FROM rw_twin_sites ORDER BY site").collect()]
    assert merged.info()["wave_capacity"] == 576 and len(per_site) == 3
    now = int(ts.max())
    for r in (10, 100, 1000):
        exact = exact_weights(keys, ts, np.ones(n, dtype=np.int64), now, r)
        for k in range(30):
            one = per_site[0].point(k, r)
            # a site holds each row twice (two partitions); Count-Min never answers less
            assert one >= 2 * exact.get(k, 0), (k, r)
            assert per_site[1].point(k, r) == one and per_site[2].point(k, r) == one, (k, r)
            assert merged.point(k, r) == single.point(k, r) == 3 * one, (k, r)


def test_ecm_rwave_merge_keeps_the_bound(spark, wave_rows):
    spark.sql(f"""SELECT site, ecm_agg(key, ts, {WINDOW}, 0.25, 0.1, cell => 'rwave') AS s
                  FROM wave_rows GROUP BY site""").createOrReplaceTempView("ecm_rw_sites")
    merged = scalar(spark, "SELECT ecm_merge(s) FROM ecm_rw_sites")
    info = EcmSketch.from_bytes(merged).info()
    # lossless merges: the bound does not grow with the merge depth
    assert info["merge_depth"] >= 1 and info["point_error_bound"] == pytest.approx(0.25)


# --------------------------------------------------------------------------- errors


ERRORS = [
    ("SELECT ecm_total(ecm_agg(key, ts, 1000, 0.3, cell => 'rwave')) FROM wave_rows",
     ["the total needs deterministic cells", "'rwave'"]),
    ("SELECT ecm_self_join(ecm_agg(key, ts, 1000, 0.3, cell => 'rwave')) FROM wave_rows",
     ["the self-join needs deterministic cells"]),
    ("SELECT ecm_agg(key, ts, 1000, 0.3, cell => 'rwave', optimize_for => 'inner_product') FROM wave_rows",
     ["optimize_for => 'inner_product' needs deterministic cells"]),
    ("SELECT ecm_agg(key, ts, 1000, cell => 'wave') FROM wave_rows", ["cell must be 'eh', 'dwave' or 'rwave'"]),
    ("SELECT ecm_agg(key, ts, 1000, max_arrivals => 100) FROM wave_rows", ["max_arrivals applies to 'dwave' cells only"]),
    ("SELECT ecm_agg(key, ts, 1000, 0.005, cell => 'rwave') FROM wave_rows", ["epsilon must be at least 0.01 for 'rwave'"]),
    ("SELECT dwave_agg(ts, 1000, max_arrivals => 0) FROM wave_rows", ["max_arrivals must be a positive integer"]),
    ("SELECT dwave_agg(ts, 1000, value => cast(value AS DOUBLE)) FROM wave_rows", ["value (the weight) must be an integer type"]),
    ("SELECT dwave_agg(ts, 1000, value => value - 5) FROM wave_rows", ["weight must be non-negative"]),
    ("SELECT distinct_agg(cast(value AS DOUBLE), ts) FROM wave_rows", ["value must be STRING, BINARY, INT or BIGINT", "DOUBLE"]),
    ("SELECT distinct_agg(key, ts, 1000, 1.5) FROM wave_rows", ["epsilon must be in"]),
    ("SELECT distinct_agg(key, ts, 1000, 0.1, 0.0) FROM wave_rows", ["delta must be in (0, 1)"]),
    ("SELECT dwave_count(ecm_agg(key, ts, 1000)) FROM wave_rows",
     ["dwave_count: expected a deterministic wave", "got an ECM-sketch"]),
    ("SELECT distinct_count(dwave_agg(ts, 1000)) FROM wave_rows",
     ["distinct_count: expected a distinct-count sketch", "got a deterministic wave"]),
    ("SELECT eh_count(distinct_agg(key, ts)) FROM wave_rows", ["got a distinct-count sketch"]),
    ("""SELECT distinct_merge(s) FROM (SELECT distinct_agg(key, ts, 1000, seed => 1) AS s FROM wave_rows
        UNION ALL SELECT distinct_agg(key, ts, 1000, seed => 2) FROM wave_rows)""",
     ["cannot merge distinct-count sketches with different parameters", "seed"]),
    ("""SELECT distinct_merge(s) FROM (SELECT distinct_agg(id % 7, id, 100, window_type => 'count') AS s
        FROM range(1000) GROUP BY id % 2)""", ["count-based sketches cannot be merged"]),
    ("""SELECT dwave_merge(s) FROM (SELECT dwave_agg(id, 100, window_type => 'count') AS s
        FROM range(1000) GROUP BY id % 2)""", ["count-based sketches cannot be merged"]),
    ("SELECT distinct_agg(key, ts, 100, window_type => 'count') FROM wave_rows",
     ["count-based windows take unique arrival sequence numbers"]),
    ("""SELECT ecm_merge(s) FROM (SELECT ecm_agg(key, ts, 1000, 0.1, cell => 'dwave') AS s FROM wave_rows
        UNION ALL SELECT ecm_agg(key, ts, 1000, 0.1) FROM wave_rows)""", ["cell dwave vs eh"]),
    ("SELECT dwave_count(substring(dwave_agg(ts, 1000), 1, 70)) FROM wave_rows", ["corrupt sketch"]),
    ("SELECT distinct_count(substring(distinct_agg(key, ts, 1000), 1, 90)) FROM wave_rows", ["corrupt sketch"]),
]


@pytest.mark.parametrize("sql,phrases", ERRORS, ids=[f"e{i}" for i in range(len(ERRORS))])
def test_wave_errors(spark, wave_rows, sql, phrases):
    expect_error(lambda: spark.sql(sql).collect(), *phrases)


def test_valid_neighbours(spark, wave_rows):
    """The neighbours of the refused inputs work (so the error tests test the checks), and answer
    within their own bounds of the exact answers over the window."""
    s = wave_rows
    row = spark.sql("""SELECT ecm_point(r, 'k1') AS p, sketch_info(r) AS ir, ecm_total(d) AS t, sketch_info(d) AS id,
                              dwave_count(w) AS c, sketch_info(w) AS iw, distinct_count(n) AS n, sketch_info(n) AS inn
                       FROM (SELECT ecm_agg(key, ts, 1000, 0.3, cell => 'rwave') AS r,
                                    ecm_agg(key, ts, 1000, 0.3, cell => 'dwave', max_arrivals => 100000) AS d,
                                    dwave_agg(ts, 1000, max_arrivals => 100000) AS w,
                                    distinct_agg(key, ts, 1000, 0.3, 0.2) AS n
                             FROM wave_rows)""").collect()[0]
    now = int(s.ts.max())
    assert row.ir.last_ts == row.id.last_ts == row.iw.last_ts == row.inn.last_ts == now
    ones = np.ones(len(s), dtype=np.int64)
    total = exact_total(s.ts, ones, now, 1000)
    k1 = exact_weights(s.keys, s.ts, ones, now, 1000)["k1"]
    assert k1 > 0
    # randomized cells: within the point bound with probability 1 - delta (one fixed query)
    assert abs(row.p - k1) <= row.ir.point_error_bound * total
    # deterministic cells and waves: always within the relative bound
    assert abs(row.t - total) <= row.id.total_error_bound * total
    assert row.iw.max_arrivals == 100000 and abs(row.c - total) <= row.iw.error_bound * total
    truth = exact_distinct(s.keys, s.ts, now, 1000)
    assert abs(row.n - truth) <= row.inn.error_bound * truth


# --------------------------------------------------------------------------- Python wrappers and bytes


def test_wrappers_match_sql(spark, wave_rows):
    df = spark.table("wave_rows")
    r = df.agg(F.dwave_agg("ts", WINDOW, 0.05, value="value").alias("d"),
               F.distinct_agg("key", "ts", WINDOW).alias("n"),
               F.ecm_agg("key", "ts", WINDOW, 0.1, cell="dwave", max_arrivals=10**6).alias("e")).collect()[0]
    q = spark.createDataFrame([(r.d, r.n, r.e)], "d binary, n binary, e binary").select(
        F.dwave_count("d", 500).alias("dc"), F.distinct_count("n", 500).alias("nc"),
        F.ecm_point("e", "k1", 500).alias("ep"), F.sketch_info("e")["max_arrivals"].alias("u")).collect()[0]
    sql = spark.sql(f"""SELECT dwave_count(dwave_agg(ts, {WINDOW}, 0.05, value => value), 500) AS dc,
                               distinct_count(distinct_agg(key, ts, {WINDOW}), 500) AS nc FROM wave_rows""").collect()[0]
    assert q.dc == sql.dc and q.nc == sql.nc and q.u == 10**6
    # the answers against the exact ones over (now - 500, now]
    s = wave_rows
    now = int(s.ts.max())
    ones = np.ones(len(s), dtype=np.int64)
    wd, ei, nd = DetWave.from_bytes(r.d), EcmSketch.from_bytes(r.e).info(), DistinctSketch.from_bytes(r.n)
    assert wd.last_ts == ei["last_ts"] == nd.last_ts == now
    sums = exact_total(s.ts, s.values, now, 500)
    assert abs(q.dc - sums) <= wd.error_bound * sums
    k1, total = exact_weights(s.keys, s.ts, ones, now, 500)["k1"], exact_total(s.ts, ones, now, 500)
    assert k1 > 0 and q.ep >= (1 - ei["total_error_bound"]) * k1  # deterministic cells: never below
    assert q.ep - k1 <= ei["point_error_bound"] * total
    truth = exact_distinct(s.keys, s.ts, now, 500)
    assert abs(q.nc - truth) <= nd.error_bound * truth
    m = df.groupBy("site").agg(F.dwave_agg("ts", WINDOW).alias("s"), F.distinct_agg("key", "ts", WINDOW).alias("n")) \
        .agg(F.dwave_merge("s").alias("s"), F.distinct_merge("n").alias("n")).collect()[0]
    whole = DistinctSketch.from_bytes(df.agg(F.distinct_agg("key", "ts", WINDOW)).collect()[0][0])
    mw, mn = DetWave.from_bytes(m.s), DistinctSketch.from_bytes(m.n)
    assert mw.merge_depth == 2
    for rng in (1, 100, 1000, WINDOW):
        count = exact_total(s.ts, ones, now, rng)
        assert abs(mw.count(rng) - count) <= mw.error_bound * count, rng
        # the distinct-count merge is lossless: it answers as one sketch over all rows
        assert mn.count(rng) == whole.count(rng), rng
        truth = exact_distinct(s.keys, s.ts, now, rng)
        assert truth > 0 and abs(mn.count(rng) - truth) <= mn.error_bound * truth, rng


def test_bytes_objects_against_oracles():
    rng = np.random.default_rng(3)
    n = 20_000
    ts = np.sort(rng.integers(0, 8000, size=n)).astype(np.int64)
    vals = rng.integers(0, 6, size=n).astype(np.int64)
    users = rng.integers(0, 3000, size=n).astype(np.int64)
    w = DetWave.create(0.05, 2000)
    w.add_many(ts, vals)
    d = DistinctSketch.create(0.2, 0.1, 2000)
    d.add_many(users, ts)
    now = int(ts.max())
    for r in (1, 10, 100, 1000, 2000):
        truth = exact_total(ts, vals, now, r)
        assert abs(w.count(r) - truth) <= w.error_bound * truth + 1e-9
        dtruth = exact_distinct(users, ts, now, r)
        assert abs(d.count(r) - dtruth) <= 0.2 * dtruth + 1e-9
    # bytes round trip, then merge with a second site
    w2, d2 = DetWave.from_bytes(w.to_bytes()), DistinctSketch.from_bytes(d.to_bytes())
    assert w2.to_bytes() == w.to_bytes() and d2.to_bytes() == d.to_bytes()
    assert w2.count(777) == w.count(777) and d2.count(777) == d.count(777)
    other = DetWave.create(0.05, 2000)
    other.add_many(ts, np.ones(n, dtype=np.int64))
    m = DetWave.merge([w, other.to_bytes()])
    assert m.merge_depth == 1
    truth = exact_total(ts, vals, now, 1500) + exact_total(ts, np.ones(n, dtype=np.int64), now, 1500)
    assert abs(m.count(1500) - truth) <= m.error_bound * truth


def test_bytes_object_errors():
    w = DetWave.create(0.1, 100, max_arrivals=10)
    with pytest.raises(SketchError, match="max_arrivals must be a positive integer"):
        DetWave.create(0.1, 100, max_arrivals=0)
    with pytest.raises(SketchError, match="weight must be non-negative"):
        w.add(5, -1)
    for t in range(200):
        w.add(t, 3)
    with pytest.raises(SketchError, match="max_arrivals"):
        w.count(100)
    d = DistinctSketch.create(0.2, 0.1, 100)
    d.add("a", 1)
    with pytest.raises(SketchError, match="cannot add a bigint"):
        d.add(5, 2)
    with pytest.raises(SketchError, match="cell must be 'eh', 'dwave' or 'rwave'"):
        EcmSketch.create(0.1, 0.1, 100, cell="x")
    e = EcmSketch.create(0.3, 0.1, 100, cell="rwave")
    e.add("a", 1)
    with pytest.raises(SketchError, match="needs deterministic cells"):
        e.self_join()
    with pytest.raises(SketchError, match="corrupt sketch|not an ecmsketch"):
        DistinctSketch.from_bytes(d.to_bytes()[:-3])
    with pytest.raises(SketchError, match="expected a deterministic wave"):
        DetWave.from_bytes(d.to_bytes())


def test_batch_values_that_would_change_are_refused():
    """numpy 'S' arrays drop trailing NUL bytes and integers beyond BIGINT would wrap: both are
    refused for DistinctSketch values and EcmSketch keys alike, not silently altered."""
    d = DistinctSketch.create(0.2, 0.1, 100)
    e = EcmSketch.create(0.1, 0.1, 100)
    for bad, phrase in ((np.array([b"a\x00", b"b"]), "trailing NUL"), ([2 ** 63, 1], "fit in BIGINT"),
                        ([2 ** 64, 1], "fit in BIGINT")):
        with pytest.raises(SketchError, match=phrase):
            d.add_many(bad, [1, 2])
        with pytest.raises(SketchError, match=phrase):
            e.add_many(bad, [1, 2])
    d.add_many([b"a\x00", b"a"], [1, 2])  # a list keeps the bytes exactly: two distinct values
    assert d.count() == 2.0
    with pytest.raises(SketchError, match="all integers, all strings or all bytes"):
        d.add_many([1, "a"], [3, 4])


def test_randomized_wave_memory_is_bounded_by_parameters():
    with pytest.raises(SketchError, match="more than the supported"):
        DistinctSketch.create(0.01, 1e-20, 100)  # 55 instances of 360,000 items
    d = DistinctSketch.create(0.01, 0.05, 100)  # 3 instances of 360,000 items: within the bound
    info = d.info()
    assert (info["epsilon"], info["delta"], info["wave_capacity"], info["wave_instances"]) == (0.01, 0.05, 360_000, 3)
    # and it counts: 5000 values, each 4 times, 50 per tick; fewer than the capacity, so exactly
    values = np.arange(20_000) % 5_000
    ts = np.arange(20_000) // 50
    d.add_many(values, ts)
    now = int(ts.max())
    for r in (1, 10, 100):
        assert d.count(r) == exact_distinct(values, ts, now, r), r
