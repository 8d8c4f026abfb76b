"""The dyadic ECM-sketch (:class:`DyadicSketch`): heavy hitters, top-k, ranges, ranks and quantiles."""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Union

import numpy as np

from .. import SketchError
from .. import _jvm
from .._convert import (as_float, as_int, as_jint, as_option, call, jbytes, jlong, jvm_keys, levels, longs,
                        micros_and_type)
from .._units import RangeLike, TimeLike, range_ticks, time_ticks, window_ticks
from ._base import DEFAULT_SEED, _is_number, _merge_all, _numbers, _Sketch

__all__ = ["DyadicSketch"]


class DyadicSketch(_Sketch):
    """A dyadic ECM-sketch over integer, float, str or bytes keys (docs/design/dyadic.md):
    heavy hitters, top-k, range counts, ranks and quantiles over any range within the window, mergeable
    order-preservingly across sites. The key type is fixed by the first key added. str and bytes keys
    are counted by fingerprint, with a table of candidate keys so that heavy hitters and top-k return
    the keys themselves; ranges, ranks and quantiles of them are refused (no meaningful order).

    Examples
    --------
    >>> from ecmsketch import DyadicSketch
    >>> s = DyadicSketch(window=100, universe_bits=8)
    >>> s.add_many([5, 3, 5, 9, 5, 3, 1, 5], range(1, 9))
    >>> [t["key"] for t in s.top_k(2)], s.quantile(0.5), s.rank(3)
    ([5, 3], 5, 3.0)
    """

    _kind = "dyadic"

    def __init__(self, epsilon: float = 0.05, delta: float = 0.01, window: Optional[RangeLike] = None, *,
                 universe_bits: int = 32, window_type: str = "time", timestamps: str = "ticks",
                 merge_levels: int = 0, seed: int = DEFAULT_SEED, cell: str = "eh",
                 candidates: int = 1024, phi_min: float = 1.0):
        """A new empty sketch, planned as ``dyadic_agg`` plans (one merge level plus ``merge_levels``;
        ``window``, ``window_type``, ``timestamps`` and ``seed`` as for :class:`EcmSketch`).

        :param epsilon: the heavy-hitter gap of ECM Theorem 5.
        :param universe_bits: integer keys must lie in [-2^(bits-1), 2^(bits-1)) (64: any int64).
        :param cell: ``'eh'`` (default) or ``'dwave'``.
        :param candidates: str / bytes keys: the candidate keys kept per window epoch (docs/design/string-keys.md).
        :param phi_min: heavy hitters with any ratio phi >= phi_min report no key below phi times the
            total with probability >= 1 - delta (the sketch is built with delta * phi_min).
        """
        micros = micros_and_type(timestamps, window_type)
        w = window_ticks(window, micros)
        cell = as_option(cell, "cell", "eh", "dwave")
        eps = as_float(epsilon, "epsilon")
        d = float(call(_jvm.api().dyadicDeltaFor, as_float(delta, "delta"), as_float(phi_min, "phi_min")))
        self._attach(call(_jvm.api().dyadicCreate, window_type == "count", micros, w, eps, d,
                          levels(merge_levels), as_int(seed, "seed"), cell, as_jint(universe_bits, "universe_bits"),
                          as_jint(candidates, "candidates")))

    def _describe(self, jobj: Any) -> Dict[str, Any]:
        d = super()._describe(jobj)
        d["delta"] = float(jobj.requestedDelta())
        d["universe_bits"] = int(jobj.universeBits())
        d["cell"] = str(jobj.level(0).cellName())
        return d

    @property
    def _doubles(self) -> bool:
        return int(self._j.keyDomain()) == 4

    @property
    def _domain(self) -> int:
        """0 none yet, 1 int, 2 str, 3 bytes, 4 float."""
        return int(self._j.keyDomain())

    def _rn(self, range: Optional[RangeLike], now: Optional[TimeLike]):
        return jlong(range_ticks(range, self._micros)), jlong(time_ticks(now, self._micros))

    @staticmethod
    def _is_float(x: Any) -> bool:
        return isinstance(x, (float, np.floating))

    def _key_batch(self, keys: Any):
        arr = np.asarray(keys) if not isinstance(keys, np.ndarray) else keys
        if arr.dtype.kind == "f":
            return "Doubles", arr.astype(np.float64)
        if arr.dtype.kind == "O" and len(arr) and all(self._is_float(x) for x in arr):
            return "Doubles", arr.astype(np.float64)
        ks = jvm_keys(keys, "keys")
        return ks.kind, ks

    def add(self, key: Union[int, float, str, bytes], ts: TimeLike, value: int = 1) -> None:
        """Adds weight ``value`` for ``key`` (int, float, str or bytes) at ``ts`` (non-decreasing across calls)."""
        if ts is None:
            raise SketchError("ts must not be None")
        self.add_many([key], [ts], [as_int(value, "value")])

    def add_many(self, keys: Any, timestamps: Any, values: Any = None) -> None:
        """Adds a batch (numpy arrays or sequences) in any order; it is sorted by timestamp and must not
        precede the sketch's last timestamp."""
        if len(keys) != len(timestamps):
            raise SketchError(f"keys and timestamps differ in length: {len(keys)} vs {len(timestamps)}")
        kind, ks = self._key_batch(keys)
        order, ts, vs = self._sorted_batch(timestamps, values)
        api = _jvm.api()
        if kind == "Doubles":
            import jpype
            call(api.dyadicAddDoubles, self._j, jpype.JArray(jpype.JDouble)(np.ascontiguousarray(ks[order])), longs(ts),
                 None if vs is None else longs(vs))
        else:
            call(getattr(api, "dyadicAdd" + kind), self._j, ks.jvm(order), longs(ts), None if vs is None else longs(vs))

    def _keys_out(self, arr) -> List[Dict[str, Any]]:
        d = self._domain

        def key(k: Any) -> Any:
            if d == 4:
                return float(k.doubleKey())
            if d == 2:
                return bytes(k.bytes()).decode("utf-8")
            if d == 3:
                return bytes(k.bytes())
            return int(k.key())
        return [{"key": key(k), "estimate": float(k.estimate()),
                 "lower": float(k.lower()), "upper": float(k.upper())} for k in arr]

    def heavy_hitters(self, phi: float, range: Optional[RangeLike] = None,
                      now: Optional[TimeLike] = None) -> List[Dict[str, Any]]:
        """Keys with weight >= phi times the range's total (phi in (0, 1)) or >= phi (phi >= 1), as
        dicts (key, estimate, lower, upper) by estimate; every key >= (phi + epsilon) times the total
        is among them."""
        return self._keys_out(call(_jvm.api().dyadicHeavyHitters, self._j, float(phi), *self._rn(range, now)))

    def top_k(self, k: int, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> List[Dict[str, Any]]:
        """The ``k`` keys with the largest estimates, as dicts (key, estimate, lower, upper)."""
        return self._keys_out(call(_jvm.api().dyadicTopK, self._j, as_jint(k, "k"), *self._rn(range, now)))

    def quantile(self, q: Union[float, Iterable[float]], range: Optional[RangeLike] = None,
                 now: Optional[TimeLike] = None) -> Any:
        """The q-quantile (int or float, as the keys; None for an empty range); a list of q gives a list."""
        if not _is_number(q):
            return [self.quantile(x, range, now) for x in _numbers(q, "q")]
        v = call(_jvm.api().dyadicQuantile, self._j, float(q), *self._rn(range, now))
        return None if v is None else (float(v) if self._doubles else int(v))

    def range_count(self, lo: Union[int, float], hi: Union[int, float], range: Optional[RangeLike] = None,
                    now: Optional[TimeLike] = None) -> float:
        """Estimated weight of the keys in [lo, hi] (inclusive)."""
        api = _jvm.api()
        if self._doubles:
            r = call(api.dyadicRangeDoubles, self._j, float(lo), float(hi), *self._rn(range, now))
        else:
            r = call(api.dyadicRangeLongs, self._j, as_int(lo, "lo"), as_int(hi, "hi"), *self._rn(range, now))
        return float(r[0])

    def rank(self, x: Union[int, float], range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated weight of the keys <= x."""
        api = _jvm.api()
        if self._doubles:
            r = call(api.dyadicRankDouble, self._j, float(x), *self._rn(range, now))
        else:
            r = call(api.dyadicRankLong, self._j, as_int(x, "x"), *self._rn(range, now))
        return float(r[0])

    def point(self, key: Union[int, float, str, bytes], range: Optional[RangeLike] = None,
              now: Optional[TimeLike] = None) -> float:
        """Estimated weight of ``key`` (of its bucket, for float keys; of its fingerprint, for str / bytes)."""
        api = _jvm.api()
        if isinstance(key, str):
            return float(call(api.dyadicPointString, self._j, key, *self._rn(range, now)))
        if isinstance(key, (bytes, bytearray)):
            return float(call(api.dyadicPointBytes, self._j, jbytes(bytes(key)), *self._rn(range, now)))
        if self._doubles:
            return float(call(api.dyadicPointDouble, self._j, float(key), *self._rn(range, now)))
        return float(call(api.dyadicPointLong, self._j, as_int(key, "key"), *self._rn(range, now)))

    def total(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated total weight over the range (deterministic bound ``info()['total_error_bound']``)."""
        return float(call(self._j.total, *self._rn(range, now)))

    @classmethod
    def merge(cls, sketches: Iterable[Union["DyadicSketch", bytes, bytearray]]) -> "DyadicSketch":
        """Order-preserving n-way merge (one merge level) of dyadic sketches or their bytes."""
        return cls._wrap(_merge_all(cls, sketches))
