"""Bad input to the SQL functions and their Python wrappers raises an error with a clear message."""
from __future__ import annotations

import datetime as dt

import pytest
from pyspark.sql import functions as SF

import ecmsketch.functions as F
from conftest import PYSPARK_MAJOR, USER_ERROR, check_bound_relation, error_message, expect_error, rows_df


@pytest.fixture(scope="module")
def err_views(spark):
    n = 400
    rows_df(spark, {
        "key": [f"k{i % 17}" for i in range(n)],
        "k": [i % 17 for i in range(n)],
        "ts": list(range(n)),
        "sec": list(range(n)),
        "d": [i * 0.5 for i in range(n)],
        "neg": [1 if i != 150 else -3 for i in range(n)],
        "grp": [i % 2 for i in range(n)],
    }, "key string, k bigint, ts bigint, sec bigint, d double, neg bigint, grp int", partitions=2) \
        .selectExpr("*", "timestamp_seconds(1700000000 + sec) AS tsx").createOrReplaceTempView("err_rows")
    spark.sql("""
        SELECT ecm_agg(key, ts, 1000) AS s,
               ecm_agg(k, ts, 1000) AS b,
               eh_agg(ts, 1000) AS e,
               ecm_agg(key, tsx, '10 minutes') AS t,
               ecm_agg(key, ts, 100, window_type => 'count') AS c,
               ecm_agg(key, ts, 1000, seed => 99) AS s99
        FROM err_rows""").cache().createOrReplaceTempView("err_sk")
    return spark.table("err_rows"), spark.table("err_sk")



SQL_CASES = [
    # aggregate arguments (analysis errors)
    ("epsilon_too_big", "SELECT ecm_agg(key, ts, 1000, 1.5) FROM err_rows", ["epsilon must be in [0.001, 1)", "1.5"]),
    ("epsilon_zero", "SELECT ecm_agg(key, ts, 1000, 0.0) FROM err_rows", ["epsilon must be in [0.001, 1)"]),
    ("eh_epsilon", "SELECT eh_agg(ts, 1000, 1.0) FROM err_rows", ["epsilon must be in [0.001, 1)"]),
    ("delta", "SELECT ecm_agg(key, ts, 1000, delta => 1.5) FROM err_rows", ["delta must be in (0, 1)"]),
    ("epsilon_not_constant", "SELECT ecm_agg(key, ts, 1000, d) FROM err_rows",
     ["argument 'epsilon' must be a constant"]),
    ("window_not_constant", "SELECT ecm_agg(key, ts, ts) FROM err_rows", ["argument 'window' must be a constant"]),
    ("double_key", "SELECT ecm_agg(d, ts, 1000) FROM err_rows", ["key must be STRING, BINARY, INT or BIGINT", "DOUBLE"]),
    ("double_ts", "SELECT ecm_agg(key, d, 1000) FROM err_rows", ["ts must be TIMESTAMP, INT or BIGINT"]),
    ("interval_window_int_ts", "SELECT ecm_agg(key, ts, INTERVAL '10' MINUTE) FROM err_rows",
     ["window is an INTERVAL but ts is an integer column"]),
    ("interval_string_window_int_ts", "SELECT ecm_agg(key, ts, '10 minutes') FROM err_rows",
     ["must be a number of ticks"]),
    ("int_window_timestamp_ts", "SELECT ecm_agg(key, tsx, 1000) FROM err_rows",
     ["window for a TIMESTAMP ts must be an INTERVAL"]),
    ("month_string_window", "SELECT ecm_agg(key, tsx, '1 month') FROM err_rows", ["months and years have no fixed length"]),
    ("month_interval_window", "SELECT ecm_agg(key, tsx, INTERVAL '1' MONTH) FROM err_rows", ["months and years have no fixed length"]),
    ("month_range", "SELECT ecm_total(t, '1 month') FROM err_sk", ["months and years have no fixed length"]),
    ("seed_beyond_bigint", "SELECT ecm_agg(key, ts, 1000, seed => 99999999999999999999) FROM err_rows",
     ["must be an integer that fits in BIGINT"]),
    ("window_interval_overflow", "SELECT ecm_agg(key, tsx, '106751992 days') FROM err_rows",
     ["longer than 2^63 microseconds"]),
    ("count_window_repeated_sequence", "SELECT ecm_agg(k, t, 100, window_type => 'count') FROM (SELECT /*+ REPARTITION(1) */ * FROM VALUES ('a', 1L), ('b', 1L) AS v(k, t))",
     ["count-based windows take unique arrival sequence numbers"]),
    ("month_interval_range", "SELECT ecm_total(t, INTERVAL '1' MONTH) FROM err_sk", ["months and years have no fixed length"]),
    ("bad_interval_string", "SELECT ecm_total(t, 'ten minutes') FROM err_sk", ["cannot parse 'ten minutes'"]),
    ("negative_window", "SELECT ecm_agg(key, ts, -5) FROM err_rows", ["window must be positive"]),
    ("window_type_bogus", "SELECT ecm_agg(key, ts, 1000, window_type => 'bogus') FROM err_rows",
     ["window_type must be 'time' or 'count'", "bogus"]),
    ("eh_window_type_bogus", "SELECT eh_agg(ts, 1000, window_type => 'bogus') FROM err_rows",
     ["window_type must be 'time' or 'count'"]),
    ("count_window_timestamp_ts", "SELECT ecm_agg(key, tsx, 100, window_type => 'count') FROM err_rows",
     ["ts must be the arrival sequence number"]),
    ("optimize_for_bogus", "SELECT ecm_agg(key, ts, 1000, optimize_for => 'range') FROM err_rows",
     ["optimize_for must be 'point' or 'inner_product'"]),
    ("merge_levels_negative", "SELECT ecm_agg(key, ts, 1000, merge_levels => -1) FROM err_rows",
     ["merge_levels must be in [0,"]),
    ("negative_constant_value", "SELECT ecm_agg(key, ts, 1000, value => -1) FROM err_rows",
     ["value (the weight) must be non-negative"]),
    ("double_value", "SELECT ecm_agg(key, ts, 1000, value => d) FROM err_rows",
     ["value (the weight) must be an integer type"]),
    # runtime: a negative weight in the data
    ("negative_value_column", "SELECT ecm_agg(key, ts, 1000, value => neg) FROM err_rows",
     ["weight must be non-negative", "-3"]),
    ("eh_negative_value_column", "SELECT eh_agg(ts, 1000, value => neg) FROM err_rows",
     ["weight must be non-negative"]),
    # query arguments
    ("int_range_timestamp_sketch", "SELECT ecm_point(t, 'k1', 10) FROM err_sk",
     ["range for a sketch of TIMESTAMPs must be an INTERVAL"]),
    ("int_now_timestamp_sketch", "SELECT ecm_total(t, INTERVAL '1' MINUTE, 5) FROM err_sk",
     ["now for a sketch of TIMESTAMPs must be a TIMESTAMP"]),
    ("interval_range_int_sketch", "SELECT ecm_point(s, 'k1', INTERVAL '1' MINUTE) FROM err_sk",
     ["range is an INTERVAL but the sketch was built from integer timestamps"]),
    ("range_exceeds_window", "SELECT ecm_total(s, 1001) FROM err_sk", ["range 1001 exceeds the sketch window 1000"]),
    ("negative_range", "SELECT ecm_point(s, 'k1', -1) FROM err_sk", ["range must be non-negative"]),
    ("now_before_last", "SELECT ecm_point(s, 'k1', 10, 5) FROM err_sk", ["must not precede the sketch's last timestamp"]),
    ("eh_range_exceeds_window", "SELECT eh_count(e, 5000) FROM err_sk", ["exceeds the sketch window"]),
    ("double_range", "SELECT ecm_total(s, 1.5) FROM err_sk", ["range must be an INTERVAL, an interval string or an integer"]),
    ("double_query_key", "SELECT ecm_point(s, 1.5) FROM err_sk", ["key must be STRING, BINARY, INT or BIGINT"]),
    # wrong sketch kind / type
    ("ecm_point_on_eh", "SELECT ecm_point(e, 'k1') FROM err_sk",
     ["ecm_point: expected an ECM-sketch (from ecm_agg or ecm_merge), got an exponential histogram"]),
    ("eh_count_on_ecm", "SELECT eh_count(s) FROM err_sk", ["eh_count: expected an exponential histogram"]),
    ("sketch_not_binary", "SELECT ecm_total('abc')", ["the sketch argument must be a sketch (BINARY"]),
    ("merge_not_binary", "SELECT ecm_merge(key) FROM err_rows", ["must be a BINARY sketch column"]),
    ("ecm_merge_of_eh", "SELECT ecm_merge(e) FROM err_sk", ["expected an ECM-sketch"]),
    # corrupt bytes
    ("garbage_bytes", "SELECT ecm_point(X'DEADBEEF00112233', 'k1')", ["not an ecmsketch sketch"]),
    ("too_short", "SELECT sketch_info(X'0102')", ["not an ecmsketch sketch", "too short"]),
    ("truncated_point", "SELECT ecm_point(substring(s, 1, length(s) - 7), 'k1') FROM err_sk", ["corrupt sketch"]),
    ("truncated_info", "SELECT sketch_info(substring(s, 1, 40)) FROM err_sk", ["corrupt sketch"]),
    ("trailing_bytes", "SELECT sketch_info(concat(e, X'00')) FROM err_sk", ["corrupt sketch", "checksum mismatch"]),
    ("truncated_eh", "SELECT eh_count(substring(e, 1, length(e) - 1)) FROM err_sk", ["corrupt sketch"]),
    # key type casts that are refused
    ("bigint_sketch_zero_padded_key", "SELECT ecm_point(b, '0123') FROM err_sk", ["key type mismatch", "'0123'"]),
    ("bigint_sketch_text_key", "SELECT ecm_point(b, 'abc') FROM err_sk", ["key type mismatch"]),
    ("bigint_sketch_plus_key", "SELECT ecm_point(b, '+5') FROM err_sk", ["key type mismatch"]),
    ("bigint_sketch_binary_key", "SELECT ecm_point(b, X'01') FROM err_sk", ["key type mismatch"]),
    ("string_sketch_invalid_utf8", "SELECT ecm_point(s, X'FF') FROM err_sk", ["key type mismatch", "UTF-8"]),
    # merges that are refused
    ("merge_different_epsilon", """SELECT ecm_merge(s) FROM (SELECT ecm_agg(key, ts, 1000) AS s FROM err_rows
                                   UNION ALL SELECT ecm_agg(key, ts, 1000, 0.1) FROM err_rows)""",
     ["cannot merge ECM-sketches with different parameters", "epsilon"]),
    ("merge_different_seed", "SELECT ecm_merge(x) FROM (SELECT s AS x FROM err_sk UNION ALL SELECT s99 FROM err_sk)",
     ["cannot merge ECM-sketches with different parameters", "seed"]),
    ("merge_different_window", """SELECT ecm_merge(s) FROM (SELECT ecm_agg(key, ts, 1000) AS s FROM err_rows
                                  UNION ALL SELECT ecm_agg(key, ts, 999) FROM err_rows)""",
     ["cannot merge ECM-sketches with different parameters", "window"]),
    ("merge_different_key_type", "SELECT ecm_merge(x) FROM (SELECT s AS x FROM err_sk UNION ALL SELECT b FROM err_sk)",
     ["key type"]),
    ("merge_count_windows", """SELECT ecm_merge(s) FROM (SELECT ecm_agg(key, ts, 100, window_type => 'count') AS s
                               FROM err_rows GROUP BY grp)""", ["count-based sketches cannot be merged"]),
    ("eh_merge_count_windows", """SELECT eh_merge(s) FROM (SELECT eh_agg(ts, 100, window_type => 'count') AS s
                                  FROM err_rows GROUP BY grp)""", ["count-based sketches cannot be merged"]),
    ("eh_merge_different_epsilon", """SELECT eh_merge(s) FROM (SELECT eh_agg(ts, 1000) AS s FROM err_rows
                                      UNION ALL SELECT eh_agg(ts, 1000, 0.2) FROM err_rows)""",
     ["cannot merge exponential histograms with different parameters", "epsilon"]),
    ("inner_product_different_seed", "SELECT ecm_inner_product(s, s99) FROM err_sk",
     ["cannot combine sketches with different hashing", "seed"]),
    ("inner_product_key_types", "SELECT ecm_inner_product(s, b) FROM err_sk", ["key type mismatch"]),
]


@pytest.mark.parametrize("sql,phrases", [c[1:] for c in SQL_CASES], ids=[c[0] for c in SQL_CASES])
def test_sql_errors(spark, err_views, sql, phrases):
    expect_error(lambda: spark.sql(sql).collect(), *phrases)


def test_valid_neighbours_of_error_cases(spark, err_views):
    """The boundaries of the refused inputs are accepted (so the error tests test the checks)."""
    row = spark.sql("""
        SELECT ecm_point(b, '123') AS a, ecm_point(b, 123) AS b2, ecm_point(b, '-7') AS c, ecm_point(b, -7) AS d,
               ecm_total(s, 1000) AS full, ecm_total(s, 0) AS zero, ecm_point(s, 'k1', 10, 399) AS now_eq_last, ecm_point(s, 'k1', 10) AS default_now,
               sketch_info(s).last_ts AS last,
               ecm_point(t, 'k1', INTERVAL '10' MINUTE) AS tw,
               ecm_point(s, X'6B31') AS bin_utf8, ecm_point(s, 'k1') AS str_key
        FROM err_sk""").collect()[0]
    assert row.a == row.b2 and row.c == row.d
    assert row.full > 0 and row.zero == 0.0
    assert row.last == 399 and row.now_eq_last == row.default_now
    assert row.bin_utf8 == row.str_key > 0
    # a single count-based sketch "merges" with itself alone, and with NULLs: it comes back unchanged
    one = spark.sql("""SELECT m, c, sketch_info(m) AS im, sketch_info(c) AS ic, ecm_total(m, 100) AS tm,
                              ecm_total(c, 100) AS tc, ecm_point(m, 'k1', 50) AS pm, ecm_point(c, 'k1', 50) AS pc
                       FROM (SELECT ecm_merge(x) AS m FROM (SELECT c AS x FROM err_sk UNION ALL SELECT NULL))
                       CROSS JOIN err_sk""").collect()[0]
    assert one.im == one.ic and one.im.window_type == "count" and one.im.total_weight == 400
    assert (one.tm, one.pm) == (one.tc, one.pc) and bytes(one.m) == bytes(one.c)
    assert abs(one.tm - 100) <= one.im.total_error_bound * 100  # the last 100 arrivals
    # the extreme accepted parameters build sketches that answer within their own bounds
    keys = [f"k{i % 17}" for i in range(400)]
    for eps, levels in ((0.001, 0), (0.999, 63)):
        row = spark.sql(f"""SELECT sketch_info(s) AS i, ecm_total(s) AS t, ecm_point(s, 'k1') AS p
                            FROM (SELECT ecm_agg(key, ts, 1000, {eps}, merge_levels => {levels}) AS s
                                  FROM err_rows)""").collect()[0]
        info = row.i.asDict()
        assert info["epsilon"] == eps and info["planned_merge_levels"] == levels + 1
        assert info["total_weight"] == 400 and info["error_bound"] <= eps
        check_bound_relation(info)
        assert abs(row.t - 400) <= info["total_error_bound"] * 400
        k1 = keys.count("k1")
        assert (1 - info["total_error_bound"]) * k1 <= row.p <= k1 + info["point_error_bound"] * 400


WRAPPER_CASES = [
    ("epsilon", lambda r, s: r.agg(F.ecm_agg("key", "ts", 1000, 1.5)), ["epsilon must be in [0.001, 1)"]),
    ("eh_epsilon", lambda r, s: r.agg(F.eh_agg("ts", 1000, -0.1)), ["epsilon must be in [0.001, 1)"]),
    ("epsilon_column", lambda r, s: r.agg(F.ecm_agg("key", "ts", 1000, SF.col("d"))),
     ["argument 'epsilon' must be a constant"]),
    ("double_key", lambda r, s: r.agg(F.ecm_agg("d", "ts", 1000)), ["key must be STRING, BINARY, INT or BIGINT"]),
    ("timedelta_window_int_ts", lambda r, s: r.agg(F.ecm_agg("key", "ts", dt.timedelta(minutes=10))),
     ["window is an INTERVAL but ts is an integer column"]),
    ("int_window_timestamp_ts", lambda r, s: r.agg(F.ecm_agg("key", "tsx", 60)),
     ["window for a TIMESTAMP ts must be an INTERVAL"]),
    ("negative_value", lambda r, s: r.agg(F.ecm_agg("key", "ts", 1000, value=SF.lit(-2))),
     ["must be non-negative"]),
    ("negative_value_column", lambda r, s: r.agg(F.ecm_agg("key", "ts", 1000, value="neg")),
     ["weight must be non-negative"]),
    ("window_type", lambda r, s: r.agg(F.eh_agg("ts", 1000, window_type="bogus")),
     ["window_type must be 'time' or 'count'"]),
    ("int_range_timestamp_sketch", lambda r, s: s.select(F.ecm_point("t", "k1", 10)),
     ["range for a sketch of TIMESTAMPs must be an INTERVAL"]),
    ("datetime_now_int_sketch", lambda r, s: s.select(F.ecm_total("s", 10, dt.datetime(2024, 1, 1))),
     ["now is a TIMESTAMP but the sketch was built from integer timestamps"]),
    ("corrupt", lambda r, s: s.select(F.ecm_point(SF.lit(b"ECMS\x01garbage"), "k1")), ["corrupt sketch"]),
    ("not_a_sketch", lambda r, s: s.select(F.sketch_info(SF.lit(b"hello world"))), ["not an ecmsketch sketch"]),
    ("truncated", lambda r, s: s.select(F.sketch_info(SF.expr("substring(s, 1, length(s) - 3)"))), ["corrupt sketch"]),
    ("ecm_point_on_eh", lambda r, s: s.select(F.ecm_point("e", "k1")), ["expected an ECM-sketch"]),
    ("eh_count_on_ecm", lambda r, s: s.select(F.eh_count("s")), ["expected an exponential histogram"]),
    ("key_mismatch", lambda r, s: s.select(F.ecm_point("b", "0123")), ["key type mismatch"]),
    ("merge_seed", lambda r, s: s.selectExpr("s AS x").union(s.selectExpr("s99")).agg(F.ecm_merge("x")),
     ["cannot merge ECM-sketches with different parameters", "seed"]),
    ("merge_count", lambda r, s: r.groupBy("grp").agg(F.ecm_agg("key", "ts", 50, window_type="count").alias("x"))
     .agg(F.ecm_merge("x")), ["count-based sketches cannot be merged"]),
    ("eh_merge_count", lambda r, s: r.groupBy("grp").agg(F.eh_agg("ts", 50, window_type="count").alias("x"))
     .agg(F.eh_merge("x")), ["count-based sketches cannot be merged"]),
]


@pytest.mark.parametrize("build,phrases", [c[1:] for c in WRAPPER_CASES], ids=[c[0] for c in WRAPPER_CASES])
def test_wrapper_errors(spark, err_views, build, phrases):
    rows, sk = err_views
    expect_error(lambda: build(rows, sk).collect(), *phrases)


@pytest.mark.parametrize("sql, phrase", [
    ("SELECT ecm_agg(id, id, value => id - 5) FROM range(10)", "ecm_agg: weight must be non-negative"),
    ("SELECT ecm_point(cast('garbage!' AS BINARY), 'k')", "not an ecmsketch sketch"),
    ("SELECT ecm_merge(s) FROM (SELECT ecm_agg(id, id, 100, seed => 1) AS s FROM range(2) "
     "UNION ALL SELECT ecm_agg(id, id, 100, seed => 2) FROM range(2))",
     "ecm_merge: cannot merge ECM-sketches with different parameters"),
])
@pytest.mark.matrix
def test_data_errors_reach_python_as_one_line_errors(spark, sql, phrase):
    """Errors found while processing data are classified Spark errors with a one-line message
    (Spark 4), not a Java stack trace from inside a task. Classic PySpark 3.5 raises a failed job as
    py4j's Py4JJavaError (stack trace included): there the library's message heads the Java message."""
    if PYSPARK_MAJOR >= 4:
        from pyspark.errors import PySparkException
        with pytest.raises(PySparkException) as ei:
            spark.sql(sql).collect()
        text = str(ei.value)
        assert phrase in text and USER_ERROR.strip() in text
        assert len(text.splitlines()) <= 2, text
    else:  # errors raised on the driver (a constant folded) come as Spark exceptions, task failures not
        from py4j.protocol import Py4JJavaError
        from pyspark.errors import PySparkException
        with pytest.raises((PySparkException, Py4JJavaError)) as ei:
            spark.sql(sql).collect()
        e = ei.value
        first = (str(e.java_exception.getMessage()) if isinstance(e, Py4JJavaError) else str(e)).splitlines()[0]
        assert phrase in first, first
