package ecmsketch.rwave

import ecmsketch.core.FunctionSpec
import ecmsketch.core.FunctionSpec.{Example, opt, req}

/** The SQL functions of the distinct-count sketch (sketch kind `distinct`), which its descriptor lists. */
object DistinctFunctions {
  val all: Seq[FunctionSpec] = Seq(
    FunctionSpec("distinct_agg",
      Seq(req("value", "The values to count distinct: any type (hashed); NULL rows are skipped."), req("ts"), opt("window", "unbounded"), opt("epsilon", "0.1"), opt("delta", "0.05"), opt("window_type", "'time'"),
      opt("seed", "the default seed")),
      "_FUNC_(value, ts [, window [, epsilon [, delta]]] [, window_type => 'time'|'count'] [, seed => s]) - " +
        "Mergeable sliding-window distinct-count sketch (BINARY; randomized waves). Defaults: unbounded window, " +
        "epsilon 0.1, delta 0.05. NULL value or ts rows are skipped.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT distinct_count(distinct_agg(v, ts)) FROM VALUES ('x', 1), ('y', 2), ('x', 3) AS t(v, ts);", "2.0"),
        Example(s"SELECT distinct_count(distinct_agg(v, ts, 10), 1) FROM VALUES ('x', 1), ('y', 2), ('x', 3) AS t(v, ts);", "1.0"))),
    FunctionSpec("distinct_merge",
      Seq(req("sketch")),
      "_FUNC_(sketch) - Lossless merge of distinct-count sketches (same epsilon, delta and seed); NULLs are ignored.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT distinct_count(distinct_merge(s)) FROM (SELECT distinct_agg(v, ts) AS s FROM VALUES ('x', 1, 0), ('y', 2, 1), ('x', 3, 1) AS t(v, ts, site) GROUP BY site);", "2.0"))),
    FunctionSpec("distinct_count",
      Seq(req("sketch"), opt("range", "the window"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch [, range [, now]]) - Estimated number of distinct values seen in (now - range, now].",
      "misc_funcs",
      "DOUBLE",
      Seq(Example(s"SELECT distinct_count(s), distinct_count(s, 1) FROM (SELECT distinct_agg(v, ts, 10) AS s FROM VALUES ('x', 1), ('y', 2), ('x', 3) AS t(v, ts));", "2.0\t1.0"))))
}
