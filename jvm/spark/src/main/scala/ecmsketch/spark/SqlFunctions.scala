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
object SqlFunctions {
  /** One parameter: its name, its default as users read it (None: required) and what it is. The
    * signature Spark checks (positional order, named arguments) is built from these.
    */
  final case class Param(name: String, default: Option[String], doc: String)
  /** One example of the reference: a query that needs no table and its result lines, as Spark's
    * examples show them (columns separated by a tab, arrays as [a,b], structs as {"f":v}).
    */
  final case class Example(sql: String, result: String*)

  /** A required parameter; its text comes from [[ParamDocs]] unless given. */
  private def req(name: String, doc: String = null): Param = Param(name, None, Option(doc).getOrElse(ParamDocs(name)))
  /** An optional parameter with its default as users read it. */
  private def opt(name: String, default: String, doc: String = null): Param =
    Param(name, Some(default), Option(doc).getOrElse(ParamDocs(name)))

  /** A function: its signature and builder, and its reference (usage, arguments, result type,
    * examples, release, Spark group). [[info]] makes Spark's ExpressionInfo of it, and
    * docs/reference/sql.md is generated from the same rows.
    */
  final case class Fn(name: String, params: Seq[Param], make: Seq[Expression] => Expression,
                      usage: String, group: String, className: String, returns: String,
                      examples: Seq[Example], since: String = "0.1.0") {
    /** Parameters written `name => value` in the usage (they follow optional positional ones). */
    def named(p: Param): Boolean = usage.contains(s"${p.name} =>")
  }

  private final class Builder(fn: Fn) extends ExpressionBuilder {
    override def functionSignature: Option[FunctionSignature] = Some(FunctionSignature(fn.params.map(p =>
      if (p.default.isEmpty) InputParameter(p.name) else InputParameter(p.name, Some(Args.Default)))))
    override def build(funcName: String, expressions: Seq[Expression]): Expression = fn.make(expressions)
  }

  // small inputs shared by the examples
  private val Keys = "VALUES ('a', 1), ('b', 2), ('a', 3) AS t(k, ts)"
  private val Ticks = "VALUES (1), (2), (3) AS t(ts)"

  val all: Seq[Fn] = Seq(
    Fn("ecm_agg",
      Seq(req("key"), req("ts"), opt("window", "unbounded"), opt("epsilon", "0.05"), opt("delta", "0.01"), opt("value", "1 (each row counts once)"), opt("window_type", "'time'"),
        opt("seed", "the default seed"), opt("optimize_for", "'point'", "'point' (point queries) or 'inner_product' (inner products and self-joins): which queries the array is sized for."), opt("merge_levels", "0"), opt("cell", "'eh'", "The counter in each cell: 'eh' (exponential histogram), 'dwave' (deterministic wave) or 'rwave' (randomized wave)."), opt("max_arrivals", "no bound"), opt("max_bytes", "none (epsilon decides)", "With 'eh' cells, instead of epsilon: the smallest epsilon whose sketch never serializes to more than this many bytes.")),
      a => EcmAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8), a(9), a(10), a(11), a(12)),
      "_FUNC_(key, ts [, window [, epsilon [, delta]]] [, value => w] [, window_type => 'time'|'count'] [, seed => s] " +
        "[, optimize_for => 'point'|'inner_product'] [, merge_levels => h] [, cell => 'eh'|'dwave'|'rwave'] " +
        "[, max_arrivals => u] [, max_bytes => b]) - ECM-sketch (BINARY) of the group's rows over a sliding window, with exponential-histogram, " +
        "deterministic-wave or randomized-wave cells. Defaults: unbounded window, epsilon 0.05, delta 0.01, cell 'eh'. " +
        "max_bytes (instead of epsilon; 'eh' cells) picks the smallest epsilon whose sketch can never serialize to more than b bytes. " +
        "NULL key, ts or value rows are skipped.",
      "agg_funcs", classOf[EcmAgg].getName, "BINARY",
      Seq(Example(s"SELECT ecm_point(ecm_agg(k, ts), 'a') FROM $Keys;", "2.0"),
        Example(s"SELECT ecm_total(ecm_agg(k, ts, 100, value => w)) FROM VALUES ('a', 1, 5), ('b', 2, 3) AS t(k, ts, w);", "8.0"),
        Example(s"SELECT sketch_info(ecm_agg(k, ts, 2, window_type => 'count', cell => 'dwave')).cell_kind FROM $Keys;", "dwave"))),
    Fn("ecm_merge", Seq(req("sketch")), a => EcmMergeAgg(a(0)),
      "_FUNC_(sketch) - Order-preserving merge of ECM-sketches (same parameters and seed); NULLs are ignored.",
      "agg_funcs", classOf[EcmMergeAgg].getName, "BINARY",
      Seq(Example(s"SELECT ecm_point(ecm_merge(s), 'a') FROM (SELECT ecm_agg(k, ts, 100) AS s FROM VALUES ('a', 1, 0), ('a', 2, 1), ('b', 3, 1) AS t(k, ts, site) GROUP BY site);", "2.0"))),
    Fn("eh_agg", Seq(req("ts"), opt("window", "unbounded"), opt("epsilon", "0.05"), opt("value", "1 (each row counts once)"), opt("window_type", "'time'"), opt("merge_levels", "0")),
      a => EhAgg(a(0), a(1), a(2), a(3), a(4), a(5)),
      "_FUNC_(ts [, window [, epsilon]] [, value => w] [, window_type => 'time'|'count'] [, merge_levels => h]) - " +
        "Exponential histogram (BINARY) counting the rows (or summing value) over a sliding window.",
      "agg_funcs", classOf[EhAgg].getName, "BINARY",
      Seq(Example(s"SELECT eh_count(eh_agg(ts, 10)), eh_count(eh_agg(ts, 10), 2) FROM $Ticks;", "3.0\t2.0"),
        Example(s"SELECT eh_count(eh_agg(ts, 10, 0.1, value => w)) FROM VALUES (1, 4), (2, 6) AS t(ts, w);", "10.0"))),
    Fn("eh_merge", Seq(req("sketch")), a => EhMergeAgg(a(0)),
      "_FUNC_(sketch) - Order-preserving merge of exponential histograms; NULLs are ignored.",
      "agg_funcs", classOf[EhMergeAgg].getName, "BINARY",
      Seq(Example(s"SELECT eh_count(eh_merge(s)) FROM (SELECT eh_agg(ts, 100) AS s FROM VALUES (1, 0), (2, 1), (3, 1) AS t(ts, site) GROUP BY site);", "3.0"))),
    Fn("dwave_agg", Seq(req("ts"), opt("window", "unbounded"), opt("epsilon", "0.05"), opt("value", "1 (each row counts once)"), opt("max_arrivals", "no bound"), opt("window_type", "'time'"),
      opt("merge_levels", "0")),
      a => DwaveAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6)),
      "_FUNC_(ts [, window [, epsilon]] [, value => v] [, max_arrivals => u] [, window_type => 'time'|'count'] " +
        "[, merge_levels => h]) - Deterministic wave (BINARY) counting the rows (or summing value: the sum wave) over a " +
        "sliding window, O(1) worst-case time per row. max_arrivals bounds the weight in any window (default: no bound).",
      "agg_funcs", classOf[DwaveAgg].getName, "BINARY",
      Seq(Example(s"SELECT dwave_count(dwave_agg(ts, 10)), dwave_count(dwave_agg(ts, 10), 2) FROM $Ticks;", "3.0\t2.0"),
        Example(s"SELECT dwave_count(dwave_agg(ts, 10, 0.1, value => w, max_arrivals => 100)) FROM VALUES (1, 4), (2, 6) AS t(ts, w);", "10.0"))),
    Fn("dwave_merge", Seq(req("sketch")), a => DwaveMergeAgg(a(0)),
      "_FUNC_(sketch) - Order-preserving merge of deterministic waves; NULLs are ignored.",
      "agg_funcs", classOf[DwaveMergeAgg].getName, "BINARY",
      Seq(Example(s"SELECT dwave_count(dwave_merge(s)) FROM (SELECT dwave_agg(ts, 100) AS s FROM VALUES (1, 0), (2, 1), (3, 1) AS t(ts, site) GROUP BY site);", "3.0"))),
    Fn("distinct_agg", Seq(req("value", "The values to count distinct: any type (hashed); NULL rows are skipped."), req("ts"), opt("window", "unbounded"), opt("epsilon", "0.1"), opt("delta", "0.05"), opt("window_type", "'time'"),
      opt("seed", "the default seed")),
      a => DistinctAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6)),
      "_FUNC_(value, ts [, window [, epsilon [, delta]]] [, window_type => 'time'|'count'] [, seed => s]) - " +
        "Mergeable sliding-window distinct-count sketch (BINARY; randomized waves). Defaults: unbounded window, " +
        "epsilon 0.1, delta 0.05. NULL value or ts rows are skipped.",
      "agg_funcs", classOf[DistinctAgg].getName, "BINARY",
      Seq(Example(s"SELECT distinct_count(distinct_agg(v, ts)) FROM VALUES ('x', 1), ('y', 2), ('x', 3) AS t(v, ts);", "2.0"),
        Example(s"SELECT distinct_count(distinct_agg(v, ts, 10), 1) FROM VALUES ('x', 1), ('y', 2), ('x', 3) AS t(v, ts);", "1.0"))),
    Fn("distinct_merge", Seq(req("sketch")), a => DistinctMergeAgg(a(0)),
      "_FUNC_(sketch) - Lossless merge of distinct-count sketches (same epsilon, delta and seed); NULLs are ignored.",
      "agg_funcs", classOf[DistinctMergeAgg].getName, "BINARY",
      Seq(Example(s"SELECT distinct_count(distinct_merge(s)) FROM (SELECT distinct_agg(v, ts) AS s FROM VALUES ('x', 1, 0), ('y', 2, 1), ('x', 3, 1) AS t(v, ts, site) GROUP BY site);", "2.0"))),
    Fn("ecm_point", Seq(req("sketch", "An ECM-sketch (BINARY) from ecm_agg or ecm_merge; NULL gives NULL."), req("key", "The key (of the sketch's key type), or an ARRAY of keys."), opt("range", "the window"), opt("now", "the sketch's last timestamp")), a => EcmPoint(a),
      "_FUNC_(sketch, key [, range [, now]]) - Estimated weight of key in (now - range, now]. Range defaults to the window, now to the sketch's last timestamp. " +
        "With an ARRAY of keys, an ARRAY<DOUBLE> of the estimates in key order (a NULL element gives NULL), from one decode of the sketch.",
      "misc_funcs", classOf[EcmPoint].getName, "DOUBLE (ARRAY<DOUBLE> for an ARRAY of keys)",
      Seq(Example(s"SELECT ecm_point(s, 'a'), ecm_point(s, 'a', 2) FROM (SELECT ecm_agg(k, ts, 10) AS s FROM $Keys);", "2.0\t1.0"),
        Example(s"SELECT ecm_point(ecm_agg(k, ts), array('a', 'b', 'c')) FROM $Keys;", "[2.0,1.0,0.0]"))),
    Fn("ecm_inner_product", Seq(req("a", "An ECM-sketch (BINARY)."), req("b", "An ECM-sketch (BINARY) of the same parameters and seed."), opt("range", "the window"), opt("now", "the sketch's last timestamp")), a => EcmInnerProduct(a),
      "_FUNC_(a, b [, range [, now]]) - Estimated inner product (join size) of two ECM-sketches over the range.",
      "misc_funcs", classOf[EcmInnerProduct].getName, "DOUBLE",
      Seq(Example(s"SELECT ecm_inner_product(s, s) FROM (SELECT ecm_agg(k, ts, 10, optimize_for => 'inner_product') AS s FROM $Keys);", "5.0"))),
    Fn("ecm_self_join", Seq(req("sketch"), opt("range", "the window"), opt("now", "the sketch's last timestamp")), a => EcmSelfJoin(a),
      "_FUNC_(sketch [, range [, now]]) - Estimated self-join size (F2) over the range.",
      "misc_funcs", classOf[EcmSelfJoin].getName, "DOUBLE",
      Seq(Example(s"SELECT ecm_self_join(ecm_agg(k, ts, 10, optimize_for => 'inner_product')) FROM $Keys;", "5.0"))),
    Fn("ecm_total", Seq(req("sketch"), opt("range", "the window"), opt("now", "the sketch's last timestamp")), a => EcmTotal(a),
      "_FUNC_(sketch [, range [, now]]) - Estimated total weight over the range.",
      "misc_funcs", classOf[EcmTotal].getName, "DOUBLE",
      Seq(Example(s"SELECT ecm_total(s), ecm_total(s, 2) FROM (SELECT ecm_agg(k, ts, 10) AS s FROM $Keys);", "3.0\t2.0"))),
    Fn("eh_count", Seq(req("sketch"), opt("range", "the window"), opt("now", "the sketch's last timestamp")), a => EhCount(a),
      "_FUNC_(sketch [, range [, now]]) - Estimated count (or sum) of an exponential histogram over the range.",
      "misc_funcs", classOf[EhCount].getName, "DOUBLE",
      Seq(Example(s"SELECT eh_count(s), eh_count(s, 2), eh_count(s, 2, 4) FROM (SELECT eh_agg(ts, 10) AS s FROM $Ticks);", "3.0\t2.0\t1.0"))),
    Fn("dwave_count", Seq(req("sketch"), opt("range", "the window"), opt("now", "the sketch's last timestamp")), a => DwaveCount(a),
      "_FUNC_(sketch [, range [, now]]) - Estimated count (or sum, for a sum wave) of a deterministic wave over the range.",
      "misc_funcs", classOf[DwaveCount].getName, "DOUBLE",
      Seq(Example(s"SELECT dwave_count(s), dwave_count(s, 2) FROM (SELECT dwave_agg(ts, 10) AS s FROM $Ticks);", "3.0\t2.0"))),
    Fn("distinct_count", Seq(req("sketch"), opt("range", "the window"), opt("now", "the sketch's last timestamp")), a => DistinctCount(a),
      "_FUNC_(sketch [, range [, now]]) - Estimated number of distinct values seen in (now - range, now].",
      "misc_funcs", classOf[DistinctCount].getName, "DOUBLE",
      Seq(Example(s"SELECT distinct_count(s), distinct_count(s, 1) FROM (SELECT distinct_agg(v, ts, 10) AS s FROM VALUES ('x', 1), ('y', 2), ('x', 3) AS t(v, ts));", "2.0\t1.0"))),
    Fn("dyadic_agg",
      Seq(req("key", "The key: INT, BIGINT, DOUBLE, STRING or BINARY (ranks, range counts and quantiles need numeric keys)."), req("ts"), opt("window", "unbounded"), opt("epsilon", "0.05"), opt("delta", "0.01"), opt("universe_bits", "32", "The bits of the key universe, up to 64 (INT keys are exact at 32)."), opt("value", "1 (each row counts once)"),
        opt("window_type", "'time'"), opt("seed", "the default seed"), opt("merge_levels", "0"), opt("cell", "'eh'", "The counter in each cell: 'eh' or 'dwave'."), opt("candidates", "1024", "STRING and BINARY keys: the candidate keys kept per window epoch."), opt("phi_min", "1 (no plan)", "Plans for heavy-hitter precision 1 - delta at every phi >= phi_min, in (0, 1].")),
      a => DyadicAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8), a(9), a(10), a(11), a(12)),
      "_FUNC_(key, ts [, window [, epsilon [, delta]]] [, universe_bits => b] [, value => w] [, window_type => 'time'|'count'] " +
        "[, seed => s] [, merge_levels => h] [, cell => 'eh'|'dwave'] [, candidates => m] [, phi_min => p]) - Dyadic ECM-sketch (BINARY) of integer, " +
        "double, string or binary keys over a sliding window, for heavy hitters, top-k, range counts, ranks and quantiles (the last " +
        "three for numeric keys). epsilon is the heavy-hitter gap of ECM Theorem 5. Defaults: unbounded window, epsilon 0.05, " +
        "delta 0.01, universe_bits 32 (INT keys exact; BIGINT keys outside [-2^31, 2^31) fail: use up to 64), cell 'eh', " +
        "candidates 1024 (string and binary keys: the candidate keys kept per window epoch). phi_min p in (0, 1] plans for " +
        "heavy-hitter precision 1 - delta at every phi >= p (the sketch is built with delta * p). NULL key, ts or value rows are skipped.",
      "agg_funcs", classOf[DyadicAgg].getName, "BINARY",
      Seq(Example(s"SELECT ecm_quantile(dyadic_agg(x, ts), 0.5) FROM VALUES (1, 1), (2, 2), (3, 3), (3, 4), (5, 5) AS t(x, ts);", "3.0"),
        Example(s"SELECT transform(ecm_top_k(dyadic_agg(k, ts, 10), 1, key_type => 'string'), h -> h.key) FROM $Keys;", "[\"a\"]"))),
    Fn("dyadic_merge", Seq(req("sketch")), a => DyadicMergeAgg(a(0)),
      "_FUNC_(sketch) - Order-preserving merge of dyadic ECM-sketches (same parameters and seed); NULLs are ignored.",
      "agg_funcs", classOf[DyadicMergeAgg].getName, "BINARY",
      Seq(Example(s"SELECT ecm_rank(dyadic_merge(s), 3) FROM (SELECT dyadic_agg(x, ts, 100) AS s FROM VALUES (1, 1, 0), (2, 2, 1), (3, 3, 1), (4, 4, 0) AS t(x, ts, site) GROUP BY site);", "3.0"))),
    Fn("ecm_heavy_hitters", Seq(req("sketch", "A dyadic ECM-sketch (BINARY) from dyadic_agg or dyadic_merge; NULL gives NULL."), req("phi", "The threshold: a share of the range's total in (0, 1), or a weight (>= 1)."), opt("range", "the window"), opt("now", "the sketch's last timestamp"), opt("key_type", "'bigint'")), a => EcmHeavyHitters(a),
      "_FUNC_(sketch, phi [, range [, now]] [, key_type => 'bigint'|'double'|'string'|'binary']) - Keys of a dyadic sketch with weight >= phi " +
        "times the range's total (phi in (0, 1)) or >= phi (phi >= 1): ARRAY<STRUCT<key, estimate, lower, upper>> by estimate. " +
        "Every key with weight >= (phi + epsilon) times the total is reported (string and binary keys: also above the " +
        "sketch's candidate_recall_floor). key_type must name the type the sketch was built from (default 'bigint').",
      "misc_funcs", classOf[EcmHeavyHitters].getName, "ARRAY<STRUCT<key, estimate: DOUBLE, lower: DOUBLE, upper: DOUBLE>> (key of key_type)",
      Seq(Example(s"SELECT transform(ecm_heavy_hitters(dyadic_agg(x, ts), 0.3), h -> h.key) FROM VALUES (1, 1), (2, 2), (3, 3), (3, 4), (5, 5) AS t(x, ts);", "[3]"),
        Example(s"SELECT transform(ecm_heavy_hitters(dyadic_agg(k, ts), 0.5, key_type => 'string'), h -> h.key) FROM $Keys;", "[\"a\"]"))),
    Fn("ecm_top_k", Seq(req("sketch", "A dyadic ECM-sketch (BINARY) from dyadic_agg or dyadic_merge; NULL gives NULL."), req("k", "How many keys: a positive integer."), opt("range", "the window"), opt("now", "the sketch's last timestamp"), opt("key_type", "'bigint'")), a => EcmTopK(a),
      "_FUNC_(sketch, k [, range [, now]] [, key_type => 'bigint'|'double'|'string'|'binary']) - The k keys of a dyadic sketch with the largest " +
        "estimated weight: ARRAY<STRUCT<key, estimate, lower, upper>> by estimate.",
      "misc_funcs", classOf[EcmTopK].getName, "ARRAY<STRUCT<key, estimate: DOUBLE, lower: DOUBLE, upper: DOUBLE>> (key of key_type)",
      Seq(Example(s"SELECT ecm_top_k(s, 1)[0].key, ecm_top_k(s, 1)[0].estimate FROM (SELECT dyadic_agg(x, ts) AS s FROM VALUES (1, 1), (2, 2), (3, 3), (3, 4), (5, 5) AS t(x, ts));", "3\t2.0"))),
    Fn("ecm_range_count", Seq(req("sketch", "A dyadic ECM-sketch (BINARY) of numeric keys; NULL gives NULL."), req("lo", "The lowest key counted."), req("hi", "The highest key counted."), opt("range", "the window"), opt("now", "the sketch's last timestamp")), a => EcmRangeCount(a),
      "_FUNC_(sketch, lo, hi [, range [, now]]) - Estimated weight of the keys in [lo, hi] (inclusive) of a dyadic sketch.",
      "misc_funcs", classOf[EcmRangeCount].getName, "DOUBLE",
      Seq(Example(s"SELECT ecm_range_count(dyadic_agg(x, ts), 2, 4) FROM VALUES (1, 1), (2, 2), (3, 3), (3, 4), (5, 5) AS t(x, ts);", "3.0"))),
    Fn("ecm_rank", Seq(req("sketch", "A dyadic ECM-sketch (BINARY) of numeric keys; NULL gives NULL."), req("x", "The key whose rank is estimated."), opt("range", "the window"), opt("now", "the sketch's last timestamp")), a => EcmRank(a),
      "_FUNC_(sketch, x [, range [, now]]) - Estimated weight of the keys <= x of a dyadic sketch.",
      "misc_funcs", classOf[EcmRank].getName, "DOUBLE",
      Seq(Example(s"SELECT ecm_rank(dyadic_agg(x, ts), 3) FROM VALUES (1, 1), (2, 2), (3, 3), (3, 4), (5, 5) AS t(x, ts);", "4.0"))),
    Fn("ecm_quantile", Seq(req("sketch", "A dyadic ECM-sketch (BINARY) of numeric keys; NULL gives NULL."), req("q", "The quantile in [0, 1], or an ARRAY of them."), opt("range", "the window"), opt("now", "the sketch's last timestamp")), a => EcmQuantile(a),
      "_FUNC_(sketch, q [, range [, now]]) - The q-quantile (DOUBLE) of the keys of a dyadic sketch over the range; with an " +
        "ARRAY of q, an ARRAY<DOUBLE>. NULL for an empty range.",
      "misc_funcs", classOf[EcmQuantile].getName, "DOUBLE (ARRAY<DOUBLE> for an ARRAY of q)",
      Seq(Example(s"SELECT ecm_quantile(s, 0.5), ecm_quantile(s, array(0.2, 1.0)) FROM (SELECT dyadic_agg(x, ts) AS s FROM VALUES (1, 1), (2, 2), (3, 3), (3, 4), (5, 5) AS t(x, ts));", "3.0\t[1.0,5.0]"))),
    // async sketches (Xu-Tirthapura-Busch): rows in any timestamp order, lossless union
    Fn("async_sum_agg",
      Seq(req("value", "The element's weight: a positive integer; NULL rows are skipped."), req("ts"), opt("window", "unbounded"), opt("epsilon", "0.1"), opt("delta", "0.05"), opt("id", "none: the element is (value, ts)"), opt("seed", "the default seed"), opt("window_type", "'time'"),
        opt("tradeoff", "chosen by the sketch", "The space-time trade-off level L of the sketch.")),
      a => AsyncSumAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8)),
      "_FUNC_(value, ts [, window [, epsilon [, delta]]] [, id => col] [, seed => s] [, window_type => 'time'] [, tradeoff => L]) - " +
        "Async sum sketch (BINARY; Xu-Tirthapura-Busch) of positive integer weights over a timestamp window, rows in any " +
        "timestamp order: every range sum within epsilon relative error with probability >= 1 - delta. Elements are " +
        "identified by (value, ts), or (id, value, ts) with id: equal identities count once, at one site or several. " +
        "Defaults: unbounded window, epsilon 0.1, delta 0.05. NULL value, ts or id rows are skipped.",
      "agg_funcs", classOf[AsyncSumAgg].getName, "BINARY",
      Seq(Example(s"SELECT async_sum(async_sum_agg(v, ts)) FROM VALUES (5, 3), (3, 1), (5, 3), (2, 2) AS t(v, ts);", "10.0"),
        Example(s"SELECT async_sum(async_sum_agg(v, ts, 10), 2) FROM VALUES (5, 3), (3, 1), (5, 3), (2, 2) AS t(v, ts);", "7.0"))),
    Fn("async_count_agg",
      Seq(req("ts"), opt("window", "unbounded"), opt("epsilon", "0.1"), opt("delta", "0.05"), opt("id", "none: the element is ts"), opt("seed", "the default seed"), opt("window_type", "'time'"), opt("tradeoff", "chosen by the sketch", "The space-time trade-off level L of the sketch.")),
      a => AsyncCountAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7)),
      "_FUNC_(ts [, window [, epsilon [, delta]]] [, id => col] [, seed => s] [, window_type => 'time'] [, tradeoff => L]) - " +
        "Async count sketch (BINARY): the async sum sketch with weight 1. Without id, rows with equal ts are one element; " +
        "give id => a unique row id to count every row.",
      "agg_funcs", classOf[AsyncCountAgg].getName, "BINARY",
      Seq(Example(s"SELECT async_sum(async_count_agg(ts)), async_sum(async_count_agg(ts, id => id)) FROM VALUES (1, 3), (2, 1), (3, 3) AS t(id, ts);", "2.0\t3.0"))),
    Fn("async_quantile_agg",
      Seq(req("value", "The numeric value whose quantiles the sketch answers; NULL rows are skipped."), req("ts"), opt("window", "unbounded"), opt("epsilon", "0.1", "The rank error the sketch plans for, in (0, 0.5). A constant."), opt("delta", "0.05"), opt("id", "none: the element is (value, ts)"), opt("seed", "the default seed"), opt("window_type", "'time'")),
      a => AsyncQuantileAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7)),
      "_FUNC_(value, ts [, window [, epsilon [, delta]]] [, id => col] [, seed => s] [, window_type => 'time']) - Async " +
        "quantile sketch (BINARY; XTB median sketch) of numeric values over a timestamp window, rows in any timestamp order: " +
        "every quantile's rank within epsilon times the range's count with probability >= 1 - delta. Defaults: unbounded " +
        "window, epsilon 0.1 (< 0.5), delta 0.05.",
      "agg_funcs", classOf[AsyncQuantileAgg].getName, "BINARY",
      Seq(Example(s"SELECT async_quantile(async_quantile_agg(v, ts), 0.5) FROM VALUES (10.0, 3), (20.0, 1), (30.0, 2) AS t(v, ts);", "20.0"))),
    Fn("async_merge", Seq(req("sketch")), a => AsyncMergeAgg(a(0)),
      "_FUNC_(sketch) - Lossless union of async sketches (same measure, parameters and seed): the bytes of one sketch " +
        "over the union of the elements. NULLs are ignored.",
      "agg_funcs", classOf[AsyncMergeAgg].getName, "BINARY",
      Seq(Example(s"SELECT async_sum(async_merge(s)) FROM (SELECT async_sum_agg(v, ts, id => id) AS s FROM VALUES (1, 5, 1, 0), (1, 5, 1, 1), (2, 3, 2, 1) AS t(id, v, ts, site) GROUP BY site);", "8.0"))),
    Fn("async_sum", Seq(req("sketch"), opt("range", "the window"), opt("now", "the sketch's last timestamp")), a => AsyncSum(a),
      "_FUNC_(sketch [, range [, now]]) - Estimated sum (or count) of an async sum (count) sketch over (now - range, now].",
      "misc_funcs", classOf[AsyncSum].getName, "DOUBLE",
      Seq(Example(s"SELECT async_sum(s), async_sum(s, 2) FROM (SELECT async_sum_agg(v, ts, 10) AS s FROM VALUES (5, 3), (3, 1), (2, 2) AS t(v, ts));", "10.0\t7.0"))),
    Fn("async_quantile", Seq(req("sketch"), req("q", "The quantile in [0, 1], or an ARRAY of them."), opt("range", "the window"), opt("now", "the sketch's last timestamp")), a => AsyncQuantile(a),
      "_FUNC_(sketch, q [, range [, now]]) - The q-quantile (DOUBLE) of an async quantile sketch over the range; with an " +
        "ARRAY of q, an ARRAY<DOUBLE>. NULL for an empty range.",
      "misc_funcs", classOf[AsyncQuantile].getName, "DOUBLE (ARRAY<DOUBLE> for an ARRAY of q)",
      Seq(Example(s"SELECT async_quantile(s, 0.5), async_quantile(s, array(0.0, 1.0)) FROM (SELECT async_quantile_agg(v, ts) AS s FROM VALUES (10.0, 3), (20.0, 1), (30.0, 2) AS t(v, ts));", "20.0\t[10.0,30.0]"))),
    Fn("sketch_info", Seq(req("sketch", "Any ecmsketch sketch (BINARY); NULL gives NULL.")), a => SketchInfo(a),
      "_FUNC_(sketch) - STRUCT describing a sketch: kind, parameters, merge depth, certified error bound, timestamps, size.",
      "misc_funcs", classOf[SketchInfo].getName, "STRUCT<kind: STRING, ..., size_bytes: INT, ...> (fields that do not apply to the sketch's kind are NULL)",
      Seq(Example(s"SELECT sketch_info(s).kind, sketch_info(s).window, sketch_info(s).epsilon, sketch_info(s).last_ts FROM (SELECT eh_agg(ts, 10, 0.1) AS s FROM $Ticks);", "eh\t10\t0.1\t3"))),
    // ---- decayed sketches (docs/design/decayed.md "Decayed sketch")
    Fn("decayed_agg",
      Seq(req("weight", "The element's weight: an integer in [0, max_weight] (1 for counts); NULL rows are skipped."), req("ts"), opt("epsilon", "0.1"), opt("delta", "0.05"), opt("value", "the weight", "What quantiles, frequent values and selectivity rank; NULL rows are skipped."), opt("id", "none: the element is (weight, value, ts)"), opt("seed", "the default seed"), opt("decay", "none: chosen at query time", "The decay the sketch is built for: 'window', 'exp' or 'poly'."),
        opt("decay_param", "none"), opt("constant", "4", "C of the sample size tau = C / epsilon^2."), opt("max_weight", "1024", "The largest weight."), opt("resolution", "1", "The ts resolution the sketch keeps (ts units).")),
      a => DecayedAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8), a(9), a(10), a(11)),
      "_FUNC_(weight, ts [, epsilon [, delta]] [, value => v] [, id => x] [, seed => s] [, decay => 'window'|'exp'|'poly', " +
        "decay_param => p] [, constant => C] [, max_weight => m] [, resolution => r]) - Duplicate-insensitive, mergeable " +
        "time-decayed sketch (BINARY; Cormode-Tirthapura-Xu). Each distinct id (default: the triple weight, value, ts) counts " +
        "once, at one site or many, in any order. weight is an integer in [0, max_weight] (1 for counts); value (default: the " +
        "weight) is what quantiles, frequent items and selectivity rank. Without decay the decay is chosen at query time; " +
        "with one, the sketch is built for it. Defaults: epsilon 0.1, delta 0.05, constant 4 (tau = C / epsilon^2), " +
        "max_weight 1024. NULL weight, ts, value or id rows are skipped.",
      "agg_funcs", classOf[DecayedAgg].getName, "BINARY",
      Seq(Example(s"SELECT decayed_sum(decayed_agg(1, ts, id => id), 'window', 2) FROM VALUES (1, 1), (2, 2), (2, 2), (3, 3) AS t(id, ts);", "2.0"),
        Example(s"SELECT decayed_sum(decayed_agg(w, ts, decay => 'exp', decay_param => 1)) FROM VALUES (4, 1), (4, 2) AS t(w, ts);", "6.0"))),
    Fn("decayed_merge", Seq(req("sketch")), a => DecayedMergeAgg(a(0)),
      "_FUNC_(sketch) - Lossless merge of decayed sketches (same parameters and seed); an id seen by several sketches counts once. NULLs are ignored.",
      "agg_funcs", classOf[DecayedMergeAgg].getName, "BINARY",
      Seq(Example(s"SELECT decayed_sum(decayed_merge(s), 'window', 10) FROM (SELECT decayed_agg(1, ts, id => id) AS s FROM VALUES (1, 1, 0), (1, 1, 1), (2, 2, 1) AS t(id, ts, site) GROUP BY site);", "2.0"))),
    Fn("decayed_sum", Seq(req("sketch"), opt("decay", "the sketch's decay"), opt("decay_param", "the sketch's"), opt("now", "the sketch's last timestamp")), a => DecayedSum(a),
      "_FUNC_(sketch [, decay, decay_param [, now]]) - Estimated decayed sum over the distinct elements with ts <= now: decay " +
        "'window' (decay_param W: ages < W count fully), 'exp' (decay_param = half-life: w * 2^(-age/decay_param)) or 'poly' " +
        "(decay_param = alpha: " +
        "w * (age+1)^(-alpha)); ages in ts units (seconds for TIMESTAMP). A sketch built with a decay takes that decay or none. " +
        "now defaults to the sketch's last timestamp.",
      "misc_funcs", classOf[DecayedSum].getName, "DOUBLE",
      Seq(Example(s"SELECT decayed_sum(s, 'window', 2), decayed_sum(s, 'exp', 1), round(decayed_sum(s, 'poly', 1.0), 4) FROM (SELECT decayed_agg(1, ts, id => id) AS s FROM VALUES (1, 1), (2, 2), (2, 2), (3, 3) AS t(id, ts));", "2.0\t1.75\t1.8333"))),
    Fn("decayed_quantile", Seq(req("sketch"), req("q", "The quantile in [0, 1]."), opt("decay", "the sketch's decay"), opt("decay_param", "the sketch's"), opt("now", "the sketch's last timestamp")), a => DecayedQuantile(a),
      "_FUNC_(sketch, q [, decay, decay_param [, now]]) - Decayed q-quantile (DOUBLE) of the values; NULL when nothing has weight.",
      "misc_funcs", classOf[DecayedQuantile].getName, "DOUBLE",
      Seq(Example(s"SELECT decayed_quantile(decayed_agg(1, ts, value => v), 0.5, 'window', 10) FROM VALUES (10, 1), (20, 2), (20, 3) AS t(v, ts);", "20.0"))),
    Fn("decayed_frequent", Seq(req("sketch"), req("phi", "The share of the decayed weight, in (0, 1)."), opt("decay", "the sketch's decay"), opt("decay_param", "the sketch's"), opt("now", "the sketch's last timestamp")), a => DecayedFrequent(a),
      "_FUNC_(sketch, phi [, decay, decay_param [, now]]) - Values whose estimated decayed share of the weight exceeds phi - " +
        "epsilon/2: ARRAY<STRUCT<value, share>>, largest share first.",
      "misc_funcs", classOf[DecayedFrequent].getName, "ARRAY<STRUCT<value: DOUBLE, share: DOUBLE>>",
      Seq(Example(s"SELECT transform(decayed_frequent(decayed_agg(1, ts, value => v), 0.5, 'window', 10), f -> f.value) FROM VALUES (10, 1), (20, 2), (20, 3) AS t(v, ts);", "[20.0]"))),
    Fn("decayed_selectivity", Seq(req("sketch"), req("lo", "The lowest value counted."), req("hi", "The highest value counted."), opt("decay", "the sketch's decay"), opt("decay_param", "the sketch's"), opt("now", "the sketch's last timestamp")),
      a => DecayedSelectivity(a),
      "_FUNC_(sketch, lo, hi [, decay, decay_param [, now]]) - Estimated decayed fraction of the weight whose value lies in [lo, hi].",
      "misc_funcs", classOf[DecayedSelectivity].getName, "DOUBLE",
      Seq(Example(s"SELECT round(decayed_selectivity(decayed_agg(1, ts, value => v), 15, 25, 'window', 10), 4) FROM VALUES (10, 1), (20, 2), (20, 3) AS t(v, ts);", "0.6667")))
  )

  /** The builder Spark calls with the parsed arguments (named ones as NamedArgumentExpression). */
  def builder(fn: Fn): Seq[Expression] => Expression = {
    val b = new Builder(fn)
    (args: Seq[Expression]) => b.build(fn.name, FunctionRegistry.rearrangeExpressions(fn.name, b, args))
  }

  /** The Arguments section, in Spark's layout: "\n    Arguments:\n      * name - text\n  ". */
  def arguments(fn: Fn): String =
    fn.params.map { p =>
      val how = p.default match {
        case None => ""
        case Some(d) => if (fn.named(p)) s" Optional, by name (${p.name} => ...); default: $d." else s" Optional; default: $d."
      }
      s"      * ${p.name} - ${p.doc}$how\n"
    }.mkString("\n    Arguments:\n", "", "  ")

  /** The Examples section, in Spark's layout: "> SELECT ...;" then the result lines, 7 spaces in. */
  def examples(fn: Fn): String =
    fn.examples.map { e =>
      s"      > ${e.sql}\n" + e.result.flatMap(_.split("\n")).map(l => s"       $l\n").mkString
    }.mkString("\n    Examples:\n", "", "  ")

  /** Spark's description of a function, shown by DESCRIBE FUNCTION EXTENDED (the constructor is the
    * same in Spark 3.5 and 4.x; 4.x checks group and since as 3.5 does).
    */
  def info(fn: Fn): ExpressionInfo =
    new ExpressionInfo(fn.className, null, fn.name, fn.usage, arguments(fn), examples(fn), "", fn.group, fn.since, "", "")

  /** Every function's reference as JSON, read by the generator of docs/reference/sql.md. */
  def referenceJson(): String = {
    def str(v: String): String = v.flatMap {
      case '"' => "\\\""
      case '\\' => "\\\\"
      case '\n' => "\\n"
      case '\t' => "\\t"
      case c if c < ' ' => "\\" + "u%04x".format(c.toInt)
      case c => c.toString
    }.mkString("\"", "", "\"")
    all.map { fn =>
      val params = fn.params.map(p => s"""{"name":${str(p.name)},"default":${p.default.map(str).getOrElse("null")},""" +
        s""""named":${fn.named(p)},"doc":${str(p.doc)}}""").mkString("[", ",", "]")
      val exs = fn.examples.map(e => s"""{"sql":${str(e.sql)},"result":${e.result.map(str).mkString("[", ",", "]")}}""")
        .mkString("[", ",", "]")
      s"""{"name":${str(fn.name)},"usage":${str(fn.usage)},"group":${str(fn.group)},"since":${str(fn.since)},""" +
        s""""returns":${str(fn.returns)},"params":$params,"examples":$exs}"""
    }.mkString("[", ",\n", "]")
  }

  /** Registers every function on a running session (classic Spark). */
  def registerAll(registry: FunctionRegistryBase[Expression]): Unit =
    all.foreach(fn => registry.registerFunction(SessionShim.registeredName(fn.name), info(fn), builder(fn)))

}

/** `spark.sql.extensions=ecmsketch.spark.EcmSketchExtensions` registers the functions in every new session. */
class EcmSketchExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(ext: SparkSessionExtensions): Unit =
    SqlFunctions.all.foreach(fn => ext.injectFunction((FunctionIdentifier(fn.name), SqlFunctions.info(fn), SqlFunctions.builder(fn))))
}

/** Registration on an already running session (called by Python's `ecmsketch.register(spark)`). */
object Register {
  def register(spark: SparkSession): Unit = SessionShim.functionRegistry(spark) match {
    case Some(registry) => SqlFunctions.registerAll(registry)
    case None => throw new IllegalArgumentException(
      s"ecmsketch.register needs a classic SparkSession, got ${spark.getClass.getName}; under Spark Connect set spark.sql.extensions=ecmsketch.spark.EcmSketchExtensions on the server")
  }
}
