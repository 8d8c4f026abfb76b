package ecmsketch.asynchronous

import ecmsketch.core.FunctionSpec
import ecmsketch.core.FunctionSpec.{Example, opt, req}

/** The SQL functions of the async sketch (sketch kind `async`), which its descriptor lists. */
object AsyncFunctions {
  val all: Seq[FunctionSpec] = Seq(
    FunctionSpec("async_sum_agg",
      Seq(req("value", "The element's weight: a positive integer; NULL rows are skipped."), req("ts"), opt("window", "unbounded"), opt("epsilon", "0.1"), opt("delta", "0.05"), opt("id", "none: the element is (value, ts)"), opt("seed", "the default seed"), opt("window_type", "'time'"),
        opt("tradeoff", "chosen by the sketch", "The space-time trade-off level L of the sketch.")),
      "_FUNC_(value, ts [, window [, epsilon [, delta]]] [, id => col] [, seed => s] [, window_type => 'time'] [, tradeoff => L]) - " +
        "Async sum sketch (BINARY; Xu-Tirthapura-Busch) of positive integer weights over a timestamp window, rows in any " +
        "timestamp order: every range sum within epsilon relative error with probability >= 1 - delta. Elements are " +
        "identified by (value, ts), or (id, value, ts) with id: equal identities count once, at one site or several. " +
        "Defaults: unbounded window, epsilon 0.1, delta 0.05. NULL value, ts or id rows are skipped.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT async_sum(async_sum_agg(v, ts)) FROM VALUES (5, 3), (3, 1), (5, 3), (2, 2) AS t(v, ts);", "10.0"),
        Example(s"SELECT async_sum(async_sum_agg(v, ts, 10), 2) FROM VALUES (5, 3), (3, 1), (5, 3), (2, 2) AS t(v, ts);", "7.0"))),
    FunctionSpec("async_count_agg",
      Seq(req("ts"), opt("window", "unbounded"), opt("epsilon", "0.1"), opt("delta", "0.05"), opt("id", "none: the element is ts"), opt("seed", "the default seed"), opt("window_type", "'time'"), opt("tradeoff", "chosen by the sketch", "The space-time trade-off level L of the sketch.")),
      "_FUNC_(ts [, window [, epsilon [, delta]]] [, id => col] [, seed => s] [, window_type => 'time'] [, tradeoff => L]) - " +
        "Async count sketch (BINARY): the async sum sketch with weight 1. Without id, rows with equal ts are one element; " +
        "give id => a unique row id to count every row.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT async_sum(async_count_agg(ts)), async_sum(async_count_agg(ts, id => id)) FROM VALUES (1, 3), (2, 1), (3, 3) AS t(id, ts);", "2.0\t3.0"))),
    FunctionSpec("async_quantile_agg",
      Seq(req("value", "The numeric value whose quantiles the sketch answers; NULL rows are skipped."), req("ts"), opt("window", "unbounded"), opt("epsilon", "0.1", "The rank error the sketch plans for, in (0, 0.5). A constant."), opt("delta", "0.05"), opt("id", "none: the element is (value, ts)"), opt("seed", "the default seed"), opt("window_type", "'time'")),
      "_FUNC_(value, ts [, window [, epsilon [, delta]]] [, id => col] [, seed => s] [, window_type => 'time']) - Async " +
        "quantile sketch (BINARY; XTB median sketch) of numeric values over a timestamp window, rows in any timestamp order: " +
        "every quantile's rank within epsilon times the range's count with probability >= 1 - delta. Defaults: unbounded " +
        "window, epsilon 0.1 (< 0.5), delta 0.05.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT async_quantile(async_quantile_agg(v, ts), 0.5) FROM VALUES (10.0, 3), (20.0, 1), (30.0, 2) AS t(v, ts);", "20.0"))),
    FunctionSpec("async_merge",
      Seq(req("sketch")),
      "_FUNC_(sketch) - Lossless union of async sketches (same measure, parameters and seed): the bytes of one sketch " +
        "over the union of the elements. NULLs are ignored.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT async_sum(async_merge(s)) FROM (SELECT async_sum_agg(v, ts, id => id) AS s FROM VALUES (1, 5, 1, 0), (1, 5, 1, 1), (2, 3, 2, 1) AS t(id, v, ts, site) GROUP BY site);", "8.0"))),
    FunctionSpec("async_sum",
      Seq(req("sketch"), opt("range", "the window"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch [, range [, now]]) - Estimated sum (or count) of an async sum (count) sketch over (now - range, now].",
      "misc_funcs",
      "DOUBLE",
      Seq(Example(s"SELECT async_sum(s), async_sum(s, 2) FROM (SELECT async_sum_agg(v, ts, 10) AS s FROM VALUES (5, 3), (3, 1), (2, 2) AS t(v, ts));", "10.0\t7.0"))),
    FunctionSpec("async_quantile",
      Seq(req("sketch"), req("q", "The quantile in [0, 1], or an ARRAY of them."), opt("range", "the window"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch, q [, range [, now]]) - The q-quantile (DOUBLE) of an async quantile sketch over the range; with an " +
        "ARRAY of q, an ARRAY<DOUBLE>. NULL for an empty range.",
      "misc_funcs",
      "DOUBLE (ARRAY<DOUBLE> for an ARRAY of q)",
      Seq(Example(s"SELECT async_quantile(s, 0.5), async_quantile(s, array(0.0, 1.0)) FROM (SELECT async_quantile_agg(v, ts) AS s FROM VALUES (10.0, 3), (20.0, 1), (30.0, 2) AS t(v, ts));", "20.0\t[10.0,30.0]"))))
}
