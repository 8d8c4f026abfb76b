"""ecm_agg / ecm_merge and the ECM scalar functions in Spark SQL, checked against exact answers
computed with Spark SQL over the same rows."""
from __future__ import annotations

import numpy as np
import pytest
from pyspark.sql import functions as SF

from conftest import (check_bound_relation, check_point_bounds, make_stream, rows_df, scalar, sketch_info,
                      sketch_view)

N_ROWS = 60_000
DISTINCT = 300
SPAN = 20_000
WINDOW = 5_000
RANGES = (10, 100, 1000, WINDOW)
DELTA = 0.01  # the default delta of ecm_agg


# --------------------------------------------------------------------------- the realistic stream


@pytest.fixture(scope="module")
def stream():
    return make_stream(seed=7, n=N_ROWS, distinct=DISTINCT, span=SPAN)


def _late_order(n: int, rng: np.random.Generator) -> np.ndarray:
    """Time order with ~2% of rows moved later in the input: half of them by ~3000 rows (late but
    within the window of the newest row), half to the very end (a whole window behind)."""
    pos = np.arange(n, dtype=np.float64)
    moved = rng.choice(n, size=n // 50, replace=False)
    near, far = moved[: len(moved) // 2], moved[len(moved) // 2:]
    pos[near] += 3000.5
    pos[far] += n + 0.5
    return np.argsort(pos, kind="stable")


@pytest.fixture(scope="module")
def stream_dfs(spark, stream):
    """The same rows in several input orders (key STRING, ts BIGINT)."""
    cols = {"key": stream.keys, "ts": stream.ts}
    schema = "key string, ts bigint"
    base = rows_df(spark, cols, schema, partitions=4)
    base.createOrReplaceTempView("ecm_stream")
    order = _late_order(len(stream), np.random.default_rng(11))
    late = rows_df(spark, {"key": stream.keys[order], "ts": stream.ts[order]}, schema, partitions=4)
    return {
        "sorted": base,
        "shuffled": base.orderBy(SF.rand(3)),
        "shuffled_one_partition": base.orderBy(SF.rand(5)).coalesce(1),
        "late": late,
    }


@pytest.fixture(scope="module")
def exact(spark, stream_dfs):
    """Exact per-key counts, totals and self-join sizes for every range, by Spark SQL."""
    rg = ", ".join(str(r) for r in RANGES)
    per_key = spark.sql(f"""
        WITH last AS (SELECT max(ts) AS now FROM ecm_stream),
             rg AS (SELECT explode(array({rg})) AS r)
        SELECT key, r, sum(CASE WHEN ts > now - r THEN 1 ELSE 0 END) AS f
        FROM ecm_stream CROSS JOIN last CROSS JOIN rg GROUP BY key, r""").collect()
    f = {(row.key, row.r): row.f for row in per_key}
    totals = {r: sum(v for (k, rr), v in f.items() if rr == r) for r in RANGES}
    f2 = {r: sum(v * v for (k, rr), v in f.items() if rr == r) for r in RANGES}
    stats = spark.sql("SELECT min(ts) AS lo, max(ts) AS hi, count(*) AS n FROM ecm_stream").collect()[0]
    return {"f": f, "total": totals, "f2": f2, "min_ts": stats.lo, "max_ts": stats.hi, "n": stats.n}


@pytest.mark.parametrize("order", ["sorted", "shuffled", "shuffled_one_partition", "late"])
def test_realistic_stream_all_orders(spark, stream_dfs, exact, order):
    stream_dfs[order].createOrReplaceTempView("ecm_ordered")
    sk = scalar(spark, f"SELECT ecm_agg(key, ts, {WINDOW}) FROM ecm_ordered")
    sketch_view(spark, sk, "ecm_sk")
    info = sketch_info(spark, "ecm_sk")

    # --- sketch_info
    assert info["kind"] == "ecm" and info["window_type"] == "time" and info["ts_unit"] == "ticks"
    assert info["window"] == WINDOW and info["epsilon"] == 0.05 and info["delta"] == DELTA
    assert info["key_type"] == "string" and info["optimize_for"] == "point"
    assert info["planned_merge_levels"] == 1
    assert info["size_bytes"] == len(sk)
    check_bound_relation(info)
    assert info["merge_depth"] <= 1, f"one ecm_agg must merge its runs once ({order})"
    assert info["last_ts"] == exact["max_ts"]
    in_window = exact["total"][WINDOW]
    # rows a whole window behind the newest row are dropped from the cells, but every row still
    # counts in total_weight and first_ts, whatever the input order
    assert info["first_ts"] == exact["min_ts"]
    assert info["total_weight"] == exact["n"]
    # ... and the cells hold the window only: most rows lie before it, and the sketch's total over
    # the window is within its bound of the rows in the window, not of all rows
    assert 0 < in_window < exact["n"] / 2
    window_total = scalar(spark, "SELECT ecm_total(s) FROM ecm_sk")
    assert abs(window_total - in_window) <= info["total_error_bound"] * in_window

    # --- point queries: every key (plus absent keys) at every range
    rg = ", ".join(str(r) for r in RANGES)
    est_rows = spark.sql(f"""
        SELECT k.key, rg.r, ecm_point(sk.s, k.key, rg.r) AS est
        FROM ecm_sk sk
        CROSS JOIN (SELECT DISTINCT key FROM ecm_stream UNION ALL SELECT 'absent-' || id FROM range(20)) k
        CROSS JOIN (SELECT explode(array({rg})) AS r) rg""").collect()
    n_keys = len({k for (k, _) in exact["f"]})
    assert n_keys > 200 and len(est_rows) == (n_keys + 20) * len(RANGES)
    rows = [(row.est, exact["f"].get((row.key, row.r), 0), exact["total"][row.r],
             info["point_error_bound"], info["total_error_bound"]) for row in est_rows]
    check_point_bounds(rows, DELTA, f"point/{order}")
    # the heaviest key is estimated within the bound (a sanity check that estimates are not all 0)
    top = max((k for (k, r) in exact["f"] if r == WINDOW), key=lambda k: exact["f"][(k, WINDOW)])
    top_est = [row.est for row in est_rows if row.key == top and row.r == WINDOW][0]
    assert top_est >= (1 - info["total_error_bound"]) * exact["f"][(top, WINDOW)] > 0

    # --- total and self-join at every range; default range = window
    agg = spark.sql(f"""
        SELECT rg.r, ecm_total(s, rg.r) AS total, ecm_self_join(s, rg.r) AS f2
        FROM ecm_sk CROSS JOIN (SELECT explode(array({rg})) AS r) rg""").collect()
    teb, ipb = info["total_error_bound"], info["inner_product_error_bound"]
    for row in agg:
        a = exact["total"][row.r]
        assert abs(row.total - a) <= teb * a + 1e-9, (order, row.r, row.total, a)
        f2 = exact["f2"][row.r]
        assert abs(row.f2 - f2) <= ipb * a * a + 1e-9, (order, row.r, row.f2, f2)
        assert row.f2 >= (1 - teb) ** 2 * f2 - 1e-6
    d = spark.sql("SELECT ecm_total(s) AS t, ecm_total(s, {0}) AS tw, ecm_point(s, 'k0') AS p, "
                  "ecm_point(s, 'k0', {0}) AS pw FROM ecm_sk".format(WINDOW)).collect()[0]
    assert d.t == d.tw and d.p == d.pw


def test_shuffled_rows_certify_the_epsilon_asked(spark):
    """Rows in random order (1.2 M rows in one partition, then the same rows randomly repartitioned
    over 3): one ecm_agg(key, ts, 2000000, 0.1, 0.1) certifies error_bound <= epsilon (merge depth
    1: fine side runs, docs/design/rows-in-any-order.md "Rows in any order") and answers within it against exact counts."""
    n, keys, window = 1_200_000, 500, 2_000_000
    base = spark.range(0, n).selectExpr(f"id % {keys} AS key", "id AS ts")
    ts = np.arange(n, dtype=np.int64)
    key = ts % keys
    now = n - 1
    ranges = (100, 10_000, 300_000, window)
    exact = {r: np.bincount(key[ts > now - r], minlength=keys) for r in ranges}
    for label, df in (("one shuffled partition", base.orderBy(SF.rand(17)).coalesce(1)),
                      ("random repartition", base.repartition(3, SF.rand(19)).sortWithinPartitions(SF.rand(23)))):
        df.createOrReplaceTempView("ecm_shuf")
        sk = scalar(spark, f"SELECT ecm_agg(key, ts, {window}, 0.1, 0.1) FROM ecm_shuf")
        sketch_view(spark, sk, "ecm_shuf_sk")
        info = sketch_info(spark, "ecm_shuf_sk")
        assert info["merge_depth"] == 1, (label, info["merge_depth"])
        assert info["error_bound"] <= info["epsilon"] == 0.1, (label, info["error_bound"])
        assert info["total_weight"] == n and info["last_ts"] == now
        check_bound_relation(info)
        rg = ", ".join(str(r) for r in ranges)
        est = spark.sql(f"""SELECT k.id AS key, rg.r, ecm_point(s, k.id, rg.r) AS est, ecm_total(s, rg.r) AS tot
                            FROM ecm_shuf_sk CROSS JOIN range({keys}) k
                            CROSS JOIN (SELECT explode(array({rg})) AS r) rg""").collect()
        assert len(est) == keys * len(ranges)
        rows = []
        for row in est:
            a = int(exact[row.r].sum())
            assert abs(row.tot - a) <= info["total_error_bound"] * a + 1e-9, (label, row.r, row.tot, a)
            rows.append((row.est, int(exact[row.r][row.key]), a, info["point_error_bound"], info["total_error_bound"]))
        check_point_bounds(rows, 0.1, f"shuffled/{label}")


def test_time_ordered_partitions_merge_once(spark):
    """200 partitions, each in time order: one ecm_agg has merge depth <= 1 and bound <= epsilon."""
    df = spark.range(0, 200_000, numPartitions=200).selectExpr("id % 97 AS key", "id DIV 20 AS ts")
    df.createOrReplaceTempView("ecm_parts")
    sk = scalar(spark, "SELECT ecm_agg(key, ts, 2000) FROM ecm_parts")
    sketch_view(spark, sk, "ecm_parts_sk")
    info = sketch_info(spark, "ecm_parts_sk")
    assert info["merge_depth"] <= 1
    check_bound_relation(info)
    assert info["error_bound"] <= info["epsilon"] + 1e-9
    assert info["total_weight"] == 200_000 and info["first_ts"] == 0 and info["last_ts"] == 9_999
    assert info["key_type"] == "bigint"
    got = spark.sql("""
        SELECT e.key, ecm_point(s.s, e.key, 500) AS est, e.f
        FROM ecm_parts_sk s CROSS JOIN
             (SELECT key, count_if(ts > 9999 - 500) AS f FROM ecm_parts GROUP BY key) e""").collect()
    a = scalar(spark, "SELECT count(*) FROM ecm_parts WHERE ts > 9999 - 500")
    check_point_bounds([(r.est, r.f, a, info["point_error_bound"], info["total_error_bound"]) for r in got],
                       DELTA, "200 partitions")


# --------------------------------------------------------------------------- TIMESTAMP columns


@pytest.fixture(scope="module")
def ts_view(spark):
    rng = np.random.default_rng(21)
    n = 20_000
    secs = np.sort(rng.integers(0, 3600, size=n))
    keys = rng.zipf(1.3, size=n) % 200
    df = rows_df(spark, {"key": keys, "sec": secs}, "key bigint, sec bigint", partitions=4)
    df.selectExpr("key", "timestamp_seconds(1700000000 + sec) AS ts").createOrReplaceTempView("ecm_ts")
    return "ecm_ts"


def test_timestamp_window_and_interval_ranges(spark, ts_view):
    sk = scalar(spark, "SELECT ecm_agg(key, ts, '10 minutes') FROM ecm_ts")
    sketch_view(spark, sk, "ecm_ts_sk")
    info = sketch_info(spark, "ecm_ts_sk")
    assert info["ts_unit"] == "microseconds" and info["window"] == 10 * 60 * 1_000_000
    assert info["key_type"] == "bigint"
    assert info["last_ts"] == scalar(spark, "SELECT unix_micros(max(ts)) FROM ecm_ts")
    check_bound_relation(info)

    ranges = {"INTERVAL '30' SECOND": 30, "INTERVAL '1' MINUTE": 60, "'5 minutes'": 300,
              "INTERVAL '10' MINUTE": 600}
    for rng_sql, secs in ranges.items():
        got = spark.sql(f"""
            WITH last AS (SELECT max(ts) AS now FROM ecm_ts),
                 ex AS (SELECT key, count_if(ts > now - make_dt_interval(0, 0, 0, {secs})) AS f
                        FROM ecm_ts CROSS JOIN last GROUP BY key)
            SELECT ex.key, ex.f, ecm_point(sk.s, ex.key, {rng_sql}) AS est,
                   ecm_total(sk.s, {rng_sql}) AS total
            FROM ex CROSS JOIN ecm_ts_sk sk""").collect()
        a = sum(r.f for r in got)
        assert a > 0
        check_point_bounds([(r.est, r.f, a, info["point_error_bound"], info["total_error_bound"]) for r in got],
                           DELTA, f"timestamp range {rng_sql}")
        assert abs(got[0].total - a) <= info["total_error_bound"] * a + 1e-9

    # an explicit TIMESTAMP `now` two minutes after the last row: (now - 5 min, now]
    row = spark.sql("""
        WITH last AS (SELECT max(ts) + INTERVAL '2' MINUTE AS now FROM ecm_ts)
        SELECT ecm_total(sk.s, INTERVAL '5' MINUTE, last.now) AS est,
               (SELECT count(*) FROM ecm_ts, last l2 WHERE ts > l2.now - INTERVAL '5' MINUTE) AS exact
        FROM ecm_ts_sk sk CROSS JOIN last""").collect()[0]
    assert row.exact > 0
    assert abs(row.est - row.exact) <= info["total_error_bound"] * row.exact + 1e-9


# --------------------------------------------------------------------------- count-based windows


@pytest.mark.parametrize("shuffled", [False, True], ids=["sorted", "shuffled"])
def test_count_based_window(spark, shuffled):
    rng = np.random.default_rng(5)
    n = 20_000
    keys = np.array([f"c{k % 150}" for k in rng.zipf(1.2, size=n)], dtype=object)
    df = rows_df(spark, {"key": keys, "seq": np.arange(1, n + 1)}, "key string, seq bigint", partitions=4)
    df.createOrReplaceTempView("ecm_cnt")
    src = df.orderBy(SF.rand(13)) if shuffled else df
    src.createOrReplaceTempView("ecm_cnt_src")
    sk = scalar(spark, "SELECT ecm_agg(key, seq, 1000, window_type => 'count') FROM ecm_cnt_src")
    sketch_view(spark, sk, "ecm_cnt_sk")
    info = sketch_info(spark, "ecm_cnt_sk")
    assert info["window_type"] == "count" and info["ts_unit"] == "sequence" and info["window"] == 1000
    assert info["last_ts"] == n
    check_bound_relation(info)
    for r in (10, 100, 1000):
        got = spark.sql(f"""
            SELECT ex.key, ex.f, ecm_point(sk.s, ex.key, {r}) AS est, ecm_total(sk.s, {r}) AS total
            FROM (SELECT key, count_if(seq > {n} - {r}) AS f FROM ecm_cnt GROUP BY key) ex
            CROSS JOIN ecm_cnt_sk sk""").collect()
        assert sum(x.f for x in got) == r
        check_point_bounds([(x.est, x.f, r, info["point_error_bound"], info["total_error_bound"]) for x in got],
                           DELTA, f"count range {r}")
        assert abs(got[0].total - r) <= info["total_error_bound"] * r + 1e-9


# --------------------------------------------------------------------------- weights, now, named arguments


@pytest.fixture(scope="module")
def weighted_view(spark):
    s = make_stream(seed=17, n=15_000, distinct=120, span=4_000, max_value=9, prefix="w")
    rows_df(spark, {"key": s.keys, "ts": s.ts, "value": s.values}, "key string, ts bigint, value bigint",
            partitions=4).createOrReplaceTempView("ecm_w")
    return s


def test_value_weights_and_explicit_now(spark, weighted_view):
    sk = scalar(spark, "SELECT ecm_agg(key, ts, 2000, value => value) FROM ecm_w")
    sketch_view(spark, sk, "ecm_w_sk")
    info = sketch_info(spark, "ecm_w_sk")
    assert info["total_weight"] == int(weighted_view.values.sum())
    last = info["last_ts"]
    for r, now in ((100, None), (1000, None), (2000, None), (1000, last + 300), (2000, last + 1999)):
        now_sql = "" if now is None else f", {now}"
        t = last if now is None else now
        got = spark.sql(f"""
            SELECT ex.key, ex.f, ecm_point(sk.s, ex.key, {r}{now_sql}) AS est, ecm_total(sk.s, {r}{now_sql}) AS total
            FROM (SELECT key, sum(CASE WHEN ts > {t} - {r} AND ts <= {t} THEN value ELSE 0 END) AS f
                  FROM ecm_w GROUP BY key) ex
            CROSS JOIN ecm_w_sk sk""").collect()
        a = sum(x.f for x in got)
        check_point_bounds([(x.est, x.f, a, info["point_error_bound"], info["total_error_bound"]) for x in got],
                           DELTA, f"weighted r={r} now={now}")
        assert abs(got[0].total - a) <= info["total_error_bound"] * a + 1e-9, (r, now, got[0].total, a)
    # a zero range covers nothing
    assert scalar(spark, "SELECT ecm_total(s, 0) FROM ecm_w_sk") == 0.0


def test_null_rows_are_skipped(spark, weighted_view):
    with_nulls = spark.sql("""
        SELECT key, ts, value FROM ecm_w
        UNION ALL SELECT CAST(NULL AS STRING), 10, 5
        UNION ALL SELECT 'w0', CAST(NULL AS BIGINT), 5
        UNION ALL SELECT 'w0', 3999, CAST(NULL AS BIGINT)""")
    with_nulls.createOrReplaceTempView("ecm_w_nulls")
    row = spark.sql("""
        WITH a AS (SELECT ecm_agg(key, ts, 2000, value => value) AS s FROM ecm_w),
             b AS (SELECT ecm_agg(key, ts, 2000, value => value) AS s FROM ecm_w_nulls)
        SELECT sketch_info(a.s).total_weight AS wa, sketch_info(b.s).total_weight AS wb,
               sketch_info(a.s).last_ts AS la, sketch_info(b.s).last_ts AS lb,
               ecm_point(a.s, 'w0') AS pa, ecm_point(b.s, 'w0') AS pb,
               ecm_total(a.s) AS ta, ecm_total(b.s) AS tb
        FROM a CROSS JOIN b""").collect()[0]
    assert row.wa == row.wb == int(weighted_view.values.sum())
    assert row.la == row.lb
    assert row.pa == row.pb and row.ta == row.tb
    # an aggregate over no rows (or only NULL rows) is an empty sketch, not NULL
    empty = spark.sql("""SELECT sketch_info(s).total_weight AS w, sketch_info(s).last_ts AS l, ecm_point(s, 'x', 10, 100) AS p
                         FROM (SELECT ecm_agg(key, ts, 2000) AS s FROM ecm_w_nulls WHERE key IS NULL)""").collect()[0]
    assert empty.w == 0 and empty.l is None and empty.p == 0.0


def test_named_arguments(spark, weighted_view):
    row = spark.sql("""
        WITH a AS (SELECT ecm_agg(key, ts, window => 1000, epsilon => 0.1) AS s FROM ecm_w),
             b AS (SELECT ecm_agg(key, ts, 1000, 0.1) AS s FROM ecm_w),
             c AS (SELECT ecm_agg(key, ts, epsilon => 0.02, delta => 0.05, seed => 7,
                                  optimize_for => 'inner_product', merge_levels => 2) AS s FROM ecm_w)
        SELECT sketch_info(a.s) AS ia, sketch_info(c.s) AS ic,
               ecm_point(a.s, 'w1', 500) AS pa, ecm_point(b.s, 'w1', 500) AS pb,
               ecm_total(a.s, 700) AS ta, ecm_total(b.s, 700) AS tb
        FROM a CROSS JOIN b CROSS JOIN c""").collect()[0]
    ia, ic = row.ia.asDict(), row.ic.asDict()
    assert ia["window"] == 1000 and ia["epsilon"] == 0.1 and ia["delta"] == DELTA
    assert row.pa == row.pb and row.ta == row.tb
    assert ic["window"] is None  # unbounded by default
    assert ic["epsilon"] == 0.02 and ic["delta"] == 0.05 and ic["seed"] == 7
    assert ic["optimize_for"] == "inner_product" and ic["planned_merge_levels"] == 3
    assert ic["depth"] == int(np.ceil(np.log(1 / 0.05)))
    assert ic["width"] == int(np.ceil(np.e / (0.02 / 1.02)))
    check_bound_relation(ia)
    check_bound_relation(ic)


def test_query_key_casts(spark):
    spark.range(0, 5000, numPartitions=4).selectExpr("id % 50 AS k", "id AS ts", "CAST(id % 50 AS STRING) AS sk") \
        .createOrReplaceTempView("ecm_keys")
    row = spark.sql("""
        WITH b AS (SELECT ecm_agg(k, ts, 5000) AS s FROM ecm_keys),
             st AS (SELECT ecm_agg(sk, ts, 5000) AS s FROM ecm_keys)
        SELECT ecm_point(b.s, 23) AS b_int, ecm_point(b.s, '23') AS b_str, ecm_point(b.s, CAST(23 AS INT)) AS b_i32,
               ecm_point(st.s, 5) AS s_int, ecm_point(st.s, '5') AS s_str,
               ecm_point(b.s, -1) AS b_neg, ecm_point(b.s, '-1') AS b_neg_str
        FROM b CROSS JOIN st""").collect()[0]
    assert row.b_int == row.b_str == row.b_i32
    assert row.b_int >= 100 * (1 - 0.05)
    assert row.s_int == row.s_str and row.s_int >= 100 * (1 - 0.05)
    assert row.b_neg == row.b_neg_str


# --------------------------------------------------------------------------- merging across sites


@pytest.fixture(scope="module")
def sites_view(spark):
    frames = []
    for site in range(4):
        s = make_stream(seed=100 + site, n=8_000, distinct=150, span=6_000, prefix="s")
        frames.append((np.full(len(s), site), s.keys, s.ts))
    site = np.concatenate([f[0] for f in frames])
    keys = np.concatenate([f[1] for f in frames])
    ts = np.concatenate([f[2] for f in frames])
    rows_df(spark, {"site": site, "key": keys, "ts": ts}, "site int, key string, ts bigint", partitions=4) \
        .createOrReplaceTempView("ecm_sites")
    spark.sql("SELECT site, ecm_agg(key, ts, 3000, merge_levels => 1) AS s FROM ecm_sites GROUP BY site") \
        .cache().createOrReplaceTempView("ecm_site_sk")
    return "ecm_site_sk"


def test_merge_across_sites(spark, sites_view):
    per_site = spark.sql("SELECT site, sketch_info(s) AS i FROM ecm_site_sk").collect()
    assert len(per_site) == 4
    for r in per_site:
        i = r.i.asDict()
        assert i["planned_merge_levels"] == 2 and i["merge_depth"] <= 1
        check_bound_relation(i)
    merged = scalar(spark, "SELECT ecm_merge(s) FROM ecm_site_sk")
    sketch_view(spark, merged, "ecm_merged_sk")
    info = sketch_info(spark, "ecm_merged_sk")
    assert 1 <= info["merge_depth"] <= 2
    check_bound_relation(info)
    assert info["error_bound"] <= info["epsilon"] + 1e-9
    assert info["total_weight"] == scalar(spark, "SELECT count(*) FROM ecm_sites")
    assert info["last_ts"] == scalar(spark, "SELECT max(ts) FROM ecm_sites")
    assert info["first_ts"] == scalar(spark, "SELECT min(ts) FROM ecm_sites")
    # merging beyond the budget is allowed, and the reported bound grows past epsilon
    deeper = spark.sql("""SELECT sketch_info(ecm_merge(s)) AS i FROM (
                              SELECT ecm_merge(s) AS s FROM ecm_site_sk WHERE site < 2
                              UNION ALL SELECT ecm_merge(s) FROM ecm_site_sk WHERE site >= 2)""").collect()[0].i.asDict()
    assert deeper["merge_depth"] == info["merge_depth"] + 1 == 3
    check_bound_relation(deeper)
    assert deeper["error_bound"] > deeper["epsilon"]
    last = info["last_ts"]
    for r in (50, 500, 3000):
        got = spark.sql(f"""
            SELECT ex.key, ex.f, ecm_point(m.s, ex.key, {r}) AS est, ecm_total(m.s, {r}) AS total
            FROM (SELECT key, count_if(ts > {last} - {r}) AS f FROM ecm_sites GROUP BY key) ex
            CROSS JOIN ecm_merged_sk m""").collect()
        a = sum(x.f for x in got)
        check_point_bounds([(x.est, x.f, a, info["point_error_bound"], info["total_error_bound"]) for x in got],
                           DELTA, f"merged r={r}")
        assert abs(got[0].total - a) <= info["total_error_bound"] * a + 1e-9


def test_merge_ignores_nulls(spark, sites_view):
    row = spark.sql("""
        WITH plain AS (SELECT ecm_merge(s) AS s FROM ecm_site_sk),
             nulls AS (SELECT ecm_merge(s) AS s FROM
                       (SELECT s FROM ecm_site_sk UNION ALL SELECT CAST(NULL AS BINARY) UNION ALL SELECT NULL))
        SELECT ecm_total(p.s, 1000) AS tp, ecm_total(n.s, 1000) AS tn,
               ecm_point(p.s, 's3', 1000) AS pp, ecm_point(n.s, 's3', 1000) AS pn,
               sketch_info(p.s).merge_depth AS dp, sketch_info(n.s).merge_depth AS dn
        FROM plain p CROSS JOIN nulls n""").collect()[0]
    assert row.tp == row.tn and row.pp == row.pn and row.dp == row.dn
    only_nulls = spark.sql("""
        SELECT ecm_merge(s) AS m FROM (SELECT CAST(NULL AS BINARY) AS s UNION ALL SELECT NULL)""").collect()[0].m
    assert only_nulls is None
    row = spark.sql("""SELECT ecm_point(CAST(NULL AS BINARY), 'k') AS p, ecm_total(NULL) AS t,
                              ecm_self_join(CAST(NULL AS BINARY), 10) AS f2, sketch_info(CAST(NULL AS BINARY)) AS i,
                              ecm_inner_product(s, NULL) AS ip
                       FROM ecm_site_sk LIMIT 1""").collect()[0]
    assert row.p is None and row.t is None and row.f2 is None and row.i is None and row.ip is None
    # a single sketch merged alone keeps its depth and answers
    row = spark.sql("""SELECT ecm_total(s, 1000) AS a, ecm_total(m, 1000) AS b,
                              sketch_info(s).merge_depth AS da, sketch_info(m).merge_depth AS db
                       FROM (SELECT first(s) AS s, ecm_merge(s) AS m FROM ecm_site_sk WHERE site = 2)""").collect()[0]
    assert row.a == row.b and row.da == row.db


# --------------------------------------------------------------------------- inner products


def test_inner_product_of_two_streams(spark):
    a = make_stream(seed=31, n=20_000, distinct=200, span=8_000, prefix="j")
    b = make_stream(seed=32, n=15_000, distinct=250, span=8_000, prefix="j")
    rows_df(spark, {"src": np.array(["a"] * len(a) + ["b"] * len(b), dtype=object),
                    "key": np.concatenate([a.keys, b.keys]), "ts": np.concatenate([a.ts, b.ts])},
            "src string, key string, ts bigint", partitions=4).createOrReplaceTempView("ecm_ab")
    spark.sql("""SELECT src, ecm_agg(key, ts, 4000, optimize_for => 'inner_product') AS s
                 FROM ecm_ab GROUP BY src""").createOrReplaceTempView("ecm_ab_sk_q")
    rows = spark.sql("SELECT src, s FROM ecm_ab_sk_q").collect()
    sks = {r.src: bytes(r.s) for r in rows}
    spark.createDataFrame([(bytearray(sks["a"]), bytearray(sks["b"]))], "a binary, b binary") \
        .createOrReplaceTempView("ecm_ab_sk")
    ia = sketch_info(spark, "ecm_ab_sk", "a")
    ib = sketch_info(spark, "ecm_ab_sk", "b")
    check_bound_relation(ia)
    check_bound_relation(ib)
    now = max(ia["last_ts"], ib["last_ts"])
    cm = ia["cm_epsilon"]
    p = (1 + ia["total_error_bound"]) * (1 + ib["total_error_bound"]) - 1
    bound = max(p, (1 + p) * cm)
    for r in (100, 1000, 4000):
        ex = spark.sql(f"""
            WITH fa AS (SELECT key, count(*) AS c FROM ecm_ab WHERE src = 'a' AND ts > {now} - {r} GROUP BY key),
                 fb AS (SELECT key, count(*) AS c FROM ecm_ab WHERE src = 'b' AND ts > {now} - {r} GROUP BY key)
            SELECT (SELECT coalesce(sum(fa.c * fb.c), 0) FROM fa JOIN fb ON fa.key = fb.key) AS join_size,
                   (SELECT coalesce(sum(c), 0) FROM fa) AS na, (SELECT coalesce(sum(c), 0) FROM fb) AS nb""").collect()[0]
        est = scalar(spark, f"SELECT ecm_inner_product(a, b, {r}) FROM ecm_ab_sk")
        est_ba = scalar(spark, f"SELECT ecm_inner_product(b, a, {r}, {now}) FROM ecm_ab_sk")
        assert ex.join_size > 0
        assert abs(est - ex.join_size) <= bound * ex.na * ex.nb + 1e-9, (r, est, ex.join_size)
        lower = (1 - ia["total_error_bound"]) * (1 - ib["total_error_bound"]) * ex.join_size
        assert est >= lower - 1e-6
        assert est == pytest.approx(est_ba, rel=1e-12)


def test_aggregate_as_window_function_counts_each_row_once(spark):
    """A growing window frame evaluates the same buffer repeatedly; dropped rows count once."""
    rows = spark.sql("""
        SELECT seq, sketch_info(ecm_agg(k, ts, 10) OVER (ORDER BY seq)).total_weight AS w,
               sketch_info(eh_agg(ts, 10) OVER (ORDER BY seq)).total_weight AS hw
        FROM VALUES (1, 'a', 100L), (2, 'a', 101L), (3, 'b', 1L), (4, 'a', 102L) AS t(seq, k, ts)
        ORDER BY seq""").collect()
    assert [r.w for r in rows] == [1, 2, 3, 4]
    assert [r.hw for r in rows] == [1, 2, 3, 4]


def test_inner_product_of_different_windows_is_symmetric(spark):
    r = spark.sql("""
        WITH d AS (SELECT cast(id % 3 AS BIGINT) AS k, id AS ts FROM range(1000))
        SELECT ecm_inner_product(a, b) AS ab, ecm_inner_product(b, a) AS ba
        FROM (SELECT ecm_agg(k, ts, 1000) AS a, ecm_agg(k, ts, 100) AS b FROM d)""").first()
    assert r.ab == r.ba
