package ecmsketch.spark

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.{Expression, NamedArgumentExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction
import org.apache.spark.sql.ecmsketch.ColumnShim
import org.apache.spark.sql.functions.lit

/** The SQL functions of ecmsketch for DataFrames, as `org.apache.spark.sql.functions` has Spark's:
  * {{{
  *   import ecmsketch.spark.functions._
  *   df.groupBy(col("site")).agg(ecm_agg(col("url"), col("ts"), expr("INTERVAL 1 HOUR"), 0.01))
  *   df.agg(ecm_agg(col("url"), col("ts"), Map("window" -> 3600L, "merge_levels" -> 1)))
  * }}}
  * Each function builds the expression its SQL namesake builds (the same signature table,
  * [[SqlFunctions]], the same defaults and checks), so the bytes are the SQL function's; the session
  * needs no registration. Required arguments are Columns (`lit(0.5)` for a constant); the
  * optional ones come positionally as in SQL (window, epsilon, delta; range, now; decay,
  * decay_param, now) or, any of them, in an options map by their SQL names, the form that also
  * takes the named-only ones (`merge_levels`, `window_type`, `key_type`, ...). An option's value is
  * a Column or a constant. From Java: `ecmsketch.spark.functions.ecm_agg(col("k"), col("ts"))`, with
  * a `java.util.Map` for the options.
  */
// scalastyle:off method.name
object functions {

  private lazy val byName: Map[String, SqlFunctions.Fn] = SqlFunctions.all.map(fn => fn.name -> fn).toMap

  private def toExpression(v: Any): Expression = v match {
    case c: Column => ColumnShim.expression(c)
    case other => ColumnShim.expression(lit(other))
  }

  /** A Java map of options (scala.jdk.CollectionConverters is not in Scala 2.12). */
  private def fromJava(options: java.util.Map[String, Any]): Map[String, Any] = {
    val b = Map.newBuilder[String, Any]
    options.forEach((k: String, v: Any) => b += k -> v)
    b.result()
  }

  /** The Column of SQL function `name` on positional arguments and named ones (by SQL name). */
  private def call(name: String, positional: Seq[Column], options: Map[String, Any] = Map.empty): Column = {
    val fn = byName(name)
    val known = fn.params.map(_.name).toSet
    options.keys.filterNot(known).toSeq.sorted.headOption.foreach { k =>
      throw new IllegalArgumentException(
        s"$name: no parameter '$k'; its parameters are ${fn.params.map(_.name).mkString(", ")}")
    }
    val named = options.toSeq.sortBy(_._1).map { case (k, v) => NamedArgumentExpression(k, toExpression(v)) }
    SqlFunctions.builder(fn)(positional.map(toExpression) ++ named) match {
      case agg: AggregateFunction => ColumnShim.column(agg.toAggregateExpression())
      case e => ColumnShim.column(e)
    }
  }

  // ---- ecm_agg (aggregate)
  def ecm_agg(key: Column, ts: Column): Column = call("ecm_agg", Seq(key, ts))
  def ecm_agg(key: Column, ts: Column, window: Column): Column = call("ecm_agg", Seq(key, ts) ++ Seq(window))
  def ecm_agg(key: Column, ts: Column, window: Column, epsilon: Double): Column = call("ecm_agg", Seq(key, ts) ++ Seq(window, lit(epsilon)))
  def ecm_agg(key: Column, ts: Column, window: Column, epsilon: Double, delta: Double): Column = call("ecm_agg", Seq(key, ts) ++ Seq(window, lit(epsilon), lit(delta)))
  def ecm_agg(key: Column, ts: Column, options: Map[String, Any]): Column = call("ecm_agg", Seq(key, ts), options)
  def ecm_agg(key: Column, ts: Column, options: java.util.Map[String, Any]): Column = call("ecm_agg", Seq(key, ts), fromJava(options))

  // ---- ecm_merge (aggregate)
  def ecm_merge(sketch: Column): Column = call("ecm_merge", Seq(sketch))

  // ---- eh_agg (aggregate)
  def eh_agg(ts: Column): Column = call("eh_agg", Seq(ts))
  def eh_agg(ts: Column, window: Column): Column = call("eh_agg", Seq(ts) ++ Seq(window))
  def eh_agg(ts: Column, window: Column, epsilon: Double): Column = call("eh_agg", Seq(ts) ++ Seq(window, lit(epsilon)))
  def eh_agg(ts: Column, options: Map[String, Any]): Column = call("eh_agg", Seq(ts), options)
  def eh_agg(ts: Column, options: java.util.Map[String, Any]): Column = call("eh_agg", Seq(ts), fromJava(options))

  // ---- eh_merge (aggregate)
  def eh_merge(sketch: Column): Column = call("eh_merge", Seq(sketch))

  // ---- dwave_agg (aggregate)
  def dwave_agg(ts: Column): Column = call("dwave_agg", Seq(ts))
  def dwave_agg(ts: Column, window: Column): Column = call("dwave_agg", Seq(ts) ++ Seq(window))
  def dwave_agg(ts: Column, window: Column, epsilon: Double): Column = call("dwave_agg", Seq(ts) ++ Seq(window, lit(epsilon)))
  def dwave_agg(ts: Column, options: Map[String, Any]): Column = call("dwave_agg", Seq(ts), options)
  def dwave_agg(ts: Column, options: java.util.Map[String, Any]): Column = call("dwave_agg", Seq(ts), fromJava(options))

  // ---- dwave_merge (aggregate)
  def dwave_merge(sketch: Column): Column = call("dwave_merge", Seq(sketch))

  // ---- distinct_agg (aggregate)
  def distinct_agg(value: Column, ts: Column): Column = call("distinct_agg", Seq(value, ts))
  def distinct_agg(value: Column, ts: Column, window: Column): Column = call("distinct_agg", Seq(value, ts) ++ Seq(window))
  def distinct_agg(value: Column, ts: Column, window: Column, epsilon: Double): Column = call("distinct_agg", Seq(value, ts) ++ Seq(window, lit(epsilon)))
  def distinct_agg(value: Column, ts: Column, window: Column, epsilon: Double, delta: Double): Column = call("distinct_agg", Seq(value, ts) ++ Seq(window, lit(epsilon), lit(delta)))
  def distinct_agg(value: Column, ts: Column, options: Map[String, Any]): Column = call("distinct_agg", Seq(value, ts), options)
  def distinct_agg(value: Column, ts: Column, options: java.util.Map[String, Any]): Column = call("distinct_agg", Seq(value, ts), fromJava(options))

  // ---- distinct_merge (aggregate)
  def distinct_merge(sketch: Column): Column = call("distinct_merge", Seq(sketch))

  // ---- ecm_point
  def ecm_point(sketch: Column, key: Column): Column = call("ecm_point", Seq(sketch, key))
  def ecm_point(sketch: Column, key: Column, range: Column): Column = call("ecm_point", Seq(sketch, key) ++ Seq(range))
  def ecm_point(sketch: Column, key: Column, range: Column, now: Column): Column = call("ecm_point", Seq(sketch, key) ++ Seq(range, now))
  def ecm_point(sketch: Column, key: Column, options: Map[String, Any]): Column = call("ecm_point", Seq(sketch, key), options)
  def ecm_point(sketch: Column, key: Column, options: java.util.Map[String, Any]): Column = call("ecm_point", Seq(sketch, key), fromJava(options))

  // ---- ecm_inner_product
  def ecm_inner_product(a: Column, b: Column): Column = call("ecm_inner_product", Seq(a, b))
  def ecm_inner_product(a: Column, b: Column, range: Column): Column = call("ecm_inner_product", Seq(a, b) ++ Seq(range))
  def ecm_inner_product(a: Column, b: Column, range: Column, now: Column): Column = call("ecm_inner_product", Seq(a, b) ++ Seq(range, now))
  def ecm_inner_product(a: Column, b: Column, options: Map[String, Any]): Column = call("ecm_inner_product", Seq(a, b), options)
  def ecm_inner_product(a: Column, b: Column, options: java.util.Map[String, Any]): Column = call("ecm_inner_product", Seq(a, b), fromJava(options))

  // ---- ecm_self_join
  def ecm_self_join(sketch: Column): Column = call("ecm_self_join", Seq(sketch))
  def ecm_self_join(sketch: Column, range: Column): Column = call("ecm_self_join", Seq(sketch) ++ Seq(range))
  def ecm_self_join(sketch: Column, range: Column, now: Column): Column = call("ecm_self_join", Seq(sketch) ++ Seq(range, now))
  def ecm_self_join(sketch: Column, options: Map[String, Any]): Column = call("ecm_self_join", Seq(sketch), options)
  def ecm_self_join(sketch: Column, options: java.util.Map[String, Any]): Column = call("ecm_self_join", Seq(sketch), fromJava(options))

  // ---- ecm_total
  def ecm_total(sketch: Column): Column = call("ecm_total", Seq(sketch))
  def ecm_total(sketch: Column, range: Column): Column = call("ecm_total", Seq(sketch) ++ Seq(range))
  def ecm_total(sketch: Column, range: Column, now: Column): Column = call("ecm_total", Seq(sketch) ++ Seq(range, now))
  def ecm_total(sketch: Column, options: Map[String, Any]): Column = call("ecm_total", Seq(sketch), options)
  def ecm_total(sketch: Column, options: java.util.Map[String, Any]): Column = call("ecm_total", Seq(sketch), fromJava(options))

  // ---- eh_count
  def eh_count(sketch: Column): Column = call("eh_count", Seq(sketch))
  def eh_count(sketch: Column, range: Column): Column = call("eh_count", Seq(sketch) ++ Seq(range))
  def eh_count(sketch: Column, range: Column, now: Column): Column = call("eh_count", Seq(sketch) ++ Seq(range, now))
  def eh_count(sketch: Column, options: Map[String, Any]): Column = call("eh_count", Seq(sketch), options)
  def eh_count(sketch: Column, options: java.util.Map[String, Any]): Column = call("eh_count", Seq(sketch), fromJava(options))

  // ---- dwave_count
  def dwave_count(sketch: Column): Column = call("dwave_count", Seq(sketch))
  def dwave_count(sketch: Column, range: Column): Column = call("dwave_count", Seq(sketch) ++ Seq(range))
  def dwave_count(sketch: Column, range: Column, now: Column): Column = call("dwave_count", Seq(sketch) ++ Seq(range, now))
  def dwave_count(sketch: Column, options: Map[String, Any]): Column = call("dwave_count", Seq(sketch), options)
  def dwave_count(sketch: Column, options: java.util.Map[String, Any]): Column = call("dwave_count", Seq(sketch), fromJava(options))

  // ---- distinct_count
  def distinct_count(sketch: Column): Column = call("distinct_count", Seq(sketch))
  def distinct_count(sketch: Column, range: Column): Column = call("distinct_count", Seq(sketch) ++ Seq(range))
  def distinct_count(sketch: Column, range: Column, now: Column): Column = call("distinct_count", Seq(sketch) ++ Seq(range, now))
  def distinct_count(sketch: Column, options: Map[String, Any]): Column = call("distinct_count", Seq(sketch), options)
  def distinct_count(sketch: Column, options: java.util.Map[String, Any]): Column = call("distinct_count", Seq(sketch), fromJava(options))

  // ---- dyadic_agg (aggregate)
  def dyadic_agg(key: Column, ts: Column): Column = call("dyadic_agg", Seq(key, ts))
  def dyadic_agg(key: Column, ts: Column, window: Column): Column = call("dyadic_agg", Seq(key, ts) ++ Seq(window))
  def dyadic_agg(key: Column, ts: Column, window: Column, epsilon: Double): Column = call("dyadic_agg", Seq(key, ts) ++ Seq(window, lit(epsilon)))
  def dyadic_agg(key: Column, ts: Column, window: Column, epsilon: Double, delta: Double): Column = call("dyadic_agg", Seq(key, ts) ++ Seq(window, lit(epsilon), lit(delta)))
  def dyadic_agg(key: Column, ts: Column, options: Map[String, Any]): Column = call("dyadic_agg", Seq(key, ts), options)
  def dyadic_agg(key: Column, ts: Column, options: java.util.Map[String, Any]): Column = call("dyadic_agg", Seq(key, ts), fromJava(options))

  // ---- dyadic_merge (aggregate)
  def dyadic_merge(sketch: Column): Column = call("dyadic_merge", Seq(sketch))

  // ---- ecm_heavy_hitters
  def ecm_heavy_hitters(sketch: Column, phi: Column): Column = call("ecm_heavy_hitters", Seq(sketch, phi))
  def ecm_heavy_hitters(sketch: Column, phi: Column, range: Column): Column = call("ecm_heavy_hitters", Seq(sketch, phi) ++ Seq(range))
  def ecm_heavy_hitters(sketch: Column, phi: Column, range: Column, now: Column): Column = call("ecm_heavy_hitters", Seq(sketch, phi) ++ Seq(range, now))
  def ecm_heavy_hitters(sketch: Column, phi: Column, options: Map[String, Any]): Column = call("ecm_heavy_hitters", Seq(sketch, phi), options)
  def ecm_heavy_hitters(sketch: Column, phi: Column, options: java.util.Map[String, Any]): Column = call("ecm_heavy_hitters", Seq(sketch, phi), fromJava(options))

  // ---- ecm_top_k
  def ecm_top_k(sketch: Column, k: Column): Column = call("ecm_top_k", Seq(sketch, k))
  def ecm_top_k(sketch: Column, k: Column, range: Column): Column = call("ecm_top_k", Seq(sketch, k) ++ Seq(range))
  def ecm_top_k(sketch: Column, k: Column, range: Column, now: Column): Column = call("ecm_top_k", Seq(sketch, k) ++ Seq(range, now))
  def ecm_top_k(sketch: Column, k: Column, options: Map[String, Any]): Column = call("ecm_top_k", Seq(sketch, k), options)
  def ecm_top_k(sketch: Column, k: Column, options: java.util.Map[String, Any]): Column = call("ecm_top_k", Seq(sketch, k), fromJava(options))

  // ---- ecm_range_count
  def ecm_range_count(sketch: Column, lo: Column, hi: Column): Column = call("ecm_range_count", Seq(sketch, lo, hi))
  def ecm_range_count(sketch: Column, lo: Column, hi: Column, range: Column): Column = call("ecm_range_count", Seq(sketch, lo, hi) ++ Seq(range))
  def ecm_range_count(sketch: Column, lo: Column, hi: Column, range: Column, now: Column): Column = call("ecm_range_count", Seq(sketch, lo, hi) ++ Seq(range, now))
  def ecm_range_count(sketch: Column, lo: Column, hi: Column, options: Map[String, Any]): Column = call("ecm_range_count", Seq(sketch, lo, hi), options)
  def ecm_range_count(sketch: Column, lo: Column, hi: Column, options: java.util.Map[String, Any]): Column = call("ecm_range_count", Seq(sketch, lo, hi), fromJava(options))

  // ---- ecm_rank
  def ecm_rank(sketch: Column, x: Column): Column = call("ecm_rank", Seq(sketch, x))
  def ecm_rank(sketch: Column, x: Column, range: Column): Column = call("ecm_rank", Seq(sketch, x) ++ Seq(range))
  def ecm_rank(sketch: Column, x: Column, range: Column, now: Column): Column = call("ecm_rank", Seq(sketch, x) ++ Seq(range, now))
  def ecm_rank(sketch: Column, x: Column, options: Map[String, Any]): Column = call("ecm_rank", Seq(sketch, x), options)
  def ecm_rank(sketch: Column, x: Column, options: java.util.Map[String, Any]): Column = call("ecm_rank", Seq(sketch, x), fromJava(options))

  // ---- ecm_quantile
  def ecm_quantile(sketch: Column, q: Column): Column = call("ecm_quantile", Seq(sketch, q))
  def ecm_quantile(sketch: Column, q: Column, range: Column): Column = call("ecm_quantile", Seq(sketch, q) ++ Seq(range))
  def ecm_quantile(sketch: Column, q: Column, range: Column, now: Column): Column = call("ecm_quantile", Seq(sketch, q) ++ Seq(range, now))
  def ecm_quantile(sketch: Column, q: Column, options: Map[String, Any]): Column = call("ecm_quantile", Seq(sketch, q), options)
  def ecm_quantile(sketch: Column, q: Column, options: java.util.Map[String, Any]): Column = call("ecm_quantile", Seq(sketch, q), fromJava(options))

  // ---- async_sum_agg (aggregate)
  def async_sum_agg(value: Column, ts: Column): Column = call("async_sum_agg", Seq(value, ts))
  def async_sum_agg(value: Column, ts: Column, window: Column): Column = call("async_sum_agg", Seq(value, ts) ++ Seq(window))
  def async_sum_agg(value: Column, ts: Column, window: Column, epsilon: Double): Column = call("async_sum_agg", Seq(value, ts) ++ Seq(window, lit(epsilon)))
  def async_sum_agg(value: Column, ts: Column, window: Column, epsilon: Double, delta: Double): Column = call("async_sum_agg", Seq(value, ts) ++ Seq(window, lit(epsilon), lit(delta)))
  def async_sum_agg(value: Column, ts: Column, options: Map[String, Any]): Column = call("async_sum_agg", Seq(value, ts), options)
  def async_sum_agg(value: Column, ts: Column, options: java.util.Map[String, Any]): Column = call("async_sum_agg", Seq(value, ts), fromJava(options))

  // ---- async_count_agg (aggregate)
  def async_count_agg(ts: Column): Column = call("async_count_agg", Seq(ts))
  def async_count_agg(ts: Column, window: Column): Column = call("async_count_agg", Seq(ts) ++ Seq(window))
  def async_count_agg(ts: Column, window: Column, epsilon: Double): Column = call("async_count_agg", Seq(ts) ++ Seq(window, lit(epsilon)))
  def async_count_agg(ts: Column, window: Column, epsilon: Double, delta: Double): Column = call("async_count_agg", Seq(ts) ++ Seq(window, lit(epsilon), lit(delta)))
  def async_count_agg(ts: Column, options: Map[String, Any]): Column = call("async_count_agg", Seq(ts), options)
  def async_count_agg(ts: Column, options: java.util.Map[String, Any]): Column = call("async_count_agg", Seq(ts), fromJava(options))

  // ---- async_quantile_agg (aggregate)
  def async_quantile_agg(value: Column, ts: Column): Column = call("async_quantile_agg", Seq(value, ts))
  def async_quantile_agg(value: Column, ts: Column, window: Column): Column = call("async_quantile_agg", Seq(value, ts) ++ Seq(window))
  def async_quantile_agg(value: Column, ts: Column, window: Column, epsilon: Double): Column = call("async_quantile_agg", Seq(value, ts) ++ Seq(window, lit(epsilon)))
  def async_quantile_agg(value: Column, ts: Column, window: Column, epsilon: Double, delta: Double): Column = call("async_quantile_agg", Seq(value, ts) ++ Seq(window, lit(epsilon), lit(delta)))
  def async_quantile_agg(value: Column, ts: Column, options: Map[String, Any]): Column = call("async_quantile_agg", Seq(value, ts), options)
  def async_quantile_agg(value: Column, ts: Column, options: java.util.Map[String, Any]): Column = call("async_quantile_agg", Seq(value, ts), fromJava(options))

  // ---- async_merge (aggregate)
  def async_merge(sketch: Column): Column = call("async_merge", Seq(sketch))

  // ---- async_sum
  def async_sum(sketch: Column): Column = call("async_sum", Seq(sketch))
  def async_sum(sketch: Column, range: Column): Column = call("async_sum", Seq(sketch) ++ Seq(range))
  def async_sum(sketch: Column, range: Column, now: Column): Column = call("async_sum", Seq(sketch) ++ Seq(range, now))
  def async_sum(sketch: Column, options: Map[String, Any]): Column = call("async_sum", Seq(sketch), options)
  def async_sum(sketch: Column, options: java.util.Map[String, Any]): Column = call("async_sum", Seq(sketch), fromJava(options))

  // ---- async_quantile
  def async_quantile(sketch: Column, q: Column): Column = call("async_quantile", Seq(sketch, q))
  def async_quantile(sketch: Column, q: Column, range: Column): Column = call("async_quantile", Seq(sketch, q) ++ Seq(range))
  def async_quantile(sketch: Column, q: Column, range: Column, now: Column): Column = call("async_quantile", Seq(sketch, q) ++ Seq(range, now))
  def async_quantile(sketch: Column, q: Column, options: Map[String, Any]): Column = call("async_quantile", Seq(sketch, q), options)
  def async_quantile(sketch: Column, q: Column, options: java.util.Map[String, Any]): Column = call("async_quantile", Seq(sketch, q), fromJava(options))

  // ---- sketch_info
  def sketch_info(sketch: Column): Column = call("sketch_info", Seq(sketch))

  // ---- decayed_agg (aggregate)
  def decayed_agg(weight: Column, ts: Column): Column = call("decayed_agg", Seq(weight, ts))
  def decayed_agg(weight: Column, ts: Column, epsilon: Double): Column = call("decayed_agg", Seq(weight, ts) ++ Seq(lit(epsilon)))
  def decayed_agg(weight: Column, ts: Column, epsilon: Double, delta: Double): Column = call("decayed_agg", Seq(weight, ts) ++ Seq(lit(epsilon), lit(delta)))
  def decayed_agg(weight: Column, ts: Column, options: Map[String, Any]): Column = call("decayed_agg", Seq(weight, ts), options)
  def decayed_agg(weight: Column, ts: Column, options: java.util.Map[String, Any]): Column = call("decayed_agg", Seq(weight, ts), fromJava(options))

  // ---- decayed_merge (aggregate)
  def decayed_merge(sketch: Column): Column = call("decayed_merge", Seq(sketch))

  // ---- decayed_sum
  def decayed_sum(sketch: Column): Column = call("decayed_sum", Seq(sketch))
  def decayed_sum(sketch: Column, decay: String): Column = call("decayed_sum", Seq(sketch) ++ Seq(lit(decay)))
  def decayed_sum(sketch: Column, decay: String, decayParam: Double): Column = call("decayed_sum", Seq(sketch) ++ Seq(lit(decay), lit(decayParam)))
  def decayed_sum(sketch: Column, decay: String, decayParam: Double, now: Column): Column = call("decayed_sum", Seq(sketch) ++ Seq(lit(decay), lit(decayParam), now))
  def decayed_sum(sketch: Column, options: Map[String, Any]): Column = call("decayed_sum", Seq(sketch), options)
  def decayed_sum(sketch: Column, options: java.util.Map[String, Any]): Column = call("decayed_sum", Seq(sketch), fromJava(options))

  // ---- decayed_quantile
  def decayed_quantile(sketch: Column, q: Column): Column = call("decayed_quantile", Seq(sketch, q))
  def decayed_quantile(sketch: Column, q: Column, decay: String): Column = call("decayed_quantile", Seq(sketch, q) ++ Seq(lit(decay)))
  def decayed_quantile(sketch: Column, q: Column, decay: String, decayParam: Double): Column = call("decayed_quantile", Seq(sketch, q) ++ Seq(lit(decay), lit(decayParam)))
  def decayed_quantile(sketch: Column, q: Column, decay: String, decayParam: Double, now: Column): Column = call("decayed_quantile", Seq(sketch, q) ++ Seq(lit(decay), lit(decayParam), now))
  def decayed_quantile(sketch: Column, q: Column, options: Map[String, Any]): Column = call("decayed_quantile", Seq(sketch, q), options)
  def decayed_quantile(sketch: Column, q: Column, options: java.util.Map[String, Any]): Column = call("decayed_quantile", Seq(sketch, q), fromJava(options))

  // ---- decayed_frequent
  def decayed_frequent(sketch: Column, phi: Column): Column = call("decayed_frequent", Seq(sketch, phi))
  def decayed_frequent(sketch: Column, phi: Column, decay: String): Column = call("decayed_frequent", Seq(sketch, phi) ++ Seq(lit(decay)))
  def decayed_frequent(sketch: Column, phi: Column, decay: String, decayParam: Double): Column = call("decayed_frequent", Seq(sketch, phi) ++ Seq(lit(decay), lit(decayParam)))
  def decayed_frequent(sketch: Column, phi: Column, decay: String, decayParam: Double, now: Column): Column = call("decayed_frequent", Seq(sketch, phi) ++ Seq(lit(decay), lit(decayParam), now))
  def decayed_frequent(sketch: Column, phi: Column, options: Map[String, Any]): Column = call("decayed_frequent", Seq(sketch, phi), options)
  def decayed_frequent(sketch: Column, phi: Column, options: java.util.Map[String, Any]): Column = call("decayed_frequent", Seq(sketch, phi), fromJava(options))

  // ---- decayed_selectivity
  def decayed_selectivity(sketch: Column, lo: Column, hi: Column): Column = call("decayed_selectivity", Seq(sketch, lo, hi))
  def decayed_selectivity(sketch: Column, lo: Column, hi: Column, decay: String): Column = call("decayed_selectivity", Seq(sketch, lo, hi) ++ Seq(lit(decay)))
  def decayed_selectivity(sketch: Column, lo: Column, hi: Column, decay: String, decayParam: Double): Column = call("decayed_selectivity", Seq(sketch, lo, hi) ++ Seq(lit(decay), lit(decayParam)))
  def decayed_selectivity(sketch: Column, lo: Column, hi: Column, decay: String, decayParam: Double, now: Column): Column = call("decayed_selectivity", Seq(sketch, lo, hi) ++ Seq(lit(decay), lit(decayParam), now))
  def decayed_selectivity(sketch: Column, lo: Column, hi: Column, options: Map[String, Any]): Column = call("decayed_selectivity", Seq(sketch, lo, hi), options)
  def decayed_selectivity(sketch: Column, lo: Column, hi: Column, options: java.util.Map[String, Any]): Column = call("decayed_selectivity", Seq(sketch, lo, hi), fromJava(options))

  // ---- quantile_agg (aggregate)
  def quantile_agg(value: Column, ts: Column): Column = call("quantile_agg", Seq(value, ts))
  def quantile_agg(value: Column, ts: Column, window: Column): Column = call("quantile_agg", Seq(value, ts) ++ Seq(window))
  def quantile_agg(value: Column, ts: Column, window: Column, epsilon: Double): Column = call("quantile_agg", Seq(value, ts) ++ Seq(window, lit(epsilon)))
  def quantile_agg(value: Column, ts: Column, options: Map[String, Any]): Column = call("quantile_agg", Seq(value, ts), options)
  def quantile_agg(value: Column, ts: Column, options: java.util.Map[String, Any]): Column = call("quantile_agg", Seq(value, ts), fromJava(options))

  // ---- quantile_merge (aggregate)
  def quantile_merge(sketch: Column): Column = call("quantile_merge", Seq(sketch))

  // ---- top_k_agg (aggregate)
  def top_k_agg(key: Column, ts: Column): Column = call("top_k_agg", Seq(key, ts))
  def top_k_agg(key: Column, ts: Column, window: Column): Column = call("top_k_agg", Seq(key, ts) ++ Seq(window))
  def top_k_agg(key: Column, ts: Column, window: Column, epsilon: Double): Column = call("top_k_agg", Seq(key, ts) ++ Seq(window, lit(epsilon)))
  def top_k_agg(key: Column, ts: Column, options: Map[String, Any]): Column = call("top_k_agg", Seq(key, ts), options)
  def top_k_agg(key: Column, ts: Column, options: java.util.Map[String, Any]): Column = call("top_k_agg", Seq(key, ts), fromJava(options))

  // ---- top_k_merge (aggregate)
  def top_k_merge(sketch: Column): Column = call("top_k_merge", Seq(sketch))
}
