package ecmsketch.dwave

import ecmsketch.core.FunctionSpec
import ecmsketch.core.FunctionSpec.{Example, Ticks, req}

/** The SQL functions of the deterministic wave (sketch kind `dwave`), which its descriptor lists. */
object DwFunctions {
  // the texts of this family's own parameters
  private val texts = new FunctionSpec.WithDocs(Map(
    "max_arrivals" -> "An upper bound on the weight in any window; sizes the deterministic wave's counters."))
  import texts.opt

  val all: Seq[FunctionSpec] = Seq(
    FunctionSpec("dwave_agg",
      Seq(req("ts"), opt("window", "unbounded"), opt("epsilon", "0.05"), opt("value", "1 (each row counts once)"), opt("max_arrivals", "no bound"), opt("window_type", "'time'"),
      opt("merge_levels", "0")),
      "_FUNC_(ts [, window [, epsilon]] [, value => v] [, max_arrivals => u] [, window_type => 'time'|'count'] " +
        "[, merge_levels => h]) - Deterministic wave (BINARY) counting the rows (or summing value: the sum wave) over a " +
        "sliding window, O(1) worst-case time per row. max_arrivals bounds the weight in any window (default: no bound).",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT dwave_count(dwave_agg(ts, 10)), dwave_count(dwave_agg(ts, 10), 2) FROM $Ticks;", "3.0\t2.0"),
        Example(s"SELECT dwave_count(dwave_agg(ts, 10, 0.1, value => w, max_arrivals => 100)) FROM VALUES (1, 4), (2, 6) AS t(ts, w);", "10.0"))),
    FunctionSpec("dwave_merge",
      Seq(req("sketch")),
      "_FUNC_(sketch) - Order-preserving merge of deterministic waves; NULLs are ignored.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT dwave_count(dwave_merge(s)) FROM (SELECT dwave_agg(ts, 100) AS s FROM VALUES (1, 0), (2, 1), (3, 1) AS t(ts, site) GROUP BY site);", "3.0"))),
    FunctionSpec("dwave_count",
      Seq(req("sketch"), opt("range", "the window"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch [, range [, now]]) - Estimated count (or sum, for a sum wave) of a deterministic wave over the range.",
      "misc_funcs",
      "DOUBLE",
      Seq(Example(s"SELECT dwave_count(s), dwave_count(s, 2) FROM (SELECT dwave_agg(ts, 10) AS s FROM $Ticks);", "3.0\t2.0"))))
}
