"""quantile_agg / quantile_merge and top_k_agg / top_k_merge in SQL, against exact answers computed in
numpy over the same rows (docs/design/windowed-quantiles.md, docs/design/windowed-top-k.md).

* Quantiles: rows in time order, reversed, shuffled and in bursts, over 4 partitions; every quantile
  of every range (from one tick to the whole window, starting on and inside bursts) has a rank within
  the certified epsilon times the range's weight, and so do ranks and range counts; weights; merges
  of 2 to 33 sites keep epsilon and are order-free; a roll-up of days answers as the last day does.
* Frequent items: INT, BIGINT, DOUBLE, STRING and BINARY keys come back in their own type; every
  returned interval holds the exact weight; heavy hitters report every key at (phi + e) n and none
  below (phi - e) n, e the sketch's certified heavy_hitter_error_bound; top-10 recall is 1 for keys
  clearly in the top 10; merges of 2 to 33 sites carry the bound and are order-free; the STRUCT
  survives a table.
* Bad input: NaN values, values and keys of types the sketches do not take, epsilon out of range,
  a key type that does not match, merges of sketches with different parameters.

The quantile sketch's bound holds with probability 1 - delta per range; the tests build it with
delta = 1e-6, so that a failure among the few hundred ranges checked is out of reach by chance.
"""
from __future__ import annotations

import numpy as np
import pytest
from pyspark.sql import functions as SF

from conftest import USER_ERROR, bursty_ticks, expect_error, rows_df

from ecmsketch import functions as E

N = 30_000
SPAN = 20_000
WINDOW = 8_000
Q_EPS = 0.02
DELTA = 1e-6
K_EPS = 0.01
QS = [0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0]
PHIS = [0.01, 0.03, 0.1]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(30)
    ts = bursty_ticks(rng, N, SPAN)
    v = np.round(rng.lognormal(3.0, 1.0, N), 2)  # rounded: many equal values
    w = rng.integers(1, 4, N).astype(np.int64)
    p = np.arange(1, 3001, dtype=np.float64) ** -1.1
    ids = rng.choice(3000, size=N, p=p / p.sum()).astype(np.int64) * 7 - 5000
    site = rng.integers(0, 33, N)
    return {"ts": ts, "v": v, "w": w, "k": ids, "site": site, "rng": rng}


def _frame(spark, d, order, partitions=4):
    n = len(d["ts"])
    idx = {"time": np.arange(n), "reversed": np.arange(n)[::-1],
           "shuffled": np.random.default_rng(5).permutation(n)}[order]
    cols = {"ts": d["ts"][idx], "v": d["v"][idx], "w": d["w"][idx], "k": d["k"][idx], "site": d["site"][idx]}
    return rows_df(spark, cols, "ts bigint, v double, w bigint, k bigint, site int", partitions=partitions)


def _ranges(ts, now, seed, count=12):
    """The window, one tick, and ranges starting on a timestamp, just before and just after one."""
    rng = np.random.default_rng(seed)
    picks = ts[rng.integers(0, len(ts), count)]
    rs = {WINDOW, 1, 2} | {int(now - t + 1 + off) for t, off in zip(picks, rng.integers(-1, 2, count))}
    return sorted(r for r in rs if 1 <= r <= WINDOW)


def _quantile_answers(spark, sk, ranges, xs):
    """(r, quantiles, ranks, total, bound) per range, from the sketch `sk` (bytes) through SQL."""
    qarr = "array(" + ", ".join(repr(q) for q in QS) + ")"
    xarr = "array(" + ", ".join(repr(float(x)) for x in xs) + ")"
    df = spark.createDataFrame([(bytearray(sk), int(r)) for r in ranges], "s binary, r bigint")
    rows = df.selectExpr("r", f"ecm_quantile(s, {qarr}, r) AS q", f"transform({xarr}, x -> ecm_rank(s, x, r)) AS rk",
                         "ecm_total(s, r) AS n", "sketch_info(s) AS info").collect()
    return rows


def _check_quantiles(rows, ts, v, w, now, eps):
    checked = 0
    for row in rows:
        m = (ts > now - row.r) & (ts <= now)
        vals, wts = v[m], w[m]
        n = float(wts.sum())
        assert abs(row.n - n) <= eps * n + 1e-9, (row.r, row.n, n)
        if n == 0:
            assert all(q is None for q in row.q), row
            continue
        for q, x in zip(QS, row.q):
            le = float(wts[vals <= x].sum())
            lt = float(wts[vals < x].sum())
            assert le >= (q - eps) * n - 1e-9 and lt <= (q + eps) * n + 1e-9, \
                f"range {row.r}: q {q} -> {x}, exact rank in [{lt}, {le}] of {n}, eps {eps}"
            checked += 1
    return checked


def _check_ranks(rows, xs, ts, v, w, now, eps):
    for row in rows:
        m = (ts > now - row.r) & (ts <= now)
        n = float(w[m].sum())
        for x, got in zip(xs, row.rk):
            exact = float(w[m][v[m] <= x].sum())
            assert abs(got - exact) <= eps * n + 1e-9, (row.r, x, got, exact, n)


@pytest.mark.parametrize("order", ["time", "reversed", "shuffled"])
def test_quantiles_in_any_row_order_within_epsilon(spark, data, order):
    df = _frame(spark, data, order)
    sk = df.agg(E.quantile_agg("v", "ts", WINDOW, Q_EPS, delta=DELTA, merge_levels=1).alias("s")).first().s
    ts, v = data["ts"], data["v"]
    ones = np.ones(len(ts), dtype=np.int64)
    now = int(ts.max())
    ranges = _ranges(ts, now, 1)
    xs = list(np.quantile(v, [0.05, 0.3, 0.5, 0.8, 0.97]))
    rows = _quantile_answers(spark, sk, ranges, xs)
    assert _check_quantiles(rows, ts, v, ones, now, Q_EPS) >= 9 * 6
    _check_ranks(rows, xs, ts, v, ones, now, Q_EPS)
    info = rows[0].info
    assert info.kind == "quantile" and info.quantile_rank_error_bound == Q_EPS and info.error_bound == Q_EPS
    assert info.merge_depth <= 2 and info.planned_merge_levels == 2  # Spark's own level and merge_levels
    assert info.runs >= 1 and info.buckets >= 1 and 0 <= info.raw_rows <= info.stored_entries, info


def test_weighted_quantiles_ranges_and_later_now(spark, data):
    df = _frame(spark, data, "shuffled")
    sk = df.agg(E.quantile_agg("v", "ts", WINDOW, Q_EPS, delta=DELTA, weight="w").alias("s")).first().s
    ts, v, w = data["ts"], data["v"], data["w"]
    now = int(ts.max()) + 300  # a later now: the range's old end is cut by the window
    ranges = _ranges(ts, now, 2)
    xs = list(np.quantile(v, [0.2, 0.6, 0.9]))
    qarr = "array(" + ", ".join(repr(q) for q in QS) + ")"
    xarr = "array(" + ", ".join(repr(float(x)) for x in xs) + ")"
    sdf = spark.createDataFrame([(bytearray(sk), int(r)) for r in ranges], "s binary, r bigint")
    rows = sdf.selectExpr("r", f"ecm_quantile(s, {qarr}, r, {now}) AS q",
                          f"transform({xarr}, x -> ecm_rank(s, x, r, {now})) AS rk",
                          f"ecm_total(s, r, {now}) AS n",
                          f"ecm_range_count(s, {xs[0]}, {xs[2]}, r, {now}) AS rc").collect()
    _check_quantiles(rows, ts, v, w, now, Q_EPS)
    _check_ranks(rows, xs, ts, v, w, now, Q_EPS)
    for row in rows:
        m = (ts > now - row.r) & (ts <= now)
        n = float(w[m].sum())
        exact = float(w[m][(v[m] >= xs[0]) & (v[m] <= xs[2])].sum())
        assert abs(row.rc - exact) <= 2 * Q_EPS * n + 1e-9, (row.r, row.rc, exact)


@pytest.mark.parametrize("sites", [2, 5, 33])
def test_quantile_merge_of_sites_keeps_epsilon_and_is_order_free(spark, data, sites):
    df = _frame(spark, data, "shuffled").withColumn("site", SF.col("site") % sites)
    per_site = df.groupBy("site").agg(E.quantile_agg("v", "ts", WINDOW, Q_EPS, delta=DELTA, merge_levels=1).alias("s"))
    per_site = per_site.cache()
    a = per_site.agg(E.quantile_merge("s").alias("s")).first().s
    b = per_site.orderBy(SF.desc("site")).coalesce(1).agg(E.quantile_merge("s").alias("s")).first().s
    assert bytes(a) == bytes(b)  # any order and grouping of the same inputs: the same runs, the same bytes
    ts, v = data["ts"], data["v"]
    now = int(ts.max())
    rows = _quantile_answers(spark, a, _ranges(ts, now, 3 + sites, count=6), [float(np.median(v))])
    _check_quantiles(rows, ts, v, np.ones(len(ts), dtype=np.int64), now, Q_EPS)
    info = rows[0].info
    assert info.error_bound == Q_EPS and info.quantile_rank_error_bound == Q_EPS, info
    per_site.unpersist()


@pytest.mark.parametrize("merge_levels", [0, 1])
def test_quantile_sketches_fold_runs_as_merge_levels_plan(spark, data, merge_levels):
    """A finished quantile_agg is one run, however its rows were ordered and partitioned; quantile_merge
    folds the sites into one run when merge_levels plans for it, and keeps them side by side beyond."""
    sites = 5
    df = _frame(spark, data, "shuffled", partitions=6).withColumn("site", SF.col("site") % sites)
    per_site = df.groupBy("site").agg(
        E.quantile_agg("v", "ts", WINDOW, Q_EPS, delta=DELTA, merge_levels=merge_levels).alias("s")).cache()
    assert [r.n for r in per_site.selectExpr("sketch_info(s).runs AS n").collect()] == [1] * sites
    merged = per_site.agg(E.quantile_merge("s").alias("s")).first().s
    ts, v = data["ts"], data["v"]
    now = int(ts.max())
    rows = _quantile_answers(spark, merged, _ranges(ts, now, 40 + merge_levels, count=6), [float(np.median(v))])
    _check_quantiles(rows, ts, v, np.ones(len(ts), dtype=np.int64), now, Q_EPS)
    info = rows[0].info
    assert info.runs == (1 if merge_levels else sites), info
    assert info.error_bound == Q_EPS and info.planned_merge_levels == 1 + merge_levels, info
    # a merge of merges beyond the plan keeps the runs side by side, and epsilon
    halves = per_site.withColumn("h", SF.col("site") % 2).groupBy("h").agg(E.quantile_merge("s").alias("s"))
    again = halves.agg(E.quantile_merge("s").alias("s")).first().s
    rows = _quantile_answers(spark, again, _ranges(ts, now, 50 + merge_levels, count=6), [float(np.median(v))])
    _check_quantiles(rows, ts, v, np.ones(len(ts), dtype=np.int64), now, Q_EPS)
    assert rows[0].info.runs == (2 if merge_levels else sites), rows[0].info
    per_site.unpersist()


def test_folded_sketches_of_rows_over_many_windows_decode_and_merge(spark):
    """Rows over eight windows: a fold leaves out what lies before the window, so every group's
    sketch and their merge decode, and the merge answers within epsilon."""
    rng = np.random.default_rng(12)
    n, window = 60_000, 1_000
    ts = rng.integers(0, 8_000, n)
    v = rng.normal(size=n)
    g = rng.integers(0, 20, n)
    w = np.where(rng.integers(0, 10, n) == 0, rng.integers(1, 1000, n), 1)
    df = rows_df(spark, {"ts": ts, "v": v, "g": g, "w": w}, "ts bigint, v double, g bigint, w bigint", partitions=4)
    for eps in (0.1, 0.05):
        per = df.groupBy("g").agg(E.quantile_agg("v", "ts", window, eps, delta=DELTA, weight="w", merge_levels=2).alias("s"))
        per = per.cache()
        infos = per.selectExpr("sketch_info(s) AS i").collect()
        assert len(infos) == 20 and all(r.i.runs == 1 for r in infos)
        merged = per.agg(E.quantile_merge("s").alias("s")).first().s
        now = int(ts.max())
        rows = _quantile_answers(spark, merged, [1, 10, 300, window], [0.0])
        _check_quantiles(rows, ts, v, w, now, eps)
        assert rows[0].info.runs == 1, rows[0].info
        per.unpersist()


def test_quantile_merge_of_more_sketches_than_a_buffer_holds_folds_once(spark):
    """4,200 sketches: the merge aggregate merges its first 4,097 early, without folding, and folds
    once at the end, so the result is one run and does not depend on the order of the rows."""
    from ecmsketch import QuantileSketch
    rng = np.random.default_rng(13)
    parts = []
    for i in range(4_200):
        s = QuantileSketch(0.05, 1_000, merge_levels=1)
        t = np.sort(rng.integers(0, 1_000, 3))
        s.add_many(rng.normal(size=3), t)
        parts.append((i, bytearray(s.to_bytes())))
    df = spark.createDataFrame(parts, "i int, s binary")
    a = df.orderBy("i").coalesce(1).agg(E.quantile_merge("s").alias("s")).first().s
    b = df.orderBy(SF.desc("i")).coalesce(1).agg(E.quantile_merge("s").alias("s")).first().s
    assert bytes(a) == bytes(b)
    info = spark.createDataFrame([(a,)], "s binary").selectExpr("sketch_info(s) AS i").first().i
    assert info.runs == 1 and info.total_weight == 3 * 4_200, info


def test_roll_up_of_days_answers_as_the_last_day(spark):
    rng = np.random.default_rng(8)
    day = 1_000
    ts = np.sort(rng.integers(0, 5 * day, 20_000)).astype(np.int64)
    v = rng.normal(100.0, 20.0, len(ts)).round(3)
    df = rows_df(spark, {"ts": ts, "v": v, "d": ts // day}, "ts bigint, v double, d bigint", partitions=2)
    days = df.groupBy("d").agg(E.quantile_agg("v", "ts", day, 0.05, delta=DELTA).alias("s")).cache()
    rolled = days.agg(E.quantile_merge("s").alias("s"))
    last = days.where("d = 4").select("s")
    q = ["ecm_quantile(s, array(0.1, 0.5, 0.9), {r}) AS q", "ecm_total(s, {r}) AS n"]
    for r in (1, 100, 999, day):
        a = rolled.selectExpr(*[x.format(r=r) for x in q]).first()
        b = last.selectExpr(*[x.format(r=r) for x in q]).first()
        assert a == b, (r, a, b)
    days.unpersist()


# ------------------------------------------------------------------------------------ frequent items

KEY_TYPES = {
    "int": ("CAST(k AS INT)", int),
    "bigint": ("k * 1000003", int),
    "double": ("k / 4.0D", float),
    "string": ("concat('/page/', k)", str),
    "binary": ("CAST(concat('b', k) AS BINARY)", (bytes, bytearray)),
}


def _exact_counts(keys, ts, w, now, r):
    m = (ts > now - r) & (ts <= now)
    out = {}
    for k, x in zip(keys[m].tolist(), w[m].tolist()):
        out[k] = out.get(k, 0) + x
    return out


def _k(key):
    """A returned key as a dict key (pyspark 3.5 returns BINARY as bytearray)."""
    return bytes(key) if isinstance(key, bytearray) else key


def _check_items(rows, exact_for, what):
    """rows: (r, items, hh{phi}, e); every returned interval holds the truth, heavy hitters and top 10."""
    for row in rows:
        exact = exact_for(row.r)
        n = sum(exact.values())
        e = row.e
        for it in row.items:
            f = exact.get(_k(it.key), 0)
            assert it.lower <= f <= it.upper, f"{what} range {row.r}: key {it.key!r} {f} outside [{it.lower}, {it.upper}]"
            assert it.upper - it.lower <= e * n + 1e-9, (what, row.r, it)
        for phi, hh in zip(PHIS, row.hh):
            got = {_k(h.key) for h in hh}
            for k, f in exact.items():
                if f >= (phi + e) * n:
                    assert k in got, f"{what} range {row.r} phi {phi}: key {k!r} of weight {f}/{n} missing"
            for k in got:
                assert exact.get(k, 0) >= (phi - e) * n, f"{what} range {row.r} phi {phi}: key {k!r} reported"
        top = sorted(exact.values(), reverse=True)
        if len(top) > 10:
            clear = {k for k, f in exact.items() if f > top[10] + 2 * e * n}
            got10 = {_k(it.key) for it in row.items[:10]}
            assert clear <= got10, (what, row.r, clear - got10)


def _items_rows(sk_df, ranges):
    hh = ", ".join(f"ecm_heavy_hitters(s, {phi}, r)" for phi in PHIS)
    return (sk_df.crossJoin(sk_df.sparkSession.createDataFrame([(int(r),) for r in ranges], "r bigint"))
            .selectExpr("r", "ecm_top_k(s, 5000, r) AS items", f"array({hh}) AS hh",
                        "sketch_info(s).heavy_hitter_error_bound AS e").collect())


def _py_key(kind, raw):
    return {"int": int(raw), "bigint": int(raw) * 1000003, "double": raw / 4.0, "string": f"/page/{raw}",
            "binary": f"b{raw}".encode()}[kind]


@pytest.mark.matrix  # the STRUCT and typed keys on every Spark line
@pytest.mark.parametrize("kind", sorted(KEY_TYPES))
def test_top_k_keys_in_their_own_type_within_bounds(spark, data, kind):
    expr, pytype = KEY_TYPES[kind]
    df = _frame(spark, data, "shuffled").selectExpr(f"{expr} AS key", "ts", "w")
    sk = df.agg(E.top_k_agg("key", "ts", WINDOW, K_EPS, value="w", merge_levels=1).alias("s")).cache()
    assert sk.schema["s"].dataType.simpleString().startswith("struct<sketch:binary,key_type:")
    ts, w = data["ts"], data["w"]
    keys = np.array([_py_key(kind, k) for k in data["k"].tolist()], dtype=object)
    now = int(ts.max())
    ranges = _ranges(ts, now, 4, count=5)
    rows = _items_rows(sk, ranges)
    for row in rows:
        assert row.items and all(isinstance(it.key, pytype) for it in row.items), (kind, row.items[:2])
        assert 0 < row.e <= K_EPS
    _check_items(rows, lambda r: _exact_counts(keys, ts, w, now, r), kind)
    # ecm_point takes a key of the sketch's type (a DOUBLE key for DOUBLE keys) and answers its estimate
    top = rows[0].items[0]
    point = sk.select(E.ecm_point("s", SF.lit(top.key), rows[0].r).alias("p")).first().p
    assert point == top.estimate, (kind, top, point)
    sk.unpersist()


@pytest.mark.parametrize("sites", [2, 9, 33])
def test_top_k_merge_of_sites_carries_the_bound(spark, data, sites):
    df = _frame(spark, data, "shuffled").selectExpr("concat('/page/', k) AS page", "ts", f"site % {sites} AS site")
    per_site = df.groupBy("site").agg(E.top_k_agg("page", "ts", WINDOW, K_EPS, merge_levels=1).alias("s")).cache()
    merged = per_site.agg(E.top_k_merge("s").alias("s")).cache()
    # order-free: the same sketches merged in another order and grouping give the same bytes
    other = per_site.orderBy(SF.desc("site")).coalesce(1).agg(E.top_k_merge("s").alias("s"))
    assert bytes(merged.first().s.sketch) == bytes(other.first().s.sketch)
    ts = data["ts"]
    keys = np.array([f"/page/{k}" for k in data["k"].tolist()], dtype=object)
    ones = np.ones(len(ts), dtype=np.int64)
    now = int(ts.max())
    rows = _items_rows(merged, _ranges(ts, now, 5, count=4))
    info = merged.select(E.sketch_info("s").alias("i")).first().i
    assert info.merge_depth == 2 and info.planned_merge_levels == 2 and info.heavy_hitter_error_bound <= K_EPS, info
    assert info.scales >= 2 and info.horizon_ratio > 1 and info.table_size > 1 and info.key_type == "string", info
    _check_items(rows, lambda r: _exact_counts(keys, ts, ones, now, r), f"{sites} sites")
    # sites over the same time fold: the merge holds about what one aggregate of all the rows holds
    whole = df.agg(E.top_k_agg("page", "ts", WINDOW, K_EPS, merge_levels=1).alias("s"))
    one = whole.select(E.sketch_info("s").alias("i")).first().i
    assert info.stored_entries <= 2 * one.stored_entries, (sites, info.stored_entries, one.stored_entries)
    merged.unpersist()
    per_site.unpersist()


@pytest.mark.matrix  # the STRUCT and typed keys on every Spark line
def test_top_k_struct_and_quantile_bytes_survive_a_table(spark, data, tmp_path):
    df = _frame(spark, data, "time").selectExpr("CAST(k AS INT) AS key", "v", "ts", "site % 3 AS site")
    t = df.groupBy("site").agg(E.top_k_agg("key", "ts", WINDOW, merge_levels=1).alias("hits"),
                               E.quantile_agg("v", "ts", WINDOW).alias("lat"))
    path = str(tmp_path / "sketches")
    t.write.parquet(path)
    back = spark.read.parquet(path)
    assert back.schema["hits"].dataType.simpleString() == t.schema["hits"].dataType.simpleString() == "struct<sketch:binary,key_type:int>"
    q = back.agg(E.top_k_merge("hits").alias("h"), E.quantile_merge("lat").alias("l")).selectExpr(
        "ecm_top_k(h, 3) AS top", "ecm_quantile(l, 0.5) AS med", "h.sketch AS raw")
    direct = t.agg(E.top_k_merge("hits").alias("h"), E.quantile_merge("lat").alias("l")).selectExpr(
        "ecm_top_k(h, 3) AS top", "ecm_quantile(l, 0.5) AS med", "h.sketch AS raw")
    a, b = q.first(), direct.first()
    assert a.top == b.top and a.med == b.med and isinstance(a.top[0].key, int)
    # the BINARY field answers too, with the key type named
    typed = spark.createDataFrame([(a.raw,)], "s binary").selectExpr("ecm_top_k(s, 3, key_type => 'int') AS top").first()
    assert typed.top == a.top


# ------------------------------------------------------------------------------------ bad input

ERRORS = [
    ("nan_value", "SELECT quantile_agg(v, ts) FROM VALUES (1.0D, 1), (double('NaN'), 2) AS t(v, ts)",
     [USER_ERROR + "quantile_agg: NaN value"]),
    ("string_value", "SELECT quantile_agg(v, ts) FROM VALUES ('a', 1) AS t(v, ts)",
     ["quantile_agg: value must be a number, got STRING"]),
    ("quantile_epsilon", "SELECT quantile_agg(v, ts, 10, 0.0) FROM VALUES (1.0, 1) AS t(v, ts)",
     ["quantile_agg: epsilon must be in [0.001, 1), got 0.0"]),
    ("quantile_delta", "SELECT quantile_agg(v, ts, delta => 0.9) FROM VALUES (1.0, 1) AS t(v, ts)",
     ["quantile_agg: delta must be in"]),
    ("top_k_epsilon", "SELECT top_k_agg(k, ts, 10, 1.5) FROM VALUES (1, 1) AS t(k, ts)",
     ["top_k_agg: epsilon must be in [0.001, 1), got 1.5"]),
    ("top_k_key_type", "SELECT top_k_agg(k, ts) FROM VALUES (array(1), 1) AS t(k, ts)",
     ["top_k_agg: key must be TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, STRING or BINARY, got ARRAY<INT>"]),
    ("top_k_merge_levels", "SELECT top_k_agg(k, ts, merge_levels => 8) FROM VALUES (1, 1) AS t(k, ts)",
     ["top_k_agg: merge_levels must be in [0, 7], got 8"]),
    ("key_type_mismatch_struct", "SELECT ecm_top_k(top_k_agg(k, ts), 1, key_type => 'string') FROM VALUES (7, 1) AS t(k, ts)",
     ["ecm_top_k: key_type 'string' does not match the sketch column, whose keys are INT"]),
    ("key_type_mismatch_binary", "SELECT ecm_top_k(top_k_agg(k, ts).sketch, 1, key_type => 'string') FROM VALUES (7, 1) AS t(k, ts)",
     [USER_ERROR + "ecm_top_k: this frequent-items sketch holds int keys, not STRING; give key_type => 'int'"]),
    ("point_key_type", "SELECT ecm_point(top_k_agg(k, ts), 'x') FROM VALUES (7, 1) AS t(k, ts)",
     [USER_ERROR + "ecm_point: this frequent-items sketch holds int keys; cannot look up a string key"]),
    ("quantile_of_top_k", "SELECT ecm_quantile(top_k_agg(k, ts), 0.5) FROM VALUES (7, 1) AS t(k, ts)",
     [USER_ERROR + "ecm_quantile: expected a windowed quantile sketch (from quantile_agg or quantile_merge) or a dyadic ECM-sketch"]),
    ("top_k_of_quantile", "SELECT ecm_top_k(quantile_agg(k, ts), 1) FROM VALUES (7, 1) AS t(k, ts)",
     [USER_ERROR + "ecm_top_k: expected a frequent-items sketch (from top_k_agg or top_k_merge) or a dyadic ECM-sketch"]),
    ("quantile_merge_params",
     "SELECT quantile_merge(s) FROM (SELECT quantile_agg(v, ts, 10) AS s FROM VALUES (1.0, 1) AS t(v, ts) "
     "UNION ALL SELECT quantile_agg(v, ts, 10, 0.1) AS s FROM VALUES (1.0, 1) AS t(v, ts))",
     [USER_ERROR + "quantile_merge: cannot merge windowed quantile sketches with different parameters"]),
    ("top_k_merge_params",
     "SELECT top_k_merge(s) FROM (SELECT top_k_agg(k, ts, 10) AS s FROM VALUES (7, 1) AS t(k, ts) "
     "UNION ALL SELECT top_k_agg(k, ts, 20) AS s FROM VALUES (7, 1) AS t(k, ts))",
     [USER_ERROR + "top_k_merge: cannot merge frequent-items sketches with different parameters: window 10 vs 20"]),
    ("top_k_merge_key_types",
     "SELECT top_k_merge(s) FROM (SELECT top_k_agg(k, ts).sketch AS s FROM VALUES (7, 1) AS t(k, ts) "
     "UNION ALL SELECT top_k_agg(k, ts).sketch AS s FROM VALUES ('x', 1) AS t(k, ts))",
     [USER_ERROR + "top_k_merge: cannot merge frequent-items sketches with int keys and string keys"]),
    ("heavy_hitters_phi", "SELECT ecm_heavy_hitters(top_k_agg(k, ts), 1.5) FROM VALUES (7, 1) AS t(k, ts)",
     [USER_ERROR + "ecm_heavy_hitters: phi must be in (0, 1], got 1.5"]),
    ("quantile_q", "SELECT ecm_quantile(quantile_agg(v, ts), 1.5) FROM VALUES (1.0, 1) AS t(v, ts)",
     [USER_ERROR + "ecm_quantile: quantile q must be in [0, 1], got 1.5"]),
    ("narrowed_struct",
     "SELECT ecm_top_k(CAST(s AS STRUCT<sketch: BINARY, key_type: TINYINT>), 5) FROM "
     "(SELECT top_k_agg(k, ts) AS s FROM VALUES (1000, 1), (1000, 2), (232, 3) AS t(k, ts))",
     [USER_ERROR + "ecm_top_k: the sketch holds the key 1000, which the column's key type TINYINT cannot hold"]),
    ("top_k_merge_levels_negative", "SELECT top_k_agg(k, ts, merge_levels => -1) FROM VALUES (1, 1) AS t(k, ts)",
     ["top_k_agg: merge_levels must be in [0, 7], got -1"]),
    ("top_k_min_ts", "SELECT top_k_agg(k, ts) FROM VALUES ('a', -9223372036854775808L), ('a', 0L) AS t(k, ts)",
     [USER_ERROR + "top_k_agg: a frequent-items sketch takes timestamps above -2^63"]),
]


@pytest.mark.parametrize("name,sql,phrases", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_is_refused_with_a_clear_message(spark, name, sql, phrases):
    msg = expect_error(lambda: spark.sql(sql).collect(), *phrases)
    assert "\tat " not in msg.split("\n")[0], name


@pytest.mark.matrix  # the STRUCT and typed keys on every Spark line
def test_null_values_keys_and_timestamps_are_skipped(spark):
    rows = spark.sql("SELECT ecm_total(quantile_agg(v, ts)) AS q, ecm_total(top_k_agg(k, ts)) AS t, "
                     "ecm_top_k(top_k_agg(k, ts), 5) AS top FROM VALUES "
                     "(1.0, 'a', 1), (NULL, 'a', 2), (3.0, NULL, 3), (4.0, 'b', NULL), (5.0, 'a', 5) AS t(v, k, ts)").first()
    assert rows.q == 3.0 and rows.t == 3.0 and [(x.key, x.lower, x.upper) for x in rows.top] == [("a", 3.0, 3.0)]


def test_edge_values_answer_exactly(spark):
    # weights near 2^63: estimates and totals are sums of longs taken as doubles, never overflowed
    big = spark.sql("SELECT ecm_total(s) AS t, ecm_point(s, 'a') AS p, ecm_top_k(s, 1)[0].estimate AS e FROM "
                    "(SELECT top_k_agg(k, ts, value => w) AS s FROM VALUES ('a', 1, 5000000000000000000L) AS t(k, ts, w))").first()
    assert big.t == big.p == big.e == 5e18
    # a range count from -Infinity counts the -Infinity values
    inf = spark.sql("SELECT ecm_range_count(quantile_agg(v, ts), CAST('-Infinity' AS DOUBLE), CAST('-Infinity' AS DOUBLE)) AS c "
                    "FROM VALUES (1.0D, 1), (0.0D, 2), (CAST('-Infinity' AS DOUBLE), 3) AS t(v, ts)").first()
    assert inf.c == 1.0
    # ecm_point of a STRUCT of DOUBLE keys takes DECIMAL and integer literals as DOUBLE keys
    dbl = spark.sql("SELECT ecm_point(s, 0.5) AS half, ecm_point(s, 2) AS two FROM "
                    "(SELECT top_k_agg(k, ts) AS s FROM VALUES (0.5D, 1), (2.0D, 2), (0.5D, 3) AS t(k, ts))").first()
    assert (dbl.half, dbl.two) == (2.0, 1.0)


def test_struct_with_a_null_sketch_field_gives_null(spark):
    # not foldable, so ecm_point runs its generated code
    df = spark.range(3).selectExpr("named_struct('sketch', CAST(IF(id < 0, X'00', NULL) AS BINARY), "
                                   "'key_type', CAST(NULL AS INT)) AS s")
    rows = df.selectExpr("ecm_point(s, 1) AS p", "ecm_point(s, array(1, 2)) AS ps", "ecm_top_k(s, 1) AS t",
                         "sketch_info(s) AS i").collect()
    assert all(r.p is None and r.ps is None and r.t is None and r.i is None for r in rows)


def test_python_int_keys_merge_with_sql_int_sketches(spark):
    from ecmsketch import FrequentSketch, SketchError
    sql = spark.sql("SELECT top_k_agg(k, ts, 100, 0.01).sketch AS s FROM VALUES (7, 1), (7, 2), (8, 3) AS t(k, ts)").first().s
    py = FrequentSketch(0.01, window=100, int_keys=True)
    py.add_many([7, 9, 9], [4, 5, 6])
    assert py.key_type == "int"
    merged = FrequentSketch.merge([bytes(sql), py])
    assert [(t["key"], t["lower"]) for t in merged.top_k(3)] == [(7, 3), (9, 2), (8, 1)]
    with pytest.raises(SketchError, match="int"):
        py.add(1 << 40, 7)
    # without int_keys, Python ints are BIGINT keys, which do not merge with INT ones
    with pytest.raises(SketchError, match="int keys and bigint keys"):
        FrequentSketch.merge([bytes(sql), _bigint_sketch()])


def _bigint_sketch():
    from ecmsketch import FrequentSketch
    s = FrequentSketch(0.01, window=100)
    s.add(7, 4)
    return s
