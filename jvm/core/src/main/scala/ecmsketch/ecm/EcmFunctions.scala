package ecmsketch.ecm

import ecmsketch.core.FunctionSpec
import ecmsketch.core.FunctionSpec.{Example, Keys, req}

/** The SQL functions of the ECM-sketch (sketch kind `ecm`), which its descriptor lists. */
object EcmFunctions {
  // the texts of this family's own parameters
  private val texts = new FunctionSpec.WithDocs(Map(
    "max_arrivals" -> "An upper bound on the weight in any window; sizes the deterministic wave's counters."))
  import texts.opt

  val all: Seq[FunctionSpec] = Seq(
    FunctionSpec("ecm_agg",
      Seq(req("key"), req("ts"), opt("window", "unbounded"), opt("epsilon", "0.05"), opt("delta", "0.01"), opt("value", "1 (each row counts once)"), opt("window_type", "'time'"),
        opt("seed", "the default seed"), opt("optimize_for", "'point'", "'point' (point queries) or 'inner_product' (inner products and self-joins): which queries the array is sized for."), opt("merge_levels", "0"), opt("cell", "'eh'", "The counter in each cell: 'eh' (exponential histogram), 'dwave' (deterministic wave) or 'rwave' (randomized wave)."), opt("max_arrivals", "no bound"), opt("max_bytes", "none (epsilon decides)", "With 'eh' cells, instead of epsilon: the smallest epsilon whose sketch never serializes to more than this many bytes.")),
      "_FUNC_(key, ts [, window [, epsilon [, delta]]] [, value => w] [, window_type => 'time'|'count'] [, seed => s] " +
        "[, optimize_for => 'point'|'inner_product'] [, merge_levels => h] [, cell => 'eh'|'dwave'|'rwave'] " +
        "[, max_arrivals => u] [, max_bytes => b]) - ECM-sketch (BINARY) of the group's rows over a sliding window, with exponential-histogram, " +
        "deterministic-wave or randomized-wave cells. Defaults: unbounded window, epsilon 0.05, delta 0.01, cell 'eh'. " +
        "max_bytes (instead of epsilon; 'eh' cells) picks the smallest epsilon whose sketch can never serialize to more than b bytes. " +
        "NULL key, ts or value rows are skipped.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT ecm_point(ecm_agg(k, ts), 'a') FROM $Keys;", "2.0"),
        Example(s"SELECT ecm_total(ecm_agg(k, ts, 100, value => w)) FROM VALUES ('a', 1, 5), ('b', 2, 3) AS t(k, ts, w);", "8.0"),
        Example(s"SELECT sketch_info(ecm_agg(k, ts, 2, window_type => 'count', cell => 'dwave')).cell_kind FROM $Keys;", "dwave"))),
    FunctionSpec("ecm_merge",
      Seq(req("sketch")),
      "_FUNC_(sketch) - Order-preserving merge of ECM-sketches (same parameters and seed); NULLs are ignored.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT ecm_point(ecm_merge(s), 'a') FROM (SELECT ecm_agg(k, ts, 100) AS s FROM VALUES ('a', 1, 0), ('a', 2, 1), ('b', 3, 1) AS t(k, ts, site) GROUP BY site);", "2.0"))),
    FunctionSpec("ecm_point",
      Seq(req("sketch", "An ECM-sketch (BINARY) from ecm_agg or ecm_merge, a dyadic ECM-sketch, or a frequent-items sketch from top_k_agg or top_k_merge; NULL gives NULL."), req("key", "The key (STRING, BINARY, INT or BIGINT, as the sketch's keys), or an ARRAY of keys."), opt("range", "the window"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch, key [, range [, now]]) - Estimated weight of key in (now - range, now]. Range defaults to the window, now to the sketch's last timestamp. " +
        "With an ARRAY of keys, an ARRAY<DOUBLE> of the estimates in key order (a NULL element gives NULL), from one decode of the sketch.",
      "misc_funcs",
      "DOUBLE (ARRAY<DOUBLE> for an ARRAY of keys)",
      Seq(Example(s"SELECT ecm_point(s, 'a'), ecm_point(s, 'a', 2) FROM (SELECT ecm_agg(k, ts, 10) AS s FROM $Keys);", "2.0\t1.0"),
        Example(s"SELECT ecm_point(ecm_agg(k, ts), array('a', 'b', 'c')) FROM $Keys;", "[2.0,1.0,0.0]"))),
    FunctionSpec("ecm_inner_product",
      Seq(req("a", "An ECM-sketch (BINARY)."), req("b", "An ECM-sketch (BINARY) of the same parameters and seed."), opt("range", "the window"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(a, b [, range [, now]]) - Estimated inner product (join size) of two ECM-sketches over the range.",
      "misc_funcs",
      "DOUBLE",
      Seq(Example(s"SELECT ecm_inner_product(s, s) FROM (SELECT ecm_agg(k, ts, 10, optimize_for => 'inner_product') AS s FROM $Keys);", "5.0"))),
    FunctionSpec("ecm_self_join",
      Seq(req("sketch"), opt("range", "the window"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch [, range [, now]]) - Estimated self-join size (F2) over the range.",
      "misc_funcs",
      "DOUBLE",
      Seq(Example(s"SELECT ecm_self_join(ecm_agg(k, ts, 10, optimize_for => 'inner_product')) FROM $Keys;", "5.0"))),
    FunctionSpec("ecm_total",
      Seq(req("sketch", "An ECM-sketch, a dyadic ECM-sketch, a windowed quantile sketch (quantile_agg) or a frequent-items sketch (top_k_agg); NULL gives NULL."), opt("range", "the window"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch [, range [, now]]) - Estimated total weight over the range (of an ECM-sketch, a dyadic ECM-sketch, a windowed quantile sketch or a frequent-items sketch).",
      "misc_funcs",
      "DOUBLE",
      Seq(Example(s"SELECT ecm_total(s), ecm_total(s, 2) FROM (SELECT ecm_agg(k, ts, 10) AS s FROM $Keys);", "3.0\t2.0"))))
}
