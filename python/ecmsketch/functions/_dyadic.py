"""Wrappers of the dyadic ECM-sketch functions: heavy hitters, top-k, range counts, ranks, quantiles."""
from __future__ import annotations

from typing import Any, Optional

from pyspark.sql import Column
from pyspark.sql.functions import call_function

from ._common import ColumnOrName, Now, Window, _c, _p, _v


def dyadic_agg(key: ColumnOrName, ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None,
               delta: Optional[float] = None, *, universe_bits: Optional[int] = None,
               value: Optional[ColumnOrName] = None, window_type: Optional[str] = None, seed: Optional[int] = None,
               merge_levels: Optional[int] = None, cell: Optional[str] = None,
               candidates: Optional[int] = None, phi_min: Optional[float] = None) -> Column:
    """Dyadic ECM-sketch (BINARY) of integer, double, string or binary keys over a sliding window: heavy
    hitters, top-k, range counts, ranks and quantiles (the last three for numeric keys; docs/DESIGN.md,
    "Dyadic ECM-sketch").

    :param key: TINYINT/SMALLINT/INT/BIGINT, FLOAT/DOUBLE, STRING or BINARY column.
    :param epsilon: the heavy-hitter gap of ECM Theorem 5 (default 0.05): every key with weight
        >= (phi + epsilon) times the range's total is reported.
    :param universe_bits: keys map to [0, 2^bits) (default 32: every INT; up to 64 for any BIGINT;
        an integer key outside the universe fails). Double keys keep their top ``bits`` bits.
    :param cell: ``'eh'`` (default) or ``'dwave'``.
    :param candidates: STRING/BINARY keys: the candidate keys kept per window epoch (default 1024).
    :param phi_min: certify heavy-hitter precision 1 - delta for every phi >= phi_min (the sketch is
        built with delta * phi_min; default 1: precision 1 - delta / phi).
    """
    return call_function("dyadic_agg", _c(key), _c(ts), _p(window), _p(epsilon), _p(delta), _p(universe_bits),
                         _v(value), _p(window_type), _p(seed), _p(merge_levels), _p(cell), _p(candidates), _p(phi_min))


def dyadic_merge(sketch: ColumnOrName) -> Column:
    """Order-preserving merge of the dyadic ECM-sketches in a group; NULLs ignored."""
    return call_function("dyadic_merge", _c(sketch))


def ecm_heavy_hitters(sketch: ColumnOrName, phi: Any, range: Window = None, now: Now = None, *,
                      key_type: Optional[str] = None) -> Column:
    """Keys of a dyadic sketch with weight >= ``phi`` times the range's total (phi in (0, 1)) or
    >= ``phi`` (phi >= 1): ARRAY<STRUCT<key, estimate, lower, upper>> by estimate. ``key_type``:
    ``'bigint'`` (default), ``'double'``, ``'string'`` or ``'binary'``, as the sketch's keys."""
    return call_function("ecm_heavy_hitters", _c(sketch), _p(phi), _p(range), _p(now), _p(key_type))


def ecm_top_k(sketch: ColumnOrName, k: Any, range: Window = None, now: Now = None, *,
              key_type: Optional[str] = None) -> Column:
    """The ``k`` keys of a dyadic sketch with the largest estimates: ARRAY<STRUCT<key, estimate, lower, upper>>;
    ``key_type`` as for :func:`ecm_heavy_hitters`."""
    return call_function("ecm_top_k", _c(sketch), _p(k), _p(range), _p(now), _p(key_type))


def ecm_range_count(sketch: ColumnOrName, lo: Any, hi: Any, range: Window = None, now: Now = None) -> Column:
    """Estimated weight of the keys in [lo, hi] (inclusive) of a dyadic sketch (DOUBLE)."""
    return call_function("ecm_range_count", _c(sketch), _p(lo), _p(hi), _p(range), _p(now))


def ecm_rank(sketch: ColumnOrName, x: Any, range: Window = None, now: Now = None) -> Column:
    """Estimated weight of the keys <= x of a dyadic sketch (DOUBLE)."""
    return call_function("ecm_rank", _c(sketch), _p(x), _p(range), _p(now))


def ecm_quantile(sketch: ColumnOrName, q: Any, range: Window = None, now: Now = None) -> Column:
    """The q-quantile (DOUBLE) of a dyadic sketch's keys over the range; a list of q gives an ARRAY<DOUBLE>."""
    return call_function("ecm_quantile", _c(sketch), _p(q), _p(range), _p(now))
