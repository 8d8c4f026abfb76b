package ecmsketch.core

/** The refusal of a merge whose inputs differ in a parameter that must agree: one message for every
  * sketch kind, naming the kind and each difference ("cannot merge ECM-sketches with different
  * parameters: epsilon 0.1 vs 0.2, seed 1 vs 2").
  */
object Params {
  /** The message for `diffs` (the differing parameters, each as "name a vs b") of inputs of `what`
    * (the kind's plural), after `context` (such as the SQL function's name) when it is not empty.
    */
  def mismatch(what: String, diffs: Seq[String], context: String = ""): String =
    (if (context.isEmpty) "" else s"$context: ") + s"cannot merge $what with different parameters: ${diffs.mkString(", ")}"

  /** Throws the [[mismatch]] SketchException unless `diffs` is empty. */
  def requireSame(what: String, diffs: Seq[String], context: String = ""): Unit =
    if (diffs.nonEmpty) throw new SketchException(mismatch(what, diffs, context))

  /** [[requireSame]] of every input against the first (`diffs(first, x)`). */
  def requireAllSame[S](what: String, xs: Seq[S])(diffs: (S, S) => Seq[String]): Unit =
    if (xs.nonEmpty) { val first = xs.head; xs.foreach(x => requireSame(what, diffs(first, x))) }
}
