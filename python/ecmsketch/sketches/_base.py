"""Shared base of the bytes-level sketch classes: the JVM object, its bytes and ``info``, the buffer
of single adds, and the n-way merge."""
from __future__ import annotations

import datetime as _dt
import sys
from typing import Any, Dict, Iterable, List, Optional, Type, TypeVar, Union

import numpy as np

from .. import SketchError
from .. import _jvm
from .._convert import LONGS, as_int, call, decode, jvm_array, longs, py_value, sorted_batch
from .._units import I64_MAX as _I64_MAX, I64_MIN as _I64_MIN, TimeLike, time_ticks

#: The default hash seed, the same as SQL's ``ecm_agg``.
DEFAULT_SEED = 0x5EED5EED

Key = Union[int, str, bytes]
_S = TypeVar("_S", bound="_Sketch")


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


#: The order of the fields ``repr`` shows: these first, the family's own next, then these last.
_REPR_FIRST = ("epsilon", "delta", "window", "window_type", "timestamps")
_REPR_LAST = ("merge_depth", "pending")


class _Sketch:
    """What every sketch class shares. A class is called with its parameters to build an empty
    sketch (``create`` is the same call); ``from_bytes`` decodes one, the classmethod ``merge``
    merges several, and ``_wrap`` wraps a JVM object (internal).

    The parameters ``repr`` shows are read once, when the object is made, and kept in Python
    (``_params``), so ``repr`` neither calls the JVM nor flushes buffered adds."""

    _kind = ""  # the registered sketch kind ('ecm', 'eh', ...) that from_bytes decodes and merge merges
    _j: Any
    _params: Dict[str, Any]

    @classmethod
    def _wrap(cls: Type[_S], jobj: Any) -> _S:
        """A sketch object around the JVM sketch ``jobj`` (of this class's kind)."""
        self = cls.__new__(cls)
        self._attach(jobj)
        return self

    def _attach(self, jobj: Any) -> None:
        """Takes the JVM sketch and reads the parameters ``repr`` shows."""
        self._j = jobj
        self._params = self._describe(jobj)

    def _describe(self, jobj: Any) -> Dict[str, Any]:
        """The parameters ``repr`` shows, read from the JVM sketch once (cheap accessors only: no
        encoding). A family adds its own."""
        spec = jobj.spec()
        micros = bool(spec.tsMicros())
        w = int(spec.window())
        d: Dict[str, Any] = {"epsilon": float(jobj.epsilon())}
        d["window"] = None if w == _I64_MAX else (_dt.timedelta(microseconds=w) if micros else w)
        if bool(spec.countWindow()):
            d["window_type"] = "count"
        if micros:
            d["timestamps"] = "timestamp"
        depth = int(jobj.mergeDepth())
        if depth:
            d["merge_depth"] = depth
        return d

    def _repr_fields(self) -> Dict[str, Any]:
        return self._params

    def __repr__(self) -> str:
        f = self._repr_fields()
        keys = [k for k in _REPR_FIRST if k in f] + [k for k in f if k not in _REPR_FIRST and k not in _REPR_LAST] \
            + [k for k in _REPR_LAST if k in f]
        return f"{type(self).__name__}({', '.join(f'{k}={f[k]!r}' for k in keys)})"

    @classmethod
    def create(cls: Type[_S], *args: Any, **kwargs: Any) -> _S:
        """A new empty sketch: the same as calling the class with these arguments (kept for
        compatibility)."""
        return cls(*args, **kwargs)

    @classmethod
    def from_bytes(cls: Type[_S], data: Union[bytes, bytearray, memoryview]) -> _S:
        """Decodes (and validates) serialized bytes of this class's kind, e.g. a value of its SQL
        aggregate's column; a :class:`~ecmsketch.SketchError` for bytes of another kind or corrupt
        ones."""
        return cls._wrap(decode(cls._kind, data))

    @classmethod
    def merge(cls: Type[_S], sketches: Iterable[Any]) -> _S:
        """Merges sketches of this class, or their bytes, from many sites into a new sketch; a single
        sketch or bytes object (not in a list) is one input. What the merge keeps depends on the kind
        (see the class)."""
        return cls._wrap(_merge_all(cls, sketches))

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
        """Kind, parameters, merge depth, certified bounds, timestamps and size (as ``sketch_info``) of
        the sketch as :meth:`to_bytes` writes it; :func:`sketch_info` describes stored bytes as they are."""
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
#: Single adds buffered before one crossing to the JVM (the default of ``ecmsketch.sketches.BUFFER_ROWS``,
#: which each buffered sketch reads when it is made).
BUFFER_ROWS = 1 << 16
#: Above this total weight (sketch plus buffer) adds go to the JVM one by one, so that an overflow of
#: the total is reported by the add that causes it.
_DIRECT_WEIGHT = 2 ** 62


def buffer_rows() -> int:
    """The buffer size in force: ``ecmsketch.sketches.BUFFER_ROWS`` (settable there)."""
    return int(getattr(sys.modules.get(__package__), "BUFFER_ROWS", BUFFER_ROWS))


class _Buffered(_Sketch):
    """A sketch whose single ``add`` calls are buffered in Python and cross to the JVM in batches.

    The JVM object is ``_jo``; ``_j`` (what every read, ``to_bytes``, merge and ``info`` use) flushes
    the buffer first, so no answer ever sees a partial state. A batch is applied in timestamp order,
    which gives the same state, and the same bytes, as the adds one by one. Every add is checked here
    before it is buffered (key, timestamp order, weight) with the messages the JVM gives; an add the
    buffer cannot take as checked (the first add, a new key type, a weight near the overflow of the
    total) flushes the buffer and goes to the JVM at once, so its error, if any, comes from this call.
    """

    def _attach(self, jobj: Any) -> None:
        self._params = self._describe(jobj)
        self._jo = jobj
        self._mic = bool(jobj.spec().tsMicros())
        self._cw = 1 if bool(jobj.spec().countWindow()) else 0
        self._bt: List[int] = []           # buffered timestamps
        self._bk: List[Any] = []           # buffered keys (keyed sketches)
        self._bv: Optional[List[int]] = None  # buffered weights; None while all are 1
        self._bw = 0                       # sum of the buffered weights other than unit ones
        self._bkind: Optional[str] = None  # key type the buffer takes (None: no add buffered yet)
        self._fast = False                 # integer keys (or a counter) and all buffered weights 1
        self._cap = buffer_rows()          # rows buffered before a flush
        self._sync()

    def _repr_fields(self) -> Dict[str, Any]:
        return {**self._params, "pending": len(self._bt)}

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
        if len(self._bt) >= self._cap:
            self._flush()


def _merge_all(cls: Any, sketches: Iterable[Any]) -> Any:
    """PyApi.merge: the cross-site merge of the registered sketch kind ``cls._kind``; the merged JVM
    sketch. A single sketch or bytes object (not in a list) is one input."""
    if isinstance(sketches, (bytes, bytearray, memoryview, _Sketch)):
        sketches = [sketches]
    # the objects merged as they are: of this package's class that ``cls`` is or derives from
    family = next(c for c in cls.__mro__ if c.__module__.startswith(__package__))
    items = [s._j if isinstance(s, family) else cls.from_bytes(s)._j for s in sketches if s is not None]
    if not items:
        raise SketchError(f"merge needs at least one {cls.__name__} or its bytes")
    return call(_jvm.api().merge, cls._kind, jvm_array("ecmsketch.core.WindowSketch", items))


def sketch_info(data: Union[bytes, bytearray, memoryview]) -> Dict[str, Any]:
    """What SQL's ``sketch_info`` reports for serialized bytes of any kind, as a dict.

    Unlike :meth:`info` of a decoded sketch, which describes the sketch as :meth:`to_bytes` writes it,
    ``format_version``, ``checksum`` and ``size_bytes`` describe these bytes: ``checksum`` is False
    for bytes an older release stored (format versions 1 to 3).

    Parameters
    ----------
    data : bytes
        A serialized sketch, e.g. a value of a ``*_agg`` column.

    Returns
    -------
    dict
        The fields of ``sketch_info``; bad bytes raise :class:`SketchError`.

    Examples
    --------
    >>> from ecmsketch import ExpHistogram, sketch_info
    >>> h = ExpHistogram(epsilon=0.1, window=100)
    >>> h.add(5)
    >>> info = sketch_info(h.to_bytes())
    >>> info["kind"], info["format_version"], info["checksum"]
    ('eh', 4, True)
    """
    from .._convert import as_bytes, jbytes
    api = _jvm.api()
    fields = [str(f) for f in api.infoFields()]
    values = call(api.infoOfBytes, jbytes(as_bytes(data)))
    return {f: py_value(v) for f, v in zip(fields, values)}
