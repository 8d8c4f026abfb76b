package ecmsketch.core

/** The side runs and merges of a one-cell sketch kind ([[CounterSketch]] over cells of type `C`),
  * written once: the companion of each such sketch implements the few members that build its
  * sketches and merge its cells.
  *
  *  - [[sideOf]]: a fresh fine side run (cells of Bounds.sideCellEpsilon), for rows that arrive out
  *    of order (docs/design/rows-in-any-order.md, "Rows in any order");
  *  - [[mergeMixed]]: partial sketches of one stream that differ at most in cell epsilon (and
  *    planned levels), merged into a target's cell epsilon, depth Bounds.mixedMergeDepth;
  *  - [[merge]] (cross-site: count windows refused; inputs a whole window behind the merged clock
  *    do not count, docs/design/merging.md) and [[mergeUnchecked]] (partial aggregates of one
  *    stream, count windows allowed, every non-empty input counts).
  */
trait CounterMerges[S <: CounterSketch, C <: WindowCounter] {
  /** The kind in plural, for messages. */
  protected def plural: String
  /** The name of [[merge]] in messages ("xx merge"). */
  protected def mergeName: String
  protected def cellOf(s: S): C
  protected def diffsOf(a: S, b: S): Seq[String]
  protected def copyOf(s: S): S
  /** A sketch of `like`'s window and epsilon with the given plan, holding `cell`. */
  protected def make(like: S, levels: Int, cellEpsilon: Double, cell: C): S
  /** An empty cell of `like`'s kind at `cellEpsilon` (a side run's). */
  protected def emptyCell(like: S, cellEpsilon: Double): C
  /** The cell of a mixed merge into `target`'s cell epsilon: every input's cell merged
    * order-preservingly (`contributing`: the inputs whose cell holds anything).
    */
  protected def mixedCell(target: S, sketches: Seq[S], contributing: Seq[S]): C
  /** The cell of a merge of two or more inputs of equal parameters, and the time-disjoint clusters
    * of the contributing inputs it laid side by side (Seq(contributing) when it did not).
    * `crossSite`: a [[merge]] (else [[mergeUnchecked]]).
    */
  protected def mergedCell(sketches: Seq[S], contributing: Seq[S], crossSite: Boolean): (C, Seq[Seq[S]])

  private[ecmsketch] def sideOf(main: S): Option[S] =
    Bounds.sideCellEpsilon(main.cellEpsilon).map(cf => make(main, Bounds.sideLevels(main.plannedLevels), cf, emptyCell(main, cf)))

  private[ecmsketch] def mergeMixed(target: S, sketches: Seq[S]): S = {
    SketchException.require(sketches.nonEmpty, "merge needs at least one sketch")
    if (sketches.forall(s => s.cellEpsilon == target.cellEpsilon && s.plannedLevels == target.plannedLevels)) return mergeUnchecked(sketches)
    sketches.foreach(s => Params.requireSame(plural, WindowSketch.mixedDiffs(diffsOf(target, s))))
    val contributing = sketches.filter(!cellOf(_).isEmpty)
    val out = make(target, target.plannedLevels, target.cellEpsilon, mixedCell(target, sketches, contributing))
    out.mergeStateFrom(sketches, contributing)
    out
  }

  /** Cross-site merge; count-based sketches are refused. */
  def merge(sketches: Seq[S]): S = {
    WindowSketch.checkMergeable(sketches, mergeName)
    mergeImpl(sketches, crossSite = true)
  }

  /** Merge without the count-window check: for partial aggregates of one stream, whose sequence
    * numbers (or timestamps) are global, so order-preserving aggregation is valid.
    */
  private[ecmsketch] def mergeUnchecked(sketches: Seq[S]): S = mergeImpl(sketches, crossSite = false)

  /** One input is copied; otherwise the contributing inputs are, for a cross-site merge, those that
    * still hold weight at the merged clock (WindowSketch.retaining), else every non-empty one.
    */
  private def mergeImpl(sketches: Seq[S], crossSite: Boolean): S = {
    SketchException.require(sketches.nonEmpty, s"$mergeName needs at least one sketch")
    Params.requireAllSame(plural, sketches)(diffsOf)
    val first = sketches.head
    if (sketches.size == 1) return copyOf(first)
    val contributing = if (crossSite) WindowSketch.retaining(sketches)(cellOf) else sketches.filter(!cellOf(_).isEmpty)
    val (cell, clusters) = mergedCell(sketches, contributing, crossSite)
    val out = make(first, first.plannedLevels, first.cellEpsilon, cell)
    out.mergeStateFrom(sketches, contributing, clusters)
    out
  }
}
