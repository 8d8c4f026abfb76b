"""Wrappers of the sliding-window distinct-count functions."""
from __future__ import annotations

from typing import Optional

from pyspark.sql import Column
from pyspark.sql.functions import call_function

from ._common import ColumnOrName, Now, Window, _c, _p


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
