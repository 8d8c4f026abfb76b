package ecmsketch.eh

import ecmsketch.core.FunctionSpec
import ecmsketch.core.FunctionSpec.{Example, Ticks, opt, req}

/** The SQL functions of the exponential histogram (sketch kind `eh`), which its descriptor lists. */
object EhFunctions {
  val all: Seq[FunctionSpec] = Seq(
    FunctionSpec("eh_agg",
      Seq(req("ts"), opt("window", "unbounded"), opt("epsilon", "0.05"), opt("value", "1 (each row counts once)"), opt("window_type", "'time'"), opt("merge_levels", "0")),
      "_FUNC_(ts [, window [, epsilon]] [, value => w] [, window_type => 'time'|'count'] [, merge_levels => h]) - " +
        "Exponential histogram (BINARY) counting the rows (or summing value) over a sliding window.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT eh_count(eh_agg(ts, 10)), eh_count(eh_agg(ts, 10), 2) FROM $Ticks;", "3.0\t2.0"),
        Example(s"SELECT eh_count(eh_agg(ts, 10, 0.1, value => w)) FROM VALUES (1, 4), (2, 6) AS t(ts, w);", "10.0"))),
    FunctionSpec("eh_merge",
      Seq(req("sketch")),
      "_FUNC_(sketch) - Order-preserving merge of exponential histograms; NULLs are ignored.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT eh_count(eh_merge(s)) FROM (SELECT eh_agg(ts, 100) AS s FROM VALUES (1, 0), (2, 1), (3, 1) AS t(ts, site) GROUP BY site);", "3.0"))),
    FunctionSpec("eh_count",
      Seq(req("sketch"), opt("range", "the window"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch [, range [, now]]) - Estimated count (or sum) of an exponential histogram over the range.",
      "misc_funcs",
      "DOUBLE",
      Seq(Example(s"SELECT eh_count(s), eh_count(s, 2), eh_count(s, 2, 4) FROM (SELECT eh_agg(ts, 10) AS s FROM $Ticks);", "3.0\t2.0\t1.0"))))
}
