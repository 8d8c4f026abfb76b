"""The windowed frequent-items sketch (:class:`FrequentSketch`, docs/design/windowed-top-k.md):
frequencies, top-k and heavy hitters of any range within the window, with deterministic certified
intervals."""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Union

import numpy as np

from .. import SketchError
from .. import _jvm
from .._convert import BYTES, LONGS, STRINGS, as_flag, as_float, as_int, as_jint, call, jbytes, jlong, jvm_keys, levels, longs, \
    micros_and_type
from .._units import RangeLike, TimeLike, range_ticks, time_ticks, window_ticks
from ._base import _merge_all, _Sketch

__all__ = ["FrequentSketch"]

#: Python's name of a DOUBLE key batch (the other kinds are those of ``_convert.jvm_keys``).
DOUBLES = "Doubles"
_PY_TYPE = {LONGS: "int", DOUBLES: "float", STRINGS: "str", BYTES: "bytes"}
#: The sketch's key type (``keyTypeName``) that each batch kind adds.
_KEY_TYPE = {LONGS: ("bigint", "int"), DOUBLES: ("double",), STRINGS: ("string",), BYTES: ("binary",)}


def _is_float(x: Any) -> bool:
    return isinstance(x, (float, np.floating))


def _key_batch(keys: Any):
    """(kind, keys ready for the JVM) of a batch: float keys as a float64 array, the others through
    ``jvm_keys``."""
    if isinstance(keys, np.ndarray):
        if keys.dtype.kind == "f":
            if keys.ndim != 1:
                raise SketchError(f"keys must be a one-dimensional batch, got an array of shape {keys.shape}")
            return DOUBLES, np.ascontiguousarray(keys, dtype=np.float64)
        items = list(keys) if keys.dtype.kind == "O" else None
    else:
        items = list(keys)
        keys = items
    if items:
        floats = [_is_float(x) for x in items]
        if all(floats):
            return DOUBLES, np.asarray(items, dtype=np.float64)
        if any(floats):
            names = sorted({"float" if _is_float(x) else type(x).__name__ for x in items})
            raise SketchError("keys must be all integers, all floats, all strings or all bytes, got a mix of "
                              + ", ".join(names))
    ks = jvm_keys(keys, "keys")
    return ks.kind, ks


def _single_kind(key: Any) -> str:
    """The kind of one key; anything but an int, float, str or bytes is refused."""
    if _is_float(key):
        return DOUBLES
    try:
        return jvm_keys(key, "key", single=True).kind
    except SketchError:
        shown = repr(key) if key is None or isinstance(key, (bool, np.bool_)) else type(key).__name__
        raise SketchError(f"key must be int, float, str or bytes, got {shown}") from None


class FrequentSketch(_Sketch):
    """A windowed frequent-items sketch (as SQL's top-k aggregate builds it): keys with weights and
    timestamps in non-decreasing order; the weight of any key, the top ``k`` keys and the heavy
    hitters of any range ``(now - range, now]`` within the window. Deterministic: every answer comes
    with an interval ``[lower, upper]`` that holds the key's exact weight in the range, and every
    estimate is within ``error_bound`` times the range's weight (``epsilon`` at the planned merge
    depth, ``1 + merge_levels`` levels).

    Keys are kept exactly and come back in their type: int (BIGINT, or INT for a sketch SQL built
    from an INT column), float (DOUBLE), str (STRING) or bytes (BINARY). The first key fixes the
    sketch's key type (:attr:`key_type`); a key of another type is refused.

    Examples
    --------
    >>> from ecmsketch import FrequentSketch
    >>> s = FrequentSketch(epsilon=0.01, window=100)
    >>> s.add_many(["a", "b", "a", "c", "a", "b"], [1, 2, 3, 4, 5, 6])
    >>> [(t["key"], t["estimate"]) for t in s.top_k(2)]
    [('a', 3.0), ('b', 2.0)]
    >>> s.estimate("c"), s.total(range=3)
    ({'key': 'c', 'estimate': 1.0, 'lower': 1, 'upper': 1}, 3.0)
    >>> [t["key"] for t in s.heavy_hitters(0.3)], s.key_type
    (['a', 'b'], 'string')
    """

    _kind = "frequent"

    def __init__(self, epsilon: float = 0.001, window: Optional[RangeLike] = None, *, window_type: str = "time",
                 timestamps: str = "ticks", merge_levels: int = 0, int_keys: bool = False):
        """A new empty sketch, as SQL's top-k aggregate builds it (``window``, ``window_type`` and
        ``timestamps`` as for :class:`EcmSketch`).

        :param epsilon: the error of every estimate, relative to the weight of the queried range,
            after one merge level plus ``merge_levels`` (in [0.001, 1)).
        :param merge_levels: merge levels planned beyond Spark's own one; a frequent-items sketch
            plans for at most 8 levels in all (``merge_levels`` up to 7).
        :param int_keys: hold int keys as SQL INT keys (32 bits), as ``top_k_agg`` over an INT column
            does, so that the sketch merges with those; by default ints are BIGINT keys.
        """
        micros = micros_and_type(timestamps, window_type)
        w = window_ticks(window, micros)
        eps = as_float(epsilon, "epsilon")
        lv = levels(merge_levels)
        most = int(_jvm.api().frequentMaxLevels())
        if lv > most:
            raise SketchError(f"merge_levels of a frequent-items sketch must be in [0, {most - 1}], got {lv - 1}")
        self._attach(call(_jvm.api().frequentCreate, window_type == "count", micros, w, eps, lv,
                          as_flag(int_keys, "int_keys")))

    def _rn(self, range: Optional[RangeLike], now: Optional[TimeLike]):
        return jlong(range_ticks(range, self._micros)), jlong(time_ticks(now, self._micros))

    @property
    def key_type(self) -> str:
        """The sketch's key type: ``'none'`` (no key yet), ``'bigint'``, ``'int'``, ``'double'``,
        ``'string'`` or ``'binary'``."""
        return str(self._j.keyTypeName())

    def _check_kind(self, kind: str, what: str) -> None:
        """Refuses keys of a Python type the sketch's key type does not take."""
        kt = self.key_type
        if kt != "none" and kt not in _KEY_TYPE[kind]:
            raise SketchError(f"this frequent-items sketch holds {kt} keys; cannot {what} {_PY_TYPE[kind]} keys")

    def add(self, key: Union[int, float, str, bytes], ts: TimeLike, value: int = 1) -> None:
        """Adds weight ``value`` (a non-negative int) for ``key`` at ``ts`` (non-decreasing across
        calls)."""
        if ts is None:
            raise SketchError("ts must not be None")
        _single_kind(key)
        self.add_many([key], [ts], [as_int(value, "value")])

    def add_many(self, keys: Any, timestamps: Any, values: Any = None) -> None:
        """Adds a batch (numpy arrays or sequences) of keys, all of one type, with their timestamps
        (and weights, default 1) in any order: it is sorted by timestamp and must not precede the
        sketch's last timestamp."""
        import jpype
        if len(keys) != len(timestamps):
            raise SketchError(f"keys and timestamps differ in length: {len(keys)} vs {len(timestamps)}")
        kind, ks = _key_batch(keys)
        order, ts, vs = self._sorted_batch(timestamps, values, sorted_as_none=True)
        if len(ts) == 0:
            return
        self._check_kind(kind, "add")
        api = _jvm.api()
        jvs = None if vs is None else longs(vs)
        if kind == DOUBLES:
            xs = ks if order is None else ks[order]
            call(api.frequentAddDoubles, self._j, jpype.JArray(jpype.JDouble)(np.ascontiguousarray(xs)), longs(ts), jvs)
        elif kind == LONGS:  # (INT sketches take ints through frequentAddLongs, which checks the range)
            call(api.frequentAddLongs, self._j, ks.jvm(order), longs(ts), jvs)
        else:  # strings and bytes: the batch adds every keyed sketch shares
            call(getattr(api, "add" + kind), self._j, ks.jvm(order), longs(ts), jvs)

    def _key_out(self, kt: str):
        """The function that turns a key the JVM returns into its Python value."""
        if kt in ("bigint", "int"):
            return int
        if kt == "double":
            return float
        if kt == "string":
            return str
        return bytes

    def _items(self, arr: Any) -> List[Dict[str, Any]]:
        conv = self._key_out(self.key_type)
        return [{"key": conv(x.key()), "estimate": float(x.estimate()), "lower": int(x.lower()),
                 "upper": int(x.upper())} for x in arr]

    def estimate(self, key: Union[int, float, str, bytes], range: Optional[RangeLike] = None,
                 now: Optional[TimeLike] = None) -> Dict[str, Any]:
        """The weight of ``key`` in ``(now - range, now]`` (default: the window ending at the last
        timestamp), as a dict: ``key``, ``estimate`` (the middle of the interval), ``lower`` and
        ``upper`` (the key's exact weight lies in [lower, upper])."""
        kind = _single_kind(key)
        self._check_kind(kind, "look up")
        api = _jvm.api()
        rn = self._rn(range, now)
        if kind == DOUBLES:
            key = float(key)
            x = call(api.frequentEstimateDouble, self._j, key, *rn)
        elif kind == LONGS:
            key = int(key)
            x = call(api.frequentEstimateLong, self._j, key, *rn)
        elif kind == STRINGS:
            key = str(key)
            x = call(api.frequentEstimateString, self._j, key, *rn)
        else:
            key = bytes(key)
            x = call(api.frequentEstimateBytes, self._j, jbytes(key), *rn)
        return {"key": key, "estimate": float(x.estimate()), "lower": int(x.lower()), "upper": int(x.upper())}

    def top_k(self, k: int, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> List[Dict[str, Any]]:
        """The ``k`` keys of largest estimate in the range (fewer if the range holds fewer), largest
        first, as dicts like :meth:`estimate`'s."""
        return self._items(call(_jvm.api().frequentTopK, self._j, as_jint(k, "k"), *self._rn(range, now)))

    def heavy_hitters(self, phi: float, range: Optional[RangeLike] = None,
                      now: Optional[TimeLike] = None) -> List[Dict[str, Any]]:
        """The keys whose estimate is at least ``phi`` (in (0, 1]) times the range's estimated
        weight, largest first, as dicts like :meth:`estimate`'s: every key of weight at least
        ``(phi + e) n`` is listed and none below ``(phi - e) n``, ``n`` the range's weight and ``e``
        :attr:`error_bound`."""
        return self._items(call(_jvm.api().frequentHeavyHitters, self._j, as_float(phi, "phi"),
                                *self._rn(range, now)))

    def range_count(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> Dict[str, Any]:
        """The weight of the range as a dict: ``estimate``, and ``lower`` and ``upper`` that hold the
        exact weight."""
        c = call(_jvm.api().frequentRangeCount, self._j, *self._rn(range, now))
        return {"estimate": float(c.estimate()), "lower": int(c.lower()), "upper": int(c.upper())}

    def total(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """The estimated weight of the range (:meth:`range_count`'s ``estimate``)."""
        return self.range_count(range, now)["estimate"]

    @classmethod
    def merge(cls, sketches: Iterable[Union["FrequentSketch", bytes, bytearray]]) -> "FrequentSketch":
        """Order-preserving n-way merge (one merge level; time-disjoint inputs, such as roll-ups, cost
        none) of frequent-items sketches of several sites, or their bytes; time-based windows only.
        Sketches over the same time are folded into the size of one sketch. Sketches of other
        parameters or of another key type are refused."""
        return cls._wrap(_merge_all(cls, sketches))
