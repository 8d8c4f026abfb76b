"""Wrappers of the dyadic ECM-sketch functions: heavy hitters, top-k, range counts, ranks, quantiles."""
from __future__ import annotations

from typing import Any, Optional

from pyspark.sql import Column
from pyspark.sql.functions import call_function

from ._common import ColumnOrName, Now, Window, _c, _p, _v


def dyadic_agg(key: ColumnOrName, ts: ColumnOrName, window: Window = None, epsilon: Optional[float] = None,
               delta: Optional[float] = None, *, universe_bits: Optional[int] = None,
               value: Optional[ColumnOrName] = None, window_type: Optional[str] = None, seed: Optional[int] = None,
               merge_levels: Optional[int] = None, cell: Optional[str] = None,
               candidates: Optional[int] = None, phi_min: Optional[float] = None) -> Column:
    """Aggregate: a dyadic ECM-sketch of integer, double, string or binary keys over a sliding
    window, for heavy hitters, top-k, range counts, ranks and quantiles (the last three for numeric
    keys; docs/design/dyadic.md).

    .. versionadded:: 0.1.0

    Parameters
    ----------
    key : :class:`~pyspark.sql.Column` or str
        TINYINT/SMALLINT/INT/BIGINT, FLOAT/DOUBLE, STRING or BINARY column.
    ts : :class:`~pyspark.sql.Column` or str
        TIMESTAMP column or INT/BIGINT ticks; for ``window_type='count'`` the arrival sequence number.
    window : int, str, datetime.timedelta or Column, optional
        Window length (default unbounded).
    epsilon : float, optional
        The heavy-hitter gap of ECM Theorem 5 (default 0.05): every key with weight >= (phi +
        epsilon) times the range's total is reported.
    delta : float, optional
        Failure probability (default 0.01).
    universe_bits : int, optional
        Keys map to [0, 2^bits) (default 32: every INT; up to 64 for any BIGINT; an integer key
        outside the universe fails). Double keys keep their top ``bits`` bits.
    value : :class:`~pyspark.sql.Column` or str, optional
        Non-negative integer weight column (default 1 per row).
    window_type : str, optional
        ``'time'`` (default) or ``'count'``.
    seed : int, optional
        Hash seed; sketches merge only with the same seed.
    merge_levels : int, optional
        Cross-site merge levels to budget for (default 0).
    cell : str, optional
        ``'eh'`` (default) or ``'dwave'``.
    candidates : int, optional
        STRING/BINARY keys: the candidate keys kept per window epoch (default 1024).
    phi_min : float, optional
        Certify heavy-hitter precision 1 - delta for every phi >= phi_min (the sketch is built with
        delta * phi_min; default 1: precision 1 - delta / phi).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the serialized sketch, which :func:`ecm_heavy_hitters`, :func:`ecm_top_k`,
        :func:`ecm_range_count`, :func:`ecm_rank`, :func:`ecm_quantile`, :func:`ecm_point` and
        :func:`ecm_total` query and :class:`~ecmsketch.DyadicSketch` reads.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> keys = [5, 3, 5, 9, 5, 3, 1, 5]
    >>> df = spark.createDataFrame(list(zip(keys, range(1, 9))), "k bigint, ts bigint")
    >>> sk = df.agg(ef.dyadic_agg("k", "ts", window=100, universe_bits=8).alias("s"))
    >>> sk.select(ef.ecm_top_k("s", 2).key.alias("top"), ef.ecm_quantile("s", 0.5).alias("median")).first()
    Row(top=[5, 3], median=5.0)
    """
    return call_function("dyadic_agg", _c(key), _c(ts), _p(window), _p(epsilon), _p(delta), _p(universe_bits),
                         _v(value), _p(window_type), _p(seed), _p(merge_levels), _p(cell), _p(candidates), _p(phi_min))


def dyadic_merge(sketch: ColumnOrName) -> Column:
    """Aggregate: the order-preserving merge of the group's dyadic ECM-sketches (same parameters and
    seed).

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of dyadic sketches; NULLs are ignored.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        BINARY: the merged sketch. Budget for the merge with ``merge_levels`` in :func:`dyadic_agg`.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> rows = [("x", 5, 1), ("x", 3, 2), ("y", 5, 3), ("y", 5, 4)]
    >>> df = spark.createDataFrame(rows, "site string, k bigint, ts bigint")
    >>> per_site = ef.dyadic_agg("k", "ts", window=100, universe_bits=8, merge_levels=1)
    >>> sites = df.groupBy("site").agg(per_site.alias("s"))
    >>> merged = sites.agg(ef.dyadic_merge("s").alias("s"))
    >>> merged.select(ef.ecm_top_k("s", 2).key.alias("top"), ef.ecm_total("s").alias("total")).first()
    Row(top=[5, 3], total=4.0)
    """
    return call_function("dyadic_merge", _c(sketch))


def ecm_heavy_hitters(sketch: ColumnOrName, phi: Any, range: Window = None, now: Now = None, *,
                      key_type: Optional[str] = None) -> Column:
    """The keys of a frequent-items or dyadic sketch with weight >= ``phi`` times the range's total
    over ``(now - range, now]`` (a dyadic sketch also takes a weight ``phi`` >= 1).

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        The STRUCT column of :func:`~ecmsketch.functions.top_k_agg` (keys come back in their own
        type), or a BINARY column of frequent-items or dyadic sketches.
    phi : float or Column
        The threshold: a share of the total in (0, 1), or a weight (>= 1).
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the sketch's last timestamp; never before it).
    key_type : str, optional
        For a BINARY column: ``'bigint'`` (default), ``'int'``, ``'double'``, ``'string'`` or
        ``'binary'``, as the sketch's keys. Leave it out for the STRUCT of ``top_k_agg``.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        ARRAY<STRUCT<key, estimate, lower, upper>> by estimate, largest first. A frequent-items
        sketch lists every key with weight >= (phi + e) times the total and none below (phi - e)
        times it (e its ``heavy_hitter_error_bound``); a dyadic sketch lists every key with weight
        >= (phi + epsilon) times the total.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> keys = [5, 3, 5, 9, 5, 3, 1, 5]
    >>> df = spark.createDataFrame(list(zip(keys, range(1, 9))), "k bigint, ts bigint")
    >>> sk = df.agg(ef.dyadic_agg("k", "ts", window=100, universe_bits=8).alias("s"))
    >>> hh = sk.select(ef.ecm_heavy_hitters("s", 0.3).alias("hh")).first().hh
    >>> [(h.key, h.estimate) for h in hh]
    [(5, 4.0)]
    >>> words = spark.createDataFrame([("x", 1), ("y", 2), ("x", 3)], "w string, ts bigint")
    >>> ws = words.agg(ef.dyadic_agg("w", "ts", window=100).alias("s"))
    >>> ws.select(ef.ecm_heavy_hitters("s", 0.5, key_type="string").key.alias("keys")).first().keys
    ['x']
    """
    return call_function("ecm_heavy_hitters", _c(sketch), _p(phi), _p(range), _p(now), _p(key_type))


def ecm_top_k(sketch: ColumnOrName, k: Any, range: Window = None, now: Now = None, *,
              key_type: Optional[str] = None) -> Column:
    """The ``k`` keys of a frequent-items or dyadic sketch with the largest estimates over
    ``(now - range, now]``, each with its certified interval [lower, upper]. 

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        As for :func:`ecm_heavy_hitters`.
    k : int or Column
        How many keys.
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the sketch's last timestamp; never before it).
    key_type : str, optional
        As for :func:`ecm_heavy_hitters`.

    Returns
    -------
    :class:`~pyspark.sql.Column`
        ARRAY<STRUCT<key, estimate, lower, upper>>, largest estimate first.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> keys = [5, 3, 5, 9, 5, 3, 1, 5]
    >>> df = spark.createDataFrame(list(zip(keys, range(1, 9))), "k bigint, ts bigint")
    >>> sk = df.agg(ef.dyadic_agg("k", "ts", window=100, universe_bits=8).alias("s"))
    >>> [(t.key, t.estimate) for t in sk.select(ef.ecm_top_k("s", 2).alias("t")).first().t]
    [(5, 4.0), (3, 2.0)]
    """
    return call_function("ecm_top_k", _c(sketch), _p(k), _p(range), _p(now), _p(key_type))


def ecm_range_count(sketch: ColumnOrName, lo: Any, hi: Any, range: Window = None, now: Now = None) -> Column:
    """The estimated weight of the values in [lo, hi] (inclusive) of a windowed quantile sketch,
    or of the keys of a dyadic sketch, over ``(now - range, now]``.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of windowed quantile sketches (:func:`~ecmsketch.functions.quantile_agg`) or of
        dyadic sketches of numeric keys.
    lo, hi : int, float or Column
        The bounds of the key range.
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the sketch's last timestamp; never before it).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> keys = [5, 3, 5, 9, 5, 3, 1, 5]
    >>> df = spark.createDataFrame(list(zip(keys, range(1, 9))), "k bigint, ts bigint")
    >>> sk = df.agg(ef.dyadic_agg("k", "ts", window=100, universe_bits=8).alias("s"))
    >>> sk.select(ef.ecm_range_count("s", 3, 5)).first()[0]  # four 5s and two 3s
    6.0
    """
    return call_function("ecm_range_count", _c(sketch), _p(lo), _p(hi), _p(range), _p(now))


def ecm_rank(sketch: ColumnOrName, x: Any, range: Window = None, now: Now = None) -> Column:
    """The estimated weight of the values (keys) <= ``x`` of a windowed quantile sketch (dyadic
    sketch) over ``(now - range, now]``.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of windowed quantile sketches (:func:`~ecmsketch.functions.quantile_agg`) or of
        dyadic sketches of numeric keys.
    x : int, float or Column
        The key whose rank is asked.
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the sketch's last timestamp; never before it).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> keys = [5, 3, 5, 9, 5, 3, 1, 5]
    >>> df = spark.createDataFrame(list(zip(keys, range(1, 9))), "k bigint, ts bigint")
    >>> sk = df.agg(ef.dyadic_agg("k", "ts", window=100, universe_bits=8).alias("s"))
    >>> sk.select(ef.ecm_rank("s", 3)).first()[0]  # the 1 and the two 3s
    3.0
    """
    return call_function("ecm_rank", _c(sketch), _p(x), _p(range), _p(now))


def ecm_quantile(sketch: ColumnOrName, q: Any, range: Window = None, now: Now = None) -> Column:
    """The q-quantile of a windowed quantile sketch's values, or of a dyadic sketch's keys, over
    ``(now - range, now]``.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    sketch : :class:`~pyspark.sql.Column` or str
        BINARY column of windowed quantile sketches (:func:`~ecmsketch.functions.quantile_agg`) or of
        dyadic sketches of numeric keys.
    q : float, list of float or Column
        The quantile(s), in [0, 1].
    range : int, str, datetime.timedelta or Column, optional
        Length of the queried range (default the window).
    now : int, datetime.datetime or Column, optional
        End of the queried range (default the sketch's last timestamp; never before it).

    Returns
    -------
    :class:`~pyspark.sql.Column`
        DOUBLE (NULL for an empty range); ARRAY<DOUBLE> for a list of q.

    Examples
    --------
    >>> from ecmsketch import functions as ef
    >>> keys = [5, 3, 5, 9, 5, 3, 1, 5]
    >>> df = spark.createDataFrame(list(zip(keys, range(1, 9))), "k bigint, ts bigint")
    >>> sk = df.agg(ef.dyadic_agg("k", "ts", window=100, universe_bits=8).alias("s"))
    >>> sk.select(ef.ecm_quantile("s", 0.5).alias("median"), ef.ecm_quantile("s", [0.25, 1.0]).alias("qs")).first()
    Row(median=5.0, qs=[3.0, 9.0])
    """
    return call_function("ecm_quantile", _c(sketch), _p(q), _p(range), _p(now))
