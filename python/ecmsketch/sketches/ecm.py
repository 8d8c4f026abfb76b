"""The ECM-sketch (:class:`EcmSketch`): a Count-Min array of sliding-window counters."""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Union

import numpy as np

from .. import SketchError
from .. import _jvm
from .._convert import (LONGS, arrivals, as_float, as_int, as_option, call, jbytes, jlong, jvm_keys, levels, longs,
                        micros_and_type)
from .._units import I64_MAX as _I64_MAX, I64_MIN as _I64_MIN, RangeLike, TimeLike
from .._units import range_ticks, time_ticks, window_ticks
from ._base import _ONE, DEFAULT_SEED, Key, _Buffered, _merge_all

__all__ = ["EcmSketch"]


class EcmSketch(_Buffered):
    """An ECM-sketch: Count-Min array of sliding-window counters. Point, inner-product, self-join and
    total queries over any range within the window, mergeable order-preservingly across sites.

    Single ``add`` calls are buffered in Python and sent to the JVM in batches, flushed before any
    read (queries, ``to_bytes``, merges, ``info``): the answers and bytes are those of adding one by one.

    Examples
    --------
    >>> from ecmsketch import EcmSketch
    >>> sk = EcmSketch(epsilon=0.1, window=100)
    >>> for key, ts in [("a", 1), ("b", 2), ("a", 3)]:
    ...     sk.add(key, ts)
    >>> sk  # two adds wait in the buffer
    EcmSketch(epsilon=0.1, delta=0.01, window=100, cell='eh', pending=2)
    >>> sk.point("a"), sk.point("a", range=1), sk.total()
    (2.0, 1.0, 3.0)
    >>> merged = EcmSketch.merge([sk, EcmSketch.from_bytes(sk.to_bytes())])
    >>> merged.point("a"), merged.merge_depth
    (4.0, 1)
    """

    _kind = "ecm"

    def __init__(self, epsilon: Optional[float] = None, delta: float = 0.01, window: Optional[RangeLike] = None, *,
                 window_type: str = "time", timestamps: str = "ticks", optimize_for: str = "point",
                 merge_levels: int = 0, seed: int = DEFAULT_SEED, cell: str = "eh",
                 max_arrivals: Optional[int] = None, max_bytes: Optional[int] = None):
        """A new empty sketch, planned as SQL ``ecm_agg`` plans it (epsilon defaults to 0.05).

        :param epsilon: error bound relative to the range's total weight, certified after one merge
            level plus ``merge_levels`` further ones.
        :param delta: failure probability of the Count-Min part.
        :param window: window length (int ticks, or for timestamps a timedelta or a string such as
            ``'1 hour'``); None: unbounded.
        :param window_type: ``'time'`` or ``'count'`` (timestamps are arrival sequence numbers).
        :param timestamps: ``'ticks'`` (integers) or ``'timestamp'`` (microseconds, as SQL TIMESTAMP;
            then ``window`` and ranges may be timedeltas or strings such as ``'10 minutes'``).
        :param optimize_for: ``'point'`` or ``'inner_product'`` (also self-join).
        :param seed: hash seed; sketches merge only with the same seed.
        :param cell: ``'eh'`` (exponential histograms, default), ``'dwave'`` (deterministic waves) or
            ``'rwave'`` (randomized waves: point queries only).
        :param max_arrivals: for ``'dwave'`` cells, an upper bound on the weight in any window
            (default: no bound).
        :param max_bytes: a memory budget instead of ``epsilon`` (``'eh'`` cells): the plan with the
            smallest certified bound whose sketch can never serialize to more than ``max_bytes`` bytes,
            on any stream and after any merges, as SQL ``ecm_agg(..., max_bytes => b)`` plans it.
            ``info()`` reports the bound (``point_error_bound``) and ``max_size_bytes``.
        """
        micros = micros_and_type(timestamps, window_type)
        w = window_ticks(window, micros)
        cell = as_option(cell, "cell", "eh", "dwave", "rwave")
        optimize_for = as_option(optimize_for, "optimize_for", "point", "inner_product")
        d = as_float(delta, "delta")
        if max_bytes is not None:
            if epsilon is not None:
                raise SketchError("give epsilon or max_bytes, not both")
            if max_arrivals is not None:
                raise SketchError("max_bytes takes 'eh' cells, which take no max_arrivals")
            mb = as_int(max_bytes, "max_bytes")
            if not 0 < mb <= _I64_MAX:
                raise SketchError(f"max_bytes must be a positive BIGINT, got {mb}")
            j = call(_jvm.api().ecmCreateWithin, window_type == "count", micros, w, mb,
                     d, optimize_for, levels(merge_levels), as_int(seed, "seed"), cell)
        else:
            eps = 0.05 if epsilon is None else as_float(epsilon, "epsilon")
            j = call(_jvm.api().ecmCreateCell, window_type == "count", micros, w, eps, d,
                     optimize_for, levels(merge_levels), as_int(seed, "seed"), cell, arrivals(max_arrivals))
        self._attach(j)

    def _describe(self, jobj: Any) -> Dict[str, Any]:
        d = super()._describe(jobj)
        d["delta"] = float(jobj.delta())
        d["cell"] = str(jobj.cellName())
        return d

    def add(self, key: Key, ts: TimeLike, value: int = 1) -> None:
        """Adds weight ``value`` for ``key`` at ``ts`` (non-decreasing across calls)."""
        # the fast path: an int key and timestamp, weight 1, in order (buffered; checked as the JVM does)
        if (value is _ONE and type(key) is int and type(ts) is int and self._fast
                and self._bmin <= ts <= _I64_MAX and _I64_MIN <= key <= _I64_MAX):
            bt = self._bt
            bt.append(ts)
            self._bk.append(key)
            self._bmin = ts + self._cw
            if len(bt) >= self._cap:
                self._flush()
            return
        if ts is None:
            raise SketchError("ts must not be None")
        k = jvm_keys(key, "key", single=True)
        self._add_checked(k.values, k.kind, ts, value)

    def _direct(self, key: Any, t: int, v: int) -> None:
        call(self._jo.add, jbytes(key) if isinstance(key, bytes) else key, t, v)

    def _send(self, keys: List[Any], ts: Any, vs: Any) -> None:
        import jpype
        if self._bkind is LONGS:
            jk = jpype.JArray(jpype.JLong)(np.array(keys, dtype=np.int64))
        elif isinstance(keys[0], str):
            jk = jpype.JArray(jpype.JString)(keys)
        else:
            jk = jpype.JArray(jpype.JArray(jpype.JByte))([jbytes(k) for k in keys])
        call(getattr(_jvm.api(), "ecmAdd" + str(self._bkind)), self._jo, jk, ts, vs)

    def add_many(self, keys: Any, timestamps: Any, values: Any = None) -> None:
        """Adds a batch (numpy arrays or sequences). The batch may be in any order; it is sorted by
        timestamp, and must not precede the sketch's last timestamp. int64 numpy arrays of keys and
        timestamps (already sorted, or not) cross to the JVM without per-element conversion."""
        ks = jvm_keys(keys, "keys")
        if len(ks) != len(timestamps):
            raise SketchError(f"keys and timestamps differ in length: {len(ks)} vs {len(timestamps)}")
        order, ts, vs = self._sorted_batch(timestamps, values, True)
        call(getattr(_jvm.api(), "ecmAdd" + ks.kind), self._jo, ks.jvm(order), longs(ts),
             None if vs is None else longs(vs))
        self._sync()

    def _fp(self, key: Key):
        return call(self._j.fingerprintFor, jvm_keys(key, "key", single=True).jvm())

    def point(self, key: Key, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated weight of ``key`` in ``(now - range, now]``; range defaults to the window, now to
        the last timestamp. Within ``info()['point_error_bound'] * total`` with probability 1 - delta."""
        fp = self._fp(key)
        return float(call(self._j.pointFingerprint, fp, jlong(range_ticks(range, self._micros)),
                          jlong(time_ticks(now, self._micros))))

    def inner_product(self, other: "EcmSketch", range: Optional[RangeLike] = None,
                      now: Optional[TimeLike] = None) -> float:
        """Estimated inner product (join size) with another sketch of the same shape and seed."""
        if not isinstance(other, EcmSketch):
            raise SketchError(f"other must be an EcmSketch, got {type(other).__name__}")
        return float(call(self._j.innerProduct, other._j, jlong(range_ticks(range, self._micros)),
                          jlong(time_ticks(now, self._micros))))

    def self_join(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated self-join size F2 over the range."""
        return float(call(self._j.selfJoin, jlong(range_ticks(range, self._micros)),
                          jlong(time_ticks(now, self._micros))))

    def total(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated total weight over the range (deterministic bound ``info()['total_error_bound']``)."""
        return float(call(self._j.total, jlong(range_ticks(range, self._micros)),
                          jlong(time_ticks(now, self._micros))))

    @classmethod
    def merge(cls, sketches: Iterable[Union["EcmSketch", bytes, bytearray]]) -> "EcmSketch":
        """Order-preserving n-way merge of sketches or their bytes from many sites: one merge level
        for sketches whose rows overlap in time; with 'eh' cells, sketches of consecutive periods
        (time spans that do not overlap) are laid side by side at the depth of the deepest one
        (docs/design/merging.md, "Time-disjoint merges")."""
        return cls._wrap(_merge_all(cls, sketches))
