"""The asynchronous-stream sketches (docs/design/async.md): :class:`AsyncSum`
and :class:`AsyncQuantile`."""
from __future__ import annotations

from typing import Any, Dict, Iterable, Optional, Type, TypeVar, Union

import numpy as np

from .. import SketchError
from .. import _jvm
from .._convert import (as_flag, as_float, as_int, as_jint, call, int_array, jlong, jvm_keys, longs, micros_and_type,
                        ticks_array)
from .._units import RangeLike, TimeLike, range_ticks, time_ticks, window_ticks
from ._base import DEFAULT_SEED, Key, _is_number, _merge_all, _numbers, _Sketch

__all__ = ["AsyncSum", "AsyncQuantile"]

_A = TypeVar("_A", bound="_Async")


class _Async(_Sketch):
    """Shared code of the async sketches (docs/design/async.md): rows in any
    timestamp order, lossless merges, answers within (epsilon, delta)."""

    _measures: tuple = ()
    _kind = "async"

    def _attach(self, jobj: Any) -> None:
        m = str(jobj.measureName())
        if m not in self._measures:
            raise SketchError(f"expected an async {' or '.join(self._measures)} sketch, got an async {m} sketch")
        super()._attach(jobj)

    def _build(self, measure: str, epsilon: float, delta: float, window: Optional[RangeLike], timestamps: str,
               seed: int, ids: bool, tradeoff: Optional[int]) -> None:
        micros = micros_and_type(timestamps, "time")
        w = window_ticks(window, micros)
        t = -1 if tradeoff is None else as_jint(tradeoff, "tradeoff")
        self._attach(call(_jvm.api().asyncCreate, measure, micros, w, as_float(epsilon, "epsilon"),
                          as_float(delta, "delta"), as_int(seed, "seed"), as_flag(ids, "ids"), t))

    def _describe(self, jobj: Any) -> Dict[str, Any]:
        d = super()._describe(jobj)
        d["delta"] = float(jobj.delta())
        if bool(jobj.withIds()):
            d["ids"] = True
        return d

    @classmethod
    def merge(cls: Type[_A], sketches: Iterable[Any]) -> _A:
        """Lossless union of sketches (or their bytes): the bytes of one sketch over all their elements."""
        return cls._wrap(_merge_all(cls, sketches))

    @property
    def with_ids(self) -> bool:
        """Whether elements are identified by (id, value, ts) (built with ``ids=True``) rather than (value, ts)."""
        return bool(self._j.withIds())

    def _rn(self, range: Optional[RangeLike], now: Optional[TimeLike]):
        return jlong(range_ticks(range, self._micros)), jlong(time_ticks(now, self._micros))

    def _ticks(self, timestamps: Any) -> np.ndarray:
        return ticks_array(timestamps, self._micros)

    def _ids(self, ids: Any, n: int) -> Any:
        if (ids is None) == self.with_ids:
            raise SketchError("this async sketch identifies elements by (id, value, ts): give ids" if self.with_ids
                              else "this async sketch takes no ids (create it with ids=True)")
        if ids is None:
            return None
        ks = jvm_keys(ids, "ids")
        if len(ks) != n:
            raise SketchError(f"ids and timestamps differ in length: {len(ks)} vs {n}")
        return call(getattr(_jvm.api(), "idPrints" + ks.kind), ks.jvm())


class AsyncSum(_Async):
    """The Xu-Tirthapura-Busch sum (or count) sketch: positive integer weights added in any timestamp
    order; ``sum`` over any range within the window is within ``epsilon`` relative error with
    probability >= 1 - ``delta``. Elements are identified by (value, ts), or (id, value, ts) with
    ``ids=True``; an identity added twice (here or at another site) counts once.

    Examples
    --------
    >>> from ecmsketch import AsyncSum
    >>> a = AsyncSum(window=100)
    >>> a.add_many([3, 2, 4], [5, 1, 3])  # weights and timestamps, in any order
    >>> a.sum(), a.sum(range=3, now=5)
    (9.0, 7.0)
    """

    _measures = ("sum", "count")

    def __init__(self, epsilon: float = 0.1, delta: float = 0.05, window: Optional[RangeLike] = None, *,
                 timestamps: str = "ticks", seed: int = DEFAULT_SEED, ids: bool = False,
                 tradeoff: Optional[int] = None, count: bool = False):
        """A new empty sketch, as ``async_sum_agg`` (``count=True``: as ``async_count_agg``) builds it
        (``window`` and ``timestamps`` as for :class:`EcmSketch`; time-based windows only)."""
        measure = "count" if as_flag(count, "count") else "sum"
        self._build(measure, epsilon, delta, window, timestamps, seed, ids, tradeoff)

    def _describe(self, jobj: Any) -> Dict[str, Any]:
        d = super()._describe(jobj)
        if str(jobj.measureName()) == "count":
            d["count"] = True
        return d

    def add(self, value: int, ts: TimeLike, id: Optional[Key] = None) -> None:
        """Adds weight ``value`` (a positive int; 1 for a count sketch) at ``ts``, in any order."""
        if ts is None:
            raise SketchError("ts must not be None")
        self.add_many([as_int(value, "value")], [ts], None if id is None else [id])

    def add_many(self, values: Any, timestamps: Any, ids: Any = None) -> None:
        """Adds a batch (numpy arrays or sequences) in any timestamp order."""
        ts = self._ticks(timestamps)
        vs = int_array(values, "values")
        if len(vs) != len(ts):
            raise SketchError(f"values and timestamps differ in length: {len(vs)} vs {len(ts)}")
        call(_jvm.api().asyncAddWeights, self._j, longs(vs), longs(ts), self._ids(ids, len(ts)))

    def sum(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated sum (count) of the distinct elements in ``(now - range, now]``."""
        return float(call(_jvm.api().asyncSum, self._j, *self._rn(range, now)))


class AsyncQuantile(_Async):
    """The Xu-Tirthapura-Busch median sketch for any quantile: float values added in any timestamp
    order; ``quantile(q)`` over any range has rank within ``epsilon`` times the range's count of
    ``q`` times it, with probability >= 1 - ``delta``.

    Examples
    --------
    >>> from ecmsketch import AsyncQuantile
    >>> q = AsyncQuantile(window=100)
    >>> q.add_many([4.0, 1.0, 3.0, 2.0, 5.0], [5, 1, 3, 2, 4])
    >>> q.quantile(0.5), q.quantile([0.0, 1.0])
    (3.0, [1.0, 5.0])
    """

    _measures = ("quantile",)

    def __init__(self, epsilon: float = 0.1, delta: float = 0.05, window: Optional[RangeLike] = None, *,
                 timestamps: str = "ticks", seed: int = DEFAULT_SEED, ids: bool = False):
        """A new empty sketch, as ``async_quantile_agg`` builds it (epsilon < 0.5)."""
        self._build("quantile", epsilon, delta, window, timestamps, seed, ids, 0)

    def add(self, value: float, ts: TimeLike, id: Optional[Key] = None) -> None:
        """Adds ``value`` at ``ts``, in any order."""
        if ts is None:
            raise SketchError("ts must not be None")
        self.add_many([value], [ts], None if id is None else [id])

    def add_many(self, values: Any, timestamps: Any, ids: Any = None) -> None:
        """Adds a batch (numpy arrays or sequences) in any timestamp order."""
        import jpype
        ts = self._ticks(timestamps)
        try:
            xs = np.ascontiguousarray(np.asarray(values, dtype=np.float64))
        except (TypeError, ValueError):
            raise SketchError("values must be numbers") from None
        if xs.ndim != 1 or len(xs) != len(ts):
            raise SketchError(f"values and timestamps differ in length: {xs.size} vs {len(ts)}")
        call(_jvm.api().asyncAddValues, self._j, jpype.JArray(jpype.JDouble)(xs), longs(ts), self._ids(ids, len(ts)))

    def quantile(self, q: Union[float, Iterable[float]], range: Optional[RangeLike] = None,
                 now: Optional[TimeLike] = None) -> Any:
        """The q-quantile (None for an empty range); a list of q gives a list, from one sample read."""
        import jpype
        single = _is_number(q)
        qs = [float(q)] if single else [float(x) for x in _numbers(q, "q")]
        out = call(_jvm.api().asyncQuantiles, self._j, jpype.JArray(jpype.JDouble)(qs), *self._rn(range, now))
        res = [None if v is None else float(v) for v in out]
        return res[0] if single else res
