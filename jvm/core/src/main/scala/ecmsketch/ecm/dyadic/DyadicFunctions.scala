package ecmsketch.ecm.dyadic

import ecmsketch.core.FunctionSpec
import ecmsketch.core.FunctionSpec.{Example, Keys, opt, req}

/** The SQL functions of the dyadic ECM-sketch (sketch kind `dyadic`), which its descriptor lists. */
object DyadicFunctions {
  val all: Seq[FunctionSpec] = Seq(
    FunctionSpec("dyadic_agg",
      Seq(req("key", "The key: INT, BIGINT, DOUBLE, STRING or BINARY (ranks, range counts and quantiles need numeric keys)."), req("ts"), opt("window", "unbounded"), opt("epsilon", "0.05"), opt("delta", "0.01"), opt("universe_bits", "32", "The bits of the key universe, up to 64 (INT keys are exact at 32)."), opt("value", "1 (each row counts once)"),
        opt("window_type", "'time'"), opt("seed", "the default seed"), opt("merge_levels", "0"), opt("cell", "'eh'", "The counter in each cell: 'eh' or 'dwave'."), opt("candidates", "1024", "STRING and BINARY keys: the candidate keys kept per window epoch."), opt("phi_min", "1 (no plan)", "Plans for heavy-hitter precision 1 - delta at every phi >= phi_min, in (0, 1].")),
      "_FUNC_(key, ts [, window [, epsilon [, delta]]] [, universe_bits => b] [, value => w] [, window_type => 'time'|'count'] " +
        "[, seed => s] [, merge_levels => h] [, cell => 'eh'|'dwave'] [, candidates => m] [, phi_min => p]) - Dyadic ECM-sketch (BINARY) of integer, " +
        "double, string or binary keys over a sliding window, for heavy hitters, top-k, range counts, ranks and quantiles (the last " +
        "three for numeric keys). epsilon is the heavy-hitter gap of ECM Theorem 5. Defaults: unbounded window, epsilon 0.05, " +
        "delta 0.01, universe_bits 32 (INT keys exact; BIGINT keys outside [-2^31, 2^31) fail: use up to 64), cell 'eh', " +
        "candidates 1024 (string and binary keys: the candidate keys kept per window epoch). phi_min p in (0, 1] plans for " +
        "heavy-hitter precision 1 - delta at every phi >= p (the sketch is built with delta * p). NULL key, ts or value rows are skipped.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT ecm_quantile(dyadic_agg(x, ts), 0.5) FROM VALUES (1, 1), (2, 2), (3, 3), (3, 4), (5, 5) AS t(x, ts);", "3.0"),
        Example(s"SELECT transform(ecm_top_k(dyadic_agg(k, ts, 10), 1, key_type => 'string'), h -> h.key) FROM $Keys;", "[\"a\"]"))),
    FunctionSpec("dyadic_merge",
      Seq(req("sketch")),
      "_FUNC_(sketch) - Order-preserving merge of dyadic ECM-sketches (same parameters and seed); NULLs are ignored.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT ecm_rank(dyadic_merge(s), 3) FROM (SELECT dyadic_agg(x, ts, 100) AS s FROM VALUES (1, 1, 0), (2, 2, 1), (3, 3, 1), (4, 4, 0) AS t(x, ts, site) GROUP BY site);", "3.0"))),
    FunctionSpec("ecm_heavy_hitters",
      Seq(req("sketch", "A frequent-items sketch from top_k_agg or top_k_merge (its STRUCT, which carries the key type, or its BINARY sketch field), or a dyadic ECM-sketch (BINARY) from dyadic_agg or dyadic_merge; NULL gives NULL."), req("phi", "The threshold: a share of the range's total in (0, 1] (a dyadic sketch also takes a weight >= 1)."), opt("range", "the window"), opt("now", "the sketch's last timestamp"), opt("key_type", "the STRUCT's key type, else 'bigint'")),
      "_FUNC_(sketch, phi [, range [, now]] [, key_type => 'bigint'|'int'|'double'|'string'|'binary']) - Keys with weight >= phi " +
        "times the range's total: ARRAY<STRUCT<key, estimate, lower, upper>> by estimate. A frequent-items sketch reports every " +
        "key with weight >= (phi + e) times the total and none below (phi - e) times it, e its heavy_hitter_error_bound " +
        "(deterministic). A dyadic sketch (where phi >= 1 is a weight) reports every key with weight >= (phi + epsilon) times " +
        "the total (string and binary keys: also above the sketch's candidate_recall_floor). Keys come back in the key type " +
        "of a top_k_agg STRUCT; for a BINARY sketch, key_type must name the type it was built from (default 'bigint').",
      "misc_funcs",
      "ARRAY<STRUCT<key, estimate: DOUBLE, lower: DOUBLE, upper: DOUBLE>> (key of the sketch's key type)",
      Seq(Example(s"SELECT transform(ecm_heavy_hitters(top_k_agg(k, ts), 0.5), h -> h.key) FROM $Keys;", "[\"a\"]"),
        Example(s"SELECT transform(ecm_heavy_hitters(dyadic_agg(x, ts), 0.3), h -> h.key) FROM VALUES (1, 1), (2, 2), (3, 3), (3, 4), (5, 5) AS t(x, ts);", "[3]"),
        Example(s"SELECT transform(ecm_heavy_hitters(dyadic_agg(k, ts), 0.5, key_type => 'string'), h -> h.key) FROM $Keys;", "[\"a\"]"))),
    FunctionSpec("ecm_top_k",
      Seq(req("sketch", "A frequent-items sketch from top_k_agg or top_k_merge (its STRUCT, which carries the key type, or its BINARY sketch field), or a dyadic ECM-sketch (BINARY) from dyadic_agg or dyadic_merge; NULL gives NULL."), req("k", "How many keys: a positive integer."), opt("range", "the window"), opt("now", "the sketch's last timestamp"), opt("key_type", "the STRUCT's key type, else 'bigint'")),
      "_FUNC_(sketch, k [, range [, now]] [, key_type => 'bigint'|'int'|'double'|'string'|'binary']) - The k keys with the largest " +
        "estimated weight in the range, of a frequent-items sketch or a dyadic sketch: ARRAY<STRUCT<key, estimate, lower, upper>> " +
        "by estimate, each key's weight certified to lie in [lower, upper]. Keys come back in the key type of a top_k_agg " +
        "STRUCT; for a BINARY sketch, key_type must name the type it was built from (default 'bigint').",
      "misc_funcs",
      "ARRAY<STRUCT<key, estimate: DOUBLE, lower: DOUBLE, upper: DOUBLE>> (key of the sketch's key type)",
      Seq(Example(s"SELECT ecm_top_k(s, 1)[0].key, ecm_top_k(s, 1)[0].estimate FROM (SELECT dyadic_agg(x, ts) AS s FROM VALUES (1, 1), (2, 2), (3, 3), (3, 4), (5, 5) AS t(x, ts));", "3\t2.0"))),
    FunctionSpec("ecm_range_count",
      Seq(req("sketch", "A windowed quantile sketch (BINARY) from quantile_agg or quantile_merge, or a dyadic ECM-sketch of numeric keys; NULL gives NULL."), req("lo", "The lowest key (value) counted."), req("hi", "The highest key (value) counted."), opt("range", "the window"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch, lo, hi [, range [, now]]) - Estimated weight of the keys (values) in [lo, hi] (inclusive), of a windowed " +
        "quantile sketch (within 2 epsilon times the range's weight) or a dyadic sketch.",
      "misc_funcs",
      "DOUBLE",
      Seq(Example(s"SELECT ecm_range_count(dyadic_agg(x, ts), 2, 4) FROM VALUES (1, 1), (2, 2), (3, 3), (3, 4), (5, 5) AS t(x, ts);", "3.0"))),
    FunctionSpec("ecm_rank",
      Seq(req("sketch", "A windowed quantile sketch (BINARY) from quantile_agg or quantile_merge, or a dyadic ECM-sketch of numeric keys; NULL gives NULL."), req("x", "The key (value) whose rank is estimated."), opt("range", "the window"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch, x [, range [, now]]) - Estimated weight of the keys (values) <= x, of a windowed quantile sketch (within " +
        "epsilon times the range's weight) or a dyadic sketch.",
      "misc_funcs",
      "DOUBLE",
      Seq(Example(s"SELECT ecm_rank(dyadic_agg(x, ts), 3) FROM VALUES (1, 1), (2, 2), (3, 3), (3, 4), (5, 5) AS t(x, ts);", "4.0"))),
    FunctionSpec("ecm_quantile",
      Seq(req("sketch", "A windowed quantile sketch (BINARY) from quantile_agg or quantile_merge, or a dyadic ECM-sketch of numeric keys; NULL gives NULL."), req("q", "The quantile in [0, 1], or an ARRAY of them."), opt("range", "the window"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch, q [, range [, now]]) - The q-quantile (DOUBLE) of the values of a windowed quantile sketch (its rank " +
        "within epsilon times the range's weight) or of the keys of a dyadic sketch, over the range; with an ARRAY of q, an " +
        "ARRAY<DOUBLE>. NULL for an empty range.",
      "misc_funcs",
      "DOUBLE (ARRAY<DOUBLE> for an ARRAY of q)",
      Seq(Example(s"SELECT ecm_quantile(s, 0.5), ecm_quantile(s, array(0.2, 1.0)) FROM (SELECT dyadic_agg(x, ts) AS s FROM VALUES (1, 1), (2, 2), (3, 3), (3, 4), (5, 5) AS t(x, ts));", "3.0\t[1.0,5.0]"))))
}
