"""ecm_point with an ARRAY of keys, and the per-argument sketch cache of the query functions."""
from __future__ import annotations

import pytest
from pyspark.sql import functions as F

import ecmsketch.functions as E

N = 4000


@pytest.fixture(scope="module")
def sketches(spark):
    df = spark.range(0, N, 1, 2).selectExpr("cast(id % 29 AS STRING) AS k", "id % 41 AS ik", "id AS ts")
    row = df.agg(E.ecm_agg("k", "ts", 3000, 0.1).alias("s"), E.ecm_agg("ik", "ts", 3000, 0.1).alias("b"),
                 E.ecm_agg(F.col("k").cast("binary"), "ts", 3000, 0.1).alias("bin")).first()
    return row


def _singles(spark, sk: bytes, keys, ktype: str, rng=1000):
    """Per-key answers, one ecm_point call per key (a NULL key gives NULL)."""
    df = spark.createDataFrame([(sk, i, k) for i, k in enumerate(keys)], f"sk BINARY, i INT, k {ktype}")
    return [r.p for r in df.select("i", E.ecm_point("sk", F.col("k"), rng).alias("p")).orderBy("i").collect()]


def _array(spark, sk: bytes, keys, ktype: str, rng=1000):
    df = spark.createDataFrame([(sk, keys)], f"sk BINARY, ks ARRAY<{ktype}>")
    return df.select(E.ecm_point("sk", F.col("ks"), rng).alias("p")).first().p


@pytest.mark.parametrize("col,ktype,keys", [
    ("s", "STRING", ["0", "5", None, "28", "not-a-key", "5"]),
    ("b", "BIGINT", [0, 7, None, 40, 10**12, 7]),
    ("bin", "BINARY", [b"0", b"5", None, b"28", b"\x00\xff", b"5"]),
])
def test_array_form_equals_per_key_answers(spark, sketches, col, ktype, keys):
    sk = sketches[col]
    got = _array(spark, sk, keys, ktype)
    want = _singles(spark, sk, keys, ktype)
    assert got == want  # exact: the same float for every key, NULL where the key is NULL
    assert got[2] is None and all(v is not None for i, v in enumerate(got) if i != 2)
    assert got[1] > 0  # a present key is counted
    # without NULLs (the primitive-array path) the answers are the same
    dense = [k for k in keys if k is not None]
    assert _array(spark, sk, dense, ktype) == _singles(spark, sk, dense, ktype)


def test_array_form_int_keys_on_string_sketch(spark, sketches):
    # the single-key rule: an integer key on a sketch of string keys is looked up as its decimal text
    got = _array(spark, sketches["s"], [3, 17], "INT")
    assert got == _singles(spark, sketches["s"], ["3", "17"], "STRING")


def test_array_form_empty_and_null(spark, sketches):
    assert _array(spark, sketches["s"], [], "STRING") == []
    assert _array(spark, sketches["s"], None, "STRING") is None
    assert _array(spark, sketches["s"], [None, None], "STRING") == [None, None]
    (row,) = spark.sql("SELECT ecm_point(CAST(NULL AS BINARY), array('a')) AS p, "
                       "typeof(ecm_point(CAST(NULL AS BINARY), array('a'))) AS t").collect()
    assert row.p is None and row.t == "array<double>"


def test_array_form_sql_with_range_and_now(spark, sketches):
    spark.createDataFrame([(sketches["b"],)], "sk BINARY").createOrReplaceTempView("pm_sk")
    (row,) = spark.sql("SELECT ecm_point(sk, array(1, 2, 3), 500, 4100) AS a, "
                       "array(ecm_point(sk, 1, 500, 4100), ecm_point(sk, 2, 500, 4100), ecm_point(sk, 3, 500, 4100)) AS b "
                       "FROM pm_sk").collect()
    assert row.a == row.b and len(row.a) == 3


def test_array_key_type_mismatch_names_the_key(spark, sketches):
    with pytest.raises(Exception, match=r"key type mismatch.*'0123'"):
        _array(spark, sketches["b"], ["7", "0123"], "STRING")


def test_array_element_type_refused_at_analysis(spark, sketches):
    df = spark.createDataFrame([(sketches["s"], [1.5])], "sk BINARY, ks ARRAY<DOUBLE>")
    with pytest.raises(Exception, match=r"key array elements must be STRING, BINARY, INT or BIGINT, got ARRAY<DOUBLE>"):
        df.select(E.ecm_point("sk", F.col("ks"))).collect()


def _same_length_pair(spark):
    """Two ECM-sketches of one key each ('x' and 'y'): the same length, different bytes, different answers."""
    df = spark.range(0, N, 1, 1).selectExpr("id AS ts")
    row = df.agg(E.ecm_agg(F.lit("x"), "ts", 3000, 0.1).alias("a"), E.ecm_agg(F.lit("y"), "ts", 3000, 0.1).alias("b")).first()
    a, b = bytes(row.a), bytes(row.b)
    assert len(a) == len(b) and a != b
    return a, b


def test_cache_never_confuses_sketches_of_the_same_length(spark):
    a, b = _same_length_pair(spark)
    # one partition, the two sketches alternating row by row: every row must be answered from its own bytes
    rows = [(i, a if i % 3 else b) for i in range(30)]
    df = spark.createDataFrame(rows, "i INT, sk BINARY").repartition(1).sortWithinPartitions("i")
    got = df.select("i", E.ecm_point("sk", "x").alias("px"), E.ecm_point("sk", "y").alias("py"),
                    E.ecm_point("sk", F.array(F.lit("x"), F.lit("y"))).alias("pa"),
                    E.sketch_info("sk").alias("info")).orderBy("i").collect()
    for r in got:
        if r.i % 3:
            assert r.px > 0 and r.py == 0 and r.pa == [r.px, r.py]
        else:
            assert r.px == 0 and r.py > 0 and r.pa == [r.px, r.py]
    # the join shape (rows held in UnsafeRows and compared in place)
    spark.createDataFrame([(0, a), (1, b)], "w INT, sk BINARY").createOrReplaceTempView("pm_pair")
    spark.range(0, 50, 1, 1).createOrReplaceTempView("pm_keys")
    res = spark.sql("SELECT w, sum(ecm_point(sk, 'x')) AS sx, sum(ecm_point(sk, 'y')) AS sy "
                    "FROM (SELECT * FROM pm_pair ORDER BY w) CROSS JOIN pm_keys GROUP BY w ORDER BY w").collect()
    assert res[0].sx > 0 and res[0].sy == 0 and res[1].sx == 0 and res[1].sy > 0


def test_cache_tells_apart_sketches_differing_in_one_field(spark):
    # the same stream with windows 10^6 and 10^6 + 1: every cell is the same, only the window field
    # differs (a cache keyed on the length, or on a hash of sampled regions, would mix them up)
    df = spark.range(0, N, 1, 1).selectExpr("cast(id % 29 AS STRING) AS k", "id AS ts")
    row = df.agg(E.ecm_agg("k", "ts", 1000000, 0.1).alias("a"), E.ecm_agg("k", "ts", 1000001, 0.1).alias("b")).first()
    a, b = bytes(row.a), bytes(row.b)
    # bytes 60-63 are the checksum (docs/FORMAT.md), which differs with them
    body_a, body_b = a[:60] + a[64:], b[:60] + b[64:]
    assert len(a) == len(b) and sum(x != y for x, y in zip(body_a, body_b)) == 1
    rows = [(i, a if i % 2 else b) for i in range(20)]
    got = (spark.createDataFrame(rows, "i INT, sk BINARY").repartition(1).sortWithinPartitions("i")
           .select("i", E.sketch_info("sk").window.alias("w"))
           .orderBy("i").collect())
    assert [r.w for r in got] == [1000000 if r.i % 2 else 1000001 for r in got]


def test_generated_code_equals_interpreted(spark, sketches):
    # ecm_point generates code (its operator stays in whole-stage code generation): every key type,
    # constant and per-row range/now, scalar and array keys, NULLs, give the interpreted path's answers
    rows = [(i, sketches["s"], sketches["b"], sketches["bin"], None if i == 3 else str(i % 31), i % 43,
             str(i % 29).encode(), 200 + (i % 7) * 100, N - 1 + (i % 5) * 10) for i in range(40)]
    df = spark.createDataFrame(rows, "i INT, s BINARY, b BINARY, bin BINARY, k STRING, ik BIGINT, kb BINARY, "
                                     "rng BIGINT, now BIGINT")
    df = df.select("i", E.ecm_point("s", F.col("k"), 1000).alias("p_str"), E.ecm_point("b", F.col("ik")).alias("p_long"),
                   E.ecm_point("b", F.col("ik").cast("int"), 500).alias("p_int"),
                   E.ecm_point("bin", F.col("kb"), F.col("rng"), F.col("now")).alias("p_bin_rows"),
                   E.ecm_point("s", F.col("k"), F.col("rng")).alias("p_rng_row"),
                   E.ecm_point("s", F.array("k", F.lit("5")), 1000).alias("p_arr"),
                   E.ecm_point("b", F.array("ik", F.lit(7)), F.col("rng"), F.col("now")).alias("p_arr_rows"))
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert any(line.lstrip(" :+-").startswith("*(") and "ecm_point" in line for line in plan.splitlines()), plan
    generated = df.orderBy("i").collect()
    spark.conf.set("spark.sql.codegen.wholeStage", "false")
    spark.conf.set("spark.sql.codegen.factoryMode", "NO_CODEGEN")
    try:
        interpreted = df.orderBy("i").collect()
    finally:
        spark.conf.unset("spark.sql.codegen.wholeStage")
        spark.conf.unset("spark.sql.codegen.factoryMode")
    assert generated == interpreted
    assert generated[3].p_str is None and generated[3].p_arr[0] is None and generated[3].p_arr[1] > 0
    assert sum(r.p_long for r in generated) > 0 and sum(r.p_bin_rows for r in generated) > 0


def test_constant_range_answers_equal_per_row_range(spark, sketches):
    # a constant range and now take the memoized path (each cell's estimate computed once per sketch),
    # a per-row range the sketch's own point query: the answers are the same floats
    rows = [(i, sketches["s"], sketches["b"], str(i % 37), i % 53, 1000, N - 1) for i in range(60)]
    df = spark.createDataFrame(rows, "i INT, s BINARY, b BINARY, k STRING, ik BIGINT, r BIGINT, now BIGINT")
    got = df.select("i", E.ecm_point("s", F.col("k"), 1000).alias("cs"), E.ecm_point("s", F.col("k"), F.col("r")).alias("rs"),
                    E.ecm_point("b", F.col("ik"), 1000, N - 1).alias("cb"),
                    E.ecm_point("b", F.col("ik"), F.col("r"), F.col("now")).alias("rb"),
                    E.ecm_point("b", F.array("ik", F.lit(1)), 1000).alias("ca"),
                    E.ecm_point("b", F.array("ik", F.lit(1)), F.col("r")).alias("ra")).orderBy("i").collect()
    assert all(r.cs == r.rs and r.cb == r.rb and r.ca == r.ra for r in got)
    assert sum(r.cs for r in got) > 0 and sum(r.cb for r in got) > 0
