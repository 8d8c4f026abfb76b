"""The table of Spark Connect cases (tests/test_connect.py).

Each case builds a DataFrame from a SparkSession through the ``ecmsketch.functions`` wrappers (or SQL
text). The same code runs on a classic SparkSession (in the pytest process) and on a Spark Connect
session (in a subprocess: PySpark cannot run a local Connect server next to a classic SparkContext),
and the results must be identical: the same sketch bytes, the same answers, the same error messages.

This module imports only PySpark and ecmsketch (no pytest), since the Connect subprocess imports it.
Every wrapper a case calls is recorded (``Recorder``), so a function added to ``ecmsketch.functions``
without a Connect case is noticed by ``test_every_function_is_covered_under_connect``.
"""
from __future__ import annotations

import datetime as dt
import json
import traceback
from typing import Any, Callable, Dict, List, Tuple

from pyspark.sql import functions as SF

# Both sessions get these settings (the classic one in conftest.py).
SESSION_CONF = {"spark.sql.shuffle.partitions": "4", "spark.sql.session.timeZone": "UTC"}

N = 6000
BASE_SECONDS = 1_700_000_000
# After the last row (BASE_SECONDS + N - 1 s, 2023-11-14 23:53:19 UTC): a naive datetime (UTC, as
# in the tests) and the same instant with an explicit non-UTC offset.
LATER = dt.datetime(2023, 11, 15, 0, 0, 0)
LATER_TZ = dt.datetime(2023, 11, 15, 1, 0, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))


def base(spark):
    """6000 rows on 2 partitions, each partition in time order; a few NULL keys and weights."""
    return spark.range(0, N, 1, 2).selectExpr(
        "cast(id % 37 AS STRING) AS k", "id % 53 AS ik", "id AS ts", "id % 7 AS v",
        f"timestamp_seconds({BASE_SECONDS} + id) AS tsx", "cast(id % 3 AS INT) AS site",
        "CASE WHEN id % 11 = 0 THEN NULL ELSE cast(id % 37 AS STRING) END AS nk",
        "CASE WHEN id % 13 = 0 THEN NULL ELSE id % 7 END AS nv",
        "CASE WHEN id % 17 = 0 THEN NULL ELSE id END AS nts")


class Recorder:
    """Stands in for the ``ecmsketch.functions`` module and records which wrappers were called."""

    def __init__(self, module):
        self._m = module
        self.called: set = set()

    def __getattr__(self, name):
        attr = getattr(self._m, name)
        if callable(attr) and name in getattr(self._m, "__all__", ()):
            self.called.add(name)
        return attr


# --------------------------------------------------------------------------- value cases
# A case: (spark, E) -> DataFrame. Results must be identical under classic and Connect, and (unless
# listed in NULLS_EXPECTED) contain no NULL: an answer that is NULL everywhere proves nothing.


def ecm_queries(spark, E):
    df = base(spark)
    return (df.agg(E.ecm_agg("k", "ts", 5000, 0.1, 0.1, merge_levels=1).alias("s"),
                   E.ecm_agg("ik", "ts", 2000, value="v", seed=7, optimize_for="inner_product").alias("b"),
                   E.ecm_agg("ik", "ts", 2000, seed=7, optimize_for="inner_product", cell="dwave",
                             max_arrivals=100_000).alias("b2"),
                   E.ecm_agg("k", "ts", 1000, 0.3, cell="rwave").alias("r"),
                   E.ecm_agg("k", "ts", 500, window_type="count").alias("c"),
                   E.ecm_agg(SF.col("k").cast("binary"), "ts", 1000, delta=0.05).alias("bin"),
                   E.ecm_agg("k", "ts").alias("g"))
            # not "r" itself: randomized-wave cells salt their event ids at random (docs/design/rwave.md),
            # so their bytes differ from run to run; their info and answers are compared instead
            .select("s", "b", "b2", "c", "bin", "g",
                    E.ecm_point("s", "3").alias("p_default"),
                    E.ecm_point("s", "3", range=1000).alias("p_range"),
                    E.ecm_point("s", SF.lit("4"), 100, N + 50).alias("p_now"),
                    E.ecm_point("b", 3, 100).alias("p_int"),
                    E.ecm_point("b", "3", 100).alias("p_int_text"),
                    E.ecm_point("bin", b"5", 700).alias("p_bytes"),
                    E.ecm_point("s", b"5", 700).alias("p_bytes_on_string"),
                    E.ecm_point("r", "5", 500).alias("p_rwave"),
                    E.ecm_point("c", "6", 100).alias("p_count"),
                    E.ecm_total("s", 1000).alias("t_s"), E.ecm_total("b2").alias("t_b2"),
                    E.ecm_total("c", 200).alias("t_c"), E.ecm_total("g", 10**6, N + 10).alias("t_g"),
                    E.ecm_self_join("s").alias("f2_s"), E.ecm_self_join("b", 300, N + 100).alias("f2_b"),
                    E.ecm_inner_product("b", "b2", 500).alias("ip"),
                    E.ecm_inner_product("b2", "b", 500, N - 1).alias("ip_now_last"),
                    E.ecm_inner_product("b2", "b", 500, N + 10).alias("ip_later"),
                    E.sketch_info("s").alias("i_s"), E.sketch_info("b").alias("i_b"),
                    E.sketch_info("b2").alias("i_b2"), E.sketch_info("r").alias("i_r"),
                    E.sketch_info("c").alias("i_c"), E.sketch_info("bin").alias("i_bin")))


def timestamp_windows(spark, E):
    df = base(spark)
    return (df.agg(E.ecm_agg("k", "tsx", dt.timedelta(minutes=30)).alias("t"),
                   E.ecm_agg("k", "tsx", "20 minutes", 0.1).alias("t2"),
                   E.eh_agg("tsx", dt.timedelta(hours=1)).alias("h"),
                   E.dwave_agg("tsx", "30 minutes").alias("w"),
                   E.distinct_agg("k", "tsx", dt.timedelta(minutes=30)).alias("n"))
            .select("t", "t2", "h", "w", "n",
                    E.ecm_point("t", "3", dt.timedelta(minutes=10)).alias("p"),
                    E.ecm_point("t", "3", "10 minutes", LATER).alias("p_later"),
                    E.ecm_point("t", "3", "30 minutes", LATER_TZ).alias("p_later_tz"),
                    E.ecm_total("t2", "5 minutes").alias("tot"),
                    E.ecm_self_join("t", dt.timedelta(minutes=3), LATER).alias("f2"),
                    E.ecm_inner_product("t", "t", "2 minutes").alias("ip"),
                    E.eh_count("h", dt.timedelta(minutes=7), LATER_TZ).alias("c_h"),
                    E.dwave_count("w", "90 seconds").alias("c_w"),
                    E.distinct_count("n", dt.timedelta(minutes=1)).alias("c_n"),
                    E.sketch_info("t").alias("i_t"), E.sketch_info("h").alias("i_h")))


def counters(spark, E):
    df = base(spark)
    return (df.agg(E.eh_agg("ts", 2000, 0.05, value="v").alias("h"),
                   E.eh_agg("ts", 300, window_type="count", merge_levels=2).alias("hc"),
                   E.dwave_agg("ts", 5000, 0.05, max_arrivals=10_000).alias("w"),
                   E.dwave_agg("ts", 2000, value="v", merge_levels=1).alias("ws"),
                   E.dwave_agg("ts", 400, 0.1, window_type="count").alias("wc"),
                   E.distinct_agg("k", "ts", 5000, 0.2, 0.1).alias("n"),
                   E.distinct_agg("ik", "ts", 1000, seed=5, window_type="count").alias("nc"))
            .select("h", "hc", "w", "ws", "wc", "n", "nc",
                    E.eh_count("h").alias("c_h"), E.eh_count("h", 250, N + 100).alias("c_h_now"),
                    E.eh_count("hc", 100).alias("c_hc"),
                    E.dwave_count("w", 1000).alias("c_w"), E.dwave_count("ws", 700, N).alias("c_ws"),
                    E.dwave_count("wc").alias("c_wc"),
                    E.distinct_count("n", 1000).alias("c_n"), E.distinct_count("nc", 40).alias("c_nc"),
                    E.sketch_info("h").alias("i_h"), E.sketch_info("hc").alias("i_hc"),
                    E.sketch_info("w").alias("i_w"), E.sketch_info("ws").alias("i_ws"),
                    E.sketch_info("n").alias("i_n"), E.sketch_info("nc").alias("i_nc")))


def merges(spark, E):
    sites = base(spark).groupBy("site").agg(
        E.ecm_agg("k", "ts", 3000, merge_levels=1).alias("s"),
        E.ecm_agg("ik", "ts", 3000, 0.1, optimize_for="inner_product", cell="dwave", merge_levels=1).alias("sd"),
        E.eh_agg("ts", 3000, merge_levels=1).alias("h"),
        E.dwave_agg("ts", 3000, value="v", merge_levels=1).alias("w"),
        E.distinct_agg("k", "ts", 3000).alias("n"))
    # NULL sketches are ignored by every merge
    nulls = sites.limit(1).select(*[SF.lit(None).cast("binary").alias(c) for c in ("s", "sd", "h", "w", "n")])
    return (sites.select("s", "sd", "h", "w", "n").unionByName(nulls)
            .agg(E.ecm_merge("s").alias("s"), E.ecm_merge(SF.col("sd")).alias("sd"), E.eh_merge("h").alias("h"),
                 E.dwave_merge("w").alias("w"), E.distinct_merge("n").alias("n"))
            .select("s", "sd", "h", "w", "n",
                    E.ecm_point("s", "7", 1000).alias("p"), E.ecm_total("s", 2000).alias("t"),
                    E.ecm_self_join("sd", 1500).alias("f2"), E.ecm_inner_product("sd", "sd", 100).alias("ip"),
                    E.eh_count("h", 900).alias("c_h"), E.dwave_count("w", 900).alias("c_w"),
                    E.distinct_count("n", 900).alias("c_n"),
                    E.sketch_info("s").alias("i_s"), E.sketch_info("sd").alias("i_sd"),
                    E.sketch_info("h").alias("i_h"), E.sketch_info("w").alias("i_w"),
                    E.sketch_info("n").alias("i_n")))


def nulls_skipped(spark, E):
    """Rows with a NULL key, ts or value are skipped (sketch_info.total_weight counts the others)."""
    df = base(spark)
    return (df.agg(E.ecm_agg("nk", "nts", 3000, value="nv").alias("s"),
                   E.eh_agg("nts", 3000, value="nv").alias("h"),
                   E.dwave_agg("nts", 3000, value="nv").alias("w"),
                   E.distinct_agg("nk", "nts", 3000).alias("n"),
                   SF.sum(SF.when(SF.col("nk").isNotNull() & SF.col("nts").isNotNull(), SF.col("nv"))).alias("kept"),
                   SF.sum(SF.when(SF.col("nts").isNotNull(), SF.col("nv"))).alias("kept_ts"),
                   SF.count(SF.when(SF.col("nk").isNotNull() & SF.col("nts").isNotNull(), 1)).alias("rows_kept"),
                   SF.countDistinct(SF.when(SF.col("nts").isNotNull(), SF.col("nk"))).alias("distinct_kept"))
            .select("s", "h", "w", "n", "kept", "kept_ts", "rows_kept", "distinct_kept",
                    E.sketch_info("s").total_weight.alias("tw_s"), E.sketch_info("h").total_weight.alias("tw_h"),
                    E.sketch_info("w").total_weight.alias("tw_w"), E.sketch_info("n").total_weight.alias("tw_n"),
                    E.ecm_total("s").alias("t"), E.eh_count("h").alias("c_h"), E.dwave_count("w").alias("c_w"),
                    E.distinct_count("n").alias("c_n")))


def null_sketch():
    return SF.lit(None).cast("binary")


def null_sketch_queries(spark, E):
    """Every query of a NULL sketch is NULL."""
    df = base(spark).limit(1)
    n = null_sketch
    return df.select(E.ecm_point(n(), "x").alias("p"), E.ecm_total(n(), 10).alias("t"),
                     E.ecm_self_join(n()).alias("f2"), E.ecm_inner_product(n(), n(), 5).alias("ip"),
                     E.eh_count(n()).alias("c_h"), E.dwave_count(n()).alias("c_w"),
                     E.distinct_count(n()).alias("c_n"), E.sketch_info(n()).alias("i"))


def sql_named_arguments(spark, E):
    """SQL text with named arguments, parsed by the Connect server."""
    return spark.sql(f"""
        SELECT s, w, ecm_point(s, '3', 500) AS p, ecm_total(s, range => 700) AS t, dwave_count(w, 800) AS c,
               sketch_info(s) AS i
        FROM (SELECT ecm_agg(k, ts, 1000, cell => 'dwave', max_arrivals => 100000, seed => 11) AS s,
                     dwave_agg(ts, 1000, 0.05, merge_levels => 2) AS w
              FROM (SELECT cast(id % 37 AS STRING) AS k, id AS ts FROM range(0, {N}, 1, 2)))""")


def ecm_point_many_keys(spark, E):
    """The array form of ecm_point: one call answers many keys (string, bigint and binary arrays)."""
    df = base(spark)
    return (df.agg(E.ecm_agg("k", "ts", 5000).alias("s"), E.ecm_agg("ik", "ts", 2000).alias("b"),
                   E.ecm_agg(SF.col("k").cast("binary"), "ts", 1000).alias("bin"))
            .select(E.ecm_point("s", SF.array(*[SF.lit(str(i)) for i in range(5)]), 1000).alias("p_strings"),
                    E.ecm_point("s", SF.array(*[SF.lit(str(i)) for i in range(5)])).alias("p_default"),
                    E.ecm_point("b", SF.array(SF.lit(3), SF.lit(4), SF.lit(52)), 100, N + 50).alias("p_ints"),
                    E.ecm_point("bin", SF.array(SF.lit(b"5"), SF.lit(b"6")), 700).alias("p_bytes"),
                    E.ecm_point("s", SF.expr("CAST(array() AS ARRAY<STRING>)"), 1000).alias("p_empty")))


def dyadic_queries(spark, E):
    """Dyadic sketches (integer and double keys), merged across sites, and all their queries."""
    df = base(spark).selectExpr("*", "cast(ik AS DOUBLE) / 4 AS dk")
    sites = df.groupBy("site").agg(E.dyadic_agg("ik", "ts", 3000, 0.1, merge_levels=1, universe_bits=16).alias("s"))
    return (df.agg(E.dyadic_agg("ik", "ts", 3000, 0.1, 0.05, universe_bits=16, value="v").alias("d"),
                   E.dyadic_agg("dk", "ts", 3000, cell="dwave", seed=3).alias("f"))
            .crossJoin(sites.agg(E.dyadic_merge("s").alias("m")))
            .select("d", "f", "m",
                    E.ecm_heavy_hitters("d", 0.05).alias("hh"), E.ecm_heavy_hitters("m", 100.0, 2000).alias("hh_abs"),
                    E.ecm_heavy_hitters("f", 0.05, key_type="double").alias("hh_f"),
                    E.ecm_top_k("m", 3, 1000, N + 10).alias("top"), E.ecm_top_k("f", 2, key_type="double").alias("top_f"),
                    E.ecm_range_count("d", 10, 20).alias("rc"), E.ecm_range_count("f", 1.0, 2.5, 500).alias("rc_f"),
                    E.ecm_rank("m", 26).alias("rank"), E.ecm_rank("f", 6.5).alias("rank_f"),
                    E.ecm_quantile("d", 0.5).alias("q"), E.ecm_quantile("f", [0.1, 0.9], 1000).alias("q_f"),
                    E.ecm_point("d", 7).alias("p"), E.ecm_point("f", 2).alias("p_f"),
                    E.ecm_total("m", 1000).alias("t"), E.sketch_info("d").alias("i_d"), E.sketch_info("m").alias("i_m")))


def decayed_queries(spark, E):
    """Decayed sketches: the general one from duplicated rows over sites (merged), a fixed-decay one on
    TIMESTAMPs, and every decayed query."""
    df = base(spark)
    sites = (df.unionByName(df).groupBy("site")
             .agg(E.decayed_agg(SF.lit(1), "ts", 0.1, 0.05, value="v", id="ts").alias("s")))
    return (df.agg(E.decayed_agg("v", "ts", value="ik", max_weight=8).alias("g"),
                   E.decayed_agg(SF.lit(1), "tsx", decay="exp", decay_param=600).alias("x"))
            .crossJoin(sites.agg(E.decayed_merge("s").alias("m")))
            .select("g", "x", "m",
                    E.decayed_sum("m", "exp", 500).alias("sum_m"), E.decayed_sum("x").alias("sum_x"),
                    E.decayed_sum("g", "window", 1000, N + 10).alias("sum_g"),
                    E.decayed_quantile("g", 0.5, "poly", 1.0).alias("q"),
                    E.decayed_frequent("m", 0.1, "window", 3000).alias("fr"),
                    E.decayed_selectivity("x", 1, 1, "exp", 600).alias("sel")))


def async_queries(spark, E):
    """Async sketches: sum, count and quantile sketches of rows in any order, a merge of per-site sum
    sketches, and every async query."""
    df = base(spark).orderBy(SF.rand(7))
    sites = df.groupBy("site").agg(E.async_sum_agg(SF.col("v") + 1, "ts", 3000).alias("s"))
    return (df.agg(E.async_sum_agg(SF.col("v") + 1, "ts", 3000).alias("s"),
                   E.async_count_agg("ts", 3000, 0.1, 0.05, id="k").alias("c"),
                   E.async_quantile_agg("ik", "ts", 3000, seed=5).alias("q"))
            .crossJoin(sites.agg(E.async_merge("s").alias("m")))
            .select("s", "c", "q", "m",
                    E.async_sum("s").alias("sum_s"), E.async_sum("m", 1000).alias("sum_m"),
                    E.async_sum("c", 500, N + 10).alias("count"),
                    E.async_quantile("q", 0.5).alias("q50"), E.async_quantile("q", [0.1, 0.9], 1000).alias("qs")))


def windowed_queries(spark, E):
    """Windowed quantile and frequent-items sketches of shuffled rows, merged across sites, and their
    queries (keys of the frequent-items STRUCT come back as STRING and BIGINT)."""
    df = base(spark).orderBy(SF.rand(11)).selectExpr("*", "cast(v AS DOUBLE) * 1.5 + ik AS x")
    sites = df.groupBy("site").agg(E.quantile_agg("x", "ts", 3000, 0.05, merge_levels=1).alias("qs"),
                                   E.top_k_agg("k", "ts", 3000, 0.01, merge_levels=1).alias("ts_"))
    return (df.agg(E.quantile_agg("x", "ts", 3000, delta=0.001, weight="v", seed=9).alias("q"),
                   E.top_k_agg("ik", "ts", 3000, value="v").alias("t"),
                   E.top_k_agg("k", "ts", 3000, window_type="count").alias("c"))
            .crossJoin(sites.agg(E.quantile_merge("qs").alias("qm"), E.top_k_merge("ts_").alias("tm")))
            .select("q", "qm", SF.col("t.sketch").alias("t_bytes"), SF.col("tm.sketch").alias("tm_bytes"),
                    E.ecm_quantile("q", 0.5).alias("q50"), E.ecm_quantile("qm", [0.1, 0.9], 1000).alias("qq"),
                    E.ecm_rank("q", 30.0).alias("rank"), E.ecm_range_count("qm", 10.0, 40.0, 500, N + 10).alias("rc"),
                    E.ecm_total("q", 2000).alias("total_q"), E.ecm_total("tm").alias("total_t"),
                    E.ecm_top_k("t", 3).alias("top"), E.ecm_top_k("tm", 2, 1000).alias("top_m"),
                    E.ecm_heavy_hitters("tm", 0.02).alias("hh"), E.ecm_top_k("c", 1).alias("top_c"),
                    E.ecm_heavy_hitters("t_bytes", 0.01, key_type="bigint").alias("hh_bytes"),
                    E.ecm_point("tm", "5").alias("p"), E.sketch_info("tm").alias("i_t"), E.sketch_info("q").alias("i_q")))


VALUE_CASES: List[Tuple[str, Callable]] = [
    ("ecm_queries", ecm_queries),
    ("ecm_point_many_keys", ecm_point_many_keys),
    ("timestamp_windows", timestamp_windows),
    ("counters", counters),
    ("merges", merges),
    ("nulls_skipped", nulls_skipped),
    ("null_sketch_queries", null_sketch_queries),
    ("sql_named_arguments", sql_named_arguments),
    ("dyadic_queries", dyadic_queries),
    ("decayed_queries", decayed_queries),
    ("async_queries", async_queries),
    ("windowed_queries", windowed_queries),
]
NULLS_EXPECTED = {"null_sketch_queries"}


# --------------------------------------------------------------------------- error cases
# (name, the function whose check fails, (spark, E) -> DataFrame, phrases): collecting must fail, under
# classic PySpark and Connect alike, with every phrase in the message.


def _sk(spark, E):
    """One row of sketches of every kind (for the query errors)."""
    return base(spark).agg(E.ecm_agg("k", "ts", 1000).alias("s"), E.ecm_agg("k", "ts", 1000, seed=99).alias("s99"),
                           E.ecm_agg("k", "ts", 1000, 0.3, cell="rwave").alias("r"),
                           E.eh_agg("ts", 1000).alias("h"), E.dwave_agg("ts", 1000).alias("w"),
                           E.distinct_agg("k", "ts", 1000).alias("n"))


def _union_merge(spark, E, make, merge):
    df = base(spark)
    return df.agg(make(E, 1).alias("x")).unionByName(df.agg(make(E, 2).alias("x"))).agg(merge(E)("x"))


ERROR_CASES: List[Tuple[str, str, Callable, List[str]]] = [
    ("ecm_agg_epsilon", "ecm_agg", lambda spark, E: base(spark).agg(E.ecm_agg("k", "ts", 1000, 1.5)),
     ["epsilon must be in [0.001, 1)", "1.5"]),
    ("ecm_agg_timedelta_window_int_ts", "ecm_agg",
     lambda spark, E: base(spark).agg(E.ecm_agg("k", "ts", dt.timedelta(minutes=10))),
     ["window is an INTERVAL but ts is an integer column"]),
    ("ecm_agg_negative_weight_in_data", "ecm_agg",
     lambda spark, E: base(spark).agg(E.ecm_agg("k", "ts", 1000, value=SF.col("v") - 3)),
     ["weight must be non-negative"]),
    ("ecm_agg_rwave_inner_product", "ecm_agg",
     lambda spark, E: base(spark).agg(E.ecm_agg("k", "ts", 1000, 0.3, cell="rwave", optimize_for="inner_product")),
     ["optimize_for => 'inner_product' needs deterministic cells"]),
    ("ecm_merge_seeds", "ecm_merge",
     lambda spark, E: _union_merge(spark, E, lambda E, i: E.ecm_agg("k", "ts", 1000, seed=i), lambda E: E.ecm_merge),
     ["cannot merge ECM-sketches with different parameters", "seed"]),
    ("eh_agg_window_type", "eh_agg", lambda spark, E: base(spark).agg(E.eh_agg("ts", 1000, window_type="bogus")),
     ["window_type must be 'time' or 'count'", "bogus"]),
    ("eh_merge_epsilon", "eh_merge",
     lambda spark, E: _union_merge(spark, E, lambda E, i: E.eh_agg("ts", 1000, 0.1 * i), lambda E: E.eh_merge),
     ["cannot merge exponential histograms with different parameters", "epsilon"]),
    ("ecm_point_on_eh", "ecm_point", lambda spark, E: _sk(spark, E).select(E.ecm_point("h", "k1")),
     ["ecm_point: expected an ECM-sketch (from ecm_agg or ecm_merge), got an exponential histogram"]),
    ("ecm_point_key_type", "ecm_point", lambda spark, E: base(spark).agg(E.ecm_agg("ik", "ts", 1000).alias("b"))
     .select(E.ecm_point("b", "0123")), ["key type mismatch", "'0123'"]),
    ("ecm_point_key_array_type", "ecm_point",
     lambda spark, E: _sk(spark, E).select(E.ecm_point("s", SF.array(SF.lit(1.5), SF.lit(2.5)))),
     ["key array elements must be STRING, BINARY, INT or BIGINT", "ARRAY<DOUBLE>"]),
    ("ecm_point_key_array_mismatch", "ecm_point", lambda spark, E: base(spark).agg(E.ecm_agg("ik", "ts", 1000).alias("b"))
     .select(E.ecm_point("b", SF.array(SF.lit("7"), SF.lit("0123")))), ["key type mismatch", "'0123'"]),
    ("ecm_point_int_range_timestamp_sketch", "ecm_point",
     lambda spark, E: base(spark).agg(E.ecm_agg("k", "tsx", "10 minutes").alias("t")).select(E.ecm_point("t", "1", 10)),
     ["range for a sketch of TIMESTAMPs must be an INTERVAL"]),
    ("ecm_inner_product_seeds", "ecm_inner_product", lambda spark, E: _sk(spark, E).select(E.ecm_inner_product("s", "s99")),
     ["cannot combine sketches with different hashing", "seed"]),
    ("ecm_self_join_rwave", "ecm_self_join", lambda spark, E: _sk(spark, E).select(E.ecm_self_join("r")),
     ["the self-join needs deterministic cells"]),
    ("ecm_total_range_exceeds_window", "ecm_total", lambda spark, E: _sk(spark, E).select(E.ecm_total("s", 1001)),
     ["range 1001 exceeds the sketch window 1000"]),
    ("ecm_total_datetime_now_int_sketch", "ecm_total",
     lambda spark, E: _sk(spark, E).select(E.ecm_total("s", 10, LATER)),
     ["now is a TIMESTAMP but the sketch was built from integer timestamps"]),
    ("eh_count_on_ecm", "eh_count", lambda spark, E: _sk(spark, E).select(E.eh_count("s")),
     ["eh_count: expected an exponential histogram"]),
    ("sketch_info_garbage", "sketch_info", lambda spark, E: base(spark).limit(1).select(E.sketch_info(SF.lit(b"hello world"))),
     ["not an ecmsketch sketch"]),
    ("sketch_info_truncated", "sketch_info",
     lambda spark, E: _sk(spark, E).select(E.sketch_info(SF.expr("substring(s, 1, length(s) - 3)"))),
     ["corrupt sketch"]),
    ("dwave_agg_max_arrivals", "dwave_agg", lambda spark, E: base(spark).agg(E.dwave_agg("ts", 1000, max_arrivals=0)),
     ["max_arrivals must be a positive integer"]),
    ("dwave_merge_count_windows", "dwave_merge",
     lambda spark, E: base(spark).groupBy("site").agg(E.dwave_agg("ts", 100, window_type="count").alias("x"))
     .agg(E.dwave_merge("x")), ["count-based sketches cannot be merged"]),
    ("dwave_count_on_ecm", "dwave_count", lambda spark, E: _sk(spark, E).select(E.dwave_count("s")),
     ["dwave_count: expected a deterministic wave", "got an ECM-sketch"]),
    ("distinct_agg_delta", "distinct_agg", lambda spark, E: base(spark).agg(E.distinct_agg("k", "ts", 1000, 0.1, 0.0)),
     ["delta must be in (0, 1)"]),
    ("distinct_merge_seeds", "distinct_merge",
     lambda spark, E: _union_merge(spark, E, lambda E, i: E.distinct_agg("k", "ts", 1000, seed=i),
                                   lambda E: E.distinct_merge),
     ["cannot merge distinct-count sketches with different parameters", "seed"]),
    ("distinct_count_on_dwave", "distinct_count", lambda spark, E: _sk(spark, E).select(E.distinct_count("w")),
     ["distinct_count: expected a distinct-count sketch", "got a deterministic wave"]),
    ("dyadic_agg_universe", "dyadic_agg",
     lambda spark, E: base(spark).where("ts < 3000").agg(E.dyadic_agg(SF.col("ik") * 1000, "ts", 1000, universe_bits=8)),
     ["outside the dyadic sketch's universe", "universe_bits => 8"]),
    ("dyadic_merge_bits", "dyadic_merge",
     lambda spark, E: _union_merge(spark, E, lambda E, i: E.dyadic_agg("ik", "ts", 1000, universe_bits=8 + i),
                                   lambda E: E.dyadic_merge),
     ["cannot merge dyadic ECM-sketches with different parameters", "universe_bits"]),
    ("ecm_heavy_hitters_phi", "ecm_heavy_hitters",
     lambda spark, E: base(spark).agg(E.dyadic_agg("ik", "ts", 1000).alias("d")).select(E.ecm_heavy_hitters("d", -0.5)),
     ["phi must be in (0, 1)"]),
    ("ecm_top_k_key_type", "ecm_top_k",
     lambda spark, E: base(spark).agg(E.dyadic_agg("ik", "ts", 1000).alias("d")).select(E.ecm_top_k("d", 3, key_type="double")),
     ["this sketch holds bigint keys", "key_type => 'bigint'"]),
    ("ecm_range_count_on_ecm", "ecm_range_count",
     lambda spark, E: _sk(spark, E).select(E.ecm_range_count("s", 1, 5)),
     ["ecm_range_count: expected a windowed quantile sketch (from quantile_agg or quantile_merge) or a dyadic ECM-sketch"]),
    ("ecm_rank_type", "ecm_rank",
     lambda spark, E: base(spark).agg(E.dyadic_agg("ik", "ts", 1000).alias("d")).select(E.ecm_rank("d", "x")),
     ["ecm_rank: x must be a number"]),
    ("ecm_quantile_q", "ecm_quantile",
     lambda spark, E: base(spark).agg(E.dyadic_agg("ik", "ts", 1000).alias("d")).select(E.ecm_quantile("d", 1.5)),
     ["quantile q must be in [0, 1]"]),
    ("decayed_agg_weight_type", "decayed_agg",
     lambda spark, E: base(spark).agg(E.decayed_agg(SF.lit(1.5), "ts")), ["weight must be an integer type"]),
    ("decayed_merge_epsilon", "decayed_merge",
     lambda spark, E: _union_merge(spark, E, lambda E, i: E.decayed_agg(SF.lit(1), "ts", 0.1 * i), lambda E: E.decayed_merge),
     ["cannot merge decayed sketches with different parameters", "epsilon"]),
    ("decayed_sum_no_decay", "decayed_sum",
     lambda spark, E: base(spark).agg(E.decayed_agg(SF.lit(1), "ts").alias("d")).select(E.decayed_sum("d")),
     ["built without a decay"]),
    ("decayed_quantile_q", "decayed_quantile",
     lambda spark, E: base(spark).agg(E.decayed_agg(SF.lit(1), "ts").alias("d")).select(E.decayed_quantile("d", 1.5, "exp", 10)),
     ["quantile q must be in [0, 1]"]),
    ("decayed_frequent_phi_type", "decayed_frequent",
     lambda spark, E: base(spark).agg(E.decayed_agg(SF.lit(1), "ts").alias("d")).select(E.decayed_frequent("d", "x", "exp", 10)),
     ["decayed_frequent: phi must be a number"]),
    ("decayed_selectivity_on_ecm", "decayed_selectivity",
     lambda spark, E: _sk(spark, E).select(E.decayed_selectivity("s", 1, 2, "exp", 10)),
     ["decayed_selectivity: expected a decayed sketch"]),
    ("async_sum_agg_value_type", "async_sum_agg",
     lambda spark, E: base(spark).agg(E.async_sum_agg(SF.lit(1.5), "ts")), ["async_sum_agg: value must be a positive integer"]),
    ("async_count_agg_count_window", "async_count_agg",
     lambda spark, E: base(spark).agg(E.async_count_agg("ts", 100, window_type="count")),
     ["async_count_agg(", "window_type => 'time' only"]),
    ("async_quantile_agg_value_type", "async_quantile_agg",
     lambda spark, E: base(spark).agg(E.async_quantile_agg("k", "ts")), ["async_quantile_agg: value must be a number"]),
    ("async_merge_epsilon", "async_merge",
     lambda spark, E: _union_merge(spark, E, lambda E, i: E.async_count_agg("ts", 1000, 0.1 * i), lambda E: E.async_merge),
     ["cannot merge async sketches with different parameters", "epsilon"]),
    ("async_sum_on_quantile", "async_sum",
     lambda spark, E: base(spark).agg(E.async_quantile_agg("ik", "ts").alias("q")).select(E.async_sum("q")),
     ["async_sum needs an async sum or count sketch"]),
    ("async_quantile_q_type", "async_quantile",
     lambda spark, E: base(spark).agg(E.async_quantile_agg("ik", "ts").alias("q")).select(E.async_quantile("q", "x")),
     ["async_quantile: q must be a DOUBLE or an ARRAY<DOUBLE>"]),
    ("quantile_agg_value_type", "quantile_agg",
     lambda spark, E: base(spark).agg(E.quantile_agg("k", "ts")), ["quantile_agg: value must be a number, got STRING"]),
    ("quantile_merge_epsilon", "quantile_merge",
     lambda spark, E: _union_merge(spark, E, lambda E, i: E.quantile_agg("ik", "ts", 1000, 0.01 * i), lambda E: E.quantile_merge),
     ["cannot merge windowed quantile sketches with different parameters", "epsilon"]),
    ("top_k_agg_epsilon", "top_k_agg",
     lambda spark, E: base(spark).agg(E.top_k_agg("k", "ts", 1000, 0.0001)), ["top_k_agg: epsilon must be in [0.001, 1)"]),
    ("top_k_merge_window", "top_k_merge",
     lambda spark, E: _union_merge(spark, E, lambda E, i: E.top_k_agg("k", "ts", 1000 * i), lambda E: E.top_k_merge),
     ["cannot merge frequent-items sketches with different parameters", "window 1000 vs 2000"]),
]


# --------------------------------------------------------------------------- running and comparing


def normalize(v: Any) -> Any:
    """A JSON-able form of a collected value that keeps every bit: bytes as hex, Rows as dicts."""
    from pyspark.sql import Row
    if isinstance(v, Row):
        return {"__row__": [[k, normalize(x)] for k, x in zip(v.__fields__, v)]}
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"__bytes__": bytes(v).hex()}
    if isinstance(v, float):
        return {"__float__": v.hex()}
    if isinstance(v, (list, tuple)):
        return [normalize(x) for x in v]
    if isinstance(v, dt.datetime):
        return {"__datetime__": v.isoformat()}
    return v


def error_text(e: BaseException) -> str:
    """The message of an error raised through classic PySpark (py4j) or Spark Connect (gRPC)."""
    parts = [str(e)]
    for attr in ("desc", "java_exception"):
        x = getattr(e, attr, None)
        if x:
            parts.append(str(x))
    return "\n".join(parts)


def run_value_case(spark, E, fn) -> Dict[str, Any]:
    rec = Recorder(E)
    try:
        df = fn(spark, rec)
        rows = df.collect()
        return {"columns": list(df.columns), "rows": [normalize(list(r)) for r in rows], "called": sorted(rec.called)}
    except Exception as e:  # reported, and the test fails with the message
        return {"error": error_text(e) + "\n" + traceback.format_exc(limit=3), "called": sorted(rec.called)}


def run_error_case(spark, E, fn) -> Dict[str, Any]:
    rec = Recorder(E)
    try:
        rows = fn(spark, rec).collect()  # classic PySpark raises analysis errors already here
    except Exception as e:
        return {"error": error_text(e), "type": type(e).__name__, "called": sorted(rec.called)}
    return {"rows": [normalize(list(r)) for r in rows], "called": sorted(rec.called)}


def run_all(spark, E) -> Dict[str, Any]:
    return {"values": {name: run_value_case(spark, E, fn) for name, fn in VALUE_CASES},
            "errors": {name: run_error_case(spark, E, fn) for name, _, fn, _ in ERROR_CASES}}


def dumps(x: Any) -> str:
    return json.dumps(x, sort_keys=True)
