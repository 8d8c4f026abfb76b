"""The windowed quantile sketch (:class:`QuantileSketch`, docs/design/windowed-quantiles.md): ranks,
quantiles and counts of any range within the window, within a certified rank error at every merge
depth."""
from __future__ import annotations

import decimal
import numbers
from typing import Any, Dict, Iterable, List, Optional, Union

import numpy as np

from .. import SketchError
from .. import _jvm
from .._convert import as_float, as_int, call, jlong, levels, longs, micros_and_type
from .._units import RangeLike, TimeLike, range_ticks, time_ticks, window_ticks
from ._base import DEFAULT_SEED, _is_number, _merge_all, _numbers, _Sketch

__all__ = ["QuantileSketch"]


def _is_value(x: Any) -> bool:
    """A number the sketch takes, read as a float as SQL reads DECIMAL and integer values as DOUBLE:
    an int, float, numpy number, ``decimal.Decimal`` or other real number (not a bool)."""
    return (_is_number(x) or isinstance(x, (decimal.Decimal, numbers.Real))) and not isinstance(x, (bool, np.bool_))


def _float_values(values: Any) -> np.ndarray:
    """A one-dimensional batch of numbers as float64; strings, booleans and other objects are refused."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise SketchError(f"values must be a sequence of numbers, got {values!r}")
    if not isinstance(values, np.ndarray):
        items = list(values)
        for x in items:
            if not _is_value(x):
                raise SketchError(f"values must be numbers, got {x!r}")
        return np.asarray([float(x) for x in items], dtype=np.float64).reshape(len(items))
    if values.ndim != 1:
        raise SketchError(f"values must be a one-dimensional sequence, got an array of shape {values.shape}")
    if values.dtype.kind in "iuf":
        return np.ascontiguousarray(values, dtype=np.float64)
    if values.dtype.kind == "O":
        return _float_values(list(values))
    raise SketchError(f"values must be numbers, got dtype {values.dtype}")


class QuantileSketch(_Sketch):
    """A windowed quantile sketch (as SQL's quantile aggregate builds it): float values with
    timestamps in non-decreasing order; the rank, the count and any quantile of the values in any
    range ``(now - range, now]`` within the window. Every rank and quantile of a range of weight
    ``n`` is within ``epsilon * n`` of the exact one with probability at least ``1 - delta``, after
    any number of merges. A merge folds sketches that overlap in time into one while the planned
    ``merge_levels`` allow, spending error set aside for it, and keeps them side by side beyond
    that. A quantile ``v`` for ``q`` satisfies
    ``rank_<(v) - epsilon n <= q n <= rank_<=(v) + epsilon n``.

    Examples
    --------
    >>> from ecmsketch import QuantileSketch
    >>> s = QuantileSketch(epsilon=0.05, window=100)
    >>> s.add_many([4.0, 1.0, 3.0, 2.0, 5.0], [1, 2, 3, 4, 5])
    >>> s.count(), s.rank(3.0), s.quantile(0.5)
    (5.0, 3.0, 3.0)
    >>> s.quantile([0.0, 1.0]), s.quantile(0.5, range=2)  # the last 2 ticks: values 2.0 and 5.0
    ([1.0, 5.0], 2.0)
    >>> QuantileSketch.from_bytes(s.to_bytes()).quantile(1.0)
    5.0
    """

    _kind = "quantile"

    def __init__(self, epsilon: float = 0.01, window: Optional[RangeLike] = None, *, delta: float = 0.01,
                 window_type: str = "time", timestamps: str = "ticks", merge_levels: int = 0,
                 seed: int = DEFAULT_SEED):
        """A new empty sketch, as SQL's quantile aggregate builds it (``window``, ``window_type``,
        ``timestamps`` and ``seed`` as for :class:`EcmSketch`).

        :param epsilon: the rank error, relative to the weight of the queried range, in [0.001, 1).
        :param delta: the probability that one query misses ``epsilon``, in [1e-12, 0.5].
        :param merge_levels: merge levels planned beyond Spark's own one. Each of the first
            ``1 + merge_levels`` levels of merges (up to 4) folds overlapping sketches into one;
            merges beyond keep them side by side. The bound is ``epsilon`` at every merge depth.
        """
        micros = micros_and_type(timestamps, window_type)
        w = window_ticks(window, micros)
        self._attach(call(_jvm.api().quantileCreate, window_type == "count", micros, w, as_float(epsilon, "epsilon"),
                          as_float(delta, "delta"), levels(merge_levels), as_int(seed, "seed")))

    def _describe(self, jobj: Any) -> Dict[str, Any]:
        d = super()._describe(jobj)
        d["delta"] = float(jobj.delta())
        if int(jobj.seed()) != DEFAULT_SEED:
            d["seed"] = int(jobj.seed())
        return d

    def _rn(self, range: Optional[RangeLike], now: Optional[TimeLike]):
        return jlong(range_ticks(range, self._micros)), jlong(time_ticks(now, self._micros))

    def add(self, value: float, ts: TimeLike, weight: int = 1) -> None:
        """Adds ``value`` (a number, not NaN: an int, float, numpy number or ``decimal.Decimal``, read
        as a float) with weight ``weight`` (a non-negative int) at ``ts`` (non-decreasing across calls)."""
        if ts is None:
            raise SketchError("ts must not be None")
        if not _is_value(value):
            raise SketchError(f"value must be a number, got {value!r}")
        self.add_many([value], [ts], [as_int(weight, "weight")])

    def add_many(self, values: Any, timestamps: Any, weights: Any = None) -> None:
        """Adds a batch (numpy arrays or sequences) of values with their timestamps (and weights,
        default 1) in any order: it is sorted by timestamp and must not precede the sketch's last
        timestamp. A batch with a NaN value is refused whole."""
        import jpype
        xs = _float_values(values)
        if len(xs) != len(timestamps):
            raise SketchError(f"values and timestamps differ in length: {len(xs)} vs {len(timestamps)}")
        if np.isnan(xs).any():
            raise SketchError("NaN value: a quantile sketch takes numbers (skip NULLs and NaNs before adding)")
        order, ts, ws = self._sorted_batch(timestamps, weights, sorted_as_none=True)
        if order is not None:
            xs = xs[order]
        call(_jvm.api().quantileAdd, self._j, jpype.JArray(jpype.JDouble)(np.ascontiguousarray(xs)), longs(ts),
             None if ws is None else longs(ws))

    def count(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated weight of the rows in ``(now - range, now]`` (default: the window ending at the
        last timestamp): exact unless the range starts inside a bucket of older rows, and within
        :meth:`rank_error_bound` with probability at least ``1 - delta``."""
        return float(call(self._j.count, *self._rn(range, now)))

    def rank(self, x: float, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated weight of the rows in the range whose value is at most ``x`` (within
        :meth:`rank_error_bound` with probability at least ``1 - delta``)."""
        if not _is_value(x):
            raise SketchError(f"x must be a number, got {x!r}")
        return float(call(self._j.rank, float(x), *self._rn(range, now)))

    def quantile(self, q: Union[float, Iterable[float]], range: Optional[RangeLike] = None,
                 now: Optional[TimeLike] = None) -> Any:
        """The q-quantile (``q`` in [0, 1]) of the values in the range: the smallest value held whose
        estimated rank reaches ``q`` times the range's weight; None for a range without weight. A list
        of q gives a list, from one read of the samples."""
        import jpype
        single = _is_number(q)
        qs: List[float] = [float(q)] if single else [float(x) for x in _numbers(q, "q")]
        out = call(self._j.quantiles, jpype.JArray(jpype.JDouble)(qs), *self._rn(range, now))
        res = [None if v is None else float(v) for v in out]
        return res[0] if single else res

    def rank_error_bound(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """The certified absolute rank error of queries of the range, from the sketch's variance
        ledgers: every rank and quantile of the range is within it with probability at least
        ``1 - delta``. It is at most ``epsilon`` times the range's weight."""
        return float(call(self._j.rankErrorBound, *self._rn(range, now)))

    @property
    def delta(self) -> float:
        """The probability that one query misses the rank error ``epsilon``."""
        return float(self._params["delta"])

    @classmethod
    def merge(cls, sketches: Iterable[Union["QuantileSketch", bytes, bytearray]]) -> "QuantileSketch":
        """Merges quantile sketches of several sites (or their bytes), time-based windows only; the
        result keeps every input's runs, so its bound is still ``epsilon``. Order-free: any order of
        the same inputs gives the same bytes. Sketches of other parameters are refused."""
        return cls._wrap(_merge_all(cls, sketches))
