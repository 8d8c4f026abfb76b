"""ecmsketch.functions (typed PySpark wrappers) agree with the SQL text forms; configure/register."""
from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as SF

import ecmsketch
import ecmsketch.functions as F
from conftest import make_stream, rows_df


@pytest.fixture(scope="module")
def fn_df(spark):
    s = make_stream(seed=77, n=8_000, distinct=60, span=3_000, max_value=5, prefix="f")
    grp = np.arange(len(s)) % 3
    # seq: the arrival sequence number (unique), for count-based windows
    df = rows_df(spark, {"key": s.keys, "ts": s.ts, "value": s.values, "grp": grp, "seq": np.arange(len(s))},
                 "key string, ts bigint, value bigint, grp int, seq bigint", partitions=1)
    df = df.selectExpr("*", "timestamp_micros(1700000000000000 + ts * 1000000) AS tsx",
                       "CAST(substring(key, 2) AS BIGINT) AS ik")
    df.createOrReplaceTempView("fn_rows")
    return df


def test_aggregates_match_sql_bytes(spark, fn_df):
    """On one time-ordered partition the wrapper and the SQL text build byte-identical sketches."""
    py = fn_df.agg(
        F.ecm_agg("key", "ts", 2000, 0.05, 0.02, value="value", seed=123, merge_levels=1).alias("a"),
        F.ecm_agg(SF.col("ik"), "ts", 1000, optimize_for="inner_product").alias("b"),
        F.ecm_agg("key", "seq", 500, window_type="count").alias("c"),
        F.ecm_agg("key", "tsx", dt.timedelta(minutes=20)).alias("d"),
        F.ecm_agg("key", "tsx", "20 minutes", 0.1).alias("d2"),
        F.eh_agg("ts", 2000, 0.03, value="value").alias("e"),
        F.eh_agg("seq", 300, window_type="count", merge_levels=2).alias("f"),
        F.ecm_agg("key", "ts").alias("g"),
    ).collect()[0]
    sql = spark.sql("""
        SELECT ecm_agg(key, ts, 2000, 0.05, 0.02, value => value, seed => 123, merge_levels => 1) AS a,
               ecm_agg(ik, ts, 1000, optimize_for => 'inner_product') AS b,
               ecm_agg(key, seq, 500, window_type => 'count') AS c,
               ecm_agg(key, tsx, INTERVAL '20' MINUTE) AS d,
               ecm_agg(key, tsx, '20 minutes', 0.1) AS d2,
               eh_agg(ts, 2000, 0.03, value => value) AS e,
               eh_agg(seq, 300, window_type => 'count', merge_levels => 2) AS f,
               ecm_agg(key, ts) AS g
        FROM fn_rows""").collect()[0]
    for name in ("a", "b", "c", "d", "d2", "e", "f", "g"):
        assert bytes(py[name]) == bytes(sql[name]), name
    info = spark.createDataFrame([(py.a,)], "s binary").select(F.sketch_info("s").alias("i")).collect()[0].i
    assert info.seed == 123 and info.delta == 0.02 and info.planned_merge_levels == 2
    assert info.total_weight == fn_df.agg(SF.sum("value")).collect()[0][0]


def test_merges_match_sql(spark, fn_df):
    fn_df.groupBy("grp").agg(F.ecm_agg("key", "ts", 2000, merge_levels=1).alias("s"),
                             F.eh_agg("ts", 2000, merge_levels=1).alias("h")) \
        .createOrReplaceTempView("fn_parts")
    parts = spark.table("fn_parts").cache()
    py = parts.agg(F.ecm_merge("s").alias("m"), F.eh_merge(SF.col("h")).alias("hm")).collect()[0]
    sql = spark.sql("SELECT ecm_merge(s) AS m, eh_merge(h) AS hm FROM fn_parts").collect()[0]
    spark.createDataFrame([(py.m, sql.m, py.hm, sql.hm)], "pm binary, sm binary, ph binary, sh binary") \
        .createOrReplaceTempView("fn_merged")
    keys = [f"f{i}" for i in range(0, 60, 7)]
    for k in keys:
        a = spark.createDataFrame([(py.m,)], "s binary").select(F.ecm_point("s", k, 700)).collect()[0][0]
        b = spark.sql(f"SELECT ecm_point(sm, '{k}', 700) FROM fn_merged").collect()[0][0]
        assert a == b
    r = spark.sql("SELECT eh_count(ph, 900) AS a, eh_count(sh, 900) AS b, sketch_info(pm).merge_depth AS d, "
                  "sketch_info(sm).merge_depth AS e FROM fn_merged").collect()[0]
    assert r.a == r.b and r.d == r.e


def test_scalars_match_sql(spark, fn_df):
    fn_df.agg(F.ecm_agg("key", "ts", 2000).alias("s"), F.ecm_agg("key", "ts", 2000, value="value").alias("w"),
              F.eh_agg("ts", 2000).alias("h"), F.ecm_agg("ik", "ts", 2000).alias("b"),
              F.ecm_agg("key", "tsx", dt.timedelta(hours=1)).alias("t"),
              SF.max("ts").alias("last"), SF.max("tsx").alias("last_tsx")) \
        .cache().createOrReplaceTempView("fn_sk")
    last, last_tsx = spark.sql("SELECT last, last_tsx FROM fn_sk").collect()[0]
    sk = spark.table("fn_sk")
    later = dt.datetime(2023, 11, 14, 23, 0, 0)  # after the last row (1700000000 + 3000 s ~ 2023-11-14 23:03)
    later = max(later, last_tsx + dt.timedelta(minutes=5))
    py = sk.select(
        F.ecm_point("s", "f3").alias("p1"),
        F.ecm_point("s", "f3", 100).alias("p2"),
        F.ecm_point("s", SF.lit("f3"), 100, last + 50).alias("p3"),
        F.ecm_point("b", 3, 100).alias("p4"),
        F.ecm_point("b", "3", 100).alias("p5"),
        F.ecm_point("s", b"f3", 100).alias("p6"),
        F.ecm_point("t", "f3", dt.timedelta(minutes=10)).alias("p7"),
        F.ecm_point("t", "f3", "10 minutes", later).alias("p8"),
        F.ecm_inner_product("s", "w", 500).alias("ip"),
        F.ecm_inner_product("s", "w", 500, last + 10).alias("ip2"),
        F.ecm_self_join("s").alias("sj"),
        F.ecm_self_join("w", 300).alias("sj2"),
        F.ecm_total("w", 400).alias("tot"),
        F.ecm_total("t", dt.timedelta(minutes=30), later).alias("tot2"),
        F.eh_count("h").alias("c1"),
        F.eh_count("h", 250, last + 100).alias("c2"),
        F.sketch_info("w").alias("info"),
    ).collect()[0]
    sql = spark.sql(f"""
        SELECT ecm_point(s, 'f3') AS p1, ecm_point(s, 'f3', 100) AS p2, ecm_point(s, 'f3', 100, {last + 50}) AS p3,
               ecm_point(b, 3, 100) AS p4, ecm_point(b, '3', 100) AS p5, ecm_point(s, CAST('f3' AS BINARY), 100) AS p6,
               ecm_point(t, 'f3', INTERVAL '10' MINUTE) AS p7,
               ecm_point(t, 'f3', '10 minutes', TIMESTAMP '{later.isoformat(sep=" ")}') AS p8,
               ecm_inner_product(s, w, 500) AS ip, ecm_inner_product(s, w, 500, {last + 10}) AS ip2,
               ecm_self_join(s) AS sj, ecm_self_join(w, 300) AS sj2, ecm_total(w, 400) AS tot,
               ecm_total(t, INTERVAL '30' MINUTE, TIMESTAMP '{later.isoformat(sep=" ")}') AS tot2,
               eh_count(h) AS c1, eh_count(h, 250, {last + 100}) AS c2, sketch_info(w) AS info
        FROM fn_sk""").collect()[0]
    assert py.asDict(recursive=True) == sql.asDict(recursive=True)
    # the wrappers' answers are real, not all zero / NULL
    assert py.p1 > 0 and py.p4 == py.p5 and py.p6 == py.p2 and py.ip > 0 and py.c1 > 0
    assert py.p7 > 0 and py.p8 <= py.p7 + 1e-9


def test_wrapper_named_window_and_now_types(spark, fn_df):
    """A timedelta window/range and a datetime `now` go to the SQL function as INTERVAL / TIMESTAMP."""
    row = fn_df.agg(F.ecm_agg("key", "tsx", dt.timedelta(minutes=10)).alias("s")) \
        .select(F.ecm_total("s", dt.timedelta(minutes=10)).alias("t"), F.sketch_info("s").alias("i")).collect()[0]
    exact = spark.sql("""SELECT count(*) FROM fn_rows, (SELECT max(tsx) AS now FROM fn_rows) l
                         WHERE tsx > now - INTERVAL '10' MINUTE""").collect()[0][0]
    assert row.i.window == 600 * 10**6 and row.i.ts_unit == "microseconds"
    assert exact > 0 and abs(row.t - exact) <= row.i.total_error_bound * exact


def test_register_on_running_session(spark, fn_df):
    ecmsketch.register(spark)
    ecmsketch.register(spark)  # idempotent
    assert spark.catalog.functionExists("ecm_agg") and spark.catalog.functionExists("sketch_info")
    v, bound = spark.sql("""SELECT ecm_total(s), sketch_info(s).total_error_bound
                            FROM (SELECT ecm_agg(key, ts, 3000) AS s FROM fn_rows)""").collect()[0]
    exact = spark.sql("SELECT count(*) FROM fn_rows, (SELECT max(ts) AS now FROM fn_rows) WHERE ts > now - 3000") \
        .collect()[0][0]
    assert exact > 0 and abs(v - exact) <= bound * exact
    usage = " ".join(r[0] for r in spark.sql("DESCRIBE FUNCTION ecm_point").collect())
    assert "Estimated weight of key" in usage
    other = spark.newSession()
    ecmsketch.register(other)
    pts = "(SELECT id * 3 AS ts FROM range(100))"
    c, c50, bound = other.sql(f"""SELECT eh_count(h), eh_count(h, 50), sketch_info(h).error_bound
                                  FROM (SELECT eh_agg(ts, 3000) AS h FROM {pts})""").collect()[0]
    n, n50 = other.sql(f"SELECT count(*), count_if(ts > now - 50) FROM {pts}, (SELECT max(ts) AS now FROM {pts})") \
        .collect()[0]
    assert n == 100 and abs(c - n) <= bound * n
    assert n50 > 0 and abs(c50 - n50) <= bound * n50


@pytest.mark.matrix
def test_register_refuses_non_classic_session():
    class NotClassic:
        pass

    with pytest.raises(ecmsketch.SketchError, match="classic SparkSession"):
        ecmsketch.register(NotClassic())


@pytest.mark.matrix
def test_configure_keeps_existing_values():
    b = SparkSession.Builder().config("spark.jars", "/tmp/other.jar").config("spark.sql.extensions", "a.B")
    ecmsketch.configure(b)
    ecmsketch.configure(b)  # no duplicates
    jars = b._options["spark.jars"].split(",")
    exts = b._options["spark.sql.extensions"].split(",")
    assert jars == ["/tmp/other.jar", ecmsketch.spark_jar_path()]
    assert exts == ["a.B", ecmsketch.EXTENSION_CLASS]
