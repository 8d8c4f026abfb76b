"""Bytes-level sketch objects (no Spark): build, query and merge serialized sketches in Python.

They run the same JVM code as the SQL functions, in-process through JPype, so a sketch made by
``ecm_agg`` in any Spark cluster can be read, queried and merged here, and vice versa.

Planning is the same as in SQL: ``epsilon`` is the bound after one merge level plus
``merge_levels`` further ones, so sketches created here merge with ``ecm_agg`` sketches made with the
same arguments.
"""
from __future__ import annotations

import datetime as _dt
from typing import Any, Dict, Iterable, List, Optional, Union

import numpy as np

from . import SketchError
from . import _jvm
from ._units import RangeLike, TimeLike, datetime_micros, range_ticks, time_ticks, window_ticks

__all__ = ["EcmSketch", "ExpHistogram", "DetWave", "DistinctSketch", "DEFAULT_SEED"]

#: The default hash seed, the same as SQL's ``ecm_agg``.
DEFAULT_SEED = 0x5EED5EED

Key = Union[int, str, bytes]


def _call(fn, *args):
    """Calls the JVM and turns a Java exception into :class:`SketchError` with its message."""
    import jpype
    try:
        return fn(*args)
    except jpype.JException as e:
        raise SketchError(_jvm.java_error(e)) from None


def _jlong(x: Optional[int]):
    import jpype
    return None if x is None else jpype.JObject(int(x), jpype.JClass("java.lang.Long"))


def _longs(a: Any):
    import jpype
    arr = np.ascontiguousarray(np.asarray(a, dtype=np.int64))
    return jpype.JArray(jpype.JLong)(arr)


def _py(v: Any) -> Any:
    """A boxed Java value as a Python value."""
    if v is None:
        return None
    import jpype
    if isinstance(v, jpype.JString) or (hasattr(v, "getClass") and str(v.getClass().getName()) == "java.lang.String"):
        return str(v)
    name = str(v.getClass().getName()) if hasattr(v, "getClass") else ""
    if name in ("java.lang.Double", "java.lang.Float"):
        return float(v)
    if name in ("java.lang.Long", "java.lang.Integer", "java.lang.Short", "java.lang.Byte"):
        return int(v)
    if name == "java.lang.Boolean":
        return bool(v)
    return v


def _int(x: Any, what: str) -> int:
    """An exact integer (ints, numpy integers, integral floats); anything else is refused."""
    if isinstance(x, bool):
        raise SketchError(f"{what} must be an integer, got {x!r}")
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)) and float(x).is_integer():
        return int(x)
    raise SketchError(f"{what} must be an integer, got {x!r}")


def _int_array(a: Any, what: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(np.floor(arr) == arr):
            raise SketchError(f"{what} must be integers; got non-integral values")
        return arr.astype(np.int64)
    if arr.dtype.kind == "b":
        raise SketchError(f"{what} must be integers, got booleans")
    if arr.dtype == object and len(arr):
        return np.array([_int(x, what) for x in arr], dtype=np.int64)
    if len(arr) == 0:
        return arr.astype(np.int64)
    raise SketchError(f"{what} must be integers, got dtype {arr.dtype}")


def _as_bytes(x: Any) -> bytes:
    if isinstance(x, (bytes, bytearray, memoryview)):
        return bytes(x)
    raise TypeError(f"expected bytes, got {type(x).__name__}")


class _Sketch:
    _j: Any

    @property
    def _micros(self) -> bool:
        return bool(self._j.spec().tsMicros())

    def to_bytes(self) -> bytes:
        """The sketch in binary format v1 (docs/FORMAT.md), the same bytes SQL produces."""
        return bytes(_call(_jvm.api().encode, self._j))

    def __bytes__(self) -> bytes:
        return self.to_bytes()

    def info(self) -> Dict[str, Any]:
        """Kind, parameters, merge depth, certified bounds, timestamps and size (as ``sketch_info``)."""
        api = _jvm.api()
        fields = [str(f) for f in api.infoFields()]
        values = _call(api.info, self._j)
        return {f: _py(v) for f, v in zip(fields, values)}

    @property
    def error_bound(self) -> float:
        """The certified relative error bound of the planned query kind at the current merge depth."""
        return float(self._j.errorBound())

    @property
    def merge_depth(self) -> int:
        """Levels of order-preserving merge behind this sketch (0 for a sketch built directly)."""
        return int(self._j.mergeDepth())

    @property
    def last_ts(self) -> Optional[int]:
        """The latest timestamp added (ticks), or None for an empty sketch."""
        return None if self._j.isEmpty() else int(self._j.lastTs())

    def _sorted_batch(self, timestamps: Any, values: Any):
        ts = np.asarray(timestamps)
        if ts.dtype.kind == "M":
            ts = ts.astype("datetime64[us]").astype(np.int64)
        elif ts.dtype == object and len(ts) and isinstance(ts.flat[0], _dt.datetime):
            ts = np.array([datetime_micros(t) for t in ts], dtype=np.int64)
        ts = _int_array(ts, "timestamps")
        vs = None if values is None else _int_array(values, "values")
        if vs is not None and len(vs) != len(ts):
            raise SketchError(f"timestamps and values differ in length: {len(ts)} vs {len(vs)}")
        if vs is not None and len(vs) and vs.min() < 0:
            raise SketchError(f"weight must be non-negative, got {int(vs.min())}")
        order = np.argsort(ts, kind="stable")
        ts = ts[order]
        last = self.last_ts
        if last is not None and len(ts) and ts[0] < last:
            n_old = int(np.count_nonzero(ts < last))
            raise SketchError(f"{n_old} timestamps precede the sketch's last timestamp {last}; a sketch object takes "
                              "time in non-decreasing order across calls (sort once, or build with SQL ecm_agg)")
        return order, ts, (None if vs is None else vs[order])


def _micros_and_type(timestamps: str, window_type: str) -> bool:
    if timestamps not in ("ticks", "timestamp"):
        raise SketchError(f"timestamps must be 'ticks' or 'timestamp', got {timestamps!r}")
    if window_type not in ("time", "count"):
        raise SketchError(f"window_type must be 'time' or 'count', got {window_type!r}")
    return timestamps == "timestamp"


def _levels(merge_levels: Any) -> int:
    if isinstance(merge_levels, bool) or not isinstance(merge_levels, int) or merge_levels < 0:
        raise SketchError(f"merge_levels must be a non-negative int, got {merge_levels!r}")
    return 1 + merge_levels


def _arrivals(max_arrivals: Any) -> int:
    """max_arrivals for the JVM: a positive int, or 0 for "no bound"."""
    if max_arrivals is None:
        return 0
    u = _int(max_arrivals, "max_arrivals")
    if u <= 0:
        raise SketchError(f"max_arrivals must be a positive integer, got {u}")
    return u


def _decode(kind: str, data: Any):
    """PyApi.decode: bytes of a sketch of the registered kind `kind` ('ecm', 'eh', 'dwave', 'distinct')."""
    import jpype
    return _call(_jvm.api().decode, kind, jpype.JArray(jpype.JByte)(_as_bytes(data)))


def _merge_all(cls: Any, kind: str, sketches: Iterable[Any], what: str) -> Any:
    """PyApi.merge: the cross-site merge of the registered kind `kind`."""
    import jpype
    items = [s._j if isinstance(s, cls) else cls.from_bytes(s)._j for s in sketches if s is not None]
    if not items:
        raise SketchError(f"merge needs at least one {what}")
    arr = jpype.JArray(jpype.JClass("ecmsketch.core.WindowSketch"))(items)
    return cls(_call(_jvm.api().merge, kind, arr))


def _key_array(keys: Any, what: str) -> np.ndarray:
    """A batch of keys (or values) as a numpy array of int64, str or bytes objects; anything that
    would change a key on the way (numpy 'S' arrays drop trailing NUL bytes, integers beyond
    BIGINT would wrap) is refused."""
    if isinstance(keys, np.ndarray):
        if keys.dtype.kind == "S":
            raise SketchError(f"numpy bytes arrays (dtype 'S') cannot hold trailing NUL bytes, so {what} would change; "
                              "pass a list or an object array of bytes")
        arr = keys
    else:
        keys = list(keys)
        if keys and all(isinstance(k, (bytes, bytearray)) for k in keys):
            arr = np.empty(len(keys), dtype=object)
            arr[:] = [bytes(k) for k in keys]
            return arr
        kinds = {str if isinstance(k, str) else int if isinstance(k, (int, np.integer)) and not isinstance(k, bool)
                 else type(k) for k in keys}
        if len(kinds) > 1:  # numpy would turn [1, "a"] into ["1", "a"]
            raise SketchError(f"{what} must be all integers, all strings or all bytes, got a mix of "
                              + ", ".join(sorted(t.__name__ for t in kinds)))
        if keys and all(isinstance(k, int) and not isinstance(k, bool) for k in keys) and \
                any(k > 2 ** 63 - 1 or k < -2 ** 63 for k in keys):
            raise SketchError(f"{what} must be integers that fit in BIGINT, got {max(keys, key=abs)}")
        try:
            arr = np.asarray(keys)
        except OverflowError:
            raise SketchError(f"{what} must be integers that fit in BIGINT, strings or bytes") from None
    if arr.dtype.kind == "u" and len(arr) and int(arr.max()) > 2 ** 63 - 1:
        raise SketchError(f"{what} must be integers that fit in BIGINT, got {int(arr.max())}")
    if arr.dtype.kind == "O" and len(arr) and all(isinstance(k, int) and not isinstance(k, bool) for k in arr):
        # numpy keeps Python ints beyond 64 bits as objects
        raise SketchError(f"{what} must be integers that fit in BIGINT, strings or bytes")
    return arr


def _add_keyed(api_prefix: str, jobj: Any, keys_arr: np.ndarray, order: np.ndarray, rest: tuple,
               what: str) -> None:
    """Calls PyApi.<prefix>Longs/Strings/Bytes(jobj, keys in timestamp order, *rest)."""
    import jpype
    api = _jvm.api()
    if keys_arr.dtype.kind in "iu":
        _call(getattr(api, api_prefix + "Longs"), jobj, _longs(keys_arr[order]), *rest)
    elif keys_arr.dtype.kind == "U" or (keys_arr.dtype.kind == "O" and all(isinstance(k, str) for k in keys_arr)):
        ks = [str(k) for k in keys_arr[order]]
        _call(getattr(api, api_prefix + "Strings"), jobj, jpype.JArray(jpype.JString)(ks), *rest)
    elif keys_arr.dtype.kind == "O" and all(isinstance(k, (bytes, bytearray)) for k in keys_arr):
        ks = [jpype.JArray(jpype.JByte)(_as_bytes(k)) for k in keys_arr[order]]
        _call(getattr(api, api_prefix + "Bytes"), jobj, jpype.JArray(jpype.JArray(jpype.JByte))(ks), *rest)
    else:
        raise SketchError(f"{what} must be all integers, all strings or all bytes, got dtype {keys_arr.dtype}")


class EcmSketch(_Sketch):
    """An ECM-sketch: Count-Min array of sliding-window counters. Point, inner-product, self-join and
    total queries over any range within the window, mergeable order-preservingly across sites."""

    def __init__(self, jobj: Any):
        self._j = jobj

    @classmethod
    def create(cls, epsilon: float = 0.05, delta: float = 0.01, window: Optional[RangeLike] = None, *,
               window_type: str = "time", timestamps: str = "ticks", optimize_for: str = "point",
               merge_levels: int = 0, seed: int = DEFAULT_SEED, cell: str = "eh",
               max_arrivals: Optional[int] = None) -> "EcmSketch":
        """A new empty sketch.

        :param timestamps: ``'ticks'`` (integers) or ``'timestamp'`` (microseconds, as SQL TIMESTAMP;
            then ``window`` and ranges may be timedeltas or strings such as ``'10 minutes'``).
        :param cell: ``'eh'`` (exponential histograms, default), ``'dwave'`` (deterministic waves) or
            ``'rwave'`` (randomized waves: point queries only).
        :param max_arrivals: for ``'dwave'`` cells, an upper bound on the weight in any window
            (default: no bound).
        """
        micros = _micros_and_type(timestamps, window_type)
        w = window_ticks(window, micros)
        if not isinstance(cell, str):
            raise SketchError(f"cell must be 'eh', 'dwave' or 'rwave', got {cell!r}")
        j = _call(_jvm.api().ecmCreateCell, window_type == "count", micros, w, float(epsilon), float(delta),
                  optimize_for, _levels(merge_levels), int(seed), cell, _arrivals(max_arrivals))
        return cls(j)

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> "EcmSketch":
        """Decodes (and validates) a serialized ECM-sketch, e.g. a value of an ``ecm_agg`` column."""
        return cls(_decode("ecm", data))

    def add(self, key: Key, ts: TimeLike, value: int = 1) -> None:
        """Adds weight ``value`` for ``key`` at ``ts`` (non-decreasing across calls)."""
        t = time_ticks(ts, self._micros, "ts")
        if t is None:
            raise SketchError("ts must not be None")
        if isinstance(key, bool) or key is None:
            raise SketchError(f"key must be str, bytes or int, got {key!r}")
        if isinstance(key, (int, np.integer)):
            _call(self._j.add, int(key), t, _int(value, 'value'))
        elif isinstance(key, str):
            _call(self._j.add, key, t, _int(value, 'value'))
        elif isinstance(key, (bytes, bytearray)):
            import jpype
            _call(self._j.add, jpype.JArray(jpype.JByte)(bytes(key)), t, _int(value, 'value'))
        else:
            raise SketchError(f"key must be str, bytes or int, got {type(key).__name__}")

    def add_many(self, keys: Any, timestamps: Any, values: Any = None) -> None:
        """Adds a batch (numpy arrays or sequences). The batch may be in any order; it is sorted by
        timestamp, and must not precede the sketch's last timestamp."""
        keys_arr = _key_array(keys, "keys")
        if len(keys_arr) != len(timestamps):
            raise SketchError(f"keys and timestamps differ in length: {len(keys_arr)} vs {len(timestamps)}")
        order, ts, vs = self._sorted_batch(timestamps, values)
        _add_keyed("add", self._j, keys_arr, order, (_longs(ts), None if vs is None else _longs(vs)), "keys")

    def _fp(self, key: Key):
        if isinstance(key, bool) or key is None:
            raise SketchError(f"key must be str, bytes or int, got {key!r}")
        if isinstance(key, (int, np.integer)):
            return _call(self._j.fingerprintFor, int(key))
        if isinstance(key, str):
            return _call(self._j.fingerprintFor, key)
        if isinstance(key, (bytes, bytearray)):
            import jpype
            return _call(self._j.fingerprintFor, jpype.JArray(jpype.JByte)(bytes(key)))
        raise SketchError(f"key must be str, bytes or int, got {type(key).__name__}")

    def point(self, key: Key, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated weight of ``key`` in ``(now - range, now]``; range defaults to the window, now to
        the last timestamp. Within ``info()['point_error_bound'] * total`` with probability 1 - delta."""
        fp = self._fp(key)
        return float(_call(self._j.pointFingerprint, fp, _jlong(range_ticks(range, self._micros)),
                           _jlong(time_ticks(now, self._micros))))

    def inner_product(self, other: "EcmSketch", range: Optional[RangeLike] = None,
                      now: Optional[TimeLike] = None) -> float:
        """Estimated inner product (join size) with another sketch of the same shape and seed."""
        if not isinstance(other, EcmSketch):
            raise SketchError(f"other must be an EcmSketch, got {type(other).__name__}")
        return float(_call(self._j.innerProduct, other._j, _jlong(range_ticks(range, self._micros)),
                           _jlong(time_ticks(now, self._micros))))

    def self_join(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated self-join size F2 over the range."""
        return float(_call(self._j.selfJoin, _jlong(range_ticks(range, self._micros)),
                           _jlong(time_ticks(now, self._micros))))

    def total(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated total weight over the range (deterministic bound ``info()['total_error_bound']``)."""
        return float(_call(self._j.total, _jlong(range_ticks(range, self._micros)),
                           _jlong(time_ticks(now, self._micros))))

    @staticmethod
    def merge(sketches: Iterable[Union["EcmSketch", bytes, bytearray]]) -> "EcmSketch":
        """Order-preserving n-way merge (one merge level) of sketches or their bytes from many sites."""
        return _merge_all(EcmSketch, "ecm", sketches, "sketch")

    def __repr__(self) -> str:
        i = self.info()
        return (f"EcmSketch(cell={i['cell_kind']}, window={i['window']}, epsilon={i['epsilon']}, {i['width']}x{i['depth']}, "
                f"merge_depth={i['merge_depth']}, error_bound={i['error_bound']:.4g}, total_weight={i['total_weight']})")


class _Counter(_Sketch):
    """A sliding-window counter sketch (exponential histogram or deterministic wave)."""

    _kind = ""  # the registered sketch kind ('eh', 'dwave')

    def __init__(self, jobj: Any):
        self._j = jobj

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> Any:
        """Decodes (and validates) serialized bytes of this kind, e.g. a value of its SQL aggregate."""
        return cls(_decode(cls._kind, data))

    def add(self, ts: TimeLike, value: int = 1) -> None:
        """Adds weight ``value`` at ``ts`` (non-decreasing across calls)."""
        t = time_ticks(ts, self._micros, "ts")
        if t is None:
            raise SketchError("ts must not be None")
        _call(self._j.add, t, _int(value, 'value'))

    def add_many(self, timestamps: Any, values: Any = None) -> None:
        """Adds a batch in any order (sorted here; must not precede the last timestamp)."""
        _, ts, vs = self._sorted_batch(timestamps, values)
        _call(_jvm.api().addMany, self._j, _longs(ts), None if vs is None else _longs(vs))

    def count(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated weight in ``(now - range, now]``, within ``error_bound`` relative error."""
        return float(_call(self._j.count, _jlong(range_ticks(range, self._micros)),
                           _jlong(time_ticks(now, self._micros))))

    @classmethod
    def merge(cls, sketches: Iterable[Any]) -> Any:
        """Order-preserving n-way merge of sketches of this kind or their bytes (time-based windows only)."""
        return _merge_all(cls, cls._kind, sketches, cls.__name__)


class ExpHistogram(_Counter):
    """An exponential histogram: counts arrivals (or sums weights) over a sliding window with a
    deterministic relative error bound."""

    _kind = "eh"

    @classmethod
    def create(cls, epsilon: float = 0.05, window: Optional[RangeLike] = None, *, window_type: str = "time",
               timestamps: str = "ticks", merge_levels: int = 0) -> "ExpHistogram":
        """A new empty histogram (``timestamps`` as in :meth:`EcmSketch.create`)."""
        micros = _micros_and_type(timestamps, window_type)
        j = _call(_jvm.api().ehCreate, window_type == "count", micros, window_ticks(window, micros),
                  float(epsilon), _levels(merge_levels))
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
        micros = _micros_and_type(timestamps, window_type)
        j = _call(_jvm.api().dwCreate, window_type == "count", micros, window_ticks(window, micros),
                  float(epsilon), _levels(merge_levels), _arrivals(max_arrivals))
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
        micros = _micros_and_type(timestamps, window_type)
        j = _call(_jvm.api().distinctCreate, window_type == "count", micros, window_ticks(window, micros),
                  float(epsilon), float(delta), int(seed))
        return cls(j)

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> "DistinctSketch":
        """Decodes (and validates) a serialized sketch, e.g. a value of a ``distinct_agg`` column."""
        return cls(_decode("distinct", data))

    def add(self, value: Key, ts: TimeLike) -> None:
        """Records an occurrence of ``value`` (str, bytes or int) at ``ts`` (non-decreasing)."""
        t = time_ticks(ts, self._micros, "ts")
        if t is None:
            raise SketchError("ts must not be None")
        if isinstance(value, bool) or value is None:
            raise SketchError(f"value must be str, bytes or int, got {value!r}")
        if isinstance(value, (int, np.integer)):
            _call(self._j.add, int(value), t)
        elif isinstance(value, str):
            _call(self._j.add, value, t)
        elif isinstance(value, (bytes, bytearray)):
            import jpype
            _call(self._j.add, jpype.JArray(jpype.JByte)(bytes(value)), t)
        else:
            raise SketchError(f"value must be str, bytes or int, got {type(value).__name__}")

    def add_many(self, values: Any, timestamps: Any) -> None:
        """Adds a batch in any order (sorted here; must not precede the last timestamp)."""
        vals = _key_array(values, "values")
        if len(vals) != len(timestamps):
            raise SketchError(f"values and timestamps differ in length: {len(vals)} vs {len(timestamps)}")
        if vals.dtype.kind == "b":
            raise SketchError("values must be all integers, all strings or all bytes, got booleans")
        order, ts, _ = self._sorted_batch(timestamps, None)
        _add_keyed("add", self._j, vals, order, (_longs(ts), None), "values")

    def count(self, range: Optional[RangeLike] = None, now: Optional[TimeLike] = None) -> float:
        """Estimated number of distinct values seen in ``(now - range, now]``."""
        return float(_call(self._j.count, _jlong(range_ticks(range, self._micros)),
                           _jlong(time_ticks(now, self._micros))))

    @staticmethod
    def merge(sketches: Iterable[Union["DistinctSketch", bytes, bytearray]]) -> "DistinctSketch":
        """Lossless merge of sketches (or their bytes) with equal epsilon, delta and seed."""
        return _merge_all(DistinctSketch, "distinct", sketches, "sketch")

    def __repr__(self) -> str:
        i = self.info()
        return (f"DistinctSketch(window={i['window']}, epsilon={i['epsilon']}, delta={i['delta']}, "
                f"instances={i['wave_instances']}, total_weight={i['total_weight']})")
