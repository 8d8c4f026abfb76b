"""Wrappers of the sliding-window counter functions: exponential histograms and deterministic waves."""
from __future__ import annotations

from typing import Optional

from pyspark.sql import Column
from pyspark.sql.functions import call_function

from ._common import ColumnOrName, Now, Window, _c, _p, _v


def eh_agg(ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None, *,
           value: Optional[ColumnOrName] = None, window_type: Optional[str] = None,
           merge_levels: Optional[int] = None) -> Column:
    """Aggregate: an exponential histogram counting the group's rows, or summing ``value``, over a
    sliding window.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    ts : :class:`~pyspark.sql.Column` or str
        TIMESTAMP column or INT/BIGINT ticks; for ``window_type='count'`` the arrival sequence number.
    window : int, str, datetime.timedelta or Column, optional
        Window length (default unbounded).
    epsilon : float, optional
        Relative error bound (default 0.05), certified after Spark's own merge plus ``merge_levels``
        further merges.
    value : :class:`~pyspark.sql.Column` or str, optional
        Non-negative integer weight column (default 1 per row: a count).
    window_type : str, optional
        ``'time'`` (default) or ``'count'``.
    merge_levels : int, optional
        Cross-site merge levels to budget for (default 0).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the serialized histogram, which :func:`eh_count` queries and
        :class:`~ecmsketch.ExpHistogram` reads.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([(1, 2), (2, 1), (4, 3), (7, 1)], "ts bigint, v bigint")
    >>> df.agg(ef.eh_agg("ts", window=10).alias("h")).select(ef.eh_count("h")).first()[0]
    4.0
    >>> df.agg(ef.eh_agg("ts", window=10, value="v").alias("h")).select(ef.eh_count("h")).first()[0]
    7.0
    """
    return call_function("eh_agg", _c(ts), _p(window), _p(epsilon), _v(value), _p(window_type), _p(merge_levels))


def eh_merge(sketch: ColumnOrName) -> Column:
    """Aggregate: the order-preserving merge of the group's exponential histograms (same parameters).

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of exponential histograms (time-based windows); NULLs are ignored.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the merged histogram. Budget for the merge with ``merge_levels`` in :func:`eh_agg`.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([("x", 1), ("x", 2), ("y", 3), ("y", 5), ("y", 6)], "site string, ts bigint")
    >>> sites = df.groupBy("site").agg(ef.eh_agg("ts", window=10, merge_levels=1).alias("h"))
    >>> sites.agg(ef.eh_merge("h").alias("h")).select(ef.eh_count("h")).first()[0]
    5.0
    """
    return call_function("eh_merge", _c(sketch))


def eh_count(sketch: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """The estimated count (or sum) of an exponential histogram over ``(now - range, now]``.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of exponential histograms.
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the histogram's last timestamp; never before it).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE, within ``sketch_info(...).error_bound`` relative error.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([(1,), (2,), (4,), (7,)], "ts bigint")
    >>> h = df.agg(ef.eh_agg("ts", window=10).alias("h"))
    >>> h.select(ef.eh_count("h").alias("all"), ef.eh_count("h", range=4).alias("last4"),
    ...          ef.eh_count("h", range=4, now=9).alias("at9")).first()
    Row(all=4.0, last4=2.0, at9=1.0)
    """
    return call_function("eh_count", _c(sketch), _p(range), _p(now))


def dwave_agg(ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None, *,
              value: Optional[ColumnOrName] = None, max_arrivals: Optional[int] = None,
              window_type: Optional[str] = None, merge_levels: Optional[int] = None) -> Column:
    """Aggregate: a deterministic wave counting the group's rows, or summing ``value`` (the sum
    wave), over a sliding window.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    ts : :class:`~pyspark.sql.Column` or str
        TIMESTAMP column or INT/BIGINT ticks; for ``window_type='count'`` the arrival sequence number.
    window : int, str, datetime.timedelta or Column, optional
        Window length (default unbounded).
    epsilon : float, optional
        Relative error bound (default 0.05), certified after Spark's own merge plus ``merge_levels``
        further merges.
    value : :class:`~pyspark.sql.Column` or str, optional
        Non-negative integer weight column (default 1 per row: a count).
    max_arrivals : int, optional
        A bound on the weight in any window (default: no bound); a query reaching back into a
        stretch where it was exceeded fails.
    window_type : str, optional
        ``'time'`` (default) or ``'count'``.
    merge_levels : int, optional
        Cross-site merge levels to budget for (default 0).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the serialized wave, which :func:`dwave_count` queries and
        :class:`~ecmsketch.DetWave` reads.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([(1, 2), (2, 1), (4, 3), (7, 1)], "ts bigint, v bigint")
    >>> df.agg(ef.dwave_agg("ts", window=10).alias("w")).select(ef.dwave_count("w")).first()[0]
    4.0
    >>> sums = df.agg(ef.dwave_agg("ts", window=10, value="v", max_arrivals=100).alias("w"))
    >>> sums.select(ef.dwave_count("w")).first()[0]
    7.0
    """
    return call_function("dwave_agg", _c(ts), _p(window), _p(epsilon), _v(value), _p(max_arrivals),
                         _p(window_type), _p(merge_levels))


def dwave_merge(sketch: ColumnOrName) -> Column:
    """Aggregate: the order-preserving merge of the group's deterministic waves (same parameters).

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of deterministic waves (time-based windows); NULLs are ignored.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the merged wave. Budget for the merge with ``merge_levels`` in :func:`dwave_agg`.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([("x", 1), ("x", 2), ("y", 3), ("y", 5), ("y", 6)], "site string, ts bigint")
    >>> sites = df.groupBy("site").agg(ef.dwave_agg("ts", window=10, merge_levels=1).alias("w"))
    >>> sites.agg(ef.dwave_merge("w").alias("w")).select(ef.dwave_count("w")).first()[0]
    5.0
    """
    return call_function("dwave_merge", _c(sketch))


def dwave_count(sketch: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """The estimated count (or sum) of a deterministic wave over ``(now - range, now]``.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of deterministic waves.
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the wave's last timestamp; never before it).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE, within ``sketch_info(...).error_bound`` relative error.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([(1,), (2,), (4,), (7,)], "ts bigint")
    >>> w = df.agg(ef.dwave_agg("ts", window=10).alias("w"))
    >>> w.select(ef.dwave_count("w").alias("all"), ef.dwave_count("w", range=4).alias("last4")).first()
    Row(all=4.0, last4=2.0)
    """
    return call_function("dwave_count", _c(sketch), _p(range), _p(now))
