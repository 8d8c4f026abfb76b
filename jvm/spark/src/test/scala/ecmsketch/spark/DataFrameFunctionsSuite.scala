package ecmsketch.spark

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, expr, lit}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.spark.{functions => F}

/** Every SQL function through the DataFrame API (`ecmsketch.spark.functions`) gives what the SQL
  * function gives on the same rows: the same bytes for the aggregates, the same answers for the
  * scalars.
  */
class DataFrameFunctionsSuite extends AnyFunSuite with BeforeAndAfterAll {
  private var spark: SparkSession = _
  private var rows: DataFrame = _
  private var sketches: DataFrame = _
  private val tested = scala.collection.mutable.Set.empty[String]

  override def beforeAll(): Unit = {
    spark = SparkSession.builder().master("local[2]").appName("DataFrameFunctionsSuite")
      .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
      .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
      .config("spark.sql.session.timeZone", "UTC")
      .withExtensions(new EcmSketchExtensions).getOrCreate()
    // one partition, in ts order: the aggregates' bytes depend only on the rows
    rows = spark.range(0, 300, 1, 1).selectExpr(
      "concat('k', CAST(id % 7 AS STRING)) AS k", "CAST(id % 13 AS INT) AS x", "id AS ts",
      "1 + id % 4 AS v", "id AS id", "CAST(id * 0.5 AS DOUBLE) AS d")
    rows.createOrReplaceTempView("r")
    sketches = spark.sql(
      """SELECT ecm_agg(k, ts, 100, optimize_for => 'inner_product') AS e, eh_agg(ts, 100) AS h,
        |       dwave_agg(ts, 100) AS w, distinct_agg(k, ts, 100) AS dc, dyadic_agg(x, ts, 100) AS y,
        |       async_sum_agg(v, ts, 100, id => id) AS asum, async_quantile_agg(d, ts, 100) AS aq,
        |       decayed_agg(1, ts, value => x, id => id) AS dec
        |FROM r""".stripMargin).cache()
    sketches.createOrReplaceTempView("s")
  }

  override def afterAll(): Unit = if (spark != null) spark.stop()

  private def bytes(df: DataFrame): Array[Byte] = df.head().getAs[Array[Byte]](0)

  /** The aggregate `c` over the rows has the bytes of `sql` (a select list over view r). */
  private def sameAgg(name: String, c: Column, sql: String): Unit = {
    tested += name
    val got = bytes(rows.agg(c))
    val want = bytes(spark.sql(s"SELECT $sql FROM r"))
    assert(got.toSeq == want.toSeq, s"$name: DataFrame bytes differ from SQL $sql")
  }

  /** The scalar `c` over the sketches answers as `sql` (over view s) does. */
  private def sameScalar(name: String, c: Column, sql: String): Unit = {
    tested += name
    val got = sketches.select(c).head()
    val want = spark.sql(s"SELECT $sql FROM s").head()
    assert(got == want, s"$name: DataFrame $got, SQL $sql gives $want")
    assert(got.get(0) != null, s"$name: NULL")
  }

  test("every aggregate builds the bytes of its SQL namesake") {
    val k = col("k"); val ts = col("ts")
    sameAgg("ecm_agg", F.ecm_agg(k, ts), "ecm_agg(k, ts)")
    sameAgg("ecm_agg", F.ecm_agg(k, ts, lit(100L), 0.1, 0.02), "ecm_agg(k, ts, 100, 0.1, 0.02)")
    sameAgg("ecm_agg", F.ecm_agg(k, ts, Map[String, Any]("window" -> 100L, "value" -> col("v"), "merge_levels" -> 2, "cell" -> "dwave")),
      "ecm_agg(k, ts, 100, value => v, merge_levels => 2, cell => 'dwave')")
    sameAgg("eh_agg", F.eh_agg(ts, lit(100L), 0.1), "eh_agg(ts, 100, 0.1)")
    sameAgg("eh_agg", F.eh_agg(ts, Map[String, Any]("value" -> col("v"), "window_type" -> "count", "window" -> 50)),
      "eh_agg(ts, 50, value => v, window_type => 'count')")
    sameAgg("dwave_agg", F.dwave_agg(ts, lit(100L)), "dwave_agg(ts, 100)")
    sameAgg("distinct_agg", F.distinct_agg(k, ts, lit(100L), 0.1, 0.05), "distinct_agg(k, ts, 100, 0.1, 0.05)")
    sameAgg("dyadic_agg", F.dyadic_agg(col("x"), ts, lit(100L)), "dyadic_agg(x, ts, 100)")
    sameAgg("dyadic_agg", F.dyadic_agg(k, ts, Map[String, Any]("candidates" -> 64)), "dyadic_agg(k, ts, candidates => 64)")
    sameAgg("async_sum_agg", F.async_sum_agg(col("v"), ts, Map[String, Any]("id" -> col("id"))), "async_sum_agg(v, ts, id => id)")
    sameAgg("async_count_agg", F.async_count_agg(ts, lit(100L)), "async_count_agg(ts, 100)")
    sameAgg("async_quantile_agg", F.async_quantile_agg(col("d"), ts), "async_quantile_agg(d, ts)")
    sameAgg("decayed_agg", F.decayed_agg(lit(1), ts, Map[String, Any]("value" -> col("x"), "decay" -> "exp", "decay_param" -> 10.0)),
      "decayed_agg(1, ts, value => x, decay => 'exp', decay_param => 10.0)")
    sameAgg("quantile_agg", F.quantile_agg(col("d"), ts, lit(100L), 0.05), "quantile_agg(d, ts, 100, 0.05)")
    sameAgg("quantile_agg", F.quantile_agg(col("d"), ts, Map[String, Any]("weight" -> col("v"), "seed" -> 3L)),
      "quantile_agg(d, ts, weight => v, seed => 3)")
    // top_k_agg returns the STRUCT that carries the key type: compared as rows (Row compares BINARY by content)
    def sameRow(name: String, c: Column, sql: String): Unit = {
      tested += name
      val got = rows.agg(c).head(); val want = spark.sql(s"SELECT $sql FROM r").head()
      assert(got == want && got.schema.head.dataType == want.schema.head.dataType, s"$name: DataFrame $got, SQL $sql gives $want")
    }
    sameRow("top_k_agg", F.top_k_agg(k, ts, lit(100L), 0.01), "top_k_agg(k, ts, 100, 0.01)")
    sameRow("top_k_agg", F.top_k_agg(col("x"), ts, Map[String, Any]("value" -> col("v"), "merge_levels" -> 2)),
      "top_k_agg(x, ts, value => v, merge_levels => 2)")
  }

  test("every merge builds the bytes of its SQL namesake") {
    val parts = spark.sql(
      """SELECT ecm_agg(k, ts, 100) AS e, eh_agg(ts, 100) AS h, dwave_agg(ts, 100) AS w,
        |       distinct_agg(k, ts, 100) AS dc, dyadic_agg(x, ts, 100) AS y, async_sum_agg(v, ts) AS a,
        |       decayed_agg(1, ts) AS dec, quantile_agg(d, ts, 100) AS q, top_k_agg(k, ts, 100) AS t
        |FROM r GROUP BY ts % 3""".stripMargin).coalesce(1).cache()
    parts.createOrReplaceTempView("parts")
    def same(name: String, c: Column, column: String): Unit = {
      tested += name
      assert(bytes(parts.agg(c)).toSeq == bytes(spark.sql(s"SELECT $name($column) FROM parts")).toSeq, name)
    }
    same("ecm_merge", F.ecm_merge(col("e")), "e")
    same("eh_merge", F.eh_merge(col("h")), "h")
    same("dwave_merge", F.dwave_merge(col("w")), "w")
    same("distinct_merge", F.distinct_merge(col("dc")), "dc")
    same("dyadic_merge", F.dyadic_merge(col("y")), "y")
    same("async_merge", F.async_merge(col("a")), "a")
    same("decayed_merge", F.decayed_merge(col("dec")), "dec")
    same("quantile_merge", F.quantile_merge(col("q")), "q")
    tested += "top_k_merge"
    assert(parts.agg(F.top_k_merge(col("t"))).head() == spark.sql("SELECT top_k_merge(t) FROM parts").head(), "top_k_merge")
  }

  test("every scalar answers as its SQL namesake") {
    val e = col("e"); val y = col("y"); val now = lit(299L)
    sameScalar("ecm_point", F.ecm_point(e, lit("k1")), "ecm_point(e, 'k1')")
    sameScalar("ecm_point", F.ecm_point(e, lit("k1"), lit(50L), now), "ecm_point(e, 'k1', 50, 299)")
    sameScalar("ecm_inner_product", F.ecm_inner_product(e, e, lit(50L)), "ecm_inner_product(e, e, 50)")
    sameScalar("ecm_self_join", F.ecm_self_join(e), "ecm_self_join(e)")
    sameScalar("ecm_total", F.ecm_total(e, Map[String, Any]("range" -> 50L)), "ecm_total(e, 50)")
    sameScalar("eh_count", F.eh_count(col("h"), lit(50L)), "eh_count(h, 50)")
    sameScalar("dwave_count", F.dwave_count(col("w")), "dwave_count(w)")
    sameScalar("distinct_count", F.distinct_count(col("dc"), lit(20L)), "distinct_count(dc, 20)")
    sameScalar("ecm_heavy_hitters", F.ecm_heavy_hitters(y, lit(0.05)), "ecm_heavy_hitters(y, 0.05)")
    sameScalar("ecm_top_k", F.ecm_top_k(y, lit(3), Map[String, Any]("key_type" -> "bigint")), "ecm_top_k(y, 3, key_type => 'bigint')")
    sameScalar("ecm_range_count", F.ecm_range_count(y, lit(2), lit(5)), "ecm_range_count(y, 2, 5)")
    sameScalar("ecm_rank", F.ecm_rank(y, lit(6), lit(50L)), "ecm_rank(y, 6, 50)")
    sameScalar("ecm_quantile", F.ecm_quantile(y, expr("array(0.5, 0.9)")), "ecm_quantile(y, array(0.5, 0.9))")
    sameScalar("async_sum", F.async_sum(col("asum"), lit(50L)), "async_sum(asum, 50)")
    sameScalar("async_quantile", F.async_quantile(col("aq"), lit(0.5)), "async_quantile(aq, 0.5)")
    sameScalar("sketch_info", F.sketch_info(e), "sketch_info(e)")
    val dec = col("dec")
    sameScalar("decayed_sum", F.decayed_sum(dec, "exp", 20.0), "decayed_sum(dec, 'exp', 20.0)")
    sameScalar("decayed_quantile", F.decayed_quantile(dec, lit(0.5), "window", 100.0), "decayed_quantile(dec, 0.5, 'window', 100.0)")
    sameScalar("decayed_frequent", F.decayed_frequent(dec, lit(0.05), Map[String, Any]("decay" -> "poly", "decay_param" -> 1.0)),
      "decayed_frequent(dec, 0.05, 'poly', 1.0)")
    sameScalar("decayed_selectivity", F.decayed_selectivity(dec, lit(2), lit(6), "window", 50.0, now),
      "decayed_selectivity(dec, 2, 6, 'window', 50.0, 299)")
  }

  test("from Java: static forwarders and a java.util.Map of options") {
    sameAgg("ecm_agg", JavaFunctionsExample.ecmAgg(), "ecm_agg(k, ts)")
    sameAgg("ecm_agg", JavaFunctionsExample.ecmAggWithOptions(), "ecm_agg(k, ts, 100, merge_levels => 1)")
    assert(sketches.select(JavaFunctionsExample.ecmPoint(col("e"))).head() ==
      spark.sql("SELECT ecm_point(e, 'k1', 50) FROM s").head())
  }

  test("bad arguments name the argument and the problem") {
    val unknown = intercept[IllegalArgumentException](F.ecm_agg(col("k"), col("ts"), Map[String, Any]("windw" -> 10)))
    assert(unknown.getMessage.contains("ecm_agg: no parameter 'windw'"), unknown.getMessage)
    val bad = intercept[Exception](rows.agg(F.ecm_agg(col("k"), col("ts"), lit(100L), 2.0)).collect())
    assert(bad.getMessage.contains("epsilon"), bad.getMessage)
  }

  test("the suites cover every function of the signature table") {
    assert(tested.nonEmpty)
    val missing = SqlFunctions.all.map(_.name).filterNot(tested)
    // run last: ScalaTest runs a suite's tests in order
    assert(missing.isEmpty, s"not tested through the DataFrame API: ${missing.mkString(", ")}")
  }
}
