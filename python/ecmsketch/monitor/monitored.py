"""The monitored functions of a range's Count-Min matrix: :class:`SelfJoin` and :class:`PointQuery`."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from .. import SketchError
from .. import _jvm
from .._convert import call
from ..sketches import EcmSketch
from .geometry import point_extrema, self_join_extrema

__all__ = ["MonitoredFunction", "SelfJoin", "PointQuery"]


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
