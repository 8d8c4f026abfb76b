"""Sliding-window counters: the exponential histogram (:class:`ExpHistogram`) and the deterministic
wave (:class:`DetWave`)."""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Type, TypeVar

from .. import SketchError
from .. import _jvm
from .._convert import LONGS, arrivals, as_float, call, jlong, levels, longs, micros_and_type
from .._units import I64_MAX as _I64_MAX, RangeLike, TimeLike, range_ticks, time_ticks, window_ticks
from ._base import _ONE, _Buffered, _merge_all

__all__ = ["ExpHistogram", "DetWave"]

_C = TypeVar("_C", bound="_Counter")


class _Counter(_Buffered):
    """A sliding-window counter sketch (exponential histogram or deterministic wave). Single ``add``
    calls are buffered in Python and sent to the JVM in batches, flushed before any read."""

    def add(self, ts: TimeLike, value: int = 1) -> None:
        """Adds weight ``value`` at ``ts`` (non-decreasing across calls)."""
        if value is _ONE and type(ts) is int and self._fast and self._bmin <= ts <= _I64_MAX:
            bt = self._bt
            bt.append(ts)
            self._bmin = ts + self._cw
            if len(bt) >= self._cap:
                self._flush()
            return
        if ts is None:
            raise SketchError("ts must not be None")
        self._add_checked(None, LONGS, ts, value)

    def _direct(self, key: Any, t: int, v: int) -> None:
        call(self._jo.add, t, v)

    def _send(self, keys: List[Any], ts: Any, vs: Any) -> None:
        call(_jvm.api().addMany, self._jo, ts, vs)

    def add_many(self, timestamps: Any, values: Any = None) -> None:
        """Adds a batch in any order (sorted here; must not precede the last timestamp)."""
        _, ts, vs = self._sorted_batch(timestamps, values, True)
        call(_jvm.api().addMany, self._jo, longs(ts), None if vs is None else longs(vs))
        self._sync()

    def count(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated weight in ``(now - range, now]``, within ``error_bound`` relative error."""
        return float(call(self._j.count, jlong(range_ticks(range, self._micros)),
                          jlong(time_ticks(now, self._micros))))

    @classmethod
    def merge(cls: Type[_C], sketches: Iterable[Any]) -> _C:
        """Order-preserving n-way merge of sketches of this kind or their bytes (time-based windows only):
        one merge level for sketches whose rows overlap in time; exponential histograms of consecutive
        periods are laid side by side at the depth of the deepest one (docs/design/merging.md, "Time-disjoint
        merges"), deterministic waves always add a level."""
        return cls._wrap(_merge_all(cls, sketches))


class ExpHistogram(_Counter):
    """An exponential histogram: counts arrivals (or sums weights) over a sliding window with a
    deterministic relative error bound.

    Examples
    --------
    >>> from ecmsketch import ExpHistogram
    >>> h = ExpHistogram(epsilon=0.1, window=10)
    >>> h.add_many([1, 2, 4, 7])
    >>> h.count(), h.count(range=4)
    (4.0, 2.0)
    """

    _kind = "eh"

    def __init__(self, epsilon: float = 0.05, window: Optional[RangeLike] = None, *, window_type: str = "time",
                 timestamps: str = "ticks", merge_levels: int = 0):
        """A new empty histogram, as SQL ``eh_agg`` builds it (``window``, ``window_type``,
        ``timestamps`` and ``merge_levels`` as for :class:`EcmSketch`)."""
        micros = micros_and_type(timestamps, window_type)
        self._attach(call(_jvm.api().ehCreate, window_type == "count", micros, window_ticks(window, micros),
                          as_float(epsilon, "epsilon"), levels(merge_levels)))


class DetWave(_Counter):
    """A deterministic wave: counts arrivals (or, with values, sums them: the sum wave) over a
    sliding window with a deterministic relative error bound and O(1) worst-case time per update.

    Examples
    --------
    >>> from ecmsketch import DetWave
    >>> w = DetWave(epsilon=0.1, window=10)
    >>> w.add_many([1, 2, 4, 7], [1, 1, 2, 3])  # the sum wave: timestamps and weights
    >>> w.count(), w.count(range=4)
    (7.0, 5.0)
    """

    _kind = "dwave"

    def __init__(self, epsilon: float = 0.05, window: Optional[RangeLike] = None, *, window_type: str = "time",
                 timestamps: str = "ticks", merge_levels: int = 0, max_arrivals: Optional[int] = None):
        """A new empty wave, as SQL ``dwave_agg`` builds it. ``max_arrivals`` bounds the weight inside
        any window (default: no bound); a query reaching back into a stretch where the bound was
        exceeded raises :class:`~ecmsketch.SketchError`."""
        micros = micros_and_type(timestamps, window_type)
        self._attach(call(_jvm.api().dwCreate, window_type == "count", micros, window_ticks(window, micros),
                          as_float(epsilon, "epsilon"), levels(merge_levels), arrivals(max_arrivals)))

    def _describe(self, jobj: Any) -> Dict[str, Any]:
        d = super()._describe(jobj)
        u = int(jobj.maxArrivals())
        d["max_arrivals"] = None if u == _I64_MAX else u
        return d

    @property
    def max_arrivals(self) -> Optional[int]:
        """The bound on the weight in any window, or None when unbounded."""
        return self._params["max_arrivals"]
