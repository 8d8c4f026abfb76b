"""The sliding-window distinct count (:class:`DistinctSketch`)."""
from __future__ import annotations

from typing import Any, Dict, Iterable, Optional, Union

from .. import SketchError
from .. import _jvm
from .._convert import as_float, as_int, call, jlong, jvm_keys, longs, micros_and_type
from .._units import RangeLike, TimeLike, range_ticks, time_ticks, window_ticks
from ._base import DEFAULT_SEED, Key, _merge_all, _Sketch

__all__ = ["DistinctSketch"]


class DistinctSketch(_Sketch):
    """Sliding-window distinct count (randomized waves over the values): the number of distinct values
    whose latest occurrence lies in ``(now - range, now]``, within ``epsilon`` relative error with
    probability ``1 - delta``. Merges across sites are lossless.

    Examples
    --------
    >>> from ecmsketch import DistinctSketch
    >>> d = DistinctSketch(window=100)
    >>> d.add_many(["u1", "u2", "u1", "u3"], [1, 2, 3, 4])
    >>> d.count(), d.count(range=2)
    (3.0, 2.0)
    """

    _kind = "distinct"

    def __init__(self, epsilon: float = 0.1, delta: float = 0.05, window: Optional[RangeLike] = None, *,
                 window_type: str = "time", timestamps: str = "ticks", seed: int = DEFAULT_SEED):
        """A new empty sketch, as SQL ``distinct_agg`` builds it (the same defaults; ``window``,
        ``window_type`` and ``timestamps`` as for :class:`EcmSketch`)."""
        micros = micros_and_type(timestamps, window_type)
        self._attach(call(_jvm.api().distinctCreate, window_type == "count", micros, window_ticks(window, micros),
                          as_float(epsilon, "epsilon"), as_float(delta, "delta"), as_int(seed, "seed")))

    def _describe(self, jobj: Any) -> Dict[str, Any]:
        d = super()._describe(jobj)
        d["delta"] = float(jobj.delta())
        return d

    def add(self, value: Key, ts: TimeLike) -> None:
        """Records an occurrence of ``value`` (str, bytes or int) at ``ts`` (non-decreasing)."""
        t = time_ticks(ts, self._micros, "ts")
        if t is None:
            raise SketchError("ts must not be None")
        call(self._j.add, jvm_keys(value, "value", single=True).jvm(), t)

    def add_many(self, values: Any, timestamps: Any) -> None:
        """Adds a batch in any order (sorted here; must not precede the last timestamp)."""
        vals = jvm_keys(values, "values")
        if len(vals) != len(timestamps):
            raise SketchError(f"values and timestamps differ in length: {len(vals)} vs {len(timestamps)}")
        order, ts, _ = self._sorted_batch(timestamps, None)
        call(getattr(_jvm.api(), "add" + vals.kind), self._j, vals.jvm(order), longs(ts), None)

    def count(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated number of distinct values seen in ``(now - range, now]``."""
        return float(call(self._j.count, jlong(range_ticks(range, self._micros)),
                          jlong(time_ticks(now, self._micros))))

    @classmethod
    def merge(cls, sketches: Iterable[Union["DistinctSketch", bytes, bytearray]]) -> "DistinctSketch":
        """Lossless merge of sketches (or their bytes) with equal epsilon, delta and seed."""
        return cls._wrap(_merge_all(cls, sketches))
