"""Distributed threshold monitoring over ECM-sketches with the geometric method (ECM-sketch §6.2,
journal Lemma 2; docs/design/monitoring.md). No Spark: it runs on the bytes-level
:class:`~ecmsketch.EcmSketch`.

The pieces:

* a :class:`Cluster` of sites, each with its own ECM-sketch (one configuration and hash seed);
* a monitored function of the plain Count-Min matrix that a sketch gives for the query range:
  :class:`SelfJoin` (F(V) = min_j ||V_j||^2) or :class:`PointQuery` (f(V) = min_j V[j, h_j(key)]);
* protocols that read the cluster after every update batch (:meth:`Protocol.step`):

  - :class:`ThresholdMonitor`: is F of the global sketch above a threshold T? Synchronisation ships
    every site's sketch to a coordinator, which merges them order-preservingly and extracts the
    estimate matrix E (sum scale) for the range. Each site keeps its own extracted matrix L_i(t0)
    from that moment, and after each batch tests the ball with centre E + D_i/(2 w_i) and radius
    ||D_i||/(2 w_i), D_i = L_i(t) - L_i(t0) (the stored-local-matrix delta: it captures expirations
    as well as arrivals) and w_i the site's weight (1/n, or its share of the traffic at the
    synchronisation: any positive weights summing to 1 work). The union of the balls covers the
    convex hull of the drift vectors E + D_i/w_i, which holds their weighted average
    E + sum_i D_i; when every ball lies on one side of T, so does F of that average. A ball that
    straddles T is a local violation: a new synchronisation.
  - :class:`RelativeMonitor`: the journal's Lemma 2, tracking F within a factor theta.
  - :class:`PeriodicShipping`: the baselines, every sketch shipped every ``period`` batches
    (``period=1``: every batch).

Every protocol counts the messages and bytes it sends (:class:`Traffic`). The message model (one
site-coordinator message per arrow): an alert from each violating site (carrying its sketch), a
request to every other site and its sketch in reply, and the estimate broadcast to every site.
The baselines send only the sketches.

Deltas: ``delta='stored'`` (default) is the stored-local-matrix delta above. ``delta='arrivals'``
is the paper's literal delta, the matrix of arrivals in (t0, t]: it misses expirations, so a
crossing caused by data leaving the range goes unnoticed (kept for comparison; see the tests).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import SketchError
from . import _jvm
from ._convert import call, jlong
from ._units import range_ticks, time_ticks
from .sketches import DEFAULT_SEED, EcmSketch

__all__ = ["Cluster", "MonitoredFunction", "SelfJoin", "PointQuery", "ThresholdMonitor", "RelativeMonitor", "PeriodicShipping",
           "Traffic", "StepResult", "CrossingScore", "self_join_extrema", "point_extrema", "water_level", "matrix",
           "score_crossings"]

#: Bytes of a control message (an alert without payload, a request): site id and timestamp.
CONTROL_BYTES = 16


def _real(x: Any, what: str) -> float:
    """A finite real number (Python or numpy), or a SketchError naming ``what``."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(float(x)):
        raise SketchError(f"{what} must be a finite number, got {x!r}")
    return float(x)


def _integer(x: Any, what: str) -> int:
    """An integer (Python or numpy), or a SketchError naming ``what``."""
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise SketchError(f"{what} must be an integer, got {x!r}")
    return int(x)


# --------------------------------------------------------------------------- extrema over a ball


def water_level(levels: np.ndarray, radius: float) -> float:
    """The largest lambda with sum_j max(0, lambda - levels[j])^2 <= radius^2 (water-filling)."""
    x = np.sort(np.asarray(levels, dtype=np.float64).ravel())
    if not float(radius) >= 0:
        raise SketchError(f"radius must be non-negative, got {radius}")
    r2 = float(radius) ** 2
    if x.size == 0:
        raise SketchError("water_level needs at least one level")
    s1 = 0.0
    s2 = 0.0
    for k in range(1, x.size + 1):
        s1 += x[k - 1]
        s2 += x[k - 1] ** 2
        # k * lam^2 - 2 * s1 * lam + s2 - r2 = 0, the larger root
        disc = max(0.0, s1 * s1 - k * (s2 - r2))
        lam = (s1 + math.sqrt(disc)) / k
        if k == x.size or lam <= x[k]:
            return lam
    raise AssertionError("unreachable")


def self_join_extrema(center: np.ndarray, radius: float) -> Tuple[float, float]:
    """Min and max of F(V) = min_j ||V_j||^2 over the ball ||V - center|| <= radius (Frobenius norm;
    rows j of the d x w matrix ``center``): min_j max(0, rho_j - radius)^2 and lambda^2 with
    sum_j max(0, lambda - rho_j)^2 = radius^2, rho_j = ||center_j|| (ECM-sketch §6.2)."""
    c = np.asarray(center, dtype=np.float64)
    if c.ndim != 2:
        raise SketchError(f"center must be a d x w matrix, got shape {c.shape}")
    if not radius >= 0:
        raise SketchError(f"radius must be non-negative, got {radius}")
    rho = np.sqrt((c * c).sum(axis=1))
    lo = float(np.min(np.maximum(0.0, rho - radius)) ** 2)
    hi = water_level(rho, radius) ** 2
    return lo, hi


def point_extrema(center: np.ndarray, radius: float) -> Tuple[float, float]:
    """Min and max of f(v) = min_j v_j over the ball ||v - center|| <= radius: min_j center_j - radius,
    and the water level lambda with sum_j max(0, lambda - center_j)^2 = radius^2."""
    c = np.asarray(center, dtype=np.float64).ravel()
    if c.size == 0:
        raise SketchError("point_extrema needs at least one cell")
    if not radius >= 0:
        raise SketchError(f"radius must be non-negative, got {radius}")
    return float(c.min() - radius), water_level(c, radius)


# --------------------------------------------------------------------------- monitored functions


class MonitoredFunction:
    """A function of the range's Count-Min matrix that the protocols monitor: ``bind`` it to the
    cluster's sketches, ``project`` a matrix onto its statistics vector, take its ``value`` there and
    its ``extrema`` over a ball of such vectors."""

    name = "function"

    def bind(self, sketch: EcmSketch) -> "MonitoredFunction":
        """Checks the sketch configuration and reads what the function needs of it; returns self."""
        return self

    def project(self, matrix: np.ndarray) -> np.ndarray:
        """The statistics vector of a depth x width Count-Min matrix."""
        raise NotImplementedError

    def value(self, v: np.ndarray) -> float:
        """The function at statistics vector ``v``."""
        raise NotImplementedError

    def extrema(self, center: np.ndarray, radius: float) -> Tuple[float, float]:
        """(min, max) of the function over the ball ||v - center|| <= radius."""
        raise NotImplementedError


class SelfJoin(MonitoredFunction):
    """The self-join size F(V) = min_j sum_i V[j][i]^2 of the Count-Min matrix for the range."""

    name = "self_join"

    def bind(self, sketch: EcmSketch) -> "SelfJoin":
        """Refuses randomized-wave cells (no self-join guarantee)."""
        if sketch.info()["cell_kind"] == "rwave":
            raise SketchError("self-join monitoring needs deterministic cells ('eh' or 'dwave'), not 'rwave'")
        return self

    def project(self, matrix: np.ndarray) -> np.ndarray:
        """The whole matrix."""
        return matrix

    def value(self, v: np.ndarray) -> float:
        """min_j ||V_j||^2."""
        return float(np.min((v * v).sum(axis=1)))

    def extrema(self, center: np.ndarray, radius: float) -> Tuple[float, float]:
        """:func:`self_join_extrema`."""
        return self_join_extrema(center, radius)


class PointQuery(MonitoredFunction):
    """The point estimate of one key, f(V) = min_j V[j, h_j(key)]: only the key's d cells matter, so
    the statistics vector is those d entries."""

    name = "point"

    def __init__(self, key: Any):
        self.key = key
        self._idx: Optional[np.ndarray] = None

    def bind(self, sketch: EcmSketch) -> "PointQuery":
        """Reads the key's column in every row (the protocols bind again to the merged sketch at each
        synchronisation, whose key type is known)."""
        cols = np.asarray(call(_jvm.api().ecmColumns, sketch._j, sketch._fp(self.key)), dtype=np.int64)
        self._idx = np.arange(cols.size, dtype=np.int64) * int(sketch.info()["width"]) + cols
        return self

    def project(self, matrix: np.ndarray) -> np.ndarray:
        """The key's d cells."""
        if self._idx is None:
            raise SketchError("PointQuery is not bound to a sketch")
        return matrix.ravel()[self._idx]

    def value(self, v: np.ndarray) -> float:
        """The Count-Min estimate: the smallest of the key's cells."""
        return float(np.min(v))

    def extrema(self, center: np.ndarray, radius: float) -> Tuple[float, float]:
        """:func:`point_extrema`."""
        return point_extrema(center, radius)


# --------------------------------------------------------------------------- sites


def matrix(sketch: EcmSketch, range: Any = None, now: Any = None) -> np.ndarray:
    """The plain Count-Min matrix (depth x width) of ``sketch`` for (now - range, now], in one JVM call
    (range and now as :meth:`EcmSketch.point` takes them)."""
    if not isinstance(sketch, EcmSketch):
        raise SketchError(f"matrix needs an EcmSketch, got {type(sketch).__name__}")
    i = sketch._j
    flat = np.asarray(call(_jvm.api().ecmMatrix, i, jlong(range_ticks(range, sketch._micros)),
                           jlong(time_ticks(now, sketch._micros))), dtype=np.float64)
    return flat.reshape(int(i.depth()), int(i.width()))


class Cluster:
    """n sites, each with an ECM-sketch of one configuration (integer ticks, time-based window)."""

    def __init__(self, n_sites: int, window: int, epsilon: float = 0.1, delta: float = 0.05, *,
                 optimize_for: str = "inner_product", cell: str = "eh", seed: int = DEFAULT_SEED):
        if isinstance(n_sites, bool) or not isinstance(n_sites, numbers.Integral) or n_sites < 1:
            raise SketchError(f"n_sites must be a positive integer, got {n_sites!r}")
        self.n = int(n_sites)
        self.window = _integer(window, "window (integer ticks)")
        self.sketches = [EcmSketch.create(epsilon, delta, window, optimize_for=optimize_for, cell=cell, seed=seed)
                         for _ in range(n_sites)]
        for i, s in enumerate(self.sketches):
            s._j.setEventSalt(0x51735 + i)  # distinct event ids per site for randomized waves
        self._bytes: List[Optional[bytes]] = [None] * n_sites
        self._matrices: Dict[Tuple[int, int, int], np.ndarray] = {}
        self.now: Optional[int] = None

    def ingest(self, site: int, keys: Any, timestamps: Any, values: Any = None) -> None:
        """Adds a batch at one site (timestamps at or after its last one)."""
        site = self._site(site)
        if timestamps is None or keys is None:
            raise SketchError("ingest needs keys and timestamps (sequences of equal length)")
            raise SketchError(f"site must be in [0, {self.n}), got {site}")
        if len(timestamps):
            self.sketches[site].add_many(keys, timestamps, values)
            self._bytes[site] = None
            self._matrices.clear()

    def advance(self, now: int) -> None:
        """Ends an update batch: the clock moves to ``now`` (no earlier than any timestamp added)."""
        now = _integer(now, "now")
        if self.now is not None and now < self.now:
            raise SketchError(f"now must not go back: {now} < {self.now}")
        for s in self.sketches:
            if s.last_ts is not None and s.last_ts > now:
                raise SketchError(f"now {now} precedes a site's last timestamp {s.last_ts}")
        if now != self.now:
            self._matrices.clear()
        self.now = now

    def _site(self, site: Any) -> int:
        site = _integer(site, "site")
        if not 0 <= site < self.n:
            raise SketchError(f"site must be in [0, {self.n}), got {site}")
        return site

    def sketch_bytes(self, site: int) -> bytes:
        """The site's sketch as shipped (format v1 bytes; cached until the site's next batch)."""
        site = self._site(site)
        b = self._bytes[site]
        if b is None:
            b = self._bytes[site] = self.sketches[site].to_bytes()
        return b

    def local_matrix(self, site: int, range: int, now: Optional[int] = None) -> np.ndarray:
        """The site's Count-Min matrix for (now - range, now] (read-only; shared by the protocols
        that read the same site, range and time until the site's next batch)."""
        site = self._site(site)
        t = self.now if now is None else now
        if t is None:
            raise SketchError("local_matrix needs a time: call advance(now) first")
        key = (site, min(_integer(range, "range"), self.window), _integer(t, "now"))
        m = self._matrices.get(key)
        if m is None:
            m = matrix(self.sketches[site], key[1], key[2])
            m.setflags(write=False)
            self._matrices[key] = m
        return m


# --------------------------------------------------------------------------- traffic


@dataclass
class Traffic:
    """Messages and bytes sent, by kind."""
    messages: int = 0
    bytes: int = 0
    syncs: int = 0
    by_kind: Dict[str, List[int]] = field(default_factory=dict)

    def send(self, kind: str, nbytes: int, count: int = 1) -> None:
        """Records ``count`` messages of ``nbytes`` bytes each."""
        self.messages += count
        self.bytes += nbytes * count
        k = self.by_kind.setdefault(kind, [0, 0])
        k[0] += count
        k[1] += nbytes * count


@dataclass
class StepResult:
    """What one :meth:`Protocol.step` did: the sites that raised a violation, whether it synchronised,
    and the coordinator's view afterwards (its estimate and, for thresholds, the side)."""
    now: int
    violations: List[int]
    synced: bool
    estimate: float
    above: Optional[bool]


class Protocol:
    """Common part: a cluster, a monitored function of the range's Count-Min matrix, the traffic."""

    def __init__(self, cluster: Cluster, range: int, function: Any = None, weights: str = "traffic"):
        if weights not in ("traffic", "uniform"):
            raise SketchError(f"weights must be 'traffic' or 'uniform', got {weights!r}")
        self.weights = weights
        self.w: Optional[np.ndarray] = None
        if not isinstance(cluster, Cluster):
            raise SketchError(f"cluster must be a Cluster, got {type(cluster).__name__}")
        self.cluster = cluster
        self.range = _integer(range, "range")
        if not 0 < self.range <= cluster.window:
            raise SketchError(f"range must be in (0, window={cluster.window}], got {range}")
        f = function if function is not None else SelfJoin()
        if not isinstance(f, MonitoredFunction):
            raise SketchError(f"function must be a MonitoredFunction such as SelfJoin() or PointQuery(key), got {f!r}")
        self.function = f.bind(cluster.sketches[0])
        self.traffic = Traffic()
        self.estimate: float = float("nan")
        self.sync_time: Optional[int] = None
        self.merged: Optional[EcmSketch] = None

    def _time(self, now: Any) -> int:
        """The time of a step: the cluster's clock by default; never before it, nor before the last
        synchronisation."""
        c = self.cluster
        if c.now is None:
            raise SketchError("step needs a time: call cluster.advance(now) first")
        t = c.now if now is None else _integer(now, "now")
        if t < c.now:
            raise SketchError(f"now {t} precedes the cluster's clock {c.now}")
        if self.sync_time is not None and t < self.sync_time:
            raise SketchError(f"now {t} precedes the last synchronisation at {self.sync_time}")
        return t

    def _ready(self) -> bool:
        """Whether the first synchronisation happened."""
        return self.merged is not None

    def _side(self) -> Optional[bool]:
        """The coordinator's answer (above the threshold), None when it tracks a value."""
        return getattr(self, "above", None)

    def local_violation(self, site: int, now: int) -> bool:
        """The site's local test at ``now``: True when it must report a violation."""
        raise NotImplementedError

    def _sync(self, alerting: Sequence[int], now: int) -> None:
        raise NotImplementedError

    def step(self, now: Any = None) -> StepResult:
        """Every site runs its local test at ``now`` (default: the cluster's clock); a violation
        synchronises. The first step synchronises to initialise."""
        t = self._time(now)
        if not self._ready():
            self._sync([], t)
            return StepResult(t, [], True, self.estimate, self._side())
        viol = [i for i in range(self.cluster.n) if self.local_violation(i, t)]
        if viol:
            self._sync(viol, t)
        return StepResult(t, viol, bool(viol), self.estimate, self._side())

    def _collect(self, alerting: Sequence[int]) -> EcmSketch:
        """Ships every sketch to the coordinator (alerting sites send theirs with the alert; the
        others are asked for it) and merges the bytes received."""
        c = self.cluster
        got = []
        alert = set(alerting)
        for i in range(c.n):
            b = c.sketch_bytes(i)
            if i in alert:
                self.traffic.send("alert+sketch", CONTROL_BYTES + len(b))
            else:
                if alerting:
                    self.traffic.send("request", CONTROL_BYTES)
                self.traffic.send("sketch", len(b))
            got.append(b)
        self.traffic.syncs += 1
        merged = EcmSketch.merge(got)
        self.function = self.function.bind(merged)  # the merged sketch knows the key type
        return merged

    def _estimate_vector(self, merged: EcmSketch, now: int) -> np.ndarray:
        return self.function.project(matrix(merged, self.range, now))

    def _local_state(self, now: int) -> Tuple[List[np.ndarray], np.ndarray]:
        """Every site's matrix for the range at a synchronisation, and the sites' weights: uniform
        (1/n), or by traffic, w_i = (a_i + c) / sum_k (a_k + c) with a_i the site's total in the range
        and c = 1 + a tenth of the mean (so that a site with no traffic yet keeps some weight)."""
        c = self.cluster
        mats = [c.local_matrix(i, self.range, now) for i in range(c.n)]
        if self.weights == "uniform":
            return mats, np.full(c.n, 1.0 / c.n)
        a = np.array([m.sum() / m.shape[0] for m in mats])
        a = a + 1.0 + 0.1 * a.mean()
        return mats, a / a.sum()

    def tracked(self, now: Optional[int] = None) -> float:
        """F of the tracked global vector E + sum_i D_i (the weighted average of the drift vectors,
        sum scale, with the stored-local-matrix delta), which the protocol keeps on the side of its
        answer. A diagnostic: it reads every site's state, as no site can (tests use it)."""
        c = self.cluster
        t = c.now if now is None else int(now)
        v = self._estimate_vector(self.merged, self.sync_time) if self.merged is not None else None
        if v is None:
            raise SketchError("no synchronisation yet")
        for i in range(c.n):
            v = v + self.function.project(c.local_matrix(i, self.range, t)) - self._stored_vec(i)
        return self.function.value(v)

    def _stored_vec(self, site: int) -> np.ndarray:
        return self.function.project(self._stored[site])  # type: ignore[attr-defined]


class ThresholdMonitor(Protocol):
    """Is F(global sketch over the range) >= threshold? The geometric method (ECM-sketch §6.2): see the
    module docstring. ``step()`` after every update batch; ``above`` is the coordinator's answer."""

    def __init__(self, cluster: Cluster, threshold: float, range: int, function: Any = None, *,
                 delta: str = "stored", weights: str = "traffic"):
        super().__init__(cluster, range, function, weights)
        if delta not in ("stored", "arrivals"):
            raise SketchError(f"delta must be 'stored' or 'arrivals', got {delta!r}")
        self.threshold = _real(threshold, "threshold")
        self.delta_mode = delta
        self.above: Optional[bool] = None
        self._e: Optional[np.ndarray] = None
        self._stored: List[np.ndarray] = []

    def _sync(self, alerting: Sequence[int], now: int) -> None:
        c = self.cluster
        self.merged = self._collect(alerting)
        e = self._estimate_vector(self.merged, now)
        self._e = e
        self.estimate = self.function.value(e)
        self.above = self.estimate >= self.threshold
        self.sync_time = now
        mats, self.w = self._local_state(now)
        self._stored = [self.function.project(m) for m in mats]
        self.traffic.send("estimate", 8 * (e.size + 1) + CONTROL_BYTES, count=c.n)  # E and the site's weight

    def _stored_vec(self, site: int) -> np.ndarray:
        return self._stored[site]

    def _delta(self, site: int, now: int) -> np.ndarray:
        c = self.cluster
        if self.delta_mode == "stored":
            return self.function.project(c.local_matrix(site, self.range, now)) - self._stored[site]
        span = now - int(self.sync_time)  # type: ignore[arg-type]
        if span <= 0:
            return np.zeros_like(self._e)
        return self.function.project(c.local_matrix(site, min(span, c.window), now))

    def local_violation(self, site: int, now: int) -> bool:
        """The ball test at one site: True when F's min and max over the site's ball lie on
        different sides of the threshold."""
        if not self._ready():
            raise SketchError("no synchronisation yet: call step() first")
        k = 1.0 / float(self.w[site])  # the drift vector is E + D_i / w_i (n D_i for uniform weights)
        d = self._delta(site, now)
        radius = k * float(np.linalg.norm(d)) / 2.0
        if radius == 0.0:
            return False
        lo, hi = self.function.extrema(self._e + (k / 2.0) * d, radius)
        return not (lo >= self.threshold or hi < self.threshold)


class RelativeMonitor(Protocol):
    """Tracks the self-join F of the global sketch within a factor theta (journal Lemma 2): the
    coordinator's estimate F0 (from the last synchronisation) stays in [(1-theta) F, (1+theta) F] for
    the tracked global matrix. With rho_i the row norms of the estimate E and d_j[i] the norm of row
    i of site j's delta, Lemma 2 needs, for the average d over sites,
    min_i (rho_i + n d[i]) <= sqrt(F0/(1-theta)) and min_i (rho_i - n d[i]) >= sqrt(F0/(1+theta)).
    Here n d is written as the weighted average of the d_j / w_j (the site weights w_j as in
    :class:`ThresholdMonitor`). Each site tests a local condition on its own d_j / w_j that implies
    them (the paper leaves this open; ECM-sketch §6.2): the first is implied by the linear one
    rho_{i*} + d[i*] / w_j <= U for the fixed row i* = argmin rho, which holds for the average when
    it holds at every site; the second is concave in d, so it holds for the average when it holds at
    every site."""

    def __init__(self, cluster: Cluster, theta: float, range: int, *, weights: str = "traffic"):
        super().__init__(cluster, range, SelfJoin(), weights)
        if isinstance(theta, bool) or not isinstance(theta, numbers.Real) or not 0 < float(theta) < 1:
            raise SketchError(f"theta must be in (0, 1), got {theta!r}")
        self.theta = float(theta)
        self._rho: Optional[np.ndarray] = None
        self._istar = 0
        self._upper = self._lower = 0.0
        self._stored: List[np.ndarray] = []

    def _sync(self, alerting: Sequence[int], now: int) -> None:
        c = self.cluster
        self.merged = self._collect(alerting)
        e = self._estimate_vector(self.merged, now)
        self._rho = np.sqrt((e * e).sum(axis=1))
        self.estimate = self.function.value(e)
        self._istar = int(np.argmin(self._rho))
        self._upper = math.sqrt(self.estimate / (1 - self.theta))
        self._lower = math.sqrt(self.estimate / (1 + self.theta))
        self.sync_time = now
        self._stored, self.w = self._local_state(now)
        self.traffic.send("row norms", 8 * (self._rho.size + 1) + CONTROL_BYTES, count=c.n)

    def local_violation(self, site: int, now: int) -> bool:
        """True when the site's own delta breaks one of the two local conditions above."""
        if not self._ready():
            raise SketchError("no synchronisation yet: call step() first")
        k = 1.0 / float(self.w[site])
        d = self.cluster.local_matrix(site, self.range, now) - self._stored[site]
        dn = np.sqrt((d * d).sum(axis=1))
        i = self._istar
        up_ok = self._rho[i] + k * dn[i] <= self._upper
        low_ok = float(np.min(self._rho - k * dn)) >= self._lower
        return not (up_ok and low_ok)


class PeriodicShipping(Protocol):
    """Baseline: every site ships its sketch every ``period`` batches (1: every batch); the
    coordinator merges and evaluates F, and knows nothing in between."""

    def __init__(self, cluster: Cluster, threshold: float, range: int, function: Any = None, *, period: int = 1):
        super().__init__(cluster, range, function)
        if isinstance(period, bool) or not isinstance(period, numbers.Integral) or period < 1:
            raise SketchError(f"period must be a positive integer, got {period!r}")
        self.threshold = _real(threshold, "threshold")
        self.period = int(period)
        self.above: Optional[bool] = None
        self._steps = 0

    def _stored_vec(self, site: int) -> np.ndarray:
        raise SketchError("the periodic baseline tracks nothing between its shipments")

    def step(self, now: Any = None) -> StepResult:
        """Ships every sketch when the period comes round, else nothing; the answer is the last
        shipment's."""
        t = self._time(now)
        ship = self._steps % self.period == 0
        self._steps += 1
        if ship:
            self.merged = self._collect([])
            self.estimate = self.function.value(self._estimate_vector(self.merged, t))
            self.above = self.estimate >= self.threshold
            self.sync_time = t
        return StepResult(t, [], ship, self.estimate, self.above)


# --------------------------------------------------------------------------- scoring


@dataclass
class CrossingScore:
    """How a protocol's answers followed a reference's threshold crossings: each reference crossing
    (a change of side) is detected on time, late (``delays`` holds the batches late) or missed (the
    reference went back before the protocol reported it)."""
    crossings: int
    on_time: int
    late: int
    missed: int
    delays: List[int]
    wrong_batches: int

    @property
    def max_delay(self) -> int:
        """The largest delay, in batches, of a late detection (0 when none was late)."""
        return max(self.delays, default=0)


def score_crossings(reference: Sequence[bool], answers: Sequence[Optional[bool]]) -> CrossingScore:
    """Scores per-batch answers (above the threshold or not) against per-batch reference sides."""
    if len(reference) != len(answers):
        raise SketchError(f"reference and answers differ in length: {len(reference)} vs {len(answers)}")
    ref = [bool(x) for x in reference]
    changes = [b for b in range(1, len(ref)) if ref[b] != ref[b - 1]]
    on_time = late = missed = 0
    delays: List[int] = []
    for i, b in enumerate(changes):
        end = changes[i + 1] if i + 1 < len(changes) else len(ref)
        hit = next((c for c in range(b, end) if answers[c] == ref[b]), None)
        if hit is None:
            missed += 1
        elif hit == b:
            on_time += 1
        else:
            late += 1
            delays.append(hit - b)
    wrong = sum(1 for r, a in zip(ref, answers) if a is None or bool(a) != r)
    return CrossingScore(len(changes), on_time, late, missed, delays, wrong)
