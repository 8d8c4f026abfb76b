"""The protocols that read a :class:`~ecmsketch.monitor.Cluster` after every update batch:
:class:`ThresholdMonitor`, :class:`RelativeMonitor` and the :class:`PeriodicShipping` baselines, with
the :class:`Traffic` they count."""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import SketchError
from ..sketches import EcmSketch
from ._checks import CONTROL_BYTES, _integer, _real
from .cluster import Cluster, matrix
from .monitored import MonitoredFunction, SelfJoin

__all__ = ["Traffic", "StepResult", "Protocol", "ThresholdMonitor", "RelativeMonitor", "PeriodicShipping"]


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
    """Is F(global sketch over the range) >= threshold? The geometric method: see the
    :mod:`ecmsketch.monitor` docstring. ``step()`` after every update batch; ``above`` is the
    coordinator's answer."""

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
    them (the lemma leaves them open): the first is implied by the linear one
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
