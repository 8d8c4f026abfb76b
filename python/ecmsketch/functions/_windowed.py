"""Wrappers of the windowed quantile and frequent-items sketch functions (docs/design/windowed-quantiles.md
and docs/design/windowed-top-k.md). Their queries are the shared ``ecm_quantile``, ``ecm_rank``,
``ecm_range_count``, ``ecm_top_k``, ``ecm_heavy_hitters``, ``ecm_point`` and ``ecm_total``."""
from __future__ import annotations

from typing import Optional

from pyspark.sql import Column
from pyspark.sql.functions import call_function

from ._common import ColumnOrName, Window, _c, _p, _v


def quantile_agg(value: ColumnOrName, ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None, *,
                 delta: Optional[float] = None, weight: Optional[ColumnOrName] = None,
                 window_type: Optional[str] = None, seed: Optional[int] = None,
                 merge_levels: Optional[int] = None) -> Column:
    """Aggregate: a windowed quantile sketch of numeric values. Every quantile and rank of any range
    ``(now - r, now]`` with ``r`` up to the window is within ``epsilon`` times the range's weight, with
    probability at least ``1 - delta``, however many times the sketch is merged.

    .. versionadded:: 0.3.0

    Parameters
    ----------
    value : :class:`~pyspark.sql.Column` or str
        Numeric column (read as DOUBLE). NULL rows are skipped; NaN fails.
    ts : :class:`~pyspark.sql.Column` or str
        TIMESTAMP column or INT/BIGINT ticks; for ``window_type='count'`` the arrival sequence number.
    window : int, str, datetime.timedelta or Column, optional
        Window length (default unbounded).
    epsilon : float, optional
        Rank error as a share of the range's weight, in [0.001, 1) (default 0.01).
    delta : float, optional
        Probability that a range's rank error exceeds epsilon (default 0.01).
    weight : :class:`~pyspark.sql.Column` or str, optional
        Non-negative integer weight column (default 1 per row).
    window_type : str, optional
        ``'time'`` (default) or ``'count'``.
    seed : int, optional
        Seed of the sketch's coin flips; sketches merge only with the same seed.
    merge_levels : int, optional
        The levels of :func:`quantile_merge` that fold the merged sketches into one (up to 3
        count); merges beyond them keep the sketches side by side. The bound is epsilon either way.
        Sketches merge only with sketches of the same ``merge_levels``.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the serialized sketch, which :func:`ecm_quantile`, :func:`ecm_rank`,
        :func:`ecm_range_count` and :func:`ecm_total` query and :class:`~ecmsketch.QuantileSketch` reads.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([(float(v), t) for t, v in enumerate([30, 10, 20, 50, 40], 1)], "v double, ts bigint")
    >>> sk = df.agg(ef.quantile_agg("v", "ts", window=100).alias("s"))
    >>> sk.select(ef.ecm_quantile("s", 0.5).alias("median"), ef.ecm_quantile("s", 0.5, 2).alias("last_two")).first()
    Row(median=30.0, last_two=40.0)
    """
    return call_function("quantile_agg", _c(value), _c(ts), _p(window), _p(epsilon), _p(delta), _v(weight),
                         _p(window_type), _p(seed), _p(merge_levels))


def quantile_merge(sketch: ColumnOrName) -> Column:
    """Aggregate: the order-preserving merge of the group's windowed quantile sketches (same epsilon,
    delta, seed and window). The merged sketch certifies the same epsilon.

    .. versionadded:: 0.3.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of windowed quantile sketches; NULLs are ignored.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the merged sketch.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> rows = [("x", 1.0, 1), ("y", 2.0, 2), ("y", 3.0, 3), ("x", 4.0, 4)]
    >>> df = spark.createDataFrame(rows, "site string, v double, ts bigint")
    >>> sites = df.groupBy("site").agg(ef.quantile_agg("v", "ts", window=100).alias("s"))
    >>> sites.agg(ef.quantile_merge("s").alias("s")).select(ef.ecm_quantile("s", [0.0, 1.0]).alias("q")).first()
    Row(q=[1.0, 4.0])
    """
    return call_function("quantile_merge", _c(sketch))


def top_k_agg(key: ColumnOrName, ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None, *,
              value: Optional[ColumnOrName] = None, window_type: Optional[str] = None,
              merge_levels: Optional[int] = None) -> Column:
    """Aggregate: a frequent-items sketch of the keys over a sliding window, for top-k and heavy
    hitters of any range ``(now - r, now]`` with ``r`` up to the window. Every key's weight lies in
    its certified ``[lower, upper]`` interval, whose width is at most ``epsilon`` times the range's
    weight after up to ``1 + merge_levels`` levels of merges. The bounds are deterministic.

    .. versionadded:: 0.3.0

    Parameters
    ----------
    key : :class:`~pyspark.sql.Column` or str
        TINYINT/SMALLINT/INT/BIGINT, FLOAT/DOUBLE, STRING or BINARY column. NULL rows are skipped.
    ts : :class:`~pyspark.sql.Column` or str
        TIMESTAMP column or INT/BIGINT ticks; for ``window_type='count'`` the arrival sequence number.
    window : int, str, datetime.timedelta or Column, optional
        Window length (default unbounded).
    epsilon : float, optional
        Error as a share of the range's weight, in [0.001, 1) (default 0.001).
    value : :class:`~pyspark.sql.Column` or str, optional
        Non-negative integer weight column (default 1 per row).
    window_type : str, optional
        ``'time'`` (default) or ``'count'``.
    merge_levels : int, optional
        Levels of :func:`top_k_merge` to budget for, beyond Spark's own merge, in [0, 7] (default 0).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        ``STRUCT<sketch: BINARY, key_type: T>``: the serialized sketch, and a field that is always
        NULL and whose type T is the key's type, so that :func:`ecm_top_k` and
        :func:`ecm_heavy_hitters` return keys of type T. :func:`ecm_point`, :func:`ecm_total` and
        :func:`sketch_info` take it too, and :class:`~ecmsketch.FrequentSketch` reads its ``sketch``
        field.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> pages = ["/a", "/b", "/a", "/c", "/a", "/b"]
    >>> df = spark.createDataFrame(list(zip(pages, range(1, 7))), "page string, ts bigint")
    >>> sk = df.agg(ef.top_k_agg("page", "ts", window=100).alias("s"))
    >>> sk.select(ef.ecm_top_k("s", 2).key.alias("top"), ef.ecm_point("s", "/b", 3).alias("b_last3")).first()
    Row(top=['/a', '/b'], b_last3=1.0)
    """
    return call_function("top_k_agg", _c(key), _c(ts), _p(window), _p(epsilon), _v(value), _p(window_type),
                         _p(merge_levels))


def top_k_merge(sketch: ColumnOrName) -> Column:
    """Aggregate: the order-preserving merge of the group's frequent-items sketches (same epsilon,
    window and merge_levels; keys of one type).

    .. versionadded:: 0.3.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        The STRUCT column :func:`top_k_agg` returns, or BINARY sketches; NULLs are ignored.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        The merged sketch, of the type given: the STRUCT, or BINARY.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> rows = [("x", 7, 1), ("y", 7, 2), ("y", 8, 3)]
    >>> df = spark.createDataFrame(rows, "site string, k int, ts bigint")
    >>> sites = df.groupBy("site").agg(ef.top_k_agg("k", "ts", merge_levels=1).alias("s"))
    >>> sites.agg(ef.top_k_merge("s").alias("s")).select(ef.ecm_top_k("s", 1)[0].alias("top")).first()
    Row(top=Row(key=7, estimate=2.0, lower=2.0, upper=2.0))
    """
    return call_function("top_k_merge", _c(sketch))
