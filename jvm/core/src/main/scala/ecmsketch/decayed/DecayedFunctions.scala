package ecmsketch.decayed

import ecmsketch.core.FunctionSpec
import ecmsketch.core.FunctionSpec.{Example, req}

/** The SQL functions of the decayed sketch (sketch kind `decayed`), which its descriptor lists. */
object DecayedFunctions {
  // the texts of this family's own parameters
  private val texts = new FunctionSpec.WithDocs(Map(
    "decay" -> "The decay: 'window', 'exp' or 'poly'.",
    "decay_param" -> ("The decay's parameter: the window W ('window'), the half-life ('exp') or alpha " +
      "('poly'), in ts units (seconds for TIMESTAMP).")))
  import texts.opt

  val all: Seq[FunctionSpec] = Seq(
    FunctionSpec("decayed_agg",
      Seq(req("weight", "The element's weight: an integer in [0, max_weight] (1 for counts); NULL rows are skipped."), req("ts"), opt("epsilon", "0.1"), opt("delta", "0.05"), opt("value", "the weight", "What quantiles, frequent values and selectivity rank; NULL rows are skipped."), opt("id", "none: the element is (weight, value, ts)"), opt("seed", "the default seed"), opt("decay", "none: chosen at query time", "The decay the sketch is built for: 'window', 'exp' or 'poly'."),
        opt("decay_param", "none"), opt("constant", "4", "C of the sample size tau = C / epsilon^2."), opt("max_weight", "1024", "The largest weight."), opt("resolution", "1", "The ts resolution the sketch keeps (ts units).")),
      "_FUNC_(weight, ts [, epsilon [, delta]] [, value => v] [, id => x] [, seed => s] [, decay => 'window'|'exp'|'poly', " +
        "decay_param => p] [, constant => C] [, max_weight => m] [, resolution => r]) - Duplicate-insensitive, mergeable " +
        "time-decayed sketch (BINARY; Cormode-Tirthapura-Xu). Each distinct id (default: the triple weight, value, ts) counts " +
        "once, at one site or many, in any order. weight is an integer in [0, max_weight] (1 for counts); value (default: the " +
        "weight) is what quantiles, frequent items and selectivity rank. Without decay the decay is chosen at query time; " +
        "with one, the sketch is built for it. Defaults: epsilon 0.1, delta 0.05, constant 4 (tau = C / epsilon^2), " +
        "max_weight 1024. NULL weight, ts, value or id rows are skipped.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT decayed_sum(decayed_agg(1, ts, id => id), 'window', 2) FROM VALUES (1, 1), (2, 2), (2, 2), (3, 3) AS t(id, ts);", "2.0"),
        Example(s"SELECT decayed_sum(decayed_agg(w, ts, decay => 'exp', decay_param => 1)) FROM VALUES (4, 1), (4, 2) AS t(w, ts);", "6.0"))),
    FunctionSpec("decayed_merge",
      Seq(req("sketch")),
      "_FUNC_(sketch) - Lossless merge of decayed sketches (same parameters and seed); an id seen by several sketches counts once. NULLs are ignored.",
      "agg_funcs",
      "BINARY",
      Seq(Example(s"SELECT decayed_sum(decayed_merge(s), 'window', 10) FROM (SELECT decayed_agg(1, ts, id => id) AS s FROM VALUES (1, 1, 0), (1, 1, 1), (2, 2, 1) AS t(id, ts, site) GROUP BY site);", "2.0"))),
    FunctionSpec("decayed_sum",
      Seq(req("sketch"), opt("decay", "the sketch's decay"), opt("decay_param", "the sketch's"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch [, decay, decay_param [, now]]) - Estimated decayed sum over the distinct elements with ts <= now: decay " +
        "'window' (decay_param W: ages < W count fully), 'exp' (decay_param = half-life: w * 2^(-age/decay_param)) or 'poly' " +
        "(decay_param = alpha: " +
        "w * (age+1)^(-alpha)); ages in ts units (seconds for TIMESTAMP). A sketch built with a decay takes that decay or none. " +
        "now defaults to the sketch's last timestamp.",
      "misc_funcs",
      "DOUBLE",
      Seq(Example(s"SELECT decayed_sum(s, 'window', 2), decayed_sum(s, 'exp', 1), round(decayed_sum(s, 'poly', 1.0), 4) FROM (SELECT decayed_agg(1, ts, id => id) AS s FROM VALUES (1, 1), (2, 2), (2, 2), (3, 3) AS t(id, ts));", "2.0\t1.75\t1.8333"))),
    FunctionSpec("decayed_quantile",
      Seq(req("sketch"), req("q", "The quantile in [0, 1]."), opt("decay", "the sketch's decay"), opt("decay_param", "the sketch's"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch, q [, decay, decay_param [, now]]) - Decayed q-quantile (DOUBLE) of the values; NULL when nothing has weight.",
      "misc_funcs",
      "DOUBLE",
      Seq(Example(s"SELECT decayed_quantile(decayed_agg(1, ts, value => v), 0.5, 'window', 10) FROM VALUES (10, 1), (20, 2), (20, 3) AS t(v, ts);", "20.0"))),
    FunctionSpec("decayed_frequent",
      Seq(req("sketch"), req("phi", "The share of the decayed weight, in (0, 1)."), opt("decay", "the sketch's decay"), opt("decay_param", "the sketch's"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch, phi [, decay, decay_param [, now]]) - Values whose estimated decayed share of the weight exceeds phi - " +
        "epsilon/2: ARRAY<STRUCT<value, share>>, largest share first.",
      "misc_funcs",
      "ARRAY<STRUCT<value: DOUBLE, share: DOUBLE>>",
      Seq(Example(s"SELECT transform(decayed_frequent(decayed_agg(1, ts, value => v), 0.5, 'window', 10), f -> f.value) FROM VALUES (10, 1), (20, 2), (20, 3) AS t(v, ts);", "[20.0]"))),
    FunctionSpec("decayed_selectivity",
      Seq(req("sketch"), req("lo", "The lowest value counted."), req("hi", "The highest value counted."), opt("decay", "the sketch's decay"), opt("decay_param", "the sketch's"), opt("now", "the sketch's last timestamp")),
      "_FUNC_(sketch, lo, hi [, decay, decay_param [, now]]) - Estimated decayed fraction of the weight whose value lies in [lo, hi].",
      "misc_funcs",
      "DOUBLE",
      Seq(Example(s"SELECT round(decayed_selectivity(decayed_agg(1, ts, value => v), 15, 25, 'window', 10), 4) FROM VALUES (10, 1), (20, 2), (20, 3) AS t(v, ts);", "0.6667"))))
}
