package ecmsketch.spark

/** What the parameters that several SQL functions share mean, by name: the text of their Arguments
  * section in `DESCRIBE FUNCTION EXTENDED` and in docs/reference/sql.md. A function whose parameter
  * means something else gives its own text in the signature table ([[SqlFunctions]]).
  */
private[spark] object ParamDocs {
  private val docs: Map[String, String] = Map(
    "key" -> "The key whose weight the sketch counts: STRING, BINARY, INT or BIGINT.",
    "ts" -> ("The row's timestamp: TIMESTAMP, or an INT or BIGINT tick (with window_type => 'count', the " +
      "row's arrival sequence number)."),
    "window" -> ("The sliding window: an INTERVAL for TIMESTAMP ts, else a number of ticks (of rows, with " +
      "window_type => 'count'). A constant."),
    "epsilon" -> "The relative error the sketch plans for, in (0, 1). A constant.",
    "delta" -> "The failure probability the sketch plans for, in (0, 1). A constant.",
    "value" -> "The row's weight: a non-negative integer column; NULL rows are skipped.",
    "window_type" -> "'time' (the window spans ts units) or 'count' (the window spans the last rows).",
    "seed" -> "The hash seed: sketches merge only with sketches of the same seed. A constant.",
    "merge_levels" -> ("How many levels of order-preserving merges (ecm_merge and the like) the error bound " +
      "plans for, in [0, 29]."),
    "max_arrivals" -> "An upper bound on the weight in any window; sizes the wave's counters.",
    "sketch" -> "A sketch (BINARY) made by the matching aggregate or merge; NULL gives NULL.",
    "range" -> ("The query range: counts (now - range, now], an INTERVAL or a number of ticks, no longer than " +
      "the window."),
    "now" -> "The end of the query range: a timestamp or tick no earlier than the sketch's last one.",
    "key_type" -> "The type of the keys the sketch was built from: 'bigint', 'double', 'string' or 'binary'.",
    "id" -> ("The element's identity: rows with equal identities count once, at one site or several; NULL " +
      "rows are skipped."),
    "decay" -> "The decay: 'window', 'exp' or 'poly'.",
    "decay_param" -> ("The decay's parameter: the window W ('window'), the half-life ('exp') or alpha " +
      "('poly'), in ts units (seconds for TIMESTAMP).")
  )

  def apply(name: String): String =
    docs.getOrElse(name, throw new IllegalArgumentException(s"no text for parameter '$name': give it in the signature table"))
}
