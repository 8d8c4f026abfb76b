package ecmsketch.quantile

import ecmsketch.core.FunctionSpec
import ecmsketch.core.FunctionSpec.{Example, opt, req}

/** The SQL functions of the windowed quantile sketch (sketch kind `quantile`), which its descriptor
  * lists. Its queries are `ecm_quantile`, `ecm_rank`, `ecm_range_count` and `ecm_total`, which the
  * dyadic ECM-sketch shares.
  */
object QuantileFunctions {
  private val Values = "VALUES (10.0, 1), (20.0, 2), (30.0, 3), (40.0, 4) AS t(v, ts)"

  val all: Seq[FunctionSpec] = Seq(
    FunctionSpec("quantile_agg",
      Seq(req("value", "The number whose quantiles the sketch answers (any numeric type, read as DOUBLE); NULL rows are skipped, NaN fails."),
        req("ts"), opt("window", "unbounded"),
        opt("epsilon", "0.01", "The rank error the sketch certifies, as a share of the range's weight, in [0.001, 1). A constant."),
        opt("delta", "0.01", "The probability that a range's rank error exceeds epsilon, in (0, 0.5]. A constant."),
        opt("weight", "1 (each row counts once)", "The row's weight: a non-negative integer column; NULL rows are skipped."),
        opt("window_type", "'time'"), opt("seed", "the default seed"),
        opt("merge_levels", "0", "The levels of quantile_merge that fold the merged sites' sketches into one (up to 3 count); a merge beyond them keeps the sketches side by side. The bound is epsilon either way; sketches merge only with sketches of the same merge_levels.")),
      "_FUNC_(value, ts [, window [, epsilon]] [, delta => d] [, weight => w] [, window_type => 'time'|'count'] " +
        "[, seed => s] [, merge_levels => h]) - Windowed quantile sketch (BINARY) of numeric values: every quantile and " +
        "rank of any range (now - r, now] with r up to the window is within epsilon times the range's weight, with " +
        "probability >= 1 - delta, at any merge depth. Query it with ecm_quantile, ecm_rank, ecm_range_count and " +
        "ecm_total. Defaults: unbounded window, epsilon 0.01, delta 0.01. Rows may come in any order. NULL value, ts " +
        "or weight rows are skipped; a NaN value fails.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT ecm_quantile(quantile_agg(v, ts), 0.5) FROM $Values;", "20.0"),
        Example(s"SELECT ecm_quantile(s, 0.5, 2), ecm_rank(s, 25.0), ecm_total(s, 2) FROM (SELECT quantile_agg(v, ts, 10) AS s FROM $Values);",
          "30.0\t2.0\t2.0")), since = "0.3.0"),
    FunctionSpec("quantile_merge",
      Seq(req("sketch", "A windowed quantile sketch (BINARY) from quantile_agg or quantile_merge; NULLs are ignored.")),
      "_FUNC_(sketch) - Order-preserving merge of windowed quantile sketches (same epsilon, delta, seed, window and " +
        "merge_levels): the merged sketch certifies the same epsilon. Sketches that overlap in time are folded into " +
        "one while merge_levels allow, else kept side by side. NULLs are ignored.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT ecm_quantile(quantile_merge(s), 1.0) FROM (SELECT quantile_agg(v, ts, 100) AS s FROM VALUES (1.0, 1, 0), (2.0, 2, 1), (3.0, 3, 1), (4.0, 4, 0) AS t(v, ts, site) GROUP BY site);",
        "4.0")), since = "0.3.0"))
}
