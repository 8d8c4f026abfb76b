"""The time-decayed sketch (:class:`DecayedSketch`; docs/design/decayed.md)."""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Union

import numpy as np

from .. import SketchError
from .. import _jvm
from .._convert import as_float, as_int, as_option, call, jlong, jvm_keys, longs, micros_and_type, sorted_batch
from .._units import TimeLike, time_ticks
from ._base import DEFAULT_SEED, _merge_all, _Sketch

__all__ = ["DecayedSketch"]


class DecayedSketch(_Sketch):
    """A duplicate-insensitive, mergeable, time-decayed sketch (Cormode-Tirthapura-Xu; docs/design/decayed.md,
    "Decayed sketch"), the bytes of ``decayed_agg``. Rows may come in any order; each distinct id
    counts once however often, and at however many sites, it is seen. Built without ``decay`` (the
    general sketch), it takes the decay at query time: ``'window'`` (param W: ages < W count fully),
    ``'exp'`` (param = half-life), ``'poly'`` (param = alpha). Built with one, queries use that decay
    (the decay arguments may be omitted).

    Examples
    --------
    >>> from ecmsketch import DecayedSketch
    >>> d = DecayedSketch()  # the general sketch: the decay is chosen at query time
    >>> d.add_many([1, 1, 1], [0, 10, 20])
    >>> d.sum("exp", 10), d.sum("window", 15)  # half-life 10: 1 + 1/2 + 1/4; ages below 15: two rows
    (1.75, 2.0)
    """

    _kind = "decayed"

    def __init__(self, epsilon: float = 0.1, delta: float = 0.05, *, decay: Optional[str] = None,
                 decay_param: Optional[float] = None, constant: float = 4.0, max_weight: int = 1024,
                 resolution: Optional[int] = None, seed: int = DEFAULT_SEED, timestamps: str = "ticks"):
        """A new empty sketch with ``decayed_agg``'s parameters (the same arguments give mergeable sketches)."""
        micros = micros_and_type(timestamps, "time")
        if decay is not None:
            as_option(decay, "decay", "window", "exp", "poly")
        if (decay is None) != (decay_param is None):
            raise SketchError("decay and decay_param go together" if decay is None else f"decay '{decay}' needs a decay_param")
        param = 0.0 if decay_param is None else as_float(decay_param, "decay_param")
        res = 0 if resolution is None else as_int(resolution, "resolution")
        if resolution is not None and res <= 0:
            raise SketchError(f"resolution must be a positive integer, got {resolution!r}")
        self._attach(call(_jvm.api().decayedCreate, decay, param, as_float(epsilon, "epsilon"), as_float(delta, "delta"),
                          as_float(constant, "constant"), as_int(max_weight, "max_weight"), res, as_int(seed, "seed"),
                          micros))

    def _describe(self, jobj: Any) -> Dict[str, Any]:
        d = super()._describe(jobj)
        del d["window"]  # no window: the decay weighs every age
        params = jobj.params()
        d["delta"] = float(params.delta())
        decay = params.decay()
        if bool(decay.isDefined()):
            d["decay"] = str(decay.get().name())
            d["decay_param"] = float(decay.get().param())
        return d

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

    @classmethod
    def merge(cls, sketches: Iterable[Union["DecayedSketch", bytes, bytearray]]) -> "DecayedSketch":
        """Lossless n-way merge (equal parameters and seed); an id several inputs saw counts once."""
        return cls._wrap(_merge_all(cls, sketches))
