"""The JPype QuantileSketch and FrequentSketch (no Spark): answers against exact ones computed with
numpy on seeded streams, across ranges from a few ticks to the whole window; merges of several sites;
bytes round trips; refusals."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from ecmsketch import ExpHistogram, FrequentSketch, QuantileSketch, SketchError

Q_EPS = 0.01
QS = (0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0)


def _times(rng, n, max_gap=2, start=1000):
    """Non-decreasing timestamps with gaps 0..max_gap (so several rows share a timestamp)."""
    return (start + np.cumsum(rng.integers(0, max_gap + 1, size=n))).astype(np.int64)


def _ranges(rng, ts, window, now, count=12):
    """Query ranges: 1, 2, 10, the window, and ranges starting on, just before and just after data
    timestamps (within the window)."""
    inside = np.unique(ts[ts > now - window])
    starts = rng.choice(inside, size=count) + rng.integers(-1, 2, size=count)
    rs = {1, 2, 10, window} | {int(now - t + 1) for t in starts}
    return sorted(r for r in rs if 1 <= r <= window)


def _rank_ok(xs_sorted, x, q, eps):
    """The certified rank promise of a q-quantile x of the sorted values: rank_<(x) - eps n <= q n
    <= rank_<=(x) + eps n."""
    n = len(xs_sorted)
    le = np.searchsorted(xs_sorted, x, side="right")
    lt = np.searchsorted(xs_sorted, x, side="left")
    return le >= (q - eps) * n - 1e-9 and lt <= (q + eps) * n + 1e-9


# ------------------------------------------------------------------ quantiles


def _values(rng, n):
    """Lognormal values, half of them rounded (ties), with negatives and zeros among them."""
    x = rng.lognormal(0.0, 1.0, size=n) - 0.5
    half = rng.random(n) < 0.5
    x[half] = np.round(x[half], 1)
    return x


def _check_quantiles(s, ts, xs, ws, window, now, ranges, eps):
    """Every range: count and ranks within eps * n, each quantile's exact rank within eps * n."""
    checked = 0
    for r in ranges:
        m = (ts > now - r) & (ts <= now)
        vals = np.sort(np.repeat(xs[m], ws[m]) if ws is not None else xs[m])
        n = len(vals)
        got = s.quantile(list(QS), r, now)
        if n == 0:
            assert got == [None] * len(QS) and s.count(r, now) == 0.0
            continue
        bound = eps * n
        assert abs(s.count(r, now) - n) <= bound + 1e-9, (r, s.count(r, now), n)
        # a folded run states its bound on the most weight its samples may stand for: at most
        # (1 + 2 eps)^(g + 1) times the range's, g <= 4 its generation
        assert s.rank_error_bound(r, now) <= bound * (1 + 2 * eps) ** 5 * (1 + 1e-9), (r, s.rank_error_bound(r, now), bound)
        for q, v in zip(QS, got):
            assert v is not None and _rank_ok(vals, v, q, eps), (r, now, q, v, n)
            x = vals[min(n - 1, int(q * n))]
            exact = np.searchsorted(vals, x, side="right")
            assert abs(s.rank(float(x), r, now) - exact) <= bound + 1e-9, (r, q, x)
        assert s.quantile(0.5, r, now) == got[QS.index(0.5)]
        checked += 1
    return checked


@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
def test_quantiles_against_exact_across_ranges(weighted):
    rng = np.random.default_rng(11 + weighted)
    n, window = 60_000, 30_000
    ts = _times(rng, n)
    xs = _values(rng, n)
    ws = rng.integers(1, 5, size=n) if weighted else None
    s = QuantileSketch(Q_EPS, window)
    for chunk in np.array_split(np.arange(n), 4):  # several batches
        s.add_many(xs[chunk], ts[chunk], None if ws is None else ws[chunk])
    assert s.last_ts == int(ts[-1])
    last = int(ts[-1])
    for now in (last, last + 7):
        assert _check_quantiles(s, ts, xs, ws, window, now, _ranges(rng, ts, window, now), Q_EPS) >= 8
    # a range holding no row
    assert s.quantile(0.5, 5, last + 100) is None and s.quantile([0.1, 0.9], 5, last + 100) == [None, None]
    assert s.count(5, last + 100) == 0.0 and s.rank(1.0, 5, last + 100) == 0.0


def test_single_adds_give_the_bytes_of_a_batch():
    rng = np.random.default_rng(3)
    ts = _times(rng, 3_000)
    xs = _values(rng, 3_000)
    a, b = QuantileSketch(0.05, 1_000), QuantileSketch(0.05, 1_000)
    for x, t in zip(xs.tolist(), ts.tolist()):
        a.add(x, t)
    b.add_many(xs[::-1], ts[::-1])  # any order within a batch: sorted by timestamp, stably
    c = QuantileSketch(0.05, 1_000)
    c.add_many(xs, ts)
    assert a.to_bytes() == c.to_bytes()
    order = np.argsort(ts[::-1], kind="stable")
    d = QuantileSketch(0.05, 1_000)
    d.add_many(xs[::-1][order].tolist(), ts[::-1][order].tolist())
    assert b.to_bytes() == d.to_bytes() and b.last_ts == c.last_ts


@pytest.mark.parametrize("sites", [2, 3, 5, 8])
def test_quantile_merges_of_sites_stay_within_epsilon(sites):
    rng = np.random.default_rng(100 + sites)
    n, window = 40_000, 20_000
    ts = _times(rng, n)
    xs = _values(rng, n)
    site = rng.integers(0, sites, size=n)  # rows dealt at random; each site's rows stay in time order
    sks = []
    for i in range(sites):
        s = QuantileSketch(Q_EPS, window)
        idx = np.flatnonzero(site == i)
        for chunk in np.array_split(idx, 2):
            s.add_many(xs[chunk], ts[chunk])
        sks.append(s)
    m = QuantileSketch.merge(sks)
    assert m.merge_depth == 1 and m.info()["quantile_rank_error_bound"] == Q_EPS
    last = int(ts[-1])
    assert _check_quantiles(m, ts, xs, None, window, last, _ranges(rng, ts, window, last, 8), Q_EPS) >= 6
    # order-free: the same bytes for any order of the inputs, sketches or bytes
    ref = m.to_bytes()
    for perm in itertools.islice(itertools.permutations(range(sites)), 1, 4):
        assert QuantileSketch.merge([sks[i] for i in perm]).to_bytes() == ref
    assert QuantileSketch.merge([s.to_bytes() for s in reversed(sks)]).to_bytes() == ref
    # the merge folded the sites into one run (the one level planned), a merge beyond keeps two runs
    assert m.info()["runs"] == 1
    if sites >= 3:
        again = QuantileSketch.merge([QuantileSketch.merge(sks[:2]), QuantileSketch.merge(sks[2:])])
        assert again.info()["runs"] == 2
        assert _check_quantiles(again, ts, xs, None, window, last, _ranges(rng, ts, window, last, 6), Q_EPS) >= 4


def test_quantile_bytes_round_trip_and_answers():
    rng = np.random.default_rng(21)
    ts = _times(rng, 20_000)
    xs = _values(rng, 20_000)
    s = QuantileSketch(0.02, 5_000, delta=0.001, merge_levels=2, seed=7)
    s.add_many(xs, ts)
    b = s.to_bytes()
    d = QuantileSketch.from_bytes(b)
    assert d.to_bytes() == b
    for r in (10, 1_000, 5_000):
        assert d.quantile(list(QS), r) == s.quantile(list(QS), r)
        assert d.count(r) == s.count(r) and d.rank(1.0, r) == s.rank(1.0, r)
        assert d.rank_error_bound(r) == s.rank_error_bound(r)
    assert repr(d) == repr(s) == "QuantileSketch(epsilon=0.02, delta=0.001, window=5000, seed=7)"
    info = d.info()
    assert info["kind"] == "quantile" and info["planned_merge_levels"] == 3
    assert (info["delta"], info["seed"], info["quantile_rank_error_bound"]) == (0.001, 7, 0.02)
    assert info["sample_capacity"] > 0 and info["stored_entries"] > 0 and info["total_weight"] == 20_000
    # more rows after a round trip: the same as without it
    more_ts, more_x = ts[-1] + np.arange(1, 501), rng.normal(size=500)
    d.add_many(more_x, more_ts)
    s.add_many(more_x, more_ts)
    assert d.to_bytes() == s.to_bytes()


def test_quantile_unbounded_window_and_timestamps():
    import datetime as dt
    s = QuantileSketch(0.05)
    s.add_many(np.arange(1000, dtype=float), np.arange(1000))
    assert s.count() == 1000.0 and abs(s.quantile(0.5) - 500) <= 0.05 * 1000
    t0 = dt.datetime(2024, 1, 1)
    u = QuantileSketch(0.05, dt.timedelta(minutes=10), timestamps="timestamp")
    u.add_many([3.0, 1.0, 2.0], [t0, t0 + dt.timedelta(minutes=1), t0 + dt.timedelta(minutes=2)])
    assert u.quantile(1.0) == 3.0 and u.quantile(1.0, "90 seconds") == 2.0
    assert u.count(dt.timedelta(seconds=90)) == 2.0


def test_quantile_values_of_every_numeric_type_are_read_as_floats():
    """As SQL reads DECIMAL and integer values as DOUBLE: Decimal, Fraction, ints and numpy numbers."""
    from decimal import Decimal
    from fractions import Fraction
    a = QuantileSketch(0.05, 100)
    b = QuantileSketch(0.05, 100)
    a.add(Decimal("1.25"), 1)
    a.add_many([Fraction(1, 2), np.int32(3), Decimal("-2"), 7], [2, 3, 4, 5])
    b.add_many([1.25, 0.5, 3.0, -2.0, 7.0], [1, 2, 3, 4, 5])
    assert a.to_bytes() == b.to_bytes()
    assert a.rank(Decimal("1.25")) == 3.0 and a.quantile(0.5) == 1.25
    with pytest.raises(SketchError, match="NaN value"):
        a.add(Decimal("NaN"), 6)
    with pytest.raises(SketchError, match="value must be a number"):
        a.add(True, 6)
    assert a.to_bytes() == b.to_bytes()


def test_quantile_refusals():
    s = QuantileSketch(0.05, 100)
    s.add(1.0, 10)
    before = s.to_bytes()
    with pytest.raises(SketchError, match="NaN value"):
        s.add(float("nan"), 11)
    with pytest.raises(SketchError, match="NaN value"):
        s.add_many([2.0, float("nan")], [11, 12])
    assert s.to_bytes() == before  # a refused batch adds nothing
    with pytest.raises(SketchError, match="NaN value"):
        s.rank(float("nan"))
    with pytest.raises(SketchError, match="ts must not be None"):
        s.add(1.0, None)
    with pytest.raises(SketchError, match="precede the sketch's last timestamp"):
        s.add_many([1.0], [9])
    with pytest.raises(SketchError, match="value must be a number"):
        s.add("1.0", 12)
    with pytest.raises(SketchError, match="values must be numbers"):
        s.add_many([1.0, "x"], [12, 13])
    with pytest.raises(SketchError, match="weight must be non-negative"):
        s.add(1.0, 12, -1)
    with pytest.raises(SketchError, match=r"q must be in \[0, 1\]"):
        s.quantile(1.5)
    with pytest.raises(SketchError, match="exceeds the sketch window"):
        s.count(101)
    for eps in (0.0, 1.0, 2.0, float("nan")):
        with pytest.raises(SketchError, match=r"epsilon must be in \[0.001, 1\)"):
            QuantileSketch(eps)
    with pytest.raises(SketchError, match="epsilon must be a number"):
        QuantileSketch("0.1")
    with pytest.raises(SketchError, match="delta must be in"):
        QuantileSketch(0.01, delta=0.9)
    with pytest.raises(SketchError, match=r"merge_levels must be in \[0, 63\], got -1"):
        QuantileSketch(0.01, merge_levels=-1)
    assert s.to_bytes() == before
    for other in (QuantileSketch(0.02, 100), QuantileSketch(0.05, 200), QuantileSketch(0.05, 100, delta=0.05),
                  QuantileSketch(0.05, 100, seed=1)):
        other.add(2.0, 10)
        with pytest.raises(SketchError, match="cannot merge|different"):
            QuantileSketch.merge([s, other])
    with pytest.raises(SketchError, match="expected a windowed quantile sketch"):
        QuantileSketch.from_bytes(ExpHistogram(0.05, 100).to_bytes())


# ------------------------------------------------------------------ frequent items


def _zipf_ids(rng, n, universe=3000, s=1.1):
    p = np.arange(1, universe + 1, dtype=np.float64) ** -s
    return rng.choice(universe, size=n, p=p / p.sum()).astype(np.int64)


#: Python keys of each type, from an integer id (distinct ids give distinct keys).
KEYS = {
    "int": lambda i: int(i) * 7919 - 5_000_000,
    "str": lambda i: f"key-{int(i)}-é",
    "bytes": lambda i: int(i).to_bytes(3, "big") + b"\x00",
    "float": lambda i: int(i) * 0.5 - 100.25,
}
KEY_TYPE = {"int": "bigint", "str": "string", "bytes": "binary", "float": "double"}


def _exact(ids, ts, ws, now, r):
    """Exact weights by id in (now - r, now], and the range's weight."""
    m = (ts <= now) if r is None else (ts > now - r) & (ts <= now)
    counts = np.bincount(ids[m], weights=None if ws is None else ws[m])
    freqs = {int(i): int(c) for i, c in enumerate(counts) if c > 0}
    return freqs, sum(freqs.values())


def _check_frequent(s, key_of, ids, ts, ws, now, ranges, rng):
    """For every range: the range's weight, the interval of every key held and of a sample of the
    others, estimates within error_bound * n, heavy hitters and top-10 as promised."""
    e = s.error_bound
    for r in ranges:
        freqs, n = _exact(ids, ts, ws, now, r)
        c = s.range_count(r, now)
        assert c["lower"] <= n <= c["upper"] and abs(c["estimate"] - n) <= e * n + 1e-9, (r, c, n)
        assert s.total(r, now) == c["estimate"]
        by_key = {key_of(i): f for i, f in freqs.items()}
        held = s.top_k(1 << 30, r, now)  # every key held, with its interval
        assert [x["estimate"] for x in held] == sorted((x["estimate"] for x in held), reverse=True)
        for x in held:
            f = by_key.get(x["key"], 0)
            assert type(x["key"]) is type(key_of(0))
            assert x["lower"] <= f <= x["upper"], (r, x, f)
            assert abs(x["estimate"] - f) <= e * n + 1e-9, (r, x, f, e * n)
        held_keys = {x["key"] for x in held}
        others = [k for k in by_key if k not in held_keys]
        for k in [others[i] for i in rng.permutation(len(others))[:40]] + [key_of(10**6)]:
            x = s.estimate(k, r, now)
            f = by_key.get(k, 0)
            assert x["key"] == k and x["lower"] <= f <= x["upper"] and abs(x["estimate"] - f) <= e * n + 1e-9
        if n == 0:
            assert held == [] and s.heavy_hitters(0.1, r, now) == []
            continue
        for phi in (0.01, 0.05, 0.2):
            hh = s.heavy_hitters(phi, r, now)
            got = {x["key"] for x in hh}
            assert [x["estimate"] for x in hh] == sorted((x["estimate"] for x in hh), reverse=True)
            for k, f in by_key.items():
                if f >= (phi + e) * n:
                    assert k in got, (r, phi, k, f, n)
            for k in got:
                assert by_key.get(k, 0) >= (phi - e) * n, (r, phi, k, by_key.get(k, 0), n)
        ranked = sorted(by_key.values(), reverse=True)
        if len(ranked) > 10:
            clear = {k for k, f in by_key.items() if f > ranked[10] + 2 * e * n}
            top = [x["key"] for x in s.top_k(10, r, now)]
            assert len(top) == 10 and clear <= set(top), (r, clear - set(top))


@pytest.mark.parametrize("kind", sorted(KEYS))
def test_frequent_intervals_top_k_and_heavy_hitters_against_exact(kind):
    rng = np.random.default_rng(len(kind))
    n, window = 40_000, 25_000
    ids = _zipf_ids(rng, n)
    ts = _times(rng, n)
    ws = rng.integers(1, 4, size=n) if kind == "int" else None  # weighted rows once
    key_of = KEYS[kind]
    keys = [key_of(i) for i in ids.tolist()]
    s = FrequentSketch(0.01, window)
    for chunk in np.array_split(np.arange(n), 3):
        s.add_many([keys[i] for i in chunk] if kind != "float" else np.array([keys[i] for i in chunk]),
                   ts[chunk], None if ws is None else ws[chunk])
    assert s.key_type == KEY_TYPE[kind] and s.info()["key_type"] == KEY_TYPE[kind]
    assert s.error_bound <= 0.01
    last = int(ts[-1])
    for now in (last, last + 3):
        _check_frequent(s, key_of, ids, ts, ws, now, _ranges(rng, ts, window, now, 8), rng)
    # bytes read back answer the same
    b = s.to_bytes()
    d = FrequentSketch.from_bytes(b)
    assert d.to_bytes() == b and d.key_type == s.key_type
    for r in (1, 100, window):
        assert d.top_k(20, r) == s.top_k(20, r) and d.range_count(r) == s.range_count(r)
        assert d.heavy_hitters(0.02, r) == s.heavy_hitters(0.02, r)
        assert d.estimate(keys[-1], r) == s.estimate(keys[-1], r)


@pytest.mark.parametrize("sites", [2, 3, 6])
def test_frequent_merges_of_sites_keep_the_intervals(sites):
    rng = np.random.default_rng(200 + sites)
    n, window = 40_000, 20_000
    ids = _zipf_ids(rng, n, universe=2000)
    ts = _times(rng, n)
    key_of = KEYS["str"] if sites == 3 else KEYS["int"]
    keys = np.array([key_of(i) for i in ids.tolist()], dtype=object)
    site = rng.integers(0, sites, size=n)
    sks = []
    for i in range(sites):
        s = FrequentSketch(0.01, window)
        idx = np.flatnonzero(site == i)
        s.add_many(keys[idx], ts[idx])
        sks.append(s)
    m = FrequentSketch.merge(sks)
    assert m.merge_depth == 1 and m.error_bound <= 0.01
    assert m.to_bytes() == FrequentSketch.merge([s.to_bytes() for s in sks]).to_bytes()
    last = int(ts[-1])
    _check_frequent(m, key_of, ids, ts, None, last, _ranges(rng, ts, window, last, 8), rng)
    # a merge of merges (two levels, within the plan of one merge level plus merge_levels=1)
    if sites == 6:
        deep = [FrequentSketch(0.01, window, merge_levels=1) for _ in range(sites)]
        for i, s in enumerate(deep):
            idx = np.flatnonzero(site == i)
            s.add_many(keys[idx], ts[idx])
        mm = FrequentSketch.merge([FrequentSketch.merge(deep[:3]), FrequentSketch.merge(deep[3:])])
        assert mm.merge_depth == 2 and mm.error_bound <= 0.01
        _check_frequent(mm, key_of, ids, ts, None, last, _ranges(rng, ts, window, last, 5), rng)


def test_frequent_unbounded_window_and_timestamps():
    import datetime as dt
    rng = np.random.default_rng(8)
    ids = _zipf_ids(rng, 20_000, universe=500)
    ts = _times(rng, 20_000)
    s = FrequentSketch(0.02)
    s.add_many(ids, ts)
    _check_frequent(s, int, ids, ts, None, int(ts[-1]), [None, 1, 1000, 10_000], rng)
    t0 = dt.datetime(2024, 1, 1)
    u = FrequentSketch(0.05, dt.timedelta(hours=1), timestamps="timestamp")
    u.add_many(["a", "b", "a"], [t0, t0 + dt.timedelta(minutes=1), t0 + dt.timedelta(minutes=2)])
    assert [x["key"] for x in u.top_k(5)] == ["a", "b"]
    assert u.estimate("a", "90 seconds")["estimate"] == 1.0 and u.total(dt.timedelta(minutes=10)) == 3.0


def test_frequent_weights_up_to_2_63_come_back_exactly():
    """Intervals are ints all the way: a total weight of 2^63 - 1 is not rounded through a float."""
    s = FrequentSketch(0.5, 1000)
    s.add_many([1, 2], [10, 11], [2**62, 2**62 - 1])
    assert s.range_count() == {"estimate": float(2**63 - 1), "lower": 2**63 - 1, "upper": 2**63 - 1}
    assert s.estimate(2)["lower"] == s.estimate(2)["upper"] == 2**62 - 1
    m = FrequentSketch.merge([FrequentSketch.from_bytes(s.to_bytes()), FrequentSketch(0.5, 1000)])
    assert m.range_count()["lower"] == 2**63 - 1


def test_frequent_int_keys_of_a_sql_int_sketch():
    """A sketch whose key type is INT (SQL over an INT column) gives int keys back and takes Python
    ints that fit in an INT."""
    import jpype
    s = FrequentSketch(0.05, 100)
    for k, t in ((3, 1), (-7, 2), (3, 3)):
        s._j.addInt(jpype.JInt(k), t, 1)
    assert s.key_type == "int"
    d = FrequentSketch.from_bytes(s.to_bytes())
    assert d.key_type == "int" and d.top_k(5) == [
        {"key": 3, "estimate": 2.0, "lower": 2, "upper": 2}, {"key": -7, "estimate": 1.0, "lower": 1, "upper": 1}]
    d.add_many([3, 5], [4, 5])
    assert d.key_type == "int" and d.estimate(3) == {"key": 3, "estimate": 3.0, "lower": 3, "upper": 3}
    with pytest.raises(SketchError, match="does not fit in an INT"):
        d.add(2**40, 6)
    with pytest.raises(SketchError, match="holds int keys; cannot add str keys"):
        d.add("x", 6)


def test_frequent_refusals():
    s = FrequentSketch(0.05, 100)
    s.add(1, 10)
    before = s.to_bytes()
    for key, name in (("x", "str"), (b"x", "bytes"), (1.5, "float")):
        with pytest.raises(SketchError, match=f"holds bigint keys; cannot add {name} keys"):
            s.add(key, 11)
        with pytest.raises(SketchError, match=f"holds bigint keys; cannot look up {name} keys"):
            s.estimate(key)
    with pytest.raises(SketchError, match="all integers, all floats, all strings or all bytes"):
        s.add_many([1, 2.5], [11, 12])
    with pytest.raises(SketchError, match="got a mix"):
        s.add_many([1, "a"], [11, 12])
    for bad in (None, True, [1]):
        with pytest.raises(SketchError, match="key must be int, float, str or bytes, got (None|True|list)"):
            s.estimate(bad)
        with pytest.raises(SketchError, match="key must be int, float, str or bytes, got (None|True|list)"):
            s.add(bad, 11)
    with pytest.raises(SketchError, match="ts must not be None"):
        s.add(1, None)
    with pytest.raises(SketchError, match="precede the sketch's last timestamp"):
        s.add(1, 9)
    with pytest.raises(SketchError, match="weight must be non-negative"):
        s.add_many([1], [11], [-1])
    with pytest.raises(SketchError, match=r"phi must be in \(0, 1\]"):
        s.heavy_hitters(0.0)
    with pytest.raises(SketchError, match="k must be positive"):
        s.top_k(0)
    assert s.to_bytes() == before
    with pytest.raises(SketchError, match=r"epsilon must be in \[0.001, 1\)"):
        FrequentSketch(0.0)
    with pytest.raises(SketchError, match=r"merge_levels of a frequent-items sketch must be in \[0, 7\], got 8"):
        FrequentSketch(0.05, merge_levels=8)
    t = FrequentSketch(0.05, 100)
    t.add("a", 10)
    with pytest.raises(SketchError, match="cannot merge frequent-items sketches with bigint keys and string keys"):
        FrequentSketch.merge([s, t])
    with pytest.raises(SketchError, match="different parameters"):
        FrequentSketch.merge([s, FrequentSketch(0.02, 100)])
    with pytest.raises(SketchError, match="expected a frequent-items sketch"):
        FrequentSketch.from_bytes(QuantileSketch(0.05, 100).to_bytes())


def test_frequent_info_and_repr():
    s = FrequentSketch(0.01, 1000, merge_levels=2)
    assert repr(s) == "FrequentSketch(epsilon=0.01, window=1000)"
    assert s.key_type == "none" and s.top_k(3) == [] and s.total() == 0.0
    s.add_many([b"a", b"b", b"a"], [1, 2, 3])
    info = s.info()
    assert info["kind"] == "frequent" and info["planned_merge_levels"] == 3
    assert info["key_type"] == "binary" and info["candidates"] == 2 and info["stored_entries"] > 0
    assert 0 < info["heavy_hitter_error_bound"] == info["error_bound"] <= 0.01


def test_corrupt_bytes_are_refused():
    """Truncated and altered bytes of both kinds are refused with a SketchError (or decode, when an
    alteration leaves valid bytes), never another error."""
    rng = np.random.default_rng(4)
    q = QuantileSketch(0.05, 1000)
    q.add_many(rng.normal(size=3000), _times(rng, 3000))
    f = FrequentSketch(0.05, 1000)
    f.add_many([f"k{i}" for i in _zipf_ids(rng, 3000, universe=100)], _times(rng, 3000))
    for cls, b in ((QuantileSketch, q.to_bytes()), (FrequentSketch, f.to_bytes())):
        bad = [b[:i] for i in range(0, len(b), max(1, len(b) // 50))]
        for i in rng.integers(0, len(b), size=60).tolist():
            bad.append(b[:i] + bytes([b[i] ^ (1 << int(rng.integers(0, 8)))]) + b[i + 1:])
        refused = 0
        for x in bad:
            try:
                cls.from_bytes(x)
            except SketchError:
                refused += 1
        assert refused >= len(bad) - 2, (cls.__name__, refused, len(bad))
