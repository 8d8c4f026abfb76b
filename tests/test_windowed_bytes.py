"""The JPype QuantileSketch (no Spark): answers against exact ones computed with numpy on seeded
streams, across ranges from a few ticks to the whole window; merges of several sites; bytes round
trips; refusals."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from ecmsketch import ExpHistogram, QuantileSketch, SketchError

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
        assert s.rank_error_bound(r, now) <= bound * (1 + 1e-9), (r, s.rank_error_bound(r, now), bound)
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
