"""Conversions between Python values and the Java types of the JVM facade ``ecmsketch.api.PyApi``,
with the validation that goes with them. The sketch classes (package ``sketches``) call only these.

Keys (and the values of a distinct-count sketch) go through one function, :func:`jvm_keys`, for a
single key and for a batch alike: it decides the key type once (``Longs``, ``Strings`` or
``Bytes``, the suffix of PyApi's batch methods) and refuses whatever would change a key on the way.
"""
from __future__ import annotations

import datetime as _dt
from typing import Any, Iterable, List, NamedTuple, Optional, Tuple

import numpy as np

from . import SketchError
from . import _jvm
from ._units import I64_MAX, I64_MIN, datetime_micros, not_bigint

#: The key types, named as the suffix of PyApi's batch methods (``addLongs``, ``addStrings``, ``addBytes``).
LONGS, STRINGS, BYTES = "Longs", "Strings", "Bytes"


def call(fn: Any, *args: Any) -> Any:
    """Calls the JVM and turns a Java exception into :class:`SketchError` with its message."""
    import jpype
    try:
        return fn(*args)
    except jpype.JException as e:
        raise SketchError(_jvm.java_error(e)) from None


def jlong(x: Optional[int]) -> Any:
    """An optional ``java.lang.Long`` (None stays null)."""
    import jpype
    return None if x is None else jpype.JObject(int(x), jpype.JClass("java.lang.Long"))


def longs(a: Any) -> Any:
    """A ``long[]`` of an int64-convertible array."""
    import jpype
    arr = np.ascontiguousarray(np.asarray(a, dtype=np.int64))
    return jpype.JArray(jpype.JLong)(arr)


def jbytes(b: bytes) -> Any:
    """A ``byte[]`` holding exactly ``b``."""
    import jpype
    return jpype.JArray(jpype.JByte)(b)


def py_value(v: Any) -> Any:
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


def as_int(x: Any, what: str, lo: int = I64_MIN, hi: int = I64_MAX) -> int:
    """An exact integer in [lo, hi] (default: a BIGINT) from an int, numpy integer or integral float;
    anything else is refused."""
    if isinstance(x, bool):
        raise SketchError(f"{what} must be an integer, got {x!r}")
    if isinstance(x, (int, np.integer)):
        v = int(x)
    elif isinstance(x, (float, np.floating)) and float(x).is_integer():
        v = int(x)
    else:
        raise SketchError(f"{what} must be an integer, got {x!r}")
    if not lo <= v <= hi:
        if (lo, hi) == (I64_MIN, I64_MAX):
            raise not_bigint(what, v)
        raise SketchError(f"{what} must be in [{lo}, {hi}], got {v}")
    return v


def as_float(x: Any, what: str) -> float:
    """A real number (int, float or numpy number) as a float; a bool, a string or anything else is
    refused naming ``what`` (the JVM checks the range each parameter takes)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise SketchError(f"{what} must be a number, got {x!r}")
    return float(x)


def as_flag(x: Any, what: str) -> bool:
    """A bool (Python or numpy); anything else (1, 'yes', None) is refused naming ``what``."""
    if not isinstance(x, (bool, np.bool_)):
        raise SketchError(f"{what} must be True or False, got {x!r}")
    return bool(x)


def as_option(x: Any, what: str, *choices: str) -> str:
    """A string option. Anything but a string is refused naming ``what`` and ``choices``; the value of
    a string is checked by the JVM (whose messages say more, e.g. why a cell kind is refused)."""
    if not isinstance(x, str):
        names = ", ".join(repr(c) for c in choices[:-1]) + f" or {choices[-1]!r}" if len(choices) > 1 else repr(choices[0])
        raise SketchError(f"{what} must be {names}, got {x!r}")
    return x


def as_jint(x: Any, what: str) -> int:
    """An exact integer that fits in a Java int (the JVM checks the range each parameter takes)."""
    v = as_int(x, what)
    if not -2 ** 31 <= v < 2 ** 31:
        raise SketchError(f"{what} must fit in a 32-bit INT, got {v}")
    return v


def int_array(a: Any, what: str) -> np.ndarray:
    """A one-dimensional batch of exact integers as int64 (integral floats accepted); anything else,
    and values outside the BIGINT range, are refused."""
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise SketchError(f"{what} must be a one-dimensional sequence, got an array of shape {arr.shape}")
    if len(arr) == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind == "i":
        return arr.astype(np.int64, copy=False)
    if arr.dtype.kind == "u":
        top = int(arr.max())
        if top > I64_MAX:
            raise not_bigint(what, top)
        return arr.astype(np.int64)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(np.floor(arr) == arr):
            raise SketchError(f"{what} must be integers; got non-integral values")
        # 2^63 is exactly representable, and the first float past the BIGINT range
        bad = arr[(arr < -2.0 ** 63) | (arr >= 2.0 ** 63)]
        if len(bad):
            raise not_bigint(what, float(bad[0]))
        return arr.astype(np.int64)
    if arr.dtype.kind == "b":
        raise SketchError(f"{what} must be integers, got booleans")
    if arr.dtype == object:
        return np.array([as_int(x, what) for x in arr], dtype=np.int64)
    raise SketchError(f"{what} must be integers, got dtype {arr.dtype}")


def ticks_array(timestamps: Any, micros: bool) -> np.ndarray:
    """A batch of timestamps as int64 ticks: ints (or integral floats), or, for a sketch of
    TIMESTAMPs (``micros``), also datetimes and datetime64 (taken as microseconds since the epoch)."""
    ts = np.asarray(timestamps)
    dated = ts.dtype.kind == "M" or (ts.dtype == object and ts.ndim == 1 and any(isinstance(t, _dt.datetime) for t in ts))
    if dated and not micros:
        raise SketchError("timestamps are datetimes but the sketch counts integer ticks; give ints "
                          "(or create the sketch with timestamps='timestamp')")
    if ts.dtype.kind == "M":
        if ts.ndim != 1:
            raise SketchError(f"timestamps must be a one-dimensional sequence, got an array of shape {ts.shape}")
        if np.isnat(ts).any():
            raise SketchError("timestamps must not be NaT")
        return ts.astype("datetime64[us]").astype(np.int64)
    if dated:
        return np.array([as_int(datetime_micros(t), "timestamps") if isinstance(t, _dt.datetime) else as_int(t, "timestamps")
                         for t in ts], dtype=np.int64)
    return int_array(ts, "timestamps")


def as_bytes(x: Any) -> bytes:
    """Serialized sketch bytes (bytes, bytearray or memoryview) as bytes."""
    if isinstance(x, (bytes, bytearray, memoryview)):
        return bytes(x)
    raise SketchError(f"a serialized sketch must be bytes, bytearray or memoryview, got {type(x).__name__}")


# --------------------------------------------------------------------------------------------- keys


class JvmKeys(NamedTuple):
    """Keys checked by :func:`jvm_keys`: their type and their Python values, ready for the JVM."""

    #: ``'Longs'``, ``'Strings'`` or ``'Bytes'``: the key type, the suffix of PyApi's batch methods.
    kind: str
    #: A single key: an int, str or bytes. A batch: an int64 array, or an object array of str or bytes.
    values: Any
    #: True for a single key, False for a batch.
    single: bool

    def __len__(self) -> int:
        return 1 if self.single else len(self.values)

    def jvm(self, order: Optional[np.ndarray] = None) -> Any:
        """The Java value: for a single key a ``long``, ``String`` or ``byte[]``; for a batch a
        ``long[]``, ``String[]`` or ``byte[][]`` holding the keys in ``order`` (default: as given)."""
        if self.single:
            return jbytes(self.values) if self.kind == BYTES else self.values
        import jpype
        vs = self.values if order is None else self.values[order]
        if self.kind == LONGS:
            return longs(vs)
        if self.kind == STRINGS:
            return jpype.JArray(jpype.JString)([str(k) for k in vs])
        return jpype.JArray(jpype.JArray(jpype.JByte))([jbytes(bytes(k)) for k in vs])


def _kind_of(k: Any) -> Optional[str]:
    """The key type of one Python key, or None when it is not a key (bools are not integers here)."""
    if isinstance(k, (bool, np.bool_)):
        return None
    if isinstance(k, (int, np.integer)):
        return LONGS
    if isinstance(k, str):
        return STRINGS
    if isinstance(k, (bytes, bytearray)):
        return BYTES
    return None


def _type_name(k: Any) -> str:
    return "str" if isinstance(k, str) else "int" if _kind_of(k) == LONGS else type(k).__name__


def _check_bigint(ints: Iterable[int], what: str, single: bool) -> None:
    ints = list(ints)
    bad = [k for k in ints if k < I64_MIN or k > I64_MAX]
    if bad:
        if single:
            raise SketchError(f"{what} must be an integer that fits in BIGINT, got {bad[0]}")
        raise SketchError(f"{what} must be integers that fit in BIGINT, got {max(ints, key=abs)}")


def _mixed(what: str, items: Iterable[Any]) -> SketchError:
    return SketchError(f"{what} must be all integers, all strings or all bytes, got a mix of "
                       + ", ".join(sorted({_type_name(k) for k in items})))


def _unsupported(what: str, dtype: np.dtype) -> SketchError:
    if dtype.kind == "b":
        return SketchError(f"{what} must be all integers, all strings or all bytes, got booleans")
    return SketchError(f"{what} must be all integers, all strings or all bytes, got dtype {dtype}")


def _from_items(items: List[Any], what: str) -> JvmKeys:
    """A batch given as Python objects (a sequence, or a numpy object array)."""
    kinds = {_kind_of(k) for k in items}
    if len(kinds) == 1 and None not in kinds:
        kind = kinds.pop()
        if kind == LONGS:
            ints = [int(k) for k in items]
            _check_bigint(ints, what, single=False)
            return JvmKeys(LONGS, np.array(ints, dtype=np.int64), False)
        arr = np.empty(len(items), dtype=object)
        arr[:] = [str(k) for k in items] if kind == STRINGS else [bytes(k) for k in items]
        return JvmKeys(kind, arr, False)
    if len({_type_name(k) for k in items}) > 1:  # numpy would turn [1, "a"] into ["1", "a"]
        raise _mixed(what, items)
    # one type, and not a key type (floats, None, booleans): named by the dtype numpy gives it
    try:
        arr = np.asarray(items)
        dtype = arr.dtype if arr.ndim == 1 else np.dtype(object)
    except (TypeError, ValueError):
        dtype = np.dtype(object)
    raise _unsupported(what, dtype)


def jvm_keys(keys: Any, what: str = "key", *, single: bool = False) -> JvmKeys:
    """Checks keys (or the values of a distinct-count sketch) and gives their type and values for the
    JVM; the one place that converts keys, for every sketch class.

    A key is an ``int`` or numpy integer within BIGINT, a ``str``, or ``bytes``/``bytearray``
    (bools are not keys). ``single=True`` takes one key; otherwise ``keys`` is a batch: a numpy
    array or any iterable, all of one key type (an empty batch is an empty ``Longs`` batch, which
    adds nothing). Refused with :class:`SketchError` naming ``what``: anything that is not a key, a
    mix of types (numpy would turn ``[1, "a"]`` into ``["1", "a"]``), integers beyond BIGINT (they
    would wrap), numpy ``'S'`` arrays (they drop trailing NUL bytes) and arrays of more than one
    dimension.
    """
    if single:
        kind = _kind_of(keys)
        if kind is None:
            shown = repr(keys) if keys is None or isinstance(keys, bool) else type(keys).__name__
            raise SketchError(f"{what} must be str, bytes or int, got {shown}")
        if kind == LONGS:
            _check_bigint([int(keys)], what, single=True)
            return JvmKeys(LONGS, int(keys), True)
        return JvmKeys(kind, str(keys) if kind == STRINGS else bytes(keys), True)
    if not isinstance(keys, np.ndarray):
        items = list(keys)
        return _from_items(items, what) if items else JvmKeys(LONGS, np.zeros(0, dtype=np.int64), False)
    if keys.dtype.kind == "S":
        raise SketchError(f"numpy bytes arrays (dtype 'S') cannot hold trailing NUL bytes, so {what} would change; "
                          "pass a list or an object array of bytes")
    if keys.ndim != 1:
        raise SketchError(f"{what} must be a one-dimensional batch, got an array of shape {keys.shape}")
    if len(keys) == 0:
        return JvmKeys(LONGS, np.zeros(0, dtype=np.int64), False)
    if keys.dtype.kind == "i":
        return JvmKeys(LONGS, keys.astype(np.int64, copy=False), False)
    if keys.dtype.kind == "u":
        _check_bigint([int(keys.max())], what, single=False)
        return JvmKeys(LONGS, keys.astype(np.int64), False)
    if keys.dtype.kind == "U":
        return JvmKeys(STRINGS, keys, False)
    if keys.dtype.kind == "O":
        return _from_items(list(keys), what)
    raise _unsupported(what, keys.dtype)


# ------------------------------------------------------------------------------ batches and options


def sorted_batch(timestamps: Any, values: Any, last_ts: Optional[int], micros: bool,
                 sorted_as_none: bool = False) -> Tuple[Optional[np.ndarray], np.ndarray, Optional[np.ndarray]]:
    """Timestamps (see :func:`ticks_array`) and optional weights of a batch: checked, and sorted by
    timestamp. Returns (the sorting permutation, sorted ticks, sorted weights); with
    ``sorted_as_none``, a batch already in order comes back as it is, with permutation None."""
    ts = ticks_array(timestamps, micros)
    vs = None if values is None else int_array(values, "values")
    if vs is not None and len(vs) != len(ts):
        raise SketchError(f"timestamps and values differ in length: {len(ts)} vs {len(vs)}")
    if vs is not None and len(vs) and vs.min() < 0:
        raise SketchError(f"weight must be non-negative, got {int(vs.min())}")
    if sorted_as_none and (len(ts) < 2 or bool(np.all(ts[1:] >= ts[:-1]))):
        order = None
    else:
        order = np.argsort(ts, kind="stable")
        ts = ts[order]
    if last_ts is not None and len(ts) and ts[0] < last_ts:
        n_old = int(np.count_nonzero(ts < last_ts))
        raise SketchError(f"{n_old} timestamps precede the sketch's last timestamp {last_ts}; a sketch object takes "
                          "time in non-decreasing order across calls (sort once, or build with SQL ecm_agg)")
    return order, ts, (vs if vs is None or order is None else vs[order])


def micros_and_type(timestamps: str, window_type: str) -> bool:
    """Checks ``timestamps`` and ``window_type``; True when ticks are microseconds (TIMESTAMP)."""
    if timestamps not in ("ticks", "timestamp"):
        raise SketchError(f"timestamps must be 'ticks' or 'timestamp', got {timestamps!r}")
    if window_type not in ("time", "count"):
        raise SketchError(f"window_type must be 'time' or 'count', got {window_type!r}")
    return timestamps == "timestamp"


def levels(merge_levels: Any) -> int:
    """The merge levels to plan for: Spark's own merge plus ``merge_levels`` further ones
    (``merge_levels`` in [0, 63], as SQL takes it)."""
    if isinstance(merge_levels, bool) or not isinstance(merge_levels, (int, np.integer)):
        raise SketchError(f"merge_levels must be an integer in [0, 63], got {merge_levels!r}")
    return 1 + as_int(merge_levels, "merge_levels", 0, 63)


def arrivals(max_arrivals: Any) -> int:
    """max_arrivals for the JVM: a positive int, or 0 for "no bound"."""
    if max_arrivals is None:
        return 0
    u = as_int(max_arrivals, "max_arrivals")
    if u <= 0:
        raise SketchError(f"max_arrivals must be a positive integer, got {u}")
    return u


def decode(kind: str, data: Any) -> Any:
    """PyApi.decode: serialized bytes of a sketch of the registered kind ``kind`` ('ecm', 'eh',
    'dwave', 'distinct')."""
    return call(_jvm.api().decode, kind, jbytes(as_bytes(data)))


def jvm_array(jclass: str, items: List[Any]) -> Any:
    """A Java array of class ``jclass`` holding ``items``."""
    import jpype
    return jpype.JArray(jpype.JClass(jclass))(items)
