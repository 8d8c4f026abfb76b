"""The bytes-level API (EcmSketch / ExpHistogram through JPype) against numpy oracles, and its
interplay with the SQL functions in the same Python process."""
from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from ecmsketch import EcmSketch, ExpHistogram, SketchError
from conftest import check_bound_relation, check_point_bounds, exact_total, exact_weights, make_stream, rows_df

WINDOW = 4_000


@pytest.fixture(scope="module")
def int_stream():
    rng = np.random.default_rng(90)
    n = 30_000
    ts = np.sort(rng.integers(0, 10_000, size=n)).astype(np.int64)
    keys = (rng.zipf(1.3, size=n) % 500).astype(np.int64)
    return keys, ts


def check_against_oracle(sk, keys, ts, values, ranges, query_keys, delta=0.01, now=None):
    info = sk.info()
    check_bound_relation(info)
    t = int(ts.max()) if now is None else now
    rows = []
    for r in ranges:
        ex = exact_weights(keys, ts, values, t, r)
        a = exact_total(ts, values, t, r)
        for k in query_keys:
            rows.append((sk.point(k, r, now), ex.get(k, 0), a, info["point_error_bound"], info["total_error_bound"]))
        assert abs(sk.total(r, now) - a) <= info["total_error_bound"] * a + 1e-9
        f2 = sum(v * v for v in ex.values())
        assert abs(sk.self_join(r, now) - f2) <= info["inner_product_error_bound"] * a * a + 1e-9
    check_point_bounds(rows, delta, "bytes api")


def test_int_keys_add_many_and_add(int_stream):
    keys, ts = int_stream
    sk = EcmSketch.create(0.05, 0.01, WINDOW)
    half = len(ts) // 2
    sk.add_many(keys[:half], ts[:half])
    for k, t in zip(keys[half:half + 100], ts[half:half + 100]):
        sk.add(int(k), int(t))
    sk.add_many(keys[half + 100:], ts[half + 100:])
    info = sk.info()
    assert info["key_type"] == "bigint" and info["total_weight"] == len(ts) and info["merge_depth"] == 0
    assert sk.last_ts == int(ts.max()) and info["first_ts"] == int(ts.min())
    assert info["error_bound"] < info["epsilon"]  # depth 0 of 1 planned level
    check_against_oracle(sk, keys, ts, np.ones(len(ts), dtype=np.int64), (10, 100, 1000, WINDOW),
                         list(range(500)) + [10_000, -1])


def test_unsorted_batch_is_accepted_and_older_batch_refused(int_stream):
    keys, ts = int_stream
    rng = np.random.default_rng(1)
    perm = rng.permutation(len(ts))
    a = EcmSketch.create(0.05, 0.01, WINDOW)
    a.add_many(keys, ts)
    b = EcmSketch.create(0.05, 0.01, WINDOW)
    b.add_many(keys[perm], ts[perm])  # any order within one batch
    assert a.to_bytes() == b.to_bytes()
    with pytest.raises(SketchError, match="precede the sketch's last timestamp"):
        b.add_many(keys[:10], ts[:10])
    with pytest.raises(SketchError, match="non-decreasing"):
        b.add(1, int(ts.max()) - 1)
    with pytest.raises(SketchError, match="non-negative"):
        b.add_many([1, 2], [int(ts.max()), int(ts.max())], [1, -1])
    with pytest.raises(SketchError, match="differ in length"):
        b.add_many([1, 2, 3], [int(ts.max())] * 2)
    assert a.to_bytes() == b.to_bytes()  # refused batches changed nothing


def test_str_and_bytes_keys_with_weights():
    s = make_stream(seed=91, n=12_000, distinct=150, span=5_000, max_value=6, prefix="s")
    sk = EcmSketch.create(0.05, 0.01, 2_000)
    sk.add_many(s.keys, s.ts, s.values)
    assert sk.info()["key_type"] == "string"
    assert sk.info()["total_weight"] == int(s.values.sum())
    check_against_oracle(sk, s.keys, s.ts, s.values, (50, 500, 2_000), [f"s{i}" for i in range(150)] + ["nope"])
    # bytes keys: an object array of bytes
    bkeys = np.array([k.encode() for k in s.keys], dtype=object)
    bs = EcmSketch.create(0.05, 0.01, 2_000)
    bs.add_many(bkeys, s.ts, s.values)
    assert bs.info()["key_type"] == "binary"
    check_against_oracle(bs, bkeys, s.ts, s.values, (50, 2_000), [f"s{i}".encode() for i in range(0, 150, 3)])
    # a string key and its UTF-8 bytes hash alike; answers agree across the two sketches
    for k in ("s0", "s7", "s42"):
        assert sk.point(k, 500) == bs.point(k.encode(), 500) == sk.point(k.encode(), 500)
    sk_int = EcmSketch.create(0.05, 0.01, 100)
    sk_int.add(5, 1)
    assert sk_int.point("5") == sk_int.point(5) == 1.0
    with pytest.raises(SketchError, match="key type mismatch"):
        sk_int.point("05")
    with pytest.raises(SketchError, match="cannot add a string key"):
        sk_int.add("x", 2)


def test_round_trip_bytes(int_stream):
    keys, ts = int_stream
    sk = EcmSketch.create(0.03, 0.05, WINDOW, optimize_for="inner_product", merge_levels=2, seed=42)
    sk.add_many(keys, ts)
    data = sk.to_bytes()
    assert isinstance(data, bytes) and bytes(sk) == data
    back = EcmSketch.from_bytes(data)
    assert back.to_bytes() == data
    assert back.info() == sk.info()
    for k in (0, 1, 2, 17, 499):
        for r in (10, 1000, WINDOW):
            assert back.point(k, r) == sk.point(k, r)
    assert back.self_join(100) == sk.self_join(100) and back.total() == sk.total()
    info = back.info()
    assert info["seed"] == 42 and info["planned_merge_levels"] == 3 and info["optimize_for"] == "inner_product"
    assert info["size_bytes"] == len(data)
    assert EcmSketch.from_bytes(bytearray(data)).to_bytes() == data
    assert EcmSketch.from_bytes(memoryview(data)).to_bytes() == data
    # an empty sketch round-trips too
    empty = EcmSketch.create(window=100)
    assert EcmSketch.from_bytes(empty.to_bytes()).to_bytes() == empty.to_bytes()
    assert empty.last_ts is None and empty.info()["first_ts"] is None


def test_merge_sites_vs_oracle():
    sites = [make_stream(seed=200 + i, n=6_000, distinct=120, span=8_000, prefix="m") for i in range(5)]
    sketches = []
    for s in sites:
        sk = EcmSketch.create(0.05, 0.01, 3_000)
        sk.add_many(s.keys, s.ts)
        sketches.append(sk)
    # a mix of objects and bytes, with a None to be ignored
    mixed = [sketches[0], sketches[1].to_bytes(), None, sketches[2], sketches[3].to_bytes(), sketches[4]]
    merged = EcmSketch.merge(mixed)
    info = merged.info()
    assert merged.merge_depth == 1 == info["planned_merge_levels"]
    assert abs(merged.error_bound - 0.05) <= 1e-9
    keys = np.concatenate([s.keys for s in sites])
    ts = np.concatenate([s.ts for s in sites])
    assert info["total_weight"] == len(ts) and info["last_ts"] == int(ts.max())
    check_against_oracle(merged, keys, ts, np.ones(len(ts), dtype=np.int64), (30, 300, 3_000),
                         [f"m{i}" for i in range(120)])
    # merging the sites' bytes answers exactly like merging the objects
    from_bytes = EcmSketch.merge([s.to_bytes() for s in sketches])
    from_objects = EcmSketch.merge(sketches)
    for r in (30, 300, 3_000):
        assert from_bytes.total(r) == from_objects.total(r)
        for k in (f"m{i}" for i in range(0, 120, 5)):
            assert from_bytes.point(k, r) == from_objects.point(k, r) == merged.point(k, r), (k, r)
    # a merge is a function of the bytes: objects and their serialized forms merge identically
    assert from_bytes.to_bytes() == from_objects.to_bytes() == merged.to_bytes()
    assert from_bytes.info() == from_objects.info()
    # inner product of two sites vs the exact join size
    a, b = sites[0], sites[1]
    now = max(int(a.ts.max()), int(b.ts.max()))
    for r in (500, 3_000):
        fa = exact_weights(a.keys, a.ts, a.values, now, r)
        fb = exact_weights(b.keys, b.ts, b.values, now, r)
        join = sum(v * fb.get(k, 0) for k, v in fa.items())
        est = sketches[0].inner_product(sketches[1], r)
        ipb = sketches[0].info()["inner_product_error_bound"]
        assert abs(est - join) <= ipb * sum(fa.values()) * sum(fb.values())
    # different parameters are refused
    other = EcmSketch.create(0.1, 0.01, 3_000)
    other.add("m1", 5)
    with pytest.raises(SketchError, match="different parameters"):
        EcmSketch.merge([sketches[0], other])
    with pytest.raises(SketchError, match="at least one"):
        EcmSketch.merge([None])


def test_count_based_merge_refused():
    a = EcmSketch.create(0.05, 0.01, 100, window_type="count")
    b = EcmSketch.create(0.05, 0.01, 100, window_type="count")
    a.add_many(np.arange(50), np.arange(1, 51))
    b.add_many(np.arange(50), np.arange(1, 51))
    with pytest.raises(SketchError, match="count-based sketches cannot be merged"):
        EcmSketch.merge([a, b])
    ha = ExpHistogram.create(0.05, 100, window_type="count")
    hb = ExpHistogram.create(0.05, 100, window_type="count")
    ha.add_many(np.arange(1, 51))
    hb.add_many(np.arange(1, 51))
    with pytest.raises(SketchError, match="count-based sketches cannot be merged"):
        ExpHistogram.merge([ha.to_bytes(), hb])
    # a count window answers "the last r arrivals"
    assert a.info()["window_type"] == "count"
    assert abs(a.total(20) - 20) <= a.info()["total_error_bound"] * 20


def test_timestamps_with_datetimes_and_timedeltas():
    rng = np.random.default_rng(3)
    base = dt.datetime(2024, 5, 1, 12, 0, 0)
    secs = np.sort(rng.integers(0, 7200, size=5_000))
    times = [base + dt.timedelta(seconds=int(x)) for x in secs]
    keys = np.array([f"t{k}" for k in rng.integers(0, 30, size=len(secs))], dtype=object)
    sk = EcmSketch.create(0.05, 0.01, dt.timedelta(hours=1), timestamps="timestamp")
    sk.add_many(keys, np.array(times, dtype=object))
    info = sk.info()
    assert info["ts_unit"] == "microseconds" and info["window"] == 3600 * 10**6
    micros = np.array([int((t - dt.datetime(1970, 1, 1)).total_seconds()) * 10**6 for t in times], dtype=np.int64)
    assert sk.last_ts == int(micros.max())
    ones = np.ones(len(micros), dtype=np.int64)
    last = times[-1]
    for rng_arg, r_us in ((dt.timedelta(minutes=5), 300 * 10**6), ("30 minutes", 1800 * 10**6),
                          (None, 3600 * 10**6)):
        ex = exact_weights(keys, micros, ones, int(micros.max()), r_us)
        a = exact_total(micros, ones, int(micros.max()), r_us)
        rows = [(sk.point(k, rng_arg), ex.get(k, 0), a, info["point_error_bound"], info["total_error_bound"])
                for k in (f"t{i}" for i in range(30))]
        check_point_bounds(rows, 0.01, f"timestamp range {rng_arg}")
        assert abs(sk.total(rng_arg) - a) <= info["total_error_bound"] * a
    # an explicit datetime `now`
    now = last + dt.timedelta(minutes=10)
    now_us = int(micros.max()) + 600 * 10**6
    a = exact_total(micros, ones, now_us, 1800 * 10**6)
    assert abs(sk.total("30 minutes", now) - a) <= info["total_error_bound"] * a
    # numpy datetime64 timestamps are accepted too
    sk2 = EcmSketch.create(0.05, 0.01, dt.timedelta(hours=1), timestamps="timestamp")
    sk2.add_many(keys, np.array(times, dtype="datetime64[us]"))
    assert sk2.to_bytes() == sk.to_bytes()
    # unit mistakes are refused
    with pytest.raises(ValueError, match="timedelta or a string"):
        sk.total(60)
    with pytest.raises(ValueError, match="integer ticks"):
        EcmSketch.create(window=100).total(dt.timedelta(seconds=5))
    with pytest.raises(SketchError, match="exceeds the sketch window"):
        sk.total(dt.timedelta(hours=2))
    with pytest.raises(SketchError, match="must not precede"):
        sk.total("1 minute", base)


def test_exp_histogram_every_range_and_merge():
    rng = np.random.default_rng(4)
    ts = np.sort(rng.integers(0, 6_000, size=20_000)).astype(np.int64)
    vals = rng.integers(0, 5, size=len(ts)).astype(np.int64)
    h = ExpHistogram.create(0.04, 2_000)
    h.add_many(ts[::-1], vals[::-1])  # reversed batch: sorted internally
    info = h.info()
    assert info["kind"] == "eh" and info["total_weight"] == int(vals.sum())
    check_bound_relation(info)
    last = int(ts.max())
    order = np.argsort(ts, kind="stable")
    cum = np.concatenate([[0], np.cumsum(vals[order])])
    sts = ts[order]
    for r in range(0, 2_001, 7):
        exact = cum[-1] - cum[np.searchsorted(sts, last - r, side="right")]
        assert abs(h.count(r) - exact) <= info["error_bound"] * exact + 1e-9, r
    back = ExpHistogram.from_bytes(h.to_bytes())
    assert back.to_bytes() == h.to_bytes() and back.count(333) == h.count(333)
    # merge of sites
    parts = [ExpHistogram.create(0.04, 2_000) for _ in range(3)]
    for i, p in enumerate(parts):
        p.add_many(ts[i::3], vals[i::3])
    m = ExpHistogram.merge([parts[0], parts[1].to_bytes(), parts[2]])
    mi = m.info()
    assert mi["merge_depth"] == 1 and abs(mi["error_bound"] - 0.04) <= 1e-9
    for r in range(0, 2_001, 11):
        exact = cum[-1] - cum[np.searchsorted(sts, last - r, side="right")]
        assert abs(m.count(r) - exact) <= mi["error_bound"] * exact + 1e-9, r
    with pytest.raises(SketchError, match="expected an exponential histogram"):
        ExpHistogram.from_bytes(EcmSketch.create(window=10).to_bytes())
    with pytest.raises(SketchError, match="expected an ECM-sketch"):
        EcmSketch.from_bytes(h.to_bytes())


@pytest.mark.parametrize("mutate, phrase", [
    (lambda b: b[:3], "not an ecmsketch"),
    (lambda b: b"XXXX" + b[4:], "not an ecmsketch"),
    (lambda b: b[:-5], "corrupt"),
    (lambda b: b[:30], "corrupt"),
    (lambda b: b + b"\x00", "corrupt"),
    (lambda b: b"", "not an ecmsketch"),
])
def test_corrupt_bytes(int_stream, mutate, phrase):
    keys, ts = int_stream
    sk = EcmSketch.create(0.05, 0.01, WINDOW)
    sk.add_many(keys[:2000], ts[:2000])
    bad = mutate(sk.to_bytes())
    with pytest.raises(SketchError) as e:
        EcmSketch.from_bytes(bad)
    assert phrase in str(e.value)
    with pytest.raises(SketchError):
        EcmSketch.merge([sk.to_bytes(), bad])


# --------------------------------------------------------------------------- with SQL in one process


@pytest.fixture(scope="module")
def sql_sketches(spark):
    s = make_stream(seed=300, n=20_000, distinct=100, span=6_000, max_value=3, prefix="q")
    rows_df(spark, {"key": s.keys, "ts": s.ts, "value": s.values, "ik": np.arange(len(s)) % 40},
            "key string, ts bigint, value bigint, ik bigint", partitions=4).createOrReplaceTempView("bytes_rows")
    row = spark.sql("""SELECT ecm_agg(key, ts, 3000, value => value) AS s, ecm_agg(ik, ts, 3000) AS b,
                              eh_agg(ts, 3000) AS h FROM bytes_rows""").collect()[0]
    return s, bytes(row.s), bytes(row.b), bytes(row.h)


def test_sql_bytes_decoded_in_python(spark, sql_sketches):
    s, sb, bb, hb = sql_sketches
    spark.createDataFrame([(bytearray(sb), bytearray(bb), bytearray(hb))], "s binary, b binary, h binary") \
        .createOrReplaceTempView("bytes_sk")
    keys = [f"q{i}" for i in range(0, 100, 9)]
    ranges = (10, 300, 3000)
    sel = ", ".join(f"ecm_point(s, '{k}', {r}) AS p_{k}_{r}" for k in keys for r in ranges)
    sel += ", " + ", ".join(f"ecm_point(b, {k}, {r}) AS b_{k}_{r}" for k in (0, 7, 39) for r in ranges)
    sel += ", " + ", ".join(f"ecm_total(s, {r}) AS t_{r}, ecm_self_join(s, {r}) AS f_{r}, eh_count(h, {r}) AS h_{r}"
                            for r in ranges)
    sel += ", ecm_inner_product(s, s, 1000) AS ip, sketch_info(s) AS info, sketch_info(h) AS hinfo"
    sql = spark.sql(f"SELECT {sel} FROM bytes_sk").collect()[0].asDict(recursive=True)
    ps, pb, ph = EcmSketch.from_bytes(sb), EcmSketch.from_bytes(bb), ExpHistogram.from_bytes(hb)
    for k in keys:
        for r in ranges:
            assert ps.point(k, r) == sql[f"p_{k}_{r}"], (k, r)
    for k in (0, 7, 39):
        for r in ranges:
            assert pb.point(k, r) == sql[f"b_{k}_{r}"] == pb.point(str(k), r)
    for r in ranges:
        assert ps.total(r) == sql[f"t_{r}"] and ps.self_join(r) == sql[f"f_{r}"] and ph.count(r) == sql[f"h_{r}"]
    assert ps.inner_product(ps, 1000) == sql["ip"]
    # info() has exactly the fields of sketch_info, in order, with equal values
    assert list(ps.info().keys()) == list(sql["info"].keys())
    assert ps.info() == sql["info"]
    assert list(ph.info().keys()) == list(sql["hinfo"].keys()) and ph.info() == sql["hinfo"]
    # answers are correct, too (weights from the numpy stream)
    info = ps.info()
    last = int(s.ts.max())
    for r in ranges:
        ex = exact_weights(s.keys, s.ts, s.values, last, r)
        a = exact_total(s.ts, s.values, last, r)
        check_point_bounds([(ps.point(k, r), ex.get(k, 0), a, info["point_error_bound"], info["total_error_bound"])
                            for k in (f"q{i}" for i in range(100))], 0.01, f"sql bytes r={r}")


def test_python_sketch_merges_with_sql_sketch(spark, sql_sketches):
    """A sketch built in Python with the same arguments as ecm_agg merges with it, in SQL and in Python."""
    s, sb, _, _ = sql_sketches
    extra = EcmSketch.create(0.05, 0.01, 3000)  # ecm_agg defaults: epsilon 0.05, delta 0.01, 1 level
    last = int(s.ts.max())
    extra.add_many(np.array(["q1"] * 50 + ["new"] * 25, dtype=object), np.full(75, last + 10))
    pyb = extra.to_bytes()
    merged_py = EcmSketch.merge([sb, pyb])
    spark.createDataFrame([(bytearray(sb),), (bytearray(pyb),)], "s binary").createOrReplaceTempView("bytes_mix")
    row = spark.sql("""SELECT ecm_point(m, 'q1', 100) AS q1, ecm_point(m, 'new', 100) AS nw, ecm_total(m, 5) AS t,
                              m FROM (SELECT ecm_merge(s) AS m FROM bytes_mix)""").collect()[0]
    assert row.q1 == merged_py.point("q1", 100) and row.nw == merged_py.point("new", 100)
    assert row.nw >= 25 * (1 - merged_py.info()["total_error_bound"])
    assert abs(row.t - 75) <= merged_py.info()["total_error_bound"] * 75
    assert EcmSketch.from_bytes(bytes(row.m)).info() == merged_py.info()


def test_bytes_keys_in_a_list_keep_trailing_nul_bytes():
    """add_many with bytes keys given as a plain list must hash each key's exact bytes, as add() does
    (a numpy 'S' array would silently strip trailing b'\\x00')."""
    keys = [b"a\x00", b"b", b"\x00", b"\x00\x00"]
    ts = [1, 2, 3, 4]
    one_by_one = EcmSketch.create(window=100)
    for k, t in zip(keys, ts):
        one_by_one.add(k, t)
    batch = EcmSketch.create(window=100)
    batch.add_many(keys, ts)
    for k in keys:
        assert batch.point(k) == one_by_one.point(k) == 1.0, k
    assert batch.point(b"a") == 0.0 and batch.point(b"") == 0.0
    assert batch.to_bytes() == one_by_one.to_bytes()


def test_non_integer_timestamps_and_weights_are_refused_not_truncated():
    sk = EcmSketch.create(window=100)
    with pytest.raises(SketchError, match="must be integers"):
        sk.add_many([1, 2], [0.6, 1.5])
    with pytest.raises(SketchError, match="must be integers"):
        sk.add_many([1, 2], [1, 2], [1.9, 2.7])
    with pytest.raises(SketchError, match="must be an integer"):
        sk.add(3, 5, 2.9)
    sk.add_many([1, 2], [1.0, 2.0], [3.0, 4.0])  # integral floats are exact
    assert sk.info()["total_weight"] == 7 and sk.last_ts == 2


# --------------------------------------------------------------------------- inner products, many seeds


def _binomial_upper(n: int, p: float, tail: float = 1e-4) -> int:
    """The smallest k with P[Binomial(n, p) > k] <= tail."""
    import math
    cdf = 0.0
    for k in range(n + 1):
        cdf += math.comb(n, k) * p ** k * (1 - p) ** (n - k)
        if 1.0 - cdf <= tail:
            return k
    return n


def test_inner_products_over_many_seeds():
    """Inner products and self-joins of ECM-sketches (eh and dwave cells, optimize_for
    'inner_product') against numpy, over 60 seeded trials. Operand A is merged from three sites
    (merge depth 1 or 2), operand B is built at one site (depth 0). For every query: the
    deterministic lower side est >= (1 - e_A)(1 - e_B) * exact, with e the cells' bound at their
    depth; the two-sided bound |est - exact| <= bound * |A|_1 |B|_1 fails for at most a delta
    fraction (binomial tolerance); the reported bounds equal the formula at the actual depths."""
    trials, window, eps, delta, n_keys = 60, 2_000, 0.1, 0.1, 200
    lower_checked = violations = queries = 0
    for t in range(trials):
        rng = np.random.default_rng(5_000 + t)
        cell = ("eh", "dwave")[t % 2]
        hseed = 1_000 + 7 * t  # a different hash per trial: the delta is over the hashing

        def create():
            return EcmSketch.create(eps, delta, window, optimize_for="inner_product", merge_levels=1, seed=hseed,
                                    cell=cell)

        def stream(n):
            ts = np.sort(rng.integers(0, 6_000, size=n)).astype(np.int64)
            keys = (rng.zipf(1.4, size=n) % n_keys).astype(np.int64)
            vals = rng.integers(0, 4, size=n).astype(np.int64)
            return keys, ts, vals

        ka, ta, va = stream(3_000)
        kb, tb, vb = stream(2_000)
        site = rng.integers(0, 3, size=len(ta))
        sites = []
        for i in range(3):
            s = create()
            m = site == i
            s.add_many(ka[m], ta[m], va[m])
            sites.append(s)
        if t % 3 == 0:  # two levels of merging: depth 2 (the planned depth)
            a = EcmSketch.merge([EcmSketch.merge(sites[:2]).to_bytes(), sites[2]])
        else:
            a = EcmSketch.merge(sites)
        b = create()
        b.add_many(kb, tb, vb)
        ia, ib = a.info(), b.info()
        assert (ia["merge_depth"], ib["merge_depth"]) == ((2 if t % 3 == 0 else 1), 0)
        assert ia["planned_merge_levels"] == ib["planned_merge_levels"] == 2
        assert ia["cell_kind"] == ib["cell_kind"] == cell and ia["cell_epsilon"] == ib["cell_epsilon"]
        # the reported bounds are the formula at the actual depths
        ce, cm = ia["cell_epsilon"], ia["cm_epsilon"]
        e_a = (1 + ce) ** (ia["merge_depth"] + 1) - 1
        e_b = (1 + ce) ** (ib["merge_depth"] + 1) - 1
        assert ia["total_error_bound"] == pytest.approx(e_a, rel=1e-12)
        assert ib["total_error_bound"] == pytest.approx(e_b, rel=1e-12)
        p_aa, p_bb, p_ab = (1 + e_a) ** 2 - 1, (1 + e_b) ** 2 - 1, (1 + e_a) * (1 + e_b) - 1
        assert ia["inner_product_error_bound"] == pytest.approx(max(p_aa, (1 + p_aa) * cm), rel=1e-12)
        assert ib["inner_product_error_bound"] == pytest.approx(max(p_bb, (1 + p_bb) * cm), rel=1e-12)
        bound_ab = max(p_ab, (1 + p_ab) * cm)
        assert float(a._j.innerProductErrorBound(b._j)) == pytest.approx(bound_ab, rel=1e-12)
        assert float(b._j.innerProductErrorBound(a._j)) == pytest.approx(bound_ab, rel=1e-12)
        assert ia["error_bound"] == ia["inner_product_error_bound"] and ib["error_bound"] < eps
        assert ia["error_bound"] <= eps + 1e-12  # at most the planned depth: within epsilon

        def freq(keys, ts, vals, now, r):
            m = (ts > now - r) & (ts <= now)
            return np.bincount(keys[m], vals[m], n_keys)

        last_a, last_b = int(ta.max()), int(tb.max())
        assert (a.last_ts, b.last_ts) == (last_a, last_b)
        for r, now in ((50, None), (400, None), (window, None), (400, max(last_a, last_b) + 300)):
            # the default `now`: the later last timestamp of the two operands, a sketch's own for a self-join
            t_ab = max(last_a, last_b) if now is None else now
            fa, fb = freq(ka, ta, va, t_ab, r), freq(kb, tb, vb, t_ab, r)
            sa = freq(ka, ta, va, last_a if now is None else now, r)
            sb = freq(kb, tb, vb, last_b if now is None else now, r)
            ip_bound = bound_ab * fa.sum() * fb.sum()
            checks = [
                (a.inner_product(b, r, now), float(fa @ fb), e_a, e_b, ip_bound, "A.B"),
                (b.inner_product(a, r, now), float(fa @ fb), e_a, e_b, ip_bound, "B.A"),
                (a.self_join(r, now), float(sa @ sa), e_a, e_a, ia["inner_product_error_bound"] * sa.sum() ** 2, "A.A"),
                (b.self_join(r, now), float(sb @ sb), e_b, e_b, ib["inner_product_error_bound"] * sb.sum() ** 2, "B.B"),
            ]
            assert checks[0][0] == checks[1][0], "the inner product is symmetric"
            for est, exact, e1, e2, allowed, what in checks:
                queries += 1
                assert est >= (1 - e1) * (1 - e2) * exact - 1e-6 * max(1.0, exact), \
                    f"trial {t} ({cell}) {what} r={r} now={now}: {est} < (1-{e1})(1-{e2}) * {exact}"
                lower_checked += exact > 0
                if abs(est - exact) > allowed + 1e-6:
                    violations += 1
    assert queries == trials * 16 and lower_checked >= 0.9 * queries  # the queries are not all empty
    allowed_violations = _binomial_upper(queries, delta)
    assert violations <= allowed_violations, f"{violations}/{queries} inner products outside the bound"


def test_merge_of_consecutive_periods_keeps_the_depth_and_the_bound():
    """Sketches of consecutive days (time spans that do not overlap) merge side by side: the depth
    of one day, format version 2, about one histogram's bytes, answers within the bound of exact
    ones; a sketch that overlaps them adds one level (docs/design/merging.md, "Time-disjoint merges")."""
    rng = np.random.default_rng(2026)
    day, days, window = 1_000, 20, 7_000
    keys = (rng.zipf(1.4, size=40_000) % 300).astype(np.int64)
    ts = np.sort(rng.integers(0, day * days, size=keys.size)).astype(np.int64)
    sketches, hists = [], []
    for d in range(days):
        m = (ts >= d * day) & (ts < (d + 1) * day)
        sk = EcmSketch.create(0.1, 0.05, window)
        sk.add_many(keys[m], ts[m])
        h = ExpHistogram.create(0.1, window)
        h.add_many(ts[m])
        sketches.append(sk)
        hists.append(h)
    order = rng.permutation(days)  # the merge sorts its inputs by time
    merged = EcmSketch.merge([sketches[i].to_bytes() for i in order])
    mh = ExpHistogram.merge([hists[i] for i in order])
    assert merged.merge_depth == 0 and mh.merge_depth == 0
    # segmented cells (format version 2 before checksums) are written in version 4 like every sketch
    assert merged.to_bytes()[4] == 4 and mh.to_bytes()[4] == 4 and merged.info()["format_version"] == 4
    assert EcmSketch.from_bytes(merged.to_bytes()).to_bytes() == merged.to_bytes()
    # about one histogram's memory: no larger than a sketch built over all the rows, plus a third
    whole = EcmSketch.create(0.1, 0.05, window)
    whole.add_many(keys, ts)
    assert len(merged.to_bytes()) <= 1.35 * len(whole.to_bytes()), (len(merged.to_bytes()), len(whole.to_bytes()))
    ones = np.ones(ts.size, dtype=np.int64)
    check_against_oracle(merged, keys, ts, ones, (1, 10, 500, day, 3 * day, window), list(range(300)))
    now = int(ts.max())
    for r in (1, 10, 500, day, 3 * day, window):
        exact = exact_total(ts, ones, now, r)
        assert abs(mh.count(r) - exact) <= mh.error_bound * exact + 1e-9
    # a sketch overlapping the last day: one order-preserving merge, one level
    extra = EcmSketch.create(0.1, 0.05, window)
    extra.add_many(keys[-500:], ts[-500:])
    assert EcmSketch.merge([merged, extra]).merge_depth == 1
