package ecmsketch.dwave

import ecmsketch.core.{Bounds, CounterSketch, SketchException, WindowCounter, WindowSketch, WindowSpec}

/** A stand-alone deterministic wave with a plan and a certified bound ([[CounterSketch]]). Its
  * `count` throws a SketchException naming max_arrivals when the range reaches a stretch where more
  * than max_arrivals arrived within one window.
  */
final class DwSketch private (val spec: WindowSpec, val epsilon: Double, val plannedLevels: Int,
                              val cellEpsilon: Double, private[ecmsketch] var wave: DetWave) extends CounterSketch {
  def kind: DwKind.type = DwKind
  /** U: the bound on the weight in any window (DwConfig.Unbounded when not given). */
  def maxArrivals: Long = wave.config.maxArrivals
  protected def counter: WindowCounter = wave

  /** An independent copy. */
  def copy(): DwSketch = {
    val s = new DwSketch(spec, epsilon, plannedLevels, cellEpsilon, wave.copy())
    s.copyStateFrom(this)
    s
  }

  /** Parameters that must agree for a merge (max_arrivals may differ). */
  def diffs(o: DwSketch): Seq[String] = commonDiffs(o)
}

object DwSketch {
  /** A new wave whose bound is `epsilon` after `levels` merge levels, with max_arrivals `maxArrivals`. */
  def create(spec: WindowSpec, epsilon: Double, levels: Int, maxArrivals: Long): DwSketch = {
    val cellEps = CounterSketch.cellEpsilonFor(epsilon, levels)
    new DwSketch(spec, epsilon, levels, cellEps, new DetWave(DwConfig(cellEps, spec.window, maxArrivals)))
  }

  private[ecmsketch] def restore(spec: WindowSpec, epsilon: Double, levels: Int, cellEps: Double, w: DetWave): DwSketch =
    new DwSketch(spec, epsilon, levels, cellEps, w)

  /** A fresh fine side run of `main` (cells of Bounds.sideCellEpsilon, the same U), or None (docs/design/rows-in-any-order.md, "Rows in any order"). */
  private[ecmsketch] def sideOf(main: DwSketch): Option[DwSketch] =
    Bounds.sideCellEpsilon(main.cellEpsilon).map { cf =>
      new DwSketch(main.spec, main.epsilon, Bounds.sideLevels(main.plannedLevels), cf, new DetWave(DwConfig(cf, main.spec.window, main.maxArrivals)))
    }

  /** Merge of partial waves of one stream that differ at most in cell epsilon (and planned levels)
    * into `target`'s cell epsilon; depth Bounds.mixedMergeDepth (docs/design/rows-in-any-order.md; checked against an
    * oracle in IngestSuite).
    */
  private[ecmsketch] def mergeMixed(target: DwSketch, sketches: Seq[DwSketch]): DwSketch = {
    SketchException.require(sketches.nonEmpty, "merge needs at least one sketch")
    if (sketches.forall(s => s.cellEpsilon == target.cellEpsilon && s.plannedLevels == target.plannedLevels)) return mergeUnchecked(sketches)
    sketches.foreach { s =>
      val d = WindowSketch.mixedDiffs(target.diffs(s))
      if (d.nonEmpty) throw new SketchException(s"cannot merge deterministic waves with different parameters: ${d.mkString(", ")}")
    }
    val contributing = sketches.filter(!_.wave.isEmpty)
    val u =
      if (contributing.isEmpty) keeperOfU(sketches).maxArrivals
      else if (contributing.size == 1) contributing.head.maxArrivals
      else DwConfig.mergedArrivals(contributing.map(_.maxArrivals), sameStream = true)
    val w = DetWave.merge(sketches.map(_.wave), DwConfig(target.cellEpsilon, target.spec.window, u))
    val out = new DwSketch(target.spec, target.epsilon, target.plannedLevels, target.cellEpsilon, w)
    out.mergeStateFrom(sketches, contributing)
    out
  }

  /** Cross-site merge: count-based sketches refused; U = DwConfig.mergedArrivals. */
  def merge(sketches: Seq[DwSketch]): DwSketch = {
    WindowSketch.checkMergeable(sketches, "dwave merge")
    mergeImpl(sketches, sameStream = false)
  }

  /** Merge of partial sketches of one stream (count windows allowed): U = mergedArrivals(sameStream). */
  private[ecmsketch] def mergeUnchecked(sketches: Seq[DwSketch]): DwSketch = mergeImpl(sketches, sameStream = true)

  /** The input whose U a merge keeps when no input holds items: the largest U among the inputs
    * with rows (among all inputs if none has rows), so that the result depends neither on the input
    * order nor on empty sketches.
    */
  private def keeperOfU(sketches: Seq[DwSketch]): DwSketch = {
    val withRows = sketches.filter(!_.isEmpty)
    (if (withRows.nonEmpty) withRows else sketches).maxBy(_.maxArrivals)
  }

  /** When at most one input holds items, its wave is copied (with its own U), so that no error is
    * added where the merge depth does not grow.
    */
  private def mergeImpl(sketches: Seq[DwSketch], sameStream: Boolean): DwSketch = {
    SketchException.require(sketches.nonEmpty, "dwave merge needs at least one sketch")
    val first = sketches.head
    sketches.tail.foreach { s =>
      val d = first.diffs(s)
      if (d.nonEmpty) throw new SketchException(s"cannot merge deterministic waves with different parameters: ${d.mkString(", ")}")
    }
    if (sketches.size == 1) return first.copy()
    // cross-site merges: inputs a whole window behind the merged clock do not count (docs/design/merging.md)
    val contributing = if (sameStream) sketches.filter(!_.wave.isEmpty) else WindowSketch.retaining(sketches)(_.wave)
    val w =
      if (contributing.size <= 1) {
        val src = contributing.headOption.getOrElse(keeperOfU(sketches))
        DetWave.merge(sketches.map(_.wave), src.wave.config)
      } else {
        val u = DwConfig.mergedArrivals(contributing.map(_.maxArrivals), sameStream)
        DetWave.merge(sketches.map(_.wave), DwConfig(first.cellEpsilon, first.spec.window, u))
      }
    val out = new DwSketch(first.spec, first.epsilon, first.plannedLevels, first.cellEpsilon, w)
    out.mergeStateFrom(sketches, contributing)
    out
  }
}
