package ecmsketch.frequent

import ecmsketch.core.FunctionSpec
import ecmsketch.core.FunctionSpec.{Example, Keys, opt, req}

/** The SQL functions of the frequent-items sketch (sketch kind `frequent`), which its descriptor
  * lists. Its queries are `ecm_top_k`, `ecm_heavy_hitters`, `ecm_point` and `ecm_total`, which the
  * dyadic ECM-sketch shares.
  */
object FrequentFunctions {
  val all: Seq[FunctionSpec] = Seq(
    FunctionSpec("top_k_agg",
      Seq(req("key", "The key: TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, STRING or BINARY; NULL rows are skipped."),
        req("ts"), opt("window", "unbounded"),
        opt("epsilon", "0.001", "The error the sketch certifies, as a share of the range's weight, in [0.001, 1). A constant."),
        opt("value", "1 (each row counts once)"), opt("window_type", "'time'"),
        opt("merge_levels", "0", "How many levels of order-preserving merges (top_k_merge) the bound plans for, beyond Spark's own merge, in [0, 7].")),
      "_FUNC_(key, ts [, window [, epsilon]] [, value => w] [, window_type => 'time'|'count'] [, merge_levels => h]) - " +
        "Frequent-items sketch of the keys over a sliding window, for top-k and heavy hitters of any range (now - r, " +
        "now] with r up to the window: every key's weight lies in its certified [lower, upper] interval, whose width " +
        "is at most epsilon times the range's weight after up to 1 + merge_levels levels of merges (deterministic). " +
        "Returns STRUCT<sketch: BINARY, key_type: the key's type> (key_type is always NULL: its type tells the queries " +
        "the key type). Query it with ecm_top_k, ecm_heavy_hitters, ecm_point and ecm_total. Defaults: unbounded " +
        "window, epsilon 0.001. Rows may come in any order. NULL key, ts or value rows are skipped.",
      "agg_funcs",
      "STRUCT<sketch: BINARY, key_type: the key's type>",
      Seq(Example(s"SELECT ecm_top_k(top_k_agg(k, ts), 1)[0].key FROM $Keys;", "a"),
        Example(s"SELECT ecm_point(s, 'a'), ecm_point(s, 'a', 1), ecm_total(s) FROM (SELECT top_k_agg(k, ts) AS s FROM $Keys);",
          "2.0\t1.0\t3.0")), since = "0.3.0"),
    FunctionSpec("top_k_merge",
      Seq(req("sketch", "A frequent-items sketch from top_k_agg or top_k_merge (its STRUCT, or the BINARY sketch field); NULLs are ignored.")),
      "_FUNC_(sketch) - Order-preserving merge of frequent-items sketches (same epsilon, window and merge_levels; " +
        "keys of one type). Sketches over the same time are folded into the size of one sketch (one merge level); " +
        "time-disjoint ones (roll-ups) cost no level. Returns the type it is given: the STRUCT of top_k_agg, or " +
        "BINARY. NULLs are ignored.",
      "agg_funcs",
      "STRUCT<sketch: BINARY, key_type: the key's type> (BINARY for BINARY sketches)",
      Seq(Example(s"SELECT transform(ecm_top_k(top_k_merge(s), 2), h -> h.key) FROM (SELECT top_k_agg(k, ts) AS s FROM VALUES (7, 1, 0), (7, 2, 1), (8, 3, 1) AS t(k, ts, site) GROUP BY site);",
        "[7,8]")), since = "0.3.0"))
}
