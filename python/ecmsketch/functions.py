"""Typed PySpark wrappers for the ecmsketch SQL functions.

Each wrapper builds ``call_function(name, ...)`` with every argument in its positional slot (an
omitted option is a NULL literal, which the SQL functions read as "use the default"), so it works in
classic PySpark and under Spark Connect alike. Column arguments accept a Column or a column name;
option arguments take Python values (or a literal Column).

Windows and ranges: for a TIMESTAMP ``ts`` give a ``datetime.timedelta`` or a string such as
``'10 minutes'``; for integer ``ts`` give an int (ticks, or arrivals for ``window_type='count'``).
``now`` is a ``datetime`` or an int accordingly. Rows with a NULL key, ts or value are skipped.
"""
from __future__ import annotations

import datetime as _dt
from typing import Any, Optional, Union

from pyspark.sql import Column
from pyspark.sql.functions import call_function, col, lit

ColumnOrName = Union[Column, str]
Window = Union[None, int, str, _dt.timedelta, Column]
Now = Union[None, int, _dt.datetime, Column]

__all__ = [
    "ecm_agg", "ecm_merge", "eh_agg", "eh_merge", "ecm_point", "ecm_inner_product", "ecm_self_join",
    "ecm_total", "eh_count", "sketch_info", "dwave_agg", "dwave_merge", "dwave_count", "distinct_agg",
    "distinct_merge", "distinct_count", "dyadic_agg", "dyadic_merge", "ecm_heavy_hitters", "ecm_top_k",
    "ecm_range_count", "ecm_rank", "ecm_quantile",
    "async_sum_agg", "async_count_agg", "async_quantile_agg", "async_merge", "async_sum", "async_quantile",
    "decayed_agg", "decayed_merge", "decayed_sum", "decayed_quantile", "decayed_frequent", "decayed_selectivity",
]


_COLUMN_TYPES: Optional[tuple] = None


def _is_column(x: Any) -> bool:
    """A Column of classic PySpark or of Spark Connect (on pyspark 3.5 the Connect Column is not a
    subclass of pyspark.sql.Column; on pyspark 4 it is)."""
    global _COLUMN_TYPES
    if _COLUMN_TYPES is None:
        types: list = [Column]
        try:
            from pyspark.sql.connect.column import Column as ConnectColumn
            types.append(ConnectColumn)
        except Exception:  # the Connect client dependencies are not installed
            pass
        _COLUMN_TYPES = tuple(types)
    return isinstance(x, _COLUMN_TYPES)


def _c(x: ColumnOrName) -> Column:
    return x if _is_column(x) else col(x)


def _p(x: Any) -> Column:
    """An option value as a literal (None = the SQL default)."""
    if _is_column(x):
        return x
    return lit(x)


def _v(x: Optional[ColumnOrName]) -> Column:
    return lit(None) if x is None else _c(x)


def ecm_agg(key: ColumnOrName, ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None,
            delta: Optional[float] = None, *, value: Optional[ColumnOrName] = None,
            window_type: Optional[str] = None, seed: Optional[int] = None, optimize_for: Optional[str] = None,
            merge_levels: Optional[int] = None, cell: Optional[str] = None,
            max_arrivals: Optional[int] = None, max_bytes: Optional[int] = None) -> Column:
    """ECM-sketch (BINARY) of the group's rows over a sliding window.

    :param key: STRING, BINARY, INT or BIGINT column.
    :param ts: TIMESTAMP column (ticks are microseconds) or INT/BIGINT ticks; for
        ``window_type='count'`` the arrival sequence number.
    :param window: window length (default unbounded).
    :param epsilon: error bound relative to the range's total weight (default 0.05), certified after
        Spark's own merge plus ``merge_levels`` further merges.
    :param delta: failure probability of the Count-Min part (default 0.01).
    :param value: non-negative integer weight column (default 1 per row).
    :param window_type: ``'time'`` (default) or ``'count'``.
    :param seed: hash seed; sketches merge only with the same seed.
    :param optimize_for: ``'point'`` (default) or ``'inner_product'`` (also self-join).
    :param merge_levels: cross-site merge levels to budget for (default 0).
    :param cell: ``'eh'`` (default), ``'dwave'`` or ``'rwave'`` (point queries only).
    :param max_arrivals: for ``'dwave'`` cells, a bound on the weight in any window (default none).
    :param max_bytes: a memory budget instead of ``epsilon`` (``'eh'`` cells): the smallest certified
        bound whose sketch can never serialize to more than ``max_bytes`` bytes (``sketch_info``
        reports it as ``point_error_bound`` and the plan's ``max_size_bytes``).
    """
    return call_function("ecm_agg", _c(key), _c(ts), _p(window), _p(epsilon), _p(delta), _v(value),
                         _p(window_type), _p(seed), _p(optimize_for), _p(merge_levels), _p(cell),
                         _p(max_arrivals), _p(max_bytes))


def ecm_merge(sketch: ColumnOrName) -> Column:
    """Order-preserving merge of the ECM-sketches in a group (same parameters and seed); NULLs ignored."""
    return call_function("ecm_merge", _c(sketch))


def eh_agg(ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None, *,
           value: Optional[ColumnOrName] = None, window_type: Optional[str] = None,
           merge_levels: Optional[int] = None) -> Column:
    """Exponential histogram (BINARY) counting the group's rows, or summing ``value``, over a window."""
    return call_function("eh_agg", _c(ts), _p(window), _p(epsilon), _v(value), _p(window_type), _p(merge_levels))


def eh_merge(sketch: ColumnOrName) -> Column:
    """Order-preserving merge of the exponential histograms in a group; NULLs ignored."""
    return call_function("eh_merge", _c(sketch))


def ecm_point(sketch: ColumnOrName, key: Any, range: Window = None, now: Now = None) -> Column:
    """Estimated weight of ``key`` in ``(now - range, now]`` (DOUBLE). ``key`` is a Column or a
    Python value (str, bytes or int).

    With an ARRAY Column of keys (e.g. ``F.array(...)``, ``F.col("keys")`` or ``F.collect_list("k")``), the answer is an
    ARRAY<DOUBLE> of the estimates in the same order, computed with one decode of the sketch: the
    fastest way to ask many keys. The elements follow the single-key type rules; a NULL element gives
    a NULL element, a NULL array gives NULL, an empty array gives an empty array."""
    k = key if _is_column(key) else lit(key)
    return call_function("ecm_point", _c(sketch), k, _p(range), _p(now))


def ecm_inner_product(a: ColumnOrName, b: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """Estimated inner product (join size) of two ECM-sketches over the range (DOUBLE)."""
    return call_function("ecm_inner_product", _c(a), _c(b), _p(range), _p(now))


def ecm_self_join(sketch: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """Estimated self-join size (second frequency moment) over the range (DOUBLE)."""
    return call_function("ecm_self_join", _c(sketch), _p(range), _p(now))


def ecm_total(sketch: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """Estimated total weight over the range (DOUBLE)."""
    return call_function("ecm_total", _c(sketch), _p(range), _p(now))


def eh_count(sketch: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """Estimated count (or sum) of an exponential histogram over the range (DOUBLE)."""
    return call_function("eh_count", _c(sketch), _p(range), _p(now))


def sketch_info(sketch: ColumnOrName) -> Column:
    """STRUCT describing a sketch: kind, parameters, merge depth, certified bounds, timestamps, size."""
    return call_function("sketch_info", _c(sketch))


def dwave_agg(ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None, *,
              value: Optional[ColumnOrName] = None, max_arrivals: Optional[int] = None,
              window_type: Optional[str] = None, merge_levels: Optional[int] = None) -> Column:
    """Deterministic wave (BINARY) counting the group's rows, or summing ``value`` (the sum wave),
    over a window. ``max_arrivals`` bounds the weight in any window (default: no bound)."""
    return call_function("dwave_agg", _c(ts), _p(window), _p(epsilon), _v(value), _p(max_arrivals),
                         _p(window_type), _p(merge_levels))


def dwave_merge(sketch: ColumnOrName) -> Column:
    """Order-preserving merge of the deterministic waves in a group; NULLs ignored."""
    return call_function("dwave_merge", _c(sketch))


def dwave_count(sketch: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """Estimated count (or sum) of a deterministic wave over the range (DOUBLE)."""
    return call_function("dwave_count", _c(sketch), _p(range), _p(now))


def distinct_agg(value: ColumnOrName, ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None,
                 delta: Optional[float] = None, *, window_type: Optional[str] = None,
                 seed: Optional[int] = None) -> Column:
    """Mergeable sliding-window distinct-count sketch (BINARY) of a STRING, BINARY, INT or BIGINT
    column (defaults: epsilon 0.1, delta 0.05)."""
    return call_function("distinct_agg", _c(value), _c(ts), _p(window), _p(epsilon), _p(delta),
                         _p(window_type), _p(seed))


def distinct_merge(sketch: ColumnOrName) -> Column:
    """Lossless merge of the distinct-count sketches in a group; NULLs ignored."""
    return call_function("distinct_merge", _c(sketch))


def distinct_count(sketch: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """Estimated number of distinct values seen in ``(now - range, now]`` (DOUBLE)."""
    return call_function("distinct_count", _c(sketch), _p(range), _p(now))


def dyadic_agg(key: ColumnOrName, ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None,
               delta: Optional[float] = None, *, universe_bits: Optional[int] = None,
               value: Optional[ColumnOrName] = None, window_type: Optional[str] = None, seed: Optional[int] = None,
               merge_levels: Optional[int] = None, cell: Optional[str] = None,
               candidates: Optional[int] = None, phi_min: Optional[float] = None) -> Column:
    """Dyadic ECM-sketch (BINARY) of integer, double, string or binary keys over a sliding window: heavy
    hitters, top-k, range counts, ranks and quantiles (the last three for numeric keys; docs/design/dyadic.md,
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


# --------------------------------------------------------------------------- async sketches


def async_sum_agg(value: ColumnOrName, ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None,
                  delta: Optional[float] = None, *, id: Optional[ColumnOrName] = None, seed: Optional[int] = None,
                  window_type: Optional[str] = None, tradeoff: Optional[int] = None) -> Column:
    """Async sum sketch (BINARY; Xu-Tirthapura-Busch) of positive integer weights over a timestamp
    window, rows in any timestamp order (docs/design/async.md, "Asynchronous streams"): every range sum is
    within ``epsilon`` relative error with probability >= 1 - ``delta``, and ``async_merge`` is lossless.

    :param value: positive TINYINT/SMALLINT/INT/BIGINT weight.
    :param epsilon: relative error (default 0.1); :param delta: failure probability (default 0.05).
    :param id: optional element id column (INT/BIGINT/STRING/BINARY). Elements are identified by
        ``(value, ts)``, or ``(id, value, ts)`` with ids; equal identities count once, at one site or several.
    :param tradeoff: the processing/query trade-off level L in [0, 62] (default 62: one level per element).
    """
    return call_function("async_sum_agg", _c(value), _c(ts), _p(window), _p(epsilon), _p(delta), _v(id), _p(seed),
                         _p(window_type), _p(tradeoff))


def async_count_agg(ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None,
                    delta: Optional[float] = None, *, id: Optional[ColumnOrName] = None, seed: Optional[int] = None,
                    window_type: Optional[str] = None, tradeoff: Optional[int] = None) -> Column:
    """Async count sketch (BINARY): the sum sketch with weight 1. Without ``id`` rows with equal ``ts``
    are one element; give a unique row id to count every row."""
    return call_function("async_count_agg", _c(ts), _p(window), _p(epsilon), _p(delta), _v(id), _p(seed),
                         _p(window_type), _p(tradeoff))


def async_quantile_agg(value: ColumnOrName, ts: ColumnOrName, window: Window = None,
                       epsilon: Optional[float] = None, delta: Optional[float] = None, *,
                       id: Optional[ColumnOrName] = None, seed: Optional[int] = None,
                       window_type: Optional[str] = None) -> Column:
    """Async quantile sketch (BINARY; XTB median sketch) of numeric values, rows in any timestamp
    order: every quantile's rank is within ``epsilon`` (default 0.1, < 0.5) times the range's count
    with probability >= 1 - ``delta`` (default 0.05)."""
    return call_function("async_quantile_agg", _c(value), _c(ts), _p(window), _p(epsilon), _p(delta), _v(id),
                         _p(seed), _p(window_type))


def async_merge(sketch: ColumnOrName) -> Column:
    """Lossless union of the async sketches in a group (same measure, parameters and seed); NULLs ignored."""
    return call_function("async_merge", _c(sketch))


def async_sum(sketch: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """Estimated sum (count) of an async sum (count) sketch over ``(now - range, now]`` (DOUBLE)."""
    return call_function("async_sum", _c(sketch), _p(range), _p(now))


def async_quantile(sketch: ColumnOrName, q: Any, range: Window = None, now: Now = None) -> Column:
    """The q-quantile (DOUBLE) of an async quantile sketch over the range; a list of q gives an ARRAY<DOUBLE>."""
    return call_function("async_quantile", _c(sketch), _p(q), _p(range), _p(now))


# ------------------------------------------------------------------------------ decayed sketches


def decayed_agg(weight: ColumnOrName, ts: ColumnOrName, epsilon: Optional[float] = None, delta: Optional[float] = None,
                *, value: Optional[ColumnOrName] = None, id: Optional[ColumnOrName] = None, seed: Optional[int] = None,
                decay: Optional[str] = None, decay_param: Optional[float] = None, constant: Optional[float] = None,
                max_weight: Optional[int] = None, resolution: Optional[int] = None) -> Column:
    """Duplicate-insensitive, mergeable, time-decayed sketch (BINARY; docs/design/decayed.md, "Decayed sketch").

    :param weight: integer column in [0, max_weight] (``lit(1)`` for counts): what ``decayed_sum`` adds up.
    :param ts: TIMESTAMP (ages in seconds) or INT/BIGINT ticks; rows may come in any order.
    :param epsilon: relative error of decayed sums (default 0.1); delta: failure probability (default 0.05).
    :param value: numeric column that quantiles, frequent items and selectivity rank (default: the weight).
    :param id: any column; rows with equal ids count once, at one site or many (default: (weight, value, ts)).
    :param decay: unset builds the general sketch (decay chosen at query time); ``'window'``, ``'exp'`` or
        ``'poly'`` with ``decay_param`` builds the sketch for that decay.
    :param constant: C of tau = C / epsilon^2 (default 4, measured in docs/design/decayed.md).
    """
    return call_function("decayed_agg", _c(weight), _c(ts), _p(epsilon), _p(delta), _v(value), _v(id), _p(seed),
                         _p(decay), _p(decay_param), _p(constant), _p(max_weight), _p(resolution))


def decayed_merge(sketch: ColumnOrName) -> Column:
    """Lossless merge of the decayed sketches in a group (an id seen by several counts once); NULLs ignored."""
    return call_function("decayed_merge", _c(sketch))


def decayed_sum(sketch: ColumnOrName, decay: Optional[str] = None, param: Optional[float] = None,
                now: Now = None) -> Column:
    """Estimated decayed sum (DOUBLE) over the distinct elements with ts <= now: ``'window'`` (param W),
    ``'exp'`` (param = half-life), ``'poly'`` (param = alpha); ages in ts units (seconds for TIMESTAMP)."""
    return call_function("decayed_sum", _c(sketch), _p(decay), _p(param), _p(now))


def decayed_quantile(sketch: ColumnOrName, q: Any, decay: Optional[str] = None, param: Optional[float] = None,
                     now: Now = None) -> Column:
    """Decayed q-quantile (DOUBLE) of the values; NULL when nothing has weight."""
    return call_function("decayed_quantile", _c(sketch), _p(q), _p(decay), _p(param), _p(now))


def decayed_frequent(sketch: ColumnOrName, phi: Any, decay: Optional[str] = None, param: Optional[float] = None,
                     now: Now = None) -> Column:
    """Values with estimated decayed share > phi - epsilon/2: ARRAY<STRUCT<value, share>>, largest first."""
    return call_function("decayed_frequent", _c(sketch), _p(phi), _p(decay), _p(param), _p(now))


def decayed_selectivity(sketch: ColumnOrName, lo: Any, hi: Any, decay: Optional[str] = None,
                        param: Optional[float] = None, now: Now = None) -> Column:
    """Estimated decayed fraction (DOUBLE) of the weight whose value lies in [lo, hi]."""
    return call_function("decayed_selectivity", _c(sketch), _p(lo), _p(hi), _p(decay), _p(param), _p(now))
