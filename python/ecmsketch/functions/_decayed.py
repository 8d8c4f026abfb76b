"""Wrappers of the time-decayed sketch functions (docs/design/decayed.md)."""
from __future__ import annotations

from typing import Any, Optional

from pyspark.sql import Column
from pyspark.sql.functions import call_function

from ._common import ColumnOrName, Now, _c, _p, _v


def decayed_agg(weight: ColumnOrName, ts: ColumnOrName, epsilon: Optional[float] = None, delta: Optional[float] = None,
                *, value: Optional[ColumnOrName] = None, id: Optional[ColumnOrName] = None, seed: Optional[int] = None,
                decay: Optional[str] = None, decay_param: Optional[float] = None, constant: Optional[float] = None,
                max_weight: Optional[int] = None, resolution: Optional[int] = None) -> Column:
    """Aggregate: a duplicate-insensitive, mergeable, time-decayed sketch of the group's rows.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    weight : :class:`~pyspark.sql.Column` or str
        Integer column in [0, max_weight] (``lit(1)`` for counts): what :func:`decayed_sum` adds up.
    ts : :class:`~pyspark.sql.Column` or str
        TIMESTAMP (ages in seconds) or INT/BIGINT ticks; rows may come in any order.
    epsilon : float, optional
        Relative error of decayed sums (default 0.1).
    delta : float, optional
        Failure probability (default 0.05).
    value : :class:`~pyspark.sql.Column` or str, optional
        Numeric column that quantiles, frequent items and selectivity rank (default: the weight).
    id : :class:`~pyspark.sql.Column` or str, optional
        Any column; rows with equal ids count once, at one site or many (default: (weight, value, ts)).
    seed : int, optional
        Hash seed; sketches merge only with the same seed.
    decay : str, optional
        Unset builds the general sketch (the decay is chosen at query time); ``'window'``, ``'exp'``
        or ``'poly'`` with ``decay_param`` builds the sketch for that decay.
    decay_param : float, optional
        The decay's parameter: W for ``'window'``, the half-life for ``'exp'``, alpha for ``'poly'``.
    constant : float, optional
        C of tau = C / epsilon^2 (default 4, measured in docs/design/decayed.md).
    max_weight : int, optional
        The largest weight (default 1024).
    resolution : int, optional
        For the ``'exp'`` and ``'poly'`` decays, the units each weight is scaled to (default 1024):
        a decayed weight is floored to a multiple of 1/resolution (docs/design/decayed.md).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the serialized sketch, which the ``decayed_*`` functions query and
        :class:`~ecmsketch.DecayedSketch` reads.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([(1, 0), (1, 10), (1, 20)], "w bigint, ts bigint")
    >>> d = df.agg(ef.decayed_agg("w", "ts").alias("d"))  # the general sketch: any decay at query time
    >>> d.select(ef.decayed_sum("d", "exp", 10, now=20)).first()[0]  # half-life 10: 1 + 1/2 + 1/4
    1.75
    >>> fixed = df.agg(ef.decayed_agg("w", "ts", decay="exp", decay_param=10).alias("d"))
    >>> fixed.select(ef.decayed_sum("d", now=20)).first()[0]
    1.75
    """
    return call_function("decayed_agg", _c(weight), _c(ts), _p(epsilon), _p(delta), _v(value), _v(id), _p(seed),
                         _p(decay), _p(decay_param), _p(constant), _p(max_weight), _p(resolution))


def decayed_merge(sketch: ColumnOrName) -> Column:
    """Aggregate: the lossless merge of the group's decayed sketches (same parameters and seed).

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of decayed sketches; NULLs are ignored.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the merged sketch; an id seen by several inputs counts once.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> rows = [("x", 1, 1, 0), ("y", 1, 1, 0), ("y", 1, 2, 10)]  # id 1 seen at both sites
    >>> df = spark.createDataFrame(rows, "site string, w bigint, id bigint, ts bigint")
    >>> sites = df.groupBy("site").agg(ef.decayed_agg("w", "ts", id="id").alias("d"))
    >>> sites.agg(ef.decayed_merge("d").alias("d")).select(ef.decayed_sum("d", "window", 100)).first()[0]
    2.0
    """
    return call_function("decayed_merge", _c(sketch))


def decayed_sum(sketch: ColumnOrName, decay: Optional[str] = None, param: Optional[float] = None,
                now: Now = None) -> Column:
    """The estimated decayed sum over the distinct elements with ts <= now.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of decayed sketches.
    decay : str, optional
        ``'window'`` (param W: ages < W count fully), ``'exp'`` (param = half-life) or ``'poly'``
        (param = alpha: weight (age + 1)^-alpha); ages in ts units (seconds for TIMESTAMP). May be
        omitted for a sketch built with a decay.
    param : float, optional
        The decay's parameter.
    now : int, datetime.datetime or Column, optional
        The time the ages are taken at (default the sketch's latest timestamp).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE, within ``epsilon`` relative error with probability ``1 - delta``.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> df = spark.createDataFrame([(1, 0), (1, 10), (1, 20)], "w bigint, ts bigint")
    >>> d = df.agg(ef.decayed_agg("w", "ts").alias("d"))
    >>> d.select(ef.decayed_sum("d", "window", 15, now=20).alias("w15"),
    ...          ef.decayed_sum("d", "exp", 10, now=20).alias("exp10")).first()
    Row(w15=2.0, exp10=1.75)
    """
    return call_function("decayed_sum", _c(sketch), _p(decay), _p(param), _p(now))


def decayed_quantile(sketch: ColumnOrName, q: Any, decay: Optional[str] = None, param: Optional[float] = None,
                     now: Now = None) -> Column:
    """The decayed q-quantile of the values.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of decayed sketches.
    q : float or Column
        The quantile, in [0, 1].
    decay, param, now
        As for :func:`decayed_sum`.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE; NULL when nothing has weight.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> rows = [(1, 1.0, 1), (1, 1.0, 2), (1, 1.0, 3), (1, 2.0, 4)]
    >>> df = spark.createDataFrame(rows, "w bigint, v double, ts bigint")
    >>> d = df.agg(ef.decayed_agg("w", "ts", value="v").alias("d"))
    >>> d.select(ef.decayed_quantile("d", 0.5, "window", 100)).first()[0]
    1.0
    """
    return call_function("decayed_quantile", _c(sketch), _p(q), _p(decay), _p(param), _p(now))


def decayed_frequent(sketch: ColumnOrName, phi: Any, decay: Optional[str] = None, param: Optional[float] = None,
                     now: Now = None) -> Column:
    """The values whose estimated decayed share of the weight exceeds phi - epsilon/2.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of decayed sketches.
    phi : float or Column
        The share, in (0, 1).
    decay, param, now
        As for :func:`decayed_sum`.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        ARRAY<STRUCT<value, share>>, largest share first.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> rows = [(1, 1.0, 1), (1, 1.0, 2), (1, 1.0, 3), (1, 2.0, 4)]
    >>> df = spark.createDataFrame(rows, "w bigint, v double, ts bigint")
    >>> d = df.agg(ef.decayed_agg("w", "ts", value="v").alias("d"))
    >>> d.select(ef.decayed_frequent("d", 0.5, "window", 100).alias("f")).first().f
    [Row(value=1.0, share=0.75)]
    """
    return call_function("decayed_frequent", _c(sketch), _p(phi), _p(decay), _p(param), _p(now))


def decayed_selectivity(sketch: ColumnOrName, lo: Any, hi: Any, decay: Optional[str] = None,
                        param: Optional[float] = None, now: Now = None) -> Column:
    """The estimated decayed fraction of the weight whose value lies in [lo, hi].

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of decayed sketches.
    lo, hi : float or Column
        The bounds of the value range.
    decay, param, now
        As for :func:`decayed_sum`.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE in [0, 1].

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> rows = [(1, 1.0, 1), (1, 1.0, 2), (1, 1.0, 3), (1, 2.0, 4)]
    >>> df = spark.createDataFrame(rows, "w bigint, v double, ts bigint")
    >>> d = df.agg(ef.decayed_agg("w", "ts", value="v").alias("d"))
    >>> d.select(ef.decayed_selectivity("d", 1.5, 3.0, "window", 100)).first()[0]
    0.25
    """
    return call_function("decayed_selectivity", _c(sketch), _p(lo), _p(hi), _p(decay), _p(param), _p(now))
