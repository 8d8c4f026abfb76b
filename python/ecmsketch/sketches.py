"""Bytes-level sketch objects (no Spark): build, query and merge serialized sketches in Python.

They run the same JVM code as the SQL functions, in-process through JPype, so a sketch made by
``ecm_agg`` in any Spark cluster can be read, queried and merged here, and vice versa.

Planning is the same as in SQL: ``epsilon`` is the bound after one merge level plus
``merge_levels`` further ones, so sketches created here merge with ``ecm_agg`` sketches made with the
same arguments.

The conversions of Python values to the JVM's types, and their validation, are in ``_convert``:
every key (or distinct-count value), single or in a batch, goes through ``_convert.jvm_keys``.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Type, TypeVar, Union

import numpy as np

from . import SketchError
from . import _jvm
from ._convert import (LONGS, arrivals, as_int, as_jint, call, decode, int_array, jbytes, jlong, jvm_array, jvm_keys,
                       levels, longs, micros_and_type, py_value, sorted_batch, ticks_array)
from ._units import I64_MAX as _I64_MAX, I64_MIN as _I64_MIN, RangeLike, TimeLike, range_ticks, time_ticks, window_ticks

__all__ = ["EcmSketch", "ExpHistogram", "DetWave", "DistinctSketch", "DyadicSketch", "DEFAULT_SEED",
           "AsyncSum", "AsyncQuantile", "DecayedSketch"]

#: The default hash seed, the same as SQL's ``ecm_agg``.
DEFAULT_SEED = 0x5EED5EED

Key = Union[int, str, bytes]
_C = TypeVar("_C", bound="_Counter")
_A = TypeVar("_A", bound="_Async")


def _is_number(x: Any) -> bool:
    """An int, float or numpy number (not a bool)."""
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


def _numbers(xs: Any, what: str) -> List[Any]:
    """The items of a sequence of numbers; anything else (a str, a non-iterable) is refused."""
    if isinstance(xs, (str, bytes)) or not hasattr(xs, "__iter__"):
        raise SketchError(f"{what} must be a number or a sequence of numbers, got {xs!r}")
    items = list(xs)
    for x in items:
        if not _is_number(x):
            raise SketchError(f"{what} must be a number or a sequence of numbers, got an item {x!r}")
    return items


class _Sketch:
    _j: Any

    @property
    def _micros(self) -> bool:
        return bool(self._j.spec().tsMicros())

    def to_bytes(self) -> bytes:
        """The sketch in the binary format of docs/FORMAT.md (its header gives the format version), the
        same bytes SQL produces."""
        return bytes(call(_jvm.api().encode, self._j))

    def __bytes__(self) -> bytes:
        return self.to_bytes()

    def info(self) -> Dict[str, Any]:
        """Kind, parameters, merge depth, certified bounds, timestamps and size (as ``sketch_info``)."""
        api = _jvm.api()
        fields = [str(f) for f in api.infoFields()]
        values = call(api.info, self._j)
        return {f: py_value(v) for f, v in zip(fields, values)}

    @property
    def error_bound(self) -> float:
        """The certified error bound at the current merge depth: ``info()['error_bound']``, the
        ``error_bound`` field of SQL's ``sketch_info`` (what it bounds depends on the kind; docs/guide/)."""
        return float(self.info()["error_bound"])

    @property
    def merge_depth(self) -> int:
        """Levels of order-preserving merge behind this sketch (0 for a sketch built directly)."""
        return int(self._j.mergeDepth())

    @property
    def last_ts(self) -> Optional[int]:
        """The latest timestamp added (ticks), or None for an empty sketch."""
        return None if self._j.isEmpty() else int(self._j.lastTs())

    def _sorted_batch(self, timestamps: Any, values: Any, sorted_as_none: bool = False):
        return sorted_batch(timestamps, values, self.last_ts, self._micros, sorted_as_none)


_ONE = 1  # the default weight: ``value is _ONE`` (not 1.0, True or a numpy integer) takes the fast path
#: Single adds buffered before one crossing to the JVM.
BUFFER_ROWS = 1 << 16
#: Above this total weight (sketch plus buffer) adds go to the JVM one by one, so that an overflow of
#: the total is reported by the add that causes it.
_DIRECT_WEIGHT = 2 ** 62


class _Buffered(_Sketch):
    """A sketch whose single ``add`` calls are buffered in Python and cross to the JVM in batches.

    The JVM object is ``_jo``; ``_j`` (what every read, ``to_bytes``, merge and ``info`` use) flushes
    the buffer first, so no answer ever sees a partial state. A batch is applied in timestamp order,
    which gives the same state, and the same bytes, as the adds one by one. Every add is checked here
    before it is buffered (key, timestamp order, weight) with the messages the JVM gives; an add the
    buffer cannot take as checked (the first add, a new key type, a weight near the overflow of the
    total) flushes the buffer and goes to the JVM at once, so its error, if any, comes from this call.
    """

    def __init__(self, jobj: Any):
        self._jo = jobj
        self._mic = bool(jobj.spec().tsMicros())
        self._cw = 1 if bool(jobj.spec().countWindow()) else 0
        self._bt: List[int] = []           # buffered timestamps
        self._bk: List[Any] = []           # buffered keys (keyed sketches)
        self._bv: Optional[List[int]] = None  # buffered weights; None while all are 1
        self._bw = 0                       # sum of the buffered weights other than unit ones
        self._bkind: Optional[str] = None  # key type the buffer takes (None: no add buffered yet)
        self._fast = False                 # integer keys (or a counter) and all buffered weights 1
        self._sync()

    @property
    def _j(self) -> Any:
        if self._bt:
            self._flush()
        return self._jo

    @property
    def _micros(self) -> bool:
        return self._mic

    def _sync(self) -> None:
        """Reads the smallest timestamp the next add may take, and whether adds may be buffered, from the JVM."""
        jo = self._jo
        self._bmin = _I64_MIN if jo.isEmpty() else int(jo.lastTs()) + self._cw
        # buffered weight is at most _DIRECT_WEIGHT: buffer only while that much still fits in the total,
        # so an add that would overflow it goes to the JVM at its call and fails there
        if int(jo.count()) > _I64_MAX - _DIRECT_WEIGHT:
            self._bkind = None
        self._fast = self._bkind is LONGS and self._bv is None

    def flush(self) -> None:
        """Sends the buffered adds to the JVM (reads do this themselves; there is no need to call it)."""
        if self._bt:
            self._flush()

    def _flush(self) -> None:
        ts, ks, vs = self._bt, self._bk, self._bv
        # the rows leave the buffer only once the JVM took them (a failure keeps them, and says so again)
        self._send(ks, longs(ts), None if vs is None else longs(vs))
        self._bt, self._bk, self._bv, self._bw = [], [], None, 0
        self._sync()

    def _send(self, keys: List[Any], ts: Any, vs: Any) -> None:
        raise NotImplementedError

    def _direct(self, key: Any, t: int, v: int) -> None:
        raise NotImplementedError

    def _add_checked(self, key: Any, kind: Optional[str], ts: TimeLike, value: Any) -> None:
        """The general path of ``add``: converts and checks, then buffers or adds at once."""
        t = time_ticks(ts, self._mic, "ts")
        if t is None:
            raise SketchError("ts must not be None")
        v = as_int(value, "value")  # time_ticks and as_int refuse values beyond BIGINT, naming them
        pending = len(self._bt) + self._bw
        if (kind is None or kind != self._bkind or not self._bmin <= t <= _I64_MAX or not 0 <= v <= _DIRECT_WEIGHT
                or pending + v > _DIRECT_WEIGHT):
            self.flush()
            self._direct(key, t, v)  # the JVM's checks and messages
            self._bkind = kind
            self._sync()
            return
        if v != 1 and self._bv is None:
            self._bv = [1] * len(self._bt)
            self._fast = False
        self._bt.append(t)
        if key is not None:
            self._bk.append(key)
        if self._bv is not None:
            self._bv.append(v)
            if v != 1:
                self._bw += v
        self._bmin = t + self._cw
        if len(self._bt) >= BUFFER_ROWS:
            self._flush()


def _merge_all(cls: Any, kind: str, sketches: Iterable[Any], what: str) -> Any:
    """PyApi.merge: the cross-site merge of the registered sketch kind ``kind``. A single sketch or
    bytes object (not in a list) is one input."""
    if isinstance(sketches, (bytes, bytearray, memoryview, _Sketch)):
        sketches = [sketches]
    items = [s._j if isinstance(s, cls) else cls.from_bytes(s)._j for s in sketches if s is not None]
    if not items:
        raise SketchError(f"merge needs at least one {what}")
    return cls(call(_jvm.api().merge, kind, jvm_array("ecmsketch.core.WindowSketch", items)))


class EcmSketch(_Buffered):
    """An ECM-sketch: Count-Min array of sliding-window counters. Point, inner-product, self-join and
    total queries over any range within the window, mergeable order-preservingly across sites.

    Single ``add`` calls are buffered in Python and sent to the JVM in batches, flushed before any
    read (queries, ``to_bytes``, merges, ``info``): the answers and bytes are those of adding one by one.
    """

    @classmethod
    def create(cls, epsilon: Optional[float] = None, delta: float = 0.01, window: Optional[RangeLike] = None, *,
               window_type: str = "time", timestamps: str = "ticks", optimize_for: str = "point",
               merge_levels: int = 0, seed: int = DEFAULT_SEED, cell: str = "eh",
               max_arrivals: Optional[int] = None, max_bytes: Optional[int] = None) -> "EcmSketch":
        """A new empty sketch (epsilon defaults to 0.05).

        :param timestamps: ``'ticks'`` (integers) or ``'timestamp'`` (microseconds, as SQL TIMESTAMP;
            then ``window`` and ranges may be timedeltas or strings such as ``'10 minutes'``).
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
        if not isinstance(cell, str):
            raise SketchError(f"cell must be 'eh', 'dwave' or 'rwave', got {cell!r}")
        if max_bytes is not None:
            if epsilon is not None:
                raise SketchError("give epsilon or max_bytes, not both")
            if max_arrivals is not None:
                raise SketchError("max_bytes takes 'eh' cells, which take no max_arrivals")
            mb = as_int(max_bytes, "max_bytes")
            if not 0 < mb <= _I64_MAX:
                raise SketchError(f"max_bytes must be a positive BIGINT, got {mb}")
            j = call(_jvm.api().ecmCreateWithin, window_type == "count", micros, w, mb,
                     float(delta), optimize_for, levels(merge_levels), as_int(seed, "seed"), cell)
            return cls(j)
        epsilon = 0.05 if epsilon is None else epsilon
        j = call(_jvm.api().ecmCreateCell, window_type == "count", micros, w, float(epsilon), float(delta),
                 optimize_for, levels(merge_levels), as_int(seed, "seed"), cell, arrivals(max_arrivals))
        return cls(j)

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> "EcmSketch":
        """Decodes (and validates) a serialized ECM-sketch, e.g. a value of an ``ecm_agg`` column."""
        return cls(decode("ecm", data))

    def add(self, key: Key, ts: TimeLike, value: int = 1) -> None:
        """Adds weight ``value`` for ``key`` at ``ts`` (non-decreasing across calls)."""
        # the fast path: an int key and timestamp, weight 1, in order (buffered; checked as the JVM does)
        if (value is _ONE and type(key) is int and type(ts) is int and self._fast
                and self._bmin <= ts <= _I64_MAX and _I64_MIN <= key <= _I64_MAX):
            bt = self._bt
            bt.append(ts)
            self._bk.append(key)
            self._bmin = ts + self._cw
            if len(bt) >= BUFFER_ROWS:
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

    @staticmethod
    def merge(sketches: Iterable[Union["EcmSketch", bytes, bytearray]]) -> "EcmSketch":
        """Order-preserving n-way merge of sketches or their bytes from many sites: one merge level
        for sketches whose rows overlap in time; with 'eh' cells, sketches of consecutive periods
        (time spans that do not overlap) are laid side by side at the depth of the deepest one
        (docs/design/merging.md, "Time-disjoint merges")."""
        return _merge_all(EcmSketch, "ecm", sketches, "sketch")

    def __repr__(self) -> str:
        i = self.info()
        return (f"EcmSketch(cell={i['cell_kind']}, window={i['window']}, epsilon={i['epsilon']}, {i['width']}x{i['depth']}, "
                f"merge_depth={i['merge_depth']}, error_bound={i['error_bound']:.4g}, total_weight={i['total_weight']})")


class _Counter(_Buffered):
    """A sliding-window counter sketch (exponential histogram or deterministic wave). Single ``add``
    calls are buffered in Python and sent to the JVM in batches, flushed before any read."""

    _kind = ""  # the registered sketch kind ('eh', 'dwave')

    @classmethod
    def from_bytes(cls: Type[_C], data: Union[bytes, bytearray, memoryview]) -> _C:
        """Decodes (and validates) serialized bytes of this kind, e.g. a value of its SQL aggregate."""
        return cls(decode(cls._kind, data))

    def add(self, ts: TimeLike, value: int = 1) -> None:
        """Adds weight ``value`` at ``ts`` (non-decreasing across calls)."""
        if value is _ONE and type(ts) is int and self._fast and self._bmin <= ts <= _I64_MAX:
            bt = self._bt
            bt.append(ts)
            self._bmin = ts + self._cw
            if len(bt) >= BUFFER_ROWS:
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
        return _merge_all(cls, cls._kind, sketches, cls.__name__)


class ExpHistogram(_Counter):
    """An exponential histogram: counts arrivals (or sums weights) over a sliding window with a
    deterministic relative error bound."""

    _kind = "eh"

    @classmethod
    def create(cls, epsilon: float = 0.05, window: Optional[RangeLike] = None, *, window_type: str = "time",
               timestamps: str = "ticks", merge_levels: int = 0) -> "ExpHistogram":
        """A new empty histogram (``timestamps`` as in :meth:`EcmSketch.create`)."""
        micros = micros_and_type(timestamps, window_type)
        j = call(_jvm.api().ehCreate, window_type == "count", micros, window_ticks(window, micros),
                 float(epsilon), levels(merge_levels))
        return cls(j)

    def __repr__(self) -> str:
        i = self.info()
        return (f"ExpHistogram(window={i['window']}, epsilon={i['epsilon']}, merge_depth={i['merge_depth']}, "
                f"error_bound={i['error_bound']:.4g}, total_weight={i['total_weight']})")


class DetWave(_Counter):
    """A deterministic wave: counts arrivals (or, with values, sums them: the sum wave) over a
    sliding window with a deterministic relative error bound and O(1) worst-case time per update."""

    _kind = "dwave"

    @classmethod
    def create(cls, epsilon: float = 0.05, window: Optional[RangeLike] = None, *, window_type: str = "time",
               timestamps: str = "ticks", merge_levels: int = 0, max_arrivals: Optional[int] = None) -> "DetWave":
        """A new empty wave. ``max_arrivals`` bounds the weight inside any window (default: no bound);
        a query reaching back into a stretch where the bound was exceeded raises :class:`SketchError`."""
        micros = micros_and_type(timestamps, window_type)
        j = call(_jvm.api().dwCreate, window_type == "count", micros, window_ticks(window, micros),
                 float(epsilon), levels(merge_levels), arrivals(max_arrivals))
        return cls(j)

    @property
    def max_arrivals(self) -> Optional[int]:
        """The bound on the weight in any window, or None when unbounded."""
        return self.info()["max_arrivals"]

    def __repr__(self) -> str:
        i = self.info()
        return (f"DetWave(window={i['window']}, epsilon={i['epsilon']}, max_arrivals={i['max_arrivals']}, "
                f"merge_depth={i['merge_depth']}, error_bound={i['error_bound']:.4g}, total_weight={i['total_weight']})")


class DistinctSketch(_Sketch):
    """Sliding-window distinct count (randomized waves over the values): the number of distinct values
    whose latest occurrence lies in ``(now - range, now]``, within ``epsilon`` relative error with
    probability ``1 - delta``. Merges across sites are lossless."""

    def __init__(self, jobj: Any):
        self._j = jobj

    @classmethod
    def create(cls, epsilon: float = 0.1, delta: float = 0.05, window: Optional[RangeLike] = None, *,
               window_type: str = "time", timestamps: str = "ticks", seed: int = DEFAULT_SEED) -> "DistinctSketch":
        """A new empty sketch (defaults as SQL ``distinct_agg``)."""
        micros = micros_and_type(timestamps, window_type)
        j = call(_jvm.api().distinctCreate, window_type == "count", micros, window_ticks(window, micros),
                 float(epsilon), float(delta), as_int(seed, "seed"))
        return cls(j)

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> "DistinctSketch":
        """Decodes (and validates) a serialized sketch, e.g. a value of a ``distinct_agg`` column."""
        return cls(decode("distinct", data))

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

    @staticmethod
    def merge(sketches: Iterable[Union["DistinctSketch", bytes, bytearray]]) -> "DistinctSketch":
        """Lossless merge of sketches (or their bytes) with equal epsilon, delta and seed."""
        return _merge_all(DistinctSketch, "distinct", sketches, "sketch")

    def __repr__(self) -> str:
        i = self.info()
        return (f"DistinctSketch(window={i['window']}, epsilon={i['epsilon']}, delta={i['delta']}, "
                f"instances={i['wave_instances']}, total_weight={i['total_weight']})")


class DyadicSketch(_Sketch):
    """A dyadic ECM-sketch over integer, float, str or bytes keys (docs/design/dyadic.md, "Dyadic ECM-sketch"):
    heavy hitters, top-k, range counts, ranks and quantiles over any range within the window, mergeable
    order-preservingly across sites. The key type is fixed by the first key added. str and bytes keys
    are counted by fingerprint, with a table of candidate keys so that heavy hitters and top-k return
    the keys themselves; ranges, ranks and quantiles of them are refused (no meaningful order)."""

    def __init__(self, jobj: Any):
        self._j = jobj

    @classmethod
    def create(cls, epsilon: float = 0.05, delta: float = 0.01, window: Optional[RangeLike] = None, *,
               universe_bits: int = 32, window_type: str = "time", timestamps: str = "ticks",
               merge_levels: int = 0, seed: int = DEFAULT_SEED, cell: str = "eh",
               candidates: int = 1024, phi_min: float = 1.0) -> "DyadicSketch":
        """A new empty sketch, planned as ``dyadic_agg`` plans (one merge level plus ``merge_levels``).

        :param epsilon: the heavy-hitter gap of ECM Theorem 5.
        :param universe_bits: integer keys must lie in [-2^(bits-1), 2^(bits-1)) (64: any int64).
        :param cell: ``'eh'`` (default) or ``'dwave'``.
        :param candidates: str / bytes keys: the candidate keys kept per window epoch (docs/design/string-keys.md).
        :param phi_min: heavy hitters with any ratio phi >= phi_min report no key below phi times the
            total with probability >= 1 - delta (the sketch is built with delta * phi_min).
        """
        micros = micros_and_type(timestamps, window_type)
        w = window_ticks(window, micros)
        if not isinstance(cell, str):
            raise SketchError(f"cell must be 'eh' or 'dwave', got {cell!r}")
        d = float(call(_jvm.api().dyadicDeltaFor, float(delta), float(phi_min)))
        j = call(_jvm.api().dyadicCreate, window_type == "count", micros, w, float(epsilon), d,
                 levels(merge_levels), as_int(seed, "seed"), cell, as_jint(universe_bits, "universe_bits"),
                 as_jint(candidates, "candidates"))
        return cls(j)

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> "DyadicSketch":
        """Decodes (and validates) a serialized dyadic sketch, e.g. a value of a ``dyadic_agg`` column."""
        return cls(decode("dyadic", data))

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

    @staticmethod
    def merge(sketches: Iterable[Union["DyadicSketch", bytes, bytearray]]) -> "DyadicSketch":
        """Order-preserving n-way merge (one merge level) of dyadic sketches or their bytes."""
        return _merge_all(DyadicSketch, "dyadic", sketches, "sketch")

    def __repr__(self) -> str:
        i = self.info()
        return (f"DyadicSketch(universe_bits={i['universe_bits']}, key_type={i['key_type']}, window={i['window']}, "
                f"epsilon={i['epsilon']}, merge_depth={i['merge_depth']}, total_weight={i['total_weight']})")


# --------------------------------------------------------------------------- async sketches


class _Async(_Sketch):
    """Shared code of the async sketches (docs/design/async.md, "Asynchronous streams"): rows in any
    timestamp order, lossless merges, answers within (epsilon, delta)."""

    _measures: tuple = ()

    def __init__(self, jobj: Any):
        self._j = jobj
        m = str(jobj.measureName())
        if m not in self._measures:
            raise SketchError(f"expected an async {' or '.join(self._measures)} sketch, got an async {m} sketch")

    @classmethod
    def _create(cls, measure: str, epsilon: float, delta: float, window: Optional[RangeLike], timestamps: str,
                seed: int, ids: bool, tradeoff: Optional[int]) -> Any:
        micros = micros_and_type(timestamps, "time")
        w = window_ticks(window, micros)
        t = -1 if tradeoff is None else as_jint(tradeoff, "tradeoff")
        return cls(call(_jvm.api().asyncCreate, measure, micros, w, float(epsilon), float(delta), as_int(seed, "seed"),
                        bool(ids), t))

    @classmethod
    def from_bytes(cls: Type[_A], data: Union[bytes, bytearray, memoryview]) -> _A:
        """Decodes (and validates) a serialized async sketch, e.g. a value of an ``async_*_agg`` column."""
        return cls(decode("async", data))

    @classmethod
    def merge(cls: Type[_A], sketches: Iterable[Any]) -> _A:
        """Lossless union of sketches (or their bytes): the bytes of one sketch over all their elements."""
        return _merge_all(cls, "async", sketches, cls.__name__)

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
    ``ids=True``; an identity added twice (here or at another site) counts once."""

    _measures = ("sum", "count")

    @classmethod
    def create(cls, epsilon: float = 0.1, delta: float = 0.05, window: Optional[RangeLike] = None, *,
               timestamps: str = "ticks", seed: int = DEFAULT_SEED, ids: bool = False,
               tradeoff: Optional[int] = None, count: bool = False) -> "AsyncSum":
        """A new empty sketch, as ``async_sum_agg`` (``count=True``: as ``async_count_agg``) builds it."""
        return cls._create("count" if count else "sum", epsilon, delta, window, timestamps, seed, ids, tradeoff)

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

    def __repr__(self) -> str:
        i = self.info()
        return (f"AsyncSum(measure={i['measure']}, window={i['window']}, epsilon={i['epsilon']}, delta={i['delta']}, "
                f"retained={i['retained']}, total_weight={i['total_weight']})")


class AsyncQuantile(_Async):
    """The Xu-Tirthapura-Busch median sketch for any quantile: float values added in any timestamp
    order; ``quantile(q)`` over any range has rank within ``epsilon`` times the range's count of
    ``q`` times it, with probability >= 1 - ``delta``."""

    _measures = ("quantile",)

    @classmethod
    def create(cls, epsilon: float = 0.1, delta: float = 0.05, window: Optional[RangeLike] = None, *,
               timestamps: str = "ticks", seed: int = DEFAULT_SEED, ids: bool = False) -> "AsyncQuantile":
        """A new empty sketch, as ``async_quantile_agg`` builds it (epsilon < 0.5)."""
        return cls._create("quantile", epsilon, delta, window, timestamps, seed, ids, 0)

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

    def __repr__(self) -> str:
        i = self.info()
        return (f"AsyncQuantile(window={i['window']}, epsilon={i['epsilon']}, delta={i['delta']}, "
                f"retained={i['retained']}, total_weight={i['total_weight']})")


# ------------------------------------------------------------------------------ decayed sketches


class DecayedSketch(_Sketch):
    """A duplicate-insensitive, mergeable, time-decayed sketch (Cormode-Tirthapura-Xu; docs/design/decayed.md,
    "Decayed sketch"), the bytes of ``decayed_agg``. Rows may come in any order; each distinct id
    counts once however often, and at however many sites, it is seen. Built without ``decay`` (the
    general sketch), it takes the decay at query time: ``'window'`` (param W: ages < W count fully),
    ``'exp'`` (param = half-life), ``'poly'`` (param = alpha). Built with one, queries use that decay
    (the decay arguments may be omitted)."""

    def __init__(self, jobj: Any):
        self._j = jobj

    @classmethod
    def create(cls, epsilon: float = 0.1, delta: float = 0.05, *, decay: Optional[str] = None,
               decay_param: Optional[float] = None, constant: float = 4.0, max_weight: int = 1024,
               resolution: Optional[int] = None, seed: int = DEFAULT_SEED, timestamps: str = "ticks") -> "DecayedSketch":
        """A new empty sketch with ``decayed_agg``'s parameters (the same arguments give mergeable sketches)."""
        micros = micros_and_type(timestamps, "time")
        if decay is not None and not isinstance(decay, str):
            raise SketchError(f"decay must be 'window', 'exp' or 'poly', got {decay!r}")
        if (decay is None) != (decay_param is None):
            raise SketchError("decay and decay_param go together" if decay is None else f"decay '{decay}' needs a decay_param")
        res = 0 if resolution is None else as_int(resolution, "resolution")
        if resolution is not None and res <= 0:
            raise SketchError(f"resolution must be a positive integer, got {resolution!r}")
        j = call(_jvm.api().decayedCreate, decay, float(0.0 if decay_param is None else decay_param), float(epsilon),
                 float(delta), float(constant), as_int(max_weight, "max_weight"), res, as_int(seed, "seed"), micros)
        return cls(j)

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> "DecayedSketch":
        """Decodes (and validates) a serialized decayed sketch, e.g. a value of a ``decayed_agg`` column."""
        return cls(decode("decayed", data))

    def _ids(self, ids: Any, ws: np.ndarray, vs: np.ndarray, ts: np.ndarray) -> Any:
        api = _jvm.api()
        import jpype
        if ids is None:
            return call(api.decayedIdsDefault, longs(ws), jpype.JArray(jpype.JDouble)(vs), longs(ts))
        arr = np.asarray(ids) if not isinstance(ids, np.ndarray) else ids
        if arr.dtype.kind == "f":
            return call(api.decayedIdsDouble, jpype.JArray(jpype.JDouble)(np.ascontiguousarray(arr, dtype=np.float64)))
        ks = jvm_keys(ids, "ids")
        if len(ks.values) != len(ws):
            raise SketchError(f"ids and weights differ in length: {len(ks.values)} vs {len(ws)}")
        order = np.arange(len(ws))
        if ks.kind == "Longs":
            return call(api.decayedIdsLong, ks.jvm(order))
        if ks.kind == "Strings":
            return call(api.decayedIdsString, ks.jvm(order))
        return call(api.decayedIdsBytes, ks.jvm(order))

    def add(self, weight: int, ts: TimeLike, *, value: Optional[float] = None, id: Any = None) -> None:
        """Adds one observation: integer ``weight`` (1 for counts) at ``ts``; ``value`` (default the
        weight) is what quantiles, frequent items and selectivity rank; ``id`` (int, float, str or bytes)
        defaults to the triple (weight, value, ts)."""
        if ts is None:
            raise SketchError("ts must not be None")
        self.add_many([weight], [ts], values=None if value is None else [value], ids=None if id is None else [id])

    def add_many(self, weights: Any, timestamps: Any, *, values: Any = None, ids: Any = None) -> None:
        """Adds a batch in any order (numpy arrays or sequences of equal length)."""
        n = len(timestamps)
        for name, x in (("weights", weights), ("values", values), ("ids", ids)):
            if x is not None and len(x) != n:
                raise SketchError(f"{name} and timestamps differ in length: {len(x)} vs {n}")
        perm, ts, ws = sorted_batch(timestamps, weights, None, self._micros)
        try:
            vs = ws.astype(np.float64) if values is None else np.asarray(values, dtype=np.float64)[perm]
        except (TypeError, ValueError):
            raise SketchError("values must be numbers") from None
        if np.isnan(vs).any():
            raise SketchError("value must not be NaN")
        idl = None if ids is None else (ids[perm] if isinstance(ids, np.ndarray) else [ids[int(i)] for i in perm])
        idh = self._ids(idl, ws, vs, ts)
        import jpype
        call(_jvm.api().decayedAdd, self._j, idh, longs(ws), jpype.JArray(jpype.JDouble)(np.ascontiguousarray(vs)),
             longs(ts))

    def _q(self, decay: Optional[str], param: Optional[float], now: Optional[TimeLike]):
        import jpype
        p = None if param is None else jpype.JObject(float(param), jpype.JClass("java.lang.Double"))
        return decay, p, jlong(time_ticks(now, self._micros))

    def sum(self, decay: Optional[str] = None, param: Optional[float] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated decayed sum over the distinct elements with ts <= now (default: the last timestamp)."""
        return float(call(_jvm.api().decayedSum, self._j, *self._q(decay, param, now)))

    def selectivity(self, lo: float, hi: float, decay: Optional[str] = None, param: Optional[float] = None,
                    now: Optional[TimeLike] = None) -> float:
        """Estimated decayed fraction of the weight whose value lies in [lo, hi]."""
        return float(call(_jvm.api().decayedSelectivity, self._j, float(lo), float(hi), *self._q(decay, param, now)))

    def quantile(self, q: float, decay: Optional[str] = None, param: Optional[float] = None,
                 now: Optional[TimeLike] = None) -> Optional[float]:
        """The decayed q-quantile of the values (None when nothing has weight)."""
        v = call(_jvm.api().decayedQuantile, self._j, float(q), *self._q(decay, param, now))
        return None if v is None else float(v)

    def frequent(self, phi: float, decay: Optional[str] = None, param: Optional[float] = None,
                 now: Optional[TimeLike] = None) -> List[Dict[str, float]]:
        """Values whose estimated decayed share exceeds phi - epsilon/2, as dicts (value, share), largest first."""
        a = list(call(_jvm.api().decayedFrequent, self._j, float(phi), *self._q(decay, param, now)))
        return [{"value": float(a[i]), "share": float(a[i + 1])} for i in range(0, len(a), 2)]

    @staticmethod
    def merge(sketches: Iterable[Union["DecayedSketch", bytes, bytearray]]) -> "DecayedSketch":
        """Lossless n-way merge (equal parameters and seed); an id several inputs saw counts once."""
        return _merge_all(DecayedSketch, "decayed", sketches, "sketch")

    def __repr__(self) -> str:
        i = self.info()
        return f"DecayedSketch(epsilon={i['epsilon']}, delta={i['delta']}, total_weight={i['total_weight']})"
