"""Wrappers of the asynchronous-stream sketch functions (docs/DESIGN.md, "Asynchronous streams")."""
from __future__ import annotations

from typing import Any, Optional

from pyspark.sql import Column
from pyspark.sql.functions import call_function

from ._common import ColumnOrName, Now, Window, _c, _p, _v


def async_sum_agg(value: ColumnOrName, ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None,
                  delta: Optional[float] = None, *, id: Optional[ColumnOrName] = None, seed: Optional[int] = None,
                  window_type: Optional[str] = None, tradeoff: Optional[int] = None) -> Column:
    """Async sum sketch (BINARY; Xu-Tirthapura-Busch) of positive integer weights over a timestamp
    window, rows in any timestamp order (docs/DESIGN.md, "Asynchronous streams"): every range sum is
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
