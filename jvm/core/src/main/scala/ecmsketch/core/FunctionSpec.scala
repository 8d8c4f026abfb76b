package ecmsketch.core

/** A SQL function as a sketch kind's descriptor declares it ([[SketchKind.functions]]): its name, its
  * parameters (positional order, defaults, meaning), usage, result type, examples, release and Spark
  * group. The Spark layer binds each name to the Catalyst expression that computes it and builds
  * `DESCRIBE FUNCTION EXTENDED`, the DataFrame API and the SQL reference from these rows.
  */
final case class FunctionSpec(name: String, params: Seq[FunctionSpec.Param], usage: String, group: String,
                              returns: String, examples: Seq[FunctionSpec.Example], since: String = "0.1.0") {
  /** Parameters written `name => value` in the usage (they follow optional positional ones). */
  def named(p: FunctionSpec.Param): Boolean = usage.contains(s"${p.name} =>")
}

object FunctionSpec {
  /** One parameter: its name, its default as users read it (None: required) and what it is. */
  final case class Param(name: String, default: Option[String], doc: String)
  /** One example: a query that needs no table and its result lines, as Spark's examples show them
    * (columns separated by a tab, arrays as [a,b], structs as {"f":v}).
    */
  final case class Example(sql: String, result: String*)

  /** A required parameter; its text comes from [[ParamDocs]] unless given. */
  def req(name: String, doc: String = null): Param = Param(name, None, Option(doc).getOrElse(ParamDocs(name)))
  /** An optional parameter with its default as users read it. */
  def opt(name: String, default: String, doc: String = null): Param =
    Param(name, Some(default), Option(doc).getOrElse(ParamDocs(name)))

  /** `req` and `opt` for a family whose own parameters' texts are `docs`: a text given in the row wins,
    * then `docs`, then the shared [[ParamDocs]].
    */
  final class WithDocs(docs: Map[String, String]) {
    def req(name: String, doc: String = null): Param = FunctionSpec.req(name, Option(doc).orElse(docs.get(name)).orNull)
    def opt(name: String, default: String, doc: String = null): Param =
      FunctionSpec.opt(name, default, Option(doc).orElse(docs.get(name)).orNull)
  }

  /** Small inputs the examples share. */
  final val Keys = "VALUES ('a', 1), ('b', 2), ('a', 3) AS t(k, ts)"
  final val Ticks = "VALUES (1), (2), (3) AS t(ts)"

  /** What the parameters that several families' functions share mean, by name. A function whose
    * parameter means something else, or a parameter of one family, gives its own text.
    */
  object ParamDocs {
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
      "sketch" -> "A sketch (BINARY) made by the matching aggregate or merge; NULL gives NULL.",
      "range" -> ("The query range: counts (now - range, now], an INTERVAL or a number of ticks, no longer than " +
        "the window."),
      "now" -> "The end of the query range: a timestamp or tick no earlier than the sketch's last one.",
      "key_type" -> ("The type of the keys a BINARY sketch was built from: 'bigint', 'int', 'double', 'string' or 'binary' (a " +
        "top_k_agg STRUCT carries its key type: leave it out)."),
      "id" -> ("The element's identity: rows with equal identities count once, at one site or several; NULL " +
        "rows are skipped.")
    )

    def apply(name: String): String =
      docs.getOrElse(name, throw new IllegalArgumentException(s"no text for parameter '$name': give it in the function's spec"))
  }
}
