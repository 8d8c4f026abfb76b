package ecmsketch.spark

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.{FunctionRegistry, FunctionRegistryBase}
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.catalyst.plans.logical.{FunctionSignature, InputParameter}
import org.apache.spark.sql.catalyst.analysis.ExpressionBuilder

/** The SQL functions of ecmsketch: names, signatures (positional order and named parameters) and
  * documentation. Registered by [[EcmSketchExtensions]] (spark.sql.extensions) or [[Register]].
  */
object Functions {
  private def opt(name: String): InputParameter = InputParameter(name, Some(Args.Default))
  private def req(name: String): InputParameter = InputParameter(name)

  final case class Fn(name: String, params: Seq[InputParameter], make: Seq[Expression] => Expression,
                      usage: String, group: String, className: String)

  private final class Builder(fn: Fn) extends ExpressionBuilder {
    override def functionSignature: Option[FunctionSignature] = Some(FunctionSignature(fn.params))
    override def build(funcName: String, expressions: Seq[Expression]): Expression = fn.make(expressions)
  }

  val all: Seq[Fn] = Seq(
    Fn("ecm_agg",
      Seq(req("key"), req("ts"), opt("window"), opt("epsilon"), opt("delta"), opt("value"), opt("window_type"),
        opt("seed"), opt("optimize_for"), opt("merge_levels"), opt("cell"), opt("max_arrivals"), opt("max_bytes")),
      a => EcmAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8), a(9), a(10), a(11), a(12)),
      "_FUNC_(key, ts [, window [, epsilon [, delta]]] [, value => w] [, window_type => 'time'|'count'] [, seed => s] " +
        "[, optimize_for => 'point'|'inner_product'] [, merge_levels => h] [, cell => 'eh'|'dwave'|'rwave'] " +
        "[, max_arrivals => u] [, max_bytes => b]) - ECM-sketch (BINARY) of the group's rows over a sliding window, with exponential-histogram, " +
        "deterministic-wave or randomized-wave cells. Defaults: unbounded window, epsilon 0.05, delta 0.01, cell 'eh'. " +
        "max_bytes (instead of epsilon; 'eh' cells) picks the smallest epsilon whose sketch can never serialize to more than b bytes. " +
        "NULL key, ts or value rows are skipped.",
      "agg_funcs", classOf[EcmAgg].getName),
    Fn("ecm_merge", Seq(req("sketch")), a => EcmMergeAgg(a(0)),
      "_FUNC_(sketch) - Order-preserving merge of ECM-sketches (same parameters and seed); NULLs are ignored.",
      "agg_funcs", classOf[EcmMergeAgg].getName),
    Fn("eh_agg", Seq(req("ts"), opt("window"), opt("epsilon"), opt("value"), opt("window_type"), opt("merge_levels")),
      a => EhAgg(a(0), a(1), a(2), a(3), a(4), a(5)),
      "_FUNC_(ts [, window [, epsilon]] [, value => w] [, window_type => 'time'|'count'] [, merge_levels => h]) - " +
        "Exponential histogram (BINARY) counting the rows (or summing value) over a sliding window.",
      "agg_funcs", classOf[EhAgg].getName),
    Fn("eh_merge", Seq(req("sketch")), a => EhMergeAgg(a(0)),
      "_FUNC_(sketch) - Order-preserving merge of exponential histograms; NULLs are ignored.",
      "agg_funcs", classOf[EhMergeAgg].getName),
    Fn("dwave_agg", Seq(req("ts"), opt("window"), opt("epsilon"), opt("value"), opt("max_arrivals"), opt("window_type"),
      opt("merge_levels")),
      a => DwaveAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6)),
      "_FUNC_(ts [, window [, epsilon]] [, value => v] [, max_arrivals => u] [, window_type => 'time'|'count'] " +
        "[, merge_levels => h]) - Deterministic wave (BINARY) counting the rows (or summing value: the sum wave) over a " +
        "sliding window, O(1) worst-case time per row. max_arrivals bounds the weight in any window (default: no bound).",
      "agg_funcs", classOf[DwaveAgg].getName),
    Fn("dwave_merge", Seq(req("sketch")), a => DwaveMergeAgg(a(0)),
      "_FUNC_(sketch) - Order-preserving merge of deterministic waves; NULLs are ignored.",
      "agg_funcs", classOf[DwaveMergeAgg].getName),
    Fn("distinct_agg", Seq(req("value"), req("ts"), opt("window"), opt("epsilon"), opt("delta"), opt("window_type"),
      opt("seed")),
      a => DistinctAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6)),
      "_FUNC_(value, ts [, window [, epsilon [, delta]]] [, window_type => 'time'|'count'] [, seed => s]) - " +
        "Mergeable sliding-window distinct-count sketch (BINARY; randomized waves). Defaults: unbounded window, " +
        "epsilon 0.1, delta 0.05. NULL value or ts rows are skipped.",
      "agg_funcs", classOf[DistinctAgg].getName),
    Fn("distinct_merge", Seq(req("sketch")), a => DistinctMergeAgg(a(0)),
      "_FUNC_(sketch) - Lossless merge of distinct-count sketches (same epsilon, delta and seed); NULLs are ignored.",
      "agg_funcs", classOf[DistinctMergeAgg].getName),
    Fn("ecm_point", Seq(req("sketch"), req("key"), opt("range"), opt("now")), a => EcmPoint(a),
      "_FUNC_(sketch, key [, range [, now]]) - Estimated weight of key in (now - range, now]. Range defaults to the window, now to the sketch's last timestamp. " +
        "With an ARRAY of keys, an ARRAY<DOUBLE> of the estimates in key order (a NULL element gives NULL), from one decode of the sketch.",
      "misc_funcs", classOf[EcmPoint].getName),
    Fn("ecm_inner_product", Seq(req("a"), req("b"), opt("range"), opt("now")), a => EcmInnerProduct(a),
      "_FUNC_(a, b [, range [, now]]) - Estimated inner product (join size) of two ECM-sketches over the range.",
      "misc_funcs", classOf[EcmInnerProduct].getName),
    Fn("ecm_self_join", Seq(req("sketch"), opt("range"), opt("now")), a => EcmSelfJoin(a),
      "_FUNC_(sketch [, range [, now]]) - Estimated self-join size (F2) over the range.",
      "misc_funcs", classOf[EcmSelfJoin].getName),
    Fn("ecm_total", Seq(req("sketch"), opt("range"), opt("now")), a => EcmTotal(a),
      "_FUNC_(sketch [, range [, now]]) - Estimated total weight over the range.",
      "misc_funcs", classOf[EcmTotal].getName),
    Fn("eh_count", Seq(req("sketch"), opt("range"), opt("now")), a => EhCount(a),
      "_FUNC_(sketch [, range [, now]]) - Estimated count (or sum) of an exponential histogram over the range.",
      "misc_funcs", classOf[EhCount].getName),
    Fn("dwave_count", Seq(req("sketch"), opt("range"), opt("now")), a => DwaveCount(a),
      "_FUNC_(sketch [, range [, now]]) - Estimated count (or sum, for a sum wave) of a deterministic wave over the range.",
      "misc_funcs", classOf[DwaveCount].getName),
    Fn("distinct_count", Seq(req("sketch"), opt("range"), opt("now")), a => DistinctCount(a),
      "_FUNC_(sketch [, range [, now]]) - Estimated number of distinct values seen in (now - range, now].",
      "misc_funcs", classOf[DistinctCount].getName),
    Fn("dyadic_agg",
      Seq(req("key"), req("ts"), opt("window"), opt("epsilon"), opt("delta"), opt("universe_bits"), opt("value"),
        opt("window_type"), opt("seed"), opt("merge_levels"), opt("cell"), opt("candidates"), opt("phi_min")),
      a => DyadicAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8), a(9), a(10), a(11), a(12)),
      "_FUNC_(key, ts [, window [, epsilon [, delta]]] [, universe_bits => b] [, value => w] [, window_type => 'time'|'count'] " +
        "[, seed => s] [, merge_levels => h] [, cell => 'eh'|'dwave'] [, candidates => m] [, phi_min => p]) - Dyadic ECM-sketch (BINARY) of integer, " +
        "double, string or binary keys over a sliding window, for heavy hitters, top-k, range counts, ranks and quantiles (the last " +
        "three for numeric keys). epsilon is the heavy-hitter gap of ECM Theorem 5. Defaults: unbounded window, epsilon 0.05, " +
        "delta 0.01, universe_bits 32 (INT keys exact; BIGINT keys outside [-2^31, 2^31) fail: use up to 64), cell 'eh', " +
        "candidates 1024 (string and binary keys: the candidate keys kept per window epoch). phi_min p in (0, 1] plans for " +
        "heavy-hitter precision 1 - delta at every phi >= p (the sketch is built with delta * p). NULL key, ts or value rows are skipped.",
      "agg_funcs", classOf[DyadicAgg].getName),
    Fn("dyadic_merge", Seq(req("sketch")), a => DyadicMergeAgg(a(0)),
      "_FUNC_(sketch) - Order-preserving merge of dyadic ECM-sketches (same parameters and seed); NULLs are ignored.",
      "agg_funcs", classOf[DyadicMergeAgg].getName),
    Fn("ecm_heavy_hitters", Seq(req("sketch"), req("phi"), opt("range"), opt("now"), opt("key_type")), a => EcmHeavyHitters(a),
      "_FUNC_(sketch, phi [, range [, now]] [, key_type => 'bigint'|'double'|'string'|'binary']) - Keys of a dyadic sketch with weight >= phi " +
        "times the range's total (phi in (0, 1)) or >= phi (phi >= 1): ARRAY<STRUCT<key, estimate, lower, upper>> by estimate. " +
        "Every key with weight >= (phi + epsilon) times the total is reported (string and binary keys: also above the " +
        "sketch's candidate_recall_floor). key_type must name the type the sketch was built from (default 'bigint').",
      "misc_funcs", classOf[EcmHeavyHitters].getName),
    Fn("ecm_top_k", Seq(req("sketch"), req("k"), opt("range"), opt("now"), opt("key_type")), a => EcmTopK(a),
      "_FUNC_(sketch, k [, range [, now]] [, key_type => 'bigint'|'double'|'string'|'binary']) - The k keys of a dyadic sketch with the largest " +
        "estimated weight: ARRAY<STRUCT<key, estimate, lower, upper>> by estimate.",
      "misc_funcs", classOf[EcmTopK].getName),
    Fn("ecm_range_count", Seq(req("sketch"), req("lo"), req("hi"), opt("range"), opt("now")), a => EcmRangeCount(a),
      "_FUNC_(sketch, lo, hi [, range [, now]]) - Estimated weight of the keys in [lo, hi] (inclusive) of a dyadic sketch.",
      "misc_funcs", classOf[EcmRangeCount].getName),
    Fn("ecm_rank", Seq(req("sketch"), req("x"), opt("range"), opt("now")), a => EcmRank(a),
      "_FUNC_(sketch, x [, range [, now]]) - Estimated weight of the keys <= x of a dyadic sketch.",
      "misc_funcs", classOf[EcmRank].getName),
    Fn("ecm_quantile", Seq(req("sketch"), req("q"), opt("range"), opt("now")), a => EcmQuantile(a),
      "_FUNC_(sketch, q [, range [, now]]) - The q-quantile (DOUBLE) of the keys of a dyadic sketch over the range; with an " +
        "ARRAY of q, an ARRAY<DOUBLE>. NULL for an empty range.",
      "misc_funcs", classOf[EcmQuantile].getName),
    // async sketches (Xu-Tirthapura-Busch): rows in any timestamp order, lossless union
    Fn("async_sum_agg",
      Seq(req("value"), req("ts"), opt("window"), opt("epsilon"), opt("delta"), opt("id"), opt("seed"), opt("window_type"),
        opt("tradeoff")),
      a => AsyncSumAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8)),
      "_FUNC_(value, ts [, window [, epsilon [, delta]]] [, id => col] [, seed => s] [, window_type => 'time'] [, tradeoff => L]) - " +
        "Async sum sketch (BINARY; Xu-Tirthapura-Busch) of positive integer weights over a timestamp window, rows in any " +
        "timestamp order: every range sum within epsilon relative error with probability >= 1 - delta. Elements are " +
        "identified by (value, ts), or (id, value, ts) with id: equal identities count once, at one site or several. " +
        "Defaults: unbounded window, epsilon 0.1, delta 0.05. NULL value, ts or id rows are skipped.",
      "agg_funcs", classOf[AsyncSumAgg].getName),
    Fn("async_count_agg",
      Seq(req("ts"), opt("window"), opt("epsilon"), opt("delta"), opt("id"), opt("seed"), opt("window_type"), opt("tradeoff")),
      a => AsyncCountAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7)),
      "_FUNC_(ts [, window [, epsilon [, delta]]] [, id => col] [, seed => s] [, window_type => 'time'] [, tradeoff => L]) - " +
        "Async count sketch (BINARY): the async sum sketch with weight 1. Without id, rows with equal ts are one element; " +
        "give id => a unique row id to count every row.",
      "agg_funcs", classOf[AsyncCountAgg].getName),
    Fn("async_quantile_agg",
      Seq(req("value"), req("ts"), opt("window"), opt("epsilon"), opt("delta"), opt("id"), opt("seed"), opt("window_type")),
      a => AsyncQuantileAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7)),
      "_FUNC_(value, ts [, window [, epsilon [, delta]]] [, id => col] [, seed => s] [, window_type => 'time']) - Async " +
        "quantile sketch (BINARY; XTB median sketch) of numeric values over a timestamp window, rows in any timestamp order: " +
        "every quantile's rank within epsilon times the range's count with probability >= 1 - delta. Defaults: unbounded " +
        "window, epsilon 0.1 (< 0.5), delta 0.05.",
      "agg_funcs", classOf[AsyncQuantileAgg].getName),
    Fn("async_merge", Seq(req("sketch")), a => AsyncMergeAgg(a(0)),
      "_FUNC_(sketch) - Lossless union of async sketches (same measure, parameters and seed): the bytes of one sketch " +
        "over the union of the elements. NULLs are ignored.",
      "agg_funcs", classOf[AsyncMergeAgg].getName),
    Fn("async_sum", Seq(req("sketch"), opt("range"), opt("now")), a => AsyncSum(a),
      "_FUNC_(sketch [, range [, now]]) - Estimated sum (or count) of an async sum (count) sketch over (now - range, now].",
      "misc_funcs", classOf[AsyncSum].getName),
    Fn("async_quantile", Seq(req("sketch"), req("q"), opt("range"), opt("now")), a => AsyncQuantile(a),
      "_FUNC_(sketch, q [, range [, now]]) - The q-quantile (DOUBLE) of an async quantile sketch over the range; with an " +
        "ARRAY of q, an ARRAY<DOUBLE>. NULL for an empty range.",
      "misc_funcs", classOf[AsyncQuantile].getName),
    Fn("sketch_info", Seq(req("sketch")), a => SketchInfo(a),
      "_FUNC_(sketch) - STRUCT describing a sketch: kind, parameters, merge depth, certified error bound, timestamps, size.",
      "misc_funcs", classOf[SketchInfo].getName),
    // ---- decayed sketches (docs/design/decayed.md "Decayed sketch")
    Fn("decayed_agg",
      Seq(req("weight"), req("ts"), opt("epsilon"), opt("delta"), opt("value"), opt("id"), opt("seed"), opt("decay"),
        opt("decay_param"), opt("constant"), opt("max_weight"), opt("resolution")),
      a => DecayedAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8), a(9), a(10), a(11)),
      "_FUNC_(weight, ts [, epsilon [, delta]] [, value => v] [, id => x] [, seed => s] [, decay => 'window'|'exp'|'poly', " +
        "decay_param => p] [, constant => C] [, max_weight => m] [, resolution => r]) - Duplicate-insensitive, mergeable " +
        "time-decayed sketch (BINARY; Cormode-Tirthapura-Xu). Each distinct id (default: the triple weight, value, ts) counts " +
        "once, at one site or many, in any order. weight is an integer in [0, max_weight] (1 for counts); value (default: the " +
        "weight) is what quantiles, frequent items and selectivity rank. Without decay the decay is chosen at query time; " +
        "with one, the sketch is built for it. Defaults: epsilon 0.1, delta 0.05, constant 4 (tau = C / epsilon^2), " +
        "max_weight 1024. NULL weight, ts, value or id rows are skipped.",
      "agg_funcs", classOf[DecayedAgg].getName),
    Fn("decayed_merge", Seq(req("sketch")), a => DecayedMergeAgg(a(0)),
      "_FUNC_(sketch) - Lossless merge of decayed sketches (same parameters and seed); an id seen by several sketches counts once. NULLs are ignored.",
      "agg_funcs", classOf[DecayedMergeAgg].getName),
    Fn("decayed_sum", Seq(req("sketch"), opt("decay"), opt("decay_param"), opt("now")), a => DecayedSum(a),
      "_FUNC_(sketch [, decay, param [, now]]) - Estimated decayed sum over the distinct elements with ts <= now: decay " +
        "'window' (param W: ages < W count fully), 'exp' (param = half-life: w * 2^(-age/param)) or 'poly' (param = alpha: " +
        "w * (age+1)^(-alpha)); ages in ts units (seconds for TIMESTAMP). A sketch built with a decay takes that decay or none. " +
        "now defaults to the sketch's last timestamp.",
      "misc_funcs", classOf[DecayedSum].getName),
    Fn("decayed_quantile", Seq(req("sketch"), req("q"), opt("decay"), opt("decay_param"), opt("now")), a => DecayedQuantile(a),
      "_FUNC_(sketch, q [, decay, param [, now]]) - Decayed q-quantile (DOUBLE) of the values; NULL when nothing has weight.",
      "misc_funcs", classOf[DecayedQuantile].getName),
    Fn("decayed_frequent", Seq(req("sketch"), req("phi"), opt("decay"), opt("decay_param"), opt("now")), a => DecayedFrequent(a),
      "_FUNC_(sketch, phi [, decay, param [, now]]) - Values whose estimated decayed share of the weight exceeds phi - " +
        "epsilon/2: ARRAY<STRUCT<value, share>>, largest share first.",
      "misc_funcs", classOf[DecayedFrequent].getName),
    Fn("decayed_selectivity", Seq(req("sketch"), req("lo"), req("hi"), opt("decay"), opt("decay_param"), opt("now")),
      a => DecayedSelectivity(a),
      "_FUNC_(sketch, lo, hi [, decay, param [, now]]) - Estimated decayed fraction of the weight whose value lies in [lo, hi].",
      "misc_funcs", classOf[DecayedSelectivity].getName)
  )

  /** The builder Spark calls with the parsed arguments (named ones as NamedArgumentExpression). */
  def builder(fn: Fn): Seq[Expression] => Expression = {
    val b = new Builder(fn)
    (args: Seq[Expression]) => b.build(fn.name, FunctionRegistry.rearrangeExpressions(fn.name, b, args))
  }

  def info(fn: Fn): ExpressionInfo =
    new ExpressionInfo(fn.className, null, fn.name, fn.usage, "", "", "", fn.group, "0.1.0", "", "")

  /** Registers every function on a running session (classic Spark). */
  def registerAll(registry: FunctionRegistryBase[Expression]): Unit =
    all.foreach(fn => registry.registerFunction(SessionShim.registeredName(fn.name), info(fn), builder(fn)))

}

/** `spark.sql.extensions=ecmsketch.spark.EcmSketchExtensions` registers the functions in every new session. */
class EcmSketchExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(ext: SparkSessionExtensions): Unit =
    Functions.all.foreach(fn => ext.injectFunction((FunctionIdentifier(fn.name), Functions.info(fn), Functions.builder(fn))))
}

/** Registration on an already running session (called by Python's `ecmsketch.register(spark)`). */
object Register {
  def register(spark: SparkSession): Unit = SessionShim.functionRegistry(spark) match {
    case Some(registry) => Functions.registerAll(registry)
    case None => throw new IllegalArgumentException(
      s"ecmsketch.register needs a classic SparkSession, got ${spark.getClass.getName}; under Spark Connect set spark.sql.extensions=ecmsketch.spark.EcmSketchExtensions on the server")
  }
}
