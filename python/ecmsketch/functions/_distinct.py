"""Wrappers of the sliding-window distinct-count functions."""
from __future__ import annotations

from typing import Optional

from pyspark.sql import Column
from pyspark.sql.functions import call_function

from ._common import ColumnOrName, Now, Window, _c, _p


def distinct_agg(value: ColumnOrName, ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None,
                 delta: Optional[float] = None, *, window_type: Optional[str] = None,
                 seed: Optional[int] = None) -> Column:
    """Aggregate: a mergeable sliding-window distinct-count sketch of the group's values.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    value : :class:`~pyspark.sql.Column` or str
        STRING, BINARY, INT or BIGINT column whose distinct values are counted.
    ts : :class:`~pyspark.sql.Column` or str
        TIMESTAMP column or INT/BIGINT ticks; for ``window_type='count'`` the arrival sequence number.
    window : int, str, datetime.timedelta or Column, optional
        Window length (default unbounded).
    epsilon : float, optional
        Relative error (default 0.1).
    delta : float, optional
        Failure probability (default 0.05).
    window_type : str, optional
        ``'time'`` (default) or ``'count'``.
    seed : int, optional
        Hash seed; sketches merge only with the same seed.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the serialized sketch, which :func:`distinct_count` queries and
        :class:`~ecmsketch.DistinctSketch` reads.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([("u1", 1), ("u2", 2), ("u1", 3), ("u3", 4)], "user string, ts bigint")
    >>> df.agg(ef.distinct_agg("user", "ts", window=100).alias("d")).select(ef.distinct_count("d")).first()[0]
    3.0
    """
    return call_function("distinct_agg", _c(value), _c(ts), _p(window), _p(epsilon), _p(delta),
                         _p(window_type), _p(seed))


def distinct_merge(sketch: ColumnOrName) -> Column:
    """Aggregate: the lossless merge of the group's distinct-count sketches (same parameters and seed).

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of distinct-count sketches; NULLs are ignored.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the merged sketch; a value seen at several sites counts once.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> rows = [("x", "u1", 1), ("x", "u2", 2), ("y", "u1", 3), ("y", "u3", 4)]
    >>> df = spark.createDataFrame(rows, "site string, user string, ts bigint")
    >>> sites = df.groupBy("site").agg(ef.distinct_agg("user", "ts", window=100).alias("d"))
    >>> sites.agg(ef.distinct_merge("d").alias("d")).select(ef.distinct_count("d")).first()[0]
    3.0
    """
    return call_function("distinct_merge", _c(sketch))


def distinct_count(sketch: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """The estimated number of distinct values whose latest occurrence lies in ``(now - range, now]``.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of distinct-count sketches.
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the sketch's last timestamp; never before it).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE, within ``epsilon`` relative error with probability ``1 - delta``.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([("u1", 1), ("u2", 2), ("u1", 3), ("u3", 4)], "user string, ts bigint")
    >>> d = df.agg(ef.distinct_agg("user", "ts", window=100).alias("d"))
    >>> d.select(ef.distinct_count("d").alias("all"), ef.distinct_count("d", range=2).alias("last2")).first()
    Row(all=3.0, last2=2.0)
    """
    return call_function("distinct_count", _c(sketch), _p(range), _p(now))
