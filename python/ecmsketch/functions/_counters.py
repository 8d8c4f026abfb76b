"""Wrappers of the sliding-window counter functions: exponential histograms and deterministic waves."""
from __future__ import annotations

from typing import Optional

from pyspark.sql import Column
from pyspark.sql.functions import call_function

from ._common import ColumnOrName, Now, Window, _c, _p, _v


def eh_agg(ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None, *,
           value: Optional[ColumnOrName] = None, window_type: Optional[str] = None,
           merge_levels: Optional[int] = None) -> Column:
    """Exponential histogram (BINARY) counting the group's rows, or summing ``value``, over a window."""
    return call_function("eh_agg", _c(ts), _p(window), _p(epsilon), _v(value), _p(window_type), _p(merge_levels))


def eh_merge(sketch: ColumnOrName) -> Column:
    """Order-preserving merge of the exponential histograms in a group; NULLs ignored."""
    return call_function("eh_merge", _c(sketch))


def eh_count(sketch: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """Estimated count (or sum) of an exponential histogram over the range (DOUBLE)."""
    return call_function("eh_count", _c(sketch), _p(range), _p(now))


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
