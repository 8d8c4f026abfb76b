"""Distributed threshold monitoring (ecmsketch.monitor, ECM §6.2): the closed-form extrema
over a ball against sampling, the one-call Count-Min matrix against the sketch's own queries, and the
protocols on streams built to cross their thresholds upward and downward, against a brute-force oracle
of the union of the sites' streams.

The bound checked at every batch (no crossing missed beyond the sketch's own error): between
synchronisations the monitor keeps G = F(E + sum_i D_i) on the side of its answer. Every entry of
that matrix is within err = (e0 + e1) X(t0) + e0 X(t) of the exact Count-Min matrix X(t) of the union
of the streams (built here by brute force from the oracle's counts and the sketch's columns; e0 the
sites' cell bound, e1 the merged one, t0 the last synchronisation), so each row norm moves by at most
s = max_j ||err_j||_2, and sqrt(F) with it: "above" implies sqrt(F(X)) >= sqrt(T) - s and "below"
implies sqrt(F(X)) < sqrt(T) + s; for point queries, over the key's d cells, min X >= T - s and
min X < T + s with s = max_j err_j. And F2 <= F(X), the Count-Min over-estimate.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from ecmsketch import EcmSketch, SketchError
from ecmsketch.monitor import (Cluster, PeriodicShipping, PointQuery, RelativeMonitor, SelfJoin, ThresholdMonitor,
                               matrix, point_extrema, self_join_extrema, water_level)

DOMAIN = 300
STEP = 30       # ticks per update batch
RANGE = 600     # the monitored range: the last 20 batches
WINDOW = 1200


# --------------------------------------------------------------------------- streams and oracle


def make_stream(n_sites, profile, seed=0, hot=None):
    """Batch b brings profile[b] events in ((b)*STEP, (b+1)*STEP], spread unevenly over the sites,
    Zipf keys over DOMAIN; ``hot`` = (key, per-batch counts) adds a key's own profile at site 0."""
    rng = np.random.default_rng(seed)
    share = rng.dirichlet(np.ones(n_sites))
    out = []
    for b, rate in enumerate(profile):
        cnt = rng.multinomial(int(rate), share)
        per = []
        for i in range(n_sites):
            k = ((rng.zipf(1.2, cnt[i]) - 1) % DOMAIN).astype(np.int64)
            t = (b * STEP + rng.integers(1, STEP + 1, cnt[i])).astype(np.int64)
            if hot is not None and i == b % n_sites and hot[1][b]:
                k = np.concatenate([k, np.full(hot[1][b], hot[0], dtype=np.int64)])
                t = np.concatenate([t, b * STEP + rng.integers(1, STEP + 1, hot[1][b])])
            per.append((k, t))
        out.append(((b + 1) * STEP, per))
    return out


class Oracle:
    def __init__(self, stream):
        self.keys = np.concatenate([k for _, per in stream for k, _ in per])
        self.ts = np.concatenate([t for _, per in stream for _, t in per])

    def counts(self, now):
        m = (self.ts > now - RANGE) & (self.ts <= now)
        return np.bincount(self.keys[m], minlength=DOMAIN).astype(np.float64)

    def f2(self, now):
        return float((self.counts(now) ** 2).sum())

    def total(self, now):
        return float(self.counts(now).sum())


def run(cluster, stream, protocols, check):
    for b, (now, per) in enumerate(stream):
        for i, (k, t) in enumerate(per):
            cluster.ingest(i, k, t)
        cluster.advance(now)
        for p in protocols:
            p.step()
        check(b, now)


class ExactCM:
    """The exact Count-Min matrix of the cluster's configuration for given key counts: each key's
    count added to its column in every row (the sketch's own hash columns)."""

    def __init__(self, cluster):
        sk = cluster.sketches[0]
        info = sk.info()
        self.shape = (info["depth"], info["width"])
        self.idx = np.stack([PointQuery(k).bind(sk)._idx for k in range(DOMAIN)])  # flat indices, DOMAIN x d

    def __call__(self, counts):
        x = np.zeros(self.shape[0] * self.shape[1])
        for j in range(self.shape[0]):
            np.add.at(x, self.idx[:, j], counts)
        return x.reshape(self.shape)

    def drift_bound(self, e0, e1, x0, x):
        """max_j ||err_j||_2 with err = (e0 + e1) X(t0) + e0 X(t): how far sqrt(F) of the tracked
        matrix can be from sqrt(F) of the exact one."""
        err = (e0 + e1) * x0 + e0 * x
        return float(np.sqrt((err * err).sum(axis=1)).max())


def bounds(cluster, mon):
    site = cluster.sketches[0].info()
    return site["total_error_bound"], mon.merged.info()["total_error_bound"], site["cm_epsilon"]


UP_DOWN = [40] * 10 + list(np.linspace(40, 300, 10).astype(int)) + [300] * 12 + [0] * 22 + [60] * 6


# --------------------------------------------------------------------------- closed forms


def f_self_join(v):
    return np.min((v * v).sum(axis=-1), axis=-1)


def test_water_level():
    assert water_level(np.array([1.0, 5.0]), 0.0) == 1.0
    assert water_level(np.array([1.0, 5.0]), 3.0) == pytest.approx(4.0)  # only the low level fills
    lam = water_level(np.array([1.0, 2.0, 10.0]), 2.0)
    assert (lam - 1) ** 2 + (lam - 2) ** 2 == pytest.approx(4.0) and lam < 10
    with pytest.raises(SketchError, match="at least one level"):
        water_level(np.array([]), 1.0)


@pytest.mark.parametrize("d,w,seed", [(2, 1, 0), (3, 4, 1), (5, 30, 2)])
def test_self_join_extrema_against_sampling(d, w, seed):
    rng = np.random.default_rng(seed)
    for trial in range(6):
        c = rng.uniform(0, 10, (d, w)) * rng.uniform(0.2, 1.5, (d, 1))
        rho = np.sqrt((c * c).sum(axis=1))
        alpha = float(rng.uniform(0.1, 1.2) * rho.min())
        lo, hi = self_join_extrema(c, alpha)
        # random points in and on the ball never leave [lo, hi]
        u = rng.normal(size=(20_000, d, w))
        u /= np.sqrt((u * u).sum(axis=(1, 2)))[:, None, None]
        r = alpha * rng.uniform(0, 1, 20_000) ** (1 / (d * w))
        r[:5000] = alpha
        vals = f_self_join(c + r[:, None, None] * u)
        assert vals.min() >= lo - 1e-9 * (1 + lo) and vals.max() <= hi + 1e-9 * (1 + hi)
        # and both extrema are attained by points of the ball
        j = int(np.argmin(rho))
        vmin = c.copy()
        vmin[j] *= max(0.0, rho[j] - alpha) / rho[j]
        assert np.linalg.norm(vmin - c) <= alpha * (1 + 1e-9)
        assert f_self_join(vmin) == pytest.approx(lo, rel=1e-9, abs=1e-9)
        lam = math.sqrt(hi)
        vmax = c * np.maximum(1.0, lam / rho)[:, None]
        assert np.linalg.norm(vmax - c) == pytest.approx(alpha, rel=1e-9)
        assert f_self_join(vmax) == pytest.approx(hi, rel=1e-9)
        if d * w == 2:  # a dense sample of the disc reaches both within 1%
            ang = np.linspace(0, 2 * np.pi, 200_001)
            pts = c.ravel() + alpha * np.stack([np.cos(ang), np.sin(ang)], axis=1)
            v = np.min(pts * pts, axis=1)
            assert v.max() == pytest.approx(hi, rel=1e-2) and v.min() == pytest.approx(lo, rel=1e-2, abs=1e-6)
    with pytest.raises(SketchError, match="d x w matrix"):
        self_join_extrema(np.ones(3), 1.0)


def test_self_join_maximum_with_three_rows_filled_against_a_dense_sphere():
    """The water level when every row fills (three 1-wide rows, lambda above every rho): a dense
    Fibonacci sample of the sphere reaches the closed-form maximum within 2 % and never exceeds it."""
    c = np.array([[1.0], [2.0], [3.0]])
    alpha = math.sqrt(14.0)  # lambda = 4 fills all three rows: (4-1)^2 + (4-2)^2 + (4-3)^2 = 14
    lo, hi = self_join_extrema(c, alpha)
    assert hi == pytest.approx(16.0) and lo == 0.0
    n = 400_000
    i = np.arange(n) + 0.5
    z = 1 - 2 * i / n
    ph = np.pi * (1 + 5 ** 0.5) * i
    pts = c.ravel() + alpha * np.stack([np.sqrt(1 - z * z) * np.cos(ph), np.sqrt(1 - z * z) * np.sin(ph), z], axis=1)
    v = np.min(pts * pts, axis=1)
    assert v.max() <= hi * (1 + 1e-9) and v.max() == pytest.approx(hi, rel=2e-2)
    assert v.min() >= lo - 1e-12 and v.min() <= 1e-2


def test_point_extrema_against_sampling():
    rng = np.random.default_rng(7)
    for trial in range(10):
        c = rng.normal(0, 5, 4)
        alpha = float(rng.uniform(0.1, 6))
        lo, hi = point_extrema(c, alpha)
        u = rng.normal(size=(50_000, 4))
        u /= np.linalg.norm(u, axis=1)[:, None]
        v = (c + alpha * u).min(axis=1)
        assert v.min() >= lo - 1e-9 and v.max() <= hi + 1e-9
        assert v.min() == pytest.approx(lo, abs=0.05 * alpha)
        assert v.max() >= hi - 0.05 * alpha  # a sample of the sphere comes near the water level
        best = np.maximum(c, hi)  # the water-filling point attains it
        assert np.linalg.norm(best - c) == pytest.approx(alpha) and best.min() == pytest.approx(hi)


# --------------------------------------------------------------------------- the matrix


def test_matrix_is_the_sketch_queries_in_one_call():
    rng = np.random.default_rng(3)
    sk = EcmSketch.create(0.1, 0.05, 1000, optimize_for="inner_product")
    assert matrix(sk, 100, 10).sum() == 0.0  # empty sketch: zeros
    ts = np.sort(rng.integers(0, 3000, 8000))
    keys = (rng.zipf(1.3, 8000) % 200).astype(np.int64)
    sk.add_many(keys, ts)
    info = sk.info()
    for r, now in ((1000, 3000), (200, 3100), (1, 2999)):
        m = matrix(sk, r, now)
        assert m.shape == (info["depth"], info["width"]) and (m >= 0).all()
        assert float(np.min((m * m).sum(axis=1))) == pytest.approx(sk.self_join(r, now))
        assert m.sum() / info["depth"] == pytest.approx(sk.total(r, now))
        for k in (0, 1, 5, 199):
            q = PointQuery(k).bind(sk)
            assert q.value(q.project(m)) == pytest.approx(sk.point(k, r, now))
    with pytest.raises(SketchError):
        matrix(sk, 5000, 3000)  # range beyond the window


# --------------------------------------------------------------------------- threshold monitoring


@pytest.mark.parametrize("n_sites,seed,weights,cell", [(2, 11, "uniform", "eh"), (9, 12, "traffic", "eh"),
                                                       (9, 14, "uniform", "dwave"), (64, 13, "traffic", "eh")])
def test_self_join_crossings_up_and_down_are_not_missed(n_sites, seed, weights, cell):
    stream = make_stream(n_sites, UP_DOWN, seed=seed)
    oracle = Oracle(stream)
    truth = [oracle.f2(now) for now, _ in stream]
    T = 0.4 * max(truth)
    cluster = Cluster(n_sites, WINDOW, 0.1, 0.05, cell=cell)
    mon = ThresholdMonitor(cluster, T, RANGE, weights=weights)
    sides = []

    cm = ExactCM(cluster)

    def check(b, now):
        e0, e1, _ = bounds(cluster, mon)
        x, x0 = cm(oracle.counts(now)), cm(oracle.counts(mon.sync_time))
        s = cm.drift_bound(e0, e1, x0, x)
        fx = f_self_join(x)
        assert truth[b] <= fx * (1 + 1e-12)
        g = mon.tracked()
        assert (g >= T) == mon.above, (b, g, T)  # the geometric guarantee itself
        if mon.above:
            assert math.sqrt(fx) >= math.sqrt(T) - s, (b, fx, T, s)
        else:
            assert math.sqrt(fx) < math.sqrt(T) + s, (b, fx, T, s)
        sides.append(mon.above)

    run(cluster, stream, [mon], check)
    # both crossings were reported: below, then above, then below again
    flips = [i for i in range(1, len(sides)) if sides[i] != sides[i - 1]]
    assert not sides[0] and sides[flips[0]] and len(flips) >= 2 and not sides[-1]
    assert mon.traffic.syncs < len(stream)
    assert mon.traffic.messages == sum(v[0] for v in mon.traffic.by_kind.values())


def test_arrivals_only_delta_misses_a_crossing_by_expiration():
    """The paper's literal delta (arrivals in (t0, t]) sees nothing when the arrivals stop: the self-join
    falls below the threshold as data expires, and that monitor keeps answering 'above'."""
    n = 8
    stream = make_stream(n, UP_DOWN, seed=21)
    oracle = Oracle(stream)
    T = 0.4 * max(oracle.f2(now) for now, _ in stream)
    cluster = Cluster(n, WINDOW, 0.1, 0.05)
    stored = ThresholdMonitor(cluster, T, RANGE)
    arrivals = ThresholdMonitor(cluster, T, RANGE, delta="arrivals")
    log = []
    run(cluster, stream, [stored, arrivals], lambda b, now: log.append((oracle.f2(now), stored.above, arrivals.above)))
    empty = [i for i, (f2, _, _) in enumerate(log) if f2 == 0.0]
    assert empty, "the stream must empty the range"
    assert all(not log[i][1] for i in empty)       # stored-local-matrix delta: below
    assert all(log[i][2] for i in empty)           # arrivals-only delta: still 'above' over an empty range


def test_point_query_crossings():
    n = 6
    hot = [0] * 8 + [25] * 20 + [0] * 24 + [25] * 16
    stream = make_stream(n, [60] * len(hot), seed=31, hot=(DOMAIN - 1, hot))
    oracle = Oracle(stream)
    freq = [oracle.counts(now)[DOMAIN - 1] for now, _ in stream]
    T = 0.5 * max(freq)
    cluster = Cluster(n, WINDOW, 0.1, 0.05, optimize_for="point")
    mon = ThresholdMonitor(cluster, T, RANGE, PointQuery(DOMAIN - 1))
    sides = []

    cm = ExactCM(cluster)
    cells = cm.idx[DOMAIN - 1]  # the key's d cells

    def check(b, now):
        e0, e1, _ = bounds(cluster, mon)
        x, x0 = cm(oracle.counts(now)).ravel()[cells], cm(oracle.counts(mon.sync_time)).ravel()[cells]
        s = float(((e0 + e1) * x0 + e0 * x).max())
        assert freq[b] <= x.min()
        assert (mon.tracked() >= T) == mon.above
        if mon.above:
            assert x.min() >= T - s, (b, x.min(), T, s)
        else:
            assert x.min() < T + s, (b, x.min(), T, s)
        sides.append(mon.above)

    run(cluster, stream, [mon], check)
    flips = [i for i in range(1, len(sides)) if sides[i] != sides[i - 1]]
    assert len(flips) >= 3 and sides[-1]  # up, down, up again
    assert mon.traffic.syncs < len(stream) / 2
    depth = cluster.sketches[0].info()["depth"]  # the broadcast carries the key's d cells only
    assert mon.traffic.by_kind["estimate"] == [mon.traffic.syncs * n, mon.traffic.syncs * n * (8 * (depth + 1) + 16)]


def test_relative_tracking_within_theta():
    n = 12
    profile = list((150 + 120 * np.sin(np.arange(70) / 8.0)).astype(int))
    stream = make_stream(n, profile, seed=41)
    oracle = Oracle(stream)
    theta = 0.3
    cluster = Cluster(n, WINDOW, 0.1, 0.05)
    mon = RelativeMonitor(cluster, theta, RANGE)

    cm = ExactCM(cluster)

    def check(b, now):
        e0, e1, _ = bounds(cluster, mon)
        x, x0 = cm(oracle.counts(now)), cm(oracle.counts(mon.sync_time))
        s = cm.drift_bound(e0, e1, x0, x)
        f0, g, fx = mon.estimate, mon.tracked(), f_self_join(x)
        assert (1 - theta) * g <= f0 * (1 + 1e-12) and f0 <= (1 + theta) * g * (1 + 1e-12), (b, f0, g)  # Lemma 2
        assert math.sqrt(fx) <= math.sqrt(f0 / (1 - theta)) + s
        assert math.sqrt(fx) >= math.sqrt(f0 / (1 + theta)) - s

    run(cluster, stream, [mon], check)
    assert 1 < mon.traffic.syncs < len(stream)


# --------------------------------------------------------------------------- baselines and traffic


def test_baselines_traffic_and_late_detection():
    n = 10
    stream = make_stream(n, UP_DOWN, seed=51)
    oracle = Oracle(stream)
    T = 0.4 * max(oracle.f2(now) for now, _ in stream)
    cluster = Cluster(n, WINDOW, 0.1, 0.05)
    every = PeriodicShipping(cluster, T, RANGE)
    periodic = PeriodicShipping(cluster, T, RANGE, period=10)
    mon = ThresholdMonitor(cluster, T, RANGE)
    log = []
    sizes = []

    cm = ExactCM(cluster)

    def check(b, now):
        log.append((every.above, periodic.above, mon.above))
        sizes.append(sum(len(cluster.sketch_bytes(i)) for i in range(n)))
        # the merged sketch of this batch and the monitor's tracked matrix are both near the exact one:
        # within e_merged X(t) and (e0 + e1) X(t0) + e0 X(t) entrywise
        e0, e1, _ = bounds(cluster, mon)
        x, x0 = cm(oracle.counts(now)), cm(oracle.counts(mon.sync_time))
        s = cm.drift_bound(e0, e1, x0, x) + cm.drift_bound(every.merged.info()["total_error_bound"], 0.0, 0 * x, x)
        assert abs(math.sqrt(every.estimate) - math.sqrt(mon.tracked())) <= s, (b, every.estimate, mon.tracked(), s)

    run(cluster, stream, [every, periodic, mon], check)
    B = len(stream)
    assert every.traffic.messages == n * B and every.traffic.bytes == sum(sizes)
    assert periodic.traffic.messages == n * math.ceil(B / 10)
    # the periodic baseline reports a crossing later than shipping every batch
    first = [next(i for i, x in enumerate(log) if x[k]) for k in range(3)]
    assert first[1] > first[0]
    assert mon.traffic.bytes < every.traffic.bytes


def test_bad_arguments():
    cluster = Cluster(2, WINDOW)
    with pytest.raises(SketchError, match="threshold"):
        ThresholdMonitor(cluster, float("nan"), RANGE)
    with pytest.raises(SketchError, match="range"):
        ThresholdMonitor(cluster, 1.0, WINDOW + 1)
    with pytest.raises(SketchError, match="delta"):
        ThresholdMonitor(cluster, 1.0, RANGE, delta="both")
    with pytest.raises(SketchError, match="theta"):
        RelativeMonitor(cluster, 1.0, RANGE)
    with pytest.raises(SketchError, match="weights"):
        ThresholdMonitor(cluster, 1.0, RANGE, weights="equal")
    with pytest.raises(SketchError, match="period"):
        PeriodicShipping(cluster, 1.0, RANGE, period=0)
    with pytest.raises(SketchError, match="n_sites"):
        Cluster(0, WINDOW)
    with pytest.raises(SketchError, match="needs a time"):
        ThresholdMonitor(cluster, 1.0, RANGE).step()
    with pytest.raises(SketchError, match="deterministic cells"):
        ThresholdMonitor(Cluster(2, WINDOW, optimize_for="point", cell="rwave"), 1.0, RANGE, SelfJoin())
    cluster.ingest(0, [1], [100])
    with pytest.raises(SketchError, match="precedes"):
        cluster.advance(50)


def test_guide_monitoring_block_runs():
    """The example of docs/guide/monitoring.md (tests/test_guides.py also checks its printed line)."""
    import os
    from docblocks import ROOT, blocks, run_python
    (block,) = [b for b in blocks(os.path.join(ROOT, "docs", "guide", "monitoring.md")) if "ThresholdMonitor" in b.code]
    above, crossed_at, syncs, messages = run_python(block.code, {}).split()
    assert above == "True" and 60 < int(crossed_at) <= 80 and int(syncs) < 30 and int(messages) < 4 * 120


def test_score_crossings():
    from ecmsketch.monitor import score_crossings
    ref = [False, False, True, True, True, False, False, True, False, False]
    sc = score_crossings(ref, ref)
    assert (sc.crossings, sc.on_time, sc.late, sc.missed, sc.wrong_batches) == (4, 4, 0, 0, 0)
    ans = [False, False, False, True, True, True, False, False, False, False]  # up 1 late, down 1 late, blip missed
    sc = score_crossings(ref, ans)
    assert (sc.crossings, sc.on_time, sc.late, sc.missed, sc.delays, sc.max_delay) == (4, 1, 2, 1, [1, 1], 1)
    assert sc.wrong_batches == 3
    with pytest.raises(SketchError, match="differ in length"):
        score_crossings(ref, ans[:-1])


def test_periodic_baseline_refuses_tracked_and_bad_threshold():
    cluster = Cluster(2, WINDOW)
    with pytest.raises(SketchError, match="threshold"):
        PeriodicShipping(cluster, float("inf"), RANGE)
    p = PeriodicShipping(cluster, 1.0, RANGE)
    cluster.ingest(1, [3, 4], [10, 20])
    cluster.advance(30)
    r = p.step()
    assert r.synced and p.estimate in (2.0, 4.0) and p.above  # F2 = 2, or 4 if the keys collide in every row
    with pytest.raises(SketchError, match="tracks nothing"):
        p.tracked()


def test_bad_input_gets_clear_messages():
    cluster = Cluster(2, WINDOW)
    for make, match in [
        (lambda: Cluster(2, "abc"), "window"), (lambda: Cluster(2, 1000.5), "window"),
        (lambda: ThresholdMonitor(cluster, 1.0, "x"), "range"), (lambda: ThresholdMonitor(cluster, 1.0, None), "range"),
        (lambda: ThresholdMonitor(cluster, 1.0, RANGE, "selfjoin"), "MonitoredFunction"),
        (lambda: cluster.ingest("0", [1], [1]), "site"), (lambda: cluster.ingest(0, [1], None), "keys and timestamps"),
        (lambda: cluster.advance(None), "now"), (lambda: cluster.advance("10"), "now"),
        (lambda: cluster.advance(10.7), "now"), (lambda: cluster.local_matrix(5, RANGE), "site"),
        (lambda: cluster.sketch_bytes(5), "site"), (lambda: matrix("x"), "EcmSketch"),
        (lambda: water_level(np.array([1.0]), -3), "radius"), (lambda: self_join_extrema(np.ones((2, 2)), float("nan")), "radius"),
        (lambda: point_extrema(np.array([]), 1.0), "at least one cell"),
        (lambda: ThresholdMonitor(cluster, 1.0, RANGE).local_violation(0, 10), "no synchronisation"),
    ]:
        with pytest.raises(SketchError, match=match):
            make()
    # numpy scalars are numbers
    assert RelativeMonitor(cluster, np.float32(0.2), RANGE).theta == pytest.approx(0.2)
    assert PeriodicShipping(cluster, np.float64(5.0), RANGE, period=np.int64(3)).period == 3
    assert Cluster(np.int64(2), WINDOW).n == 2


def test_steps_do_not_go_back_in_time():
    cluster = Cluster(2, WINDOW)
    mon = ThresholdMonitor(cluster, 10.0, RANGE)
    cluster.ingest(0, [1, 2], [5, 10])
    cluster.advance(20)
    mon.step()
    with pytest.raises(SketchError, match="precedes the cluster's clock"):
        mon.step(15)
    every = PeriodicShipping(cluster, 10.0, RANGE)  # ships, so synchronises, at every step
    every.step(40)
    assert every.sync_time == 40
    cluster.advance(30)
    with pytest.raises(SketchError, match="precedes the last synchronisation"):
        every.step(35)


def test_point_query_key_bound_to_the_merged_sketch():
    """A PointQuery built before any data binds its key's columns again at each synchronisation, from
    the merged sketch: the monitored value is the merged sketch's own point estimate."""
    cluster = Cluster(2, WINDOW, optimize_for="point")
    mon = ThresholdMonitor(cluster, 5.0, RANGE, PointQuery("7"))  # a str key: its type is read from the data
    cluster.ingest(0, np.full(10, 7, dtype=np.int64), np.arange(1, 11, dtype=np.int64))
    cluster.ingest(1, np.full(4, 7, dtype=np.int64), np.arange(1, 5, dtype=np.int64))
    cluster.advance(20)
    mon.step()
    assert mon.estimate == 14.0 == mon.merged.point(7, RANGE, 20) and mon.above
