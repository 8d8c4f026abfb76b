"""Wrappers of the asynchronous-stream sketch functions (docs/design/async.md)."""
from __future__ import annotations

from typing import Any, Optional

from pyspark.sql import Column
from pyspark.sql.functions import call_function

from ._common import ColumnOrName, Now, Window, _c, _p, _v


def async_sum_agg(value: ColumnOrName, ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None,
                  delta: Optional[float] = None, *, id: Optional[ColumnOrName] = None, seed: Optional[int] = None,
                  window_type: Optional[str] = None, tradeoff: Optional[int] = None) -> Column:
    """Aggregate: the async sum sketch (Xu-Tirthapura-Busch) of positive integer weights over a
    timestamp window, rows in any timestamp order: every range sum is within ``epsilon`` relative
    error with probability >= 1 - ``delta``, and :func:`async_merge` is lossless.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    value : :class:`~pyspark.sql.Column` or str
        Positive TINYINT/SMALLINT/INT/BIGINT weight.
    ts : :class:`~pyspark.sql.Column` or str
        TIMESTAMP column or INT/BIGINT ticks, in any order.
    window : int, str, datetime.timedelta or Column, optional
        Window length (default unbounded).
    epsilon : float, optional
        Relative error (default 0.1).
    delta : float, optional
        Failure probability (default 0.05).
    id : :class:`~pyspark.sql.Column` or str, optional
        Element id column (INT/BIGINT/STRING/BINARY). Elements are identified by ``(value, ts)``,
        or ``(id, value, ts)`` with ids; equal identities count once, at one site or several.
    seed : int, optional
        Hash seed; sketches merge only with the same seed.
    window_type : str, optional
        ``'time'`` (the only one these sketches take).
    tradeoff : int, optional
        The processing/query trade-off level L in [0, 62] (default 62: one level per element).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the serialized sketch, which :func:`async_sum` queries and
        :class:`~ecmsketch.AsyncSum` reads.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([(3, 5), (2, 1), (4, 3)], "v bigint, ts bigint")  # out of order
    >>> a = df.agg(ef.async_sum_agg("v", "ts", window=100).alias("a"))
    >>> a.select(ef.async_sum("a")).first()[0]
    9.0
    """
    return call_function("async_sum_agg", _c(value), _c(ts), _p(window), _p(epsilon), _p(delta), _v(id), _p(seed),
                         _p(window_type), _p(tradeoff))


def async_count_agg(ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None,
                    delta: Optional[float] = None, *, id: Optional[ColumnOrName] = None, seed: Optional[int] = None,
                    window_type: Optional[str] = None, tradeoff: Optional[int] = None) -> Column:
    """Aggregate: the async count sketch, the sum sketch with weight 1. Without ``id`` rows with
    equal ``ts`` are one element; give a unique row id to count every row.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    ts : :class:`~pyspark.sql.Column` or str
        TIMESTAMP column or INT/BIGINT ticks, in any order.
    window, epsilon, delta, id, seed, window_type, tradeoff
        As for :func:`async_sum_agg`.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the serialized sketch, which :func:`async_sum` queries (a count).

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([(1, 5), (2, 1), (3, 3), (4, 3)], "id bigint, ts bigint")
    >>> df.agg(ef.async_count_agg("ts", window=100).alias("a")).select(ef.async_sum("a")).first()[0]
    3.0
    >>> df.agg(ef.async_count_agg("ts", window=100, id="id").alias("a")).select(ef.async_sum("a")).first()[0]
    4.0
    """
    return call_function("async_count_agg", _c(ts), _p(window), _p(epsilon), _p(delta), _v(id), _p(seed),
                         _p(window_type), _p(tradeoff))


def async_quantile_agg(value: ColumnOrName, ts: ColumnOrName, window: Window = None,
                       epsilon: Optional[float] = None, delta: Optional[float] = None, *,
                       id: Optional[ColumnOrName] = None, seed: Optional[int] = None,
                       window_type: Optional[str] = None) -> Column:
    """Aggregate: the async quantile sketch (Xu-Tirthapura-Busch median sketch) of numeric values,
    rows in any timestamp order: every quantile's rank is within ``epsilon`` times the range's
    count with probability >= 1 - ``delta``.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    value : :class:`~pyspark.sql.Column` or str
        Numeric column.
    ts : :class:`~pyspark.sql.Column` or str
        TIMESTAMP column or INT/BIGINT ticks, in any order.
    window : int, str, datetime.timedelta or Column, optional
        Window length (default unbounded).
    epsilon : float, optional
        Rank error (default 0.1, below 0.5).
    delta : float, optional
        Failure probability (default 0.05).
    id, seed, window_type
        As for :func:`async_sum_agg`.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the serialized sketch, which :func:`async_quantile` queries and
        :class:`~ecmsketch.AsyncQuantile` reads.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([(4.0, 5), (1.0, 1), (3.0, 3), (2.0, 2), (5.0, 4)], "v double, ts bigint")
    >>> q = df.agg(ef.async_quantile_agg("v", "ts", window=100).alias("q"))
    >>> q.select(ef.async_quantile("q", 0.5)).first()[0]
    3.0
    """
    return call_function("async_quantile_agg", _c(value), _c(ts), _p(window), _p(epsilon), _p(delta), _v(id),
                         _p(seed), _p(window_type))


def async_merge(sketch: ColumnOrName) -> Column:
    """Aggregate: the lossless union of the group's async sketches (same measure, parameters and seed).

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of async sketches; NULLs are ignored.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the sketch of all the inputs' elements (an element seen at several sites counts once).

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([("x", 3, 5), ("y", 2, 1), ("y", 4, 3)], "site string, v bigint, ts bigint")
    >>> sites = df.groupBy("site").agg(ef.async_sum_agg("v", "ts", window=100).alias("a"))
    >>> sites.agg(ef.async_merge("a").alias("a")).select(ef.async_sum("a")).first()[0]
    9.0
    """
    return call_function("async_merge", _c(sketch))


def async_sum(sketch: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """The estimated sum (count) of an async sum (count) sketch over ``(now - range, now]``.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of async sum or count sketches.
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the sketch's latest timestamp).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([(3, 5), (2, 1), (4, 3)], "v bigint, ts bigint")
    >>> a = df.agg(ef.async_sum_agg("v", "ts", window=100).alias("a"))
    >>> a.select(ef.async_sum("a").alias("all"), ef.async_sum("a", range=3, now=5).alias("last3")).first()
    Row(all=9.0, last3=7.0)
    """
    return call_function("async_sum", _c(sketch), _p(range), _p(now))


def async_quantile(sketch: ColumnOrName, q: Any, range: Window = None, now: Now = None) -> Column:
    """The q-quantile of an async quantile sketch over ``(now - range, now]``.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of async quantile sketches.
    q : float, list of float or Column
        The quantile(s), in [0, 1].
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the sketch's latest timestamp).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE (NULL for an empty range); ARRAY<DOUBLE> for a list of q.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([(4.0, 5), (1.0, 1), (3.0, 3), (2.0, 2), (5.0, 4)], "v double, ts bigint")
    >>> q = df.agg(ef.async_quantile_agg("v", "ts", window=100).alias("q"))
    >>> q.select(ef.async_quantile("q", 0.5).alias("median"), ef.async_quantile("q", [0.0, 1.0]).alias("ends")).first()
    Row(median=3.0, ends=[1.0, 5.0])
    """
    return call_function("async_quantile", _c(sketch), _p(q), _p(range), _p(now))
