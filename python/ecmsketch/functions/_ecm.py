"""Wrappers of the ECM-sketch functions and of ``sketch_info``."""
from __future__ import annotations

from typing import Any, Optional

from pyspark.sql import Column
from pyspark.sql.functions import call_function, lit

from ._common import ColumnOrName, Now, Window, _c, _is_column, _p, _v


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


def sketch_info(sketch: ColumnOrName) -> Column:
    """STRUCT describing a sketch: kind, parameters, merge depth, certified bounds, timestamps, size."""
    return call_function("sketch_info", _c(sketch))
