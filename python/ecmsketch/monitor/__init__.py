"""Distributed threshold monitoring over ECM-sketches with the geometric method (ECM-sketch §6.2,
journal Lemma 2). No Spark: it runs on the bytes-level :class:`~ecmsketch.EcmSketch`.

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

from ._checks import CONTROL_BYTES  # noqa: F401
from .cluster import Cluster, matrix
from .monitored import MonitoredFunction, PointQuery, SelfJoin
from .geometry import point_extrema, self_join_extrema, water_level
from .protocols import PeriodicShipping, Protocol, RelativeMonitor, StepResult, ThresholdMonitor, Traffic
from .scoring import CrossingScore, score_crossings

__all__ = ["Cluster", "MonitoredFunction", "SelfJoin", "PointQuery", "ThresholdMonitor", "RelativeMonitor", "PeriodicShipping",
           "Traffic", "StepResult", "CrossingScore", "self_join_extrema", "point_extrema", "water_level", "matrix",
           "score_crossings"]
