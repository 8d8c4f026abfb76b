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
    """Aggregate: the ECM-sketch of the group's rows over a sliding window.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    key : :class:`~pyspark.sql.Column` or str
        STRING, BINARY, INT or BIGINT column.
    ts : :class:`~pyspark.sql.Column` or str
        TIMESTAMP column (ticks are microseconds) or INT/BIGINT ticks; for ``window_type='count'``
        the arrival sequence number.
    window : int, str, datetime.timedelta or Column, optional
        Window length (default unbounded).
    epsilon : float, optional
        Error bound relative to the range's total weight (default 0.05), certified after Spark's own
        merge plus ``merge_levels`` further merges.
    delta : float, optional
        Failure probability of the Count-Min part (default 0.01).
    value : :class:`~pyspark.sql.Column` or str, optional
        Non-negative integer weight column (default 1 per row).
    window_type : str, optional
        ``'time'`` (default) or ``'count'``.
    seed : int, optional
        Hash seed; sketches merge only with the same seed.
    optimize_for : str, optional
        ``'point'`` (default) or ``'inner_product'`` (also self-join).
    merge_levels : int, optional
        Cross-site merge levels to budget for (default 0).
    cell : str, optional
        ``'eh'`` (default), ``'dwave'`` or ``'rwave'`` (point queries only).
    max_arrivals : int, optional
        For ``'dwave'`` cells, a bound on the weight in any window (default none).
    max_bytes : int, optional
        A memory budget instead of ``epsilon`` (``'eh'`` cells): the smallest certified bound whose
        sketch can never serialize to more than ``max_bytes`` bytes (``sketch_info`` reports it as
        ``point_error_bound`` and the plan's ``max_size_bytes``).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the serialized sketch, which the ``ecm_*`` functions query and
        :class:`~ecmsketch.EcmSketch` reads.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([("a", 1), ("b", 2), ("a", 3), ("c", 4), ("a", 5)], "key string, ts bigint")
    >>> sk = df.agg(ef.ecm_agg("key", "ts", window=100).alias("s"))
    >>> sk.select(ef.ecm_point("s", "a").alias("a"), ef.ecm_total("s").alias("total")).first()
    Row(a=3.0, total=5.0)
    """
    return call_function("ecm_agg", _c(key), _c(ts), _p(window), _p(epsilon), _p(delta), _v(value),
                         _p(window_type), _p(seed), _p(optimize_for), _p(merge_levels), _p(cell),
                         _p(max_arrivals), _p(max_bytes))


def ecm_merge(sketch: ColumnOrName) -> Column:
    """Aggregate: the order-preserving merge of the group's ECM-sketches (same parameters and seed).

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of ECM-sketches (e.g. one per site); NULLs are ignored.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the merged sketch, covering the rows of every input. Budget for the merge with
        ``merge_levels`` in :func:`ecm_agg`.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> rows = [("x", "a", 1), ("x", "b", 2), ("y", "a", 3), ("y", "a", 4)]
    >>> df = spark.createDataFrame(rows, "site string, key string, ts bigint")
    >>> sites = df.groupBy("site").agg(ef.ecm_agg("key", "ts", window=100, merge_levels=1).alias("s"))
    >>> merged = sites.agg(ef.ecm_merge("s").alias("s"))
    >>> merged.select(ef.ecm_point("s", "a").alias("a"), ef.ecm_total("s").alias("total")).first()
    Row(a=3.0, total=4.0)
    """
    return call_function("ecm_merge", _c(sketch))


def ecm_point(sketch: ColumnOrName, key: Any, range: Window = None, now: Now = None) -> Column:
    """The estimated weight of ``key`` in ``(now - range, now]``.

    With an ARRAY Column of keys (e.g. ``F.array(...)``, ``F.col("keys")`` or
    ``F.collect_list("k")``), the answer is an ARRAY<DOUBLE> of the estimates in the same order,
    computed with one decode of the sketch: the fastest way to ask many keys. The elements follow
    the single-key type rules; a NULL element gives a NULL element, a NULL array gives NULL, an
    empty array gives an empty array.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of ECM-sketches (or dyadic sketches), or the STRUCT column of
        :func:`~ecmsketch.functions.top_k_agg`.
    key : :class:`~pyspark.sql.Column`, str, bytes or int
        The key: a Column, or a Python value of the sketch's key type; or an ARRAY Column of keys.
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the sketch's last timestamp; never before it).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE (ARRAY<DOUBLE> for an array of keys), within ``sketch_info(...).point_error_bound``
        times the range's total weight with probability ``1 - delta``.

    Examples
    --------
    >>> from pyspark.sql import functions as sf
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([("a", 1), ("b", 2), ("a", 3), ("c", 4), ("a", 5)], "key string, ts bigint")
    >>> sk = df.agg(ef.ecm_agg("key", "ts", window=100).alias("s"))
    >>> sk.select(ef.ecm_point("s", "a").alias("a"),
    ...           ef.ecm_point("s", "a", range=2, now=6).alias("recent")).first()
    Row(a=3.0, recent=1.0)
    >>> sk.select(ef.ecm_point("s", sf.array(sf.lit("a"), sf.lit("b"), sf.lit("z"))).alias("p")).first().p
    [3.0, 1.0, 0.0]
    """
    k = key if _is_column(key) else lit(key)
    return call_function("ecm_point", _c(sketch), k, _p(range), _p(now))


def ecm_inner_product(a: ColumnOrName, b: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """The estimated inner product (join size) of two ECM-sketches over ``(now - range, now]``.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    a, b : :class:`~pyspark.sql.Column` or str
        BINARY columns of ECM-sketches of the same parameters and seed (best built with
        ``optimize_for='inner_product'``).
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the later of the sketches' last timestamps).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE: the estimated sum over the keys of the products of their weights in the two streams.

    Examples
    --------
    >>> from pyspark.sql import functions as sf
    >>> from ecmsketch import functions as ef
    >>> rows = [("l", "a", 1), ("l", "a", 2), ("l", "b", 3), ("r", "a", 4), ("r", "b", 5), ("r", "b", 6)]
    >>> df = spark.createDataFrame(rows, "side string, key string, ts bigint")
    >>> def side(name):  # the sketch of one side: rows with a NULL key are skipped
    ...     return ef.ecm_agg(sf.when(df.side == name, df.key), "ts", 100, optimize_for="inner_product")
    >>> sk = df.agg(side("l").alias("l"), side("r").alias("r"))
    >>> sk.select(ef.ecm_inner_product("l", "r").alias("all"),
    ...           ef.ecm_inner_product("l", "r", range=4, now=6).alias("recent")).first()
    Row(all=4.0, recent=2.0)
    """
    return call_function("ecm_inner_product", _c(a), _c(b), _p(range), _p(now))


def ecm_self_join(sketch: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """The estimated self-join size (second frequency moment) over ``(now - range, now]``.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of ECM-sketches (best built with ``optimize_for='inner_product'``).
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the sketch's last timestamp).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE: the estimated sum over the keys of their squared weights.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([("a", 1), ("b", 2), ("a", 3), ("c", 4), ("a", 5)], "key string, ts bigint")
    >>> sk = df.agg(ef.ecm_agg("key", "ts", window=100, optimize_for="inner_product").alias("s"))
    >>> sk.select(ef.ecm_self_join("s")).first()[0]  # 3^2 + 1^2 + 1^2
    11.0
    """
    return call_function("ecm_self_join", _c(sketch), _p(range), _p(now))


def ecm_total(sketch: ColumnOrName, range: Window = None, now: Now = None) -> Column:
    """The estimated total weight over ``(now - range, now]``.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of ECM-sketches, dyadic sketches or windowed quantile sketches, or the STRUCT
        column of :func:`~ecmsketch.functions.top_k_agg`.
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the sketch's last timestamp).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE, within the deterministic bound ``sketch_info(...).total_error_bound``.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([("a", 1), ("b", 2), ("a", 3), ("c", 4), ("a", 5)], "key string, ts bigint")
    >>> sk = df.agg(ef.ecm_agg("key", "ts", window=100).alias("s"))
    >>> sk.select(ef.ecm_total("s").alias("all"), ef.ecm_total("s", range=2).alias("last2")).first()
    Row(all=5.0, last2=2.0)
    """
    return call_function("ecm_total", _c(sketch), _p(range), _p(now))


def sketch_info(sketch: ColumnOrName) -> Column:
    """A description of a sketch of any kind: kind, parameters, merge depth, certified bounds,
    timestamps and size.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of sketches of any kind.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        STRUCT with the fields ``kind``, ``window``, ``epsilon``, ``error_bound``, ``merge_depth``,
        ``first_ts``, ``last_ts``, ``total_weight``, ``size_bytes`` and the kind's own (NULL where
        they do not apply); :meth:`ecmsketch.EcmSketch.info` gives the same fields.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([("a", 1), ("b", 2), ("a", 3), ("c", 4), ("a", 5)], "key string, ts bigint")
    >>> sk = df.agg(ef.ecm_agg("key", "ts", window=100).alias("s"))
    >>> info = sk.select(ef.sketch_info("s").alias("i")).first().i
    >>> info.kind, info.window, info.epsilon, info.total_weight, info.last_ts
    ('ecm', 100, 0.05, 5, 5)
    """
    return call_function("sketch_info", _c(sketch))
