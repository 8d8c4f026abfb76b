package ecmsketch.eh

import ecmsketch.core.{Bounds, CounterSketch, SketchException, WindowCounter, WindowSketch, WindowSpec, Windows}

/** A stand-alone exponential histogram with a plan and a certified bound ([[CounterSketch]]). */
final class EhSketch private (val spec: WindowSpec, val epsilon: Double, val plannedLevels: Int,
                              val cellEpsilon: Double, private[ecmsketch] var hist: ExpHistogram)
    extends CounterSketch {
  def kind: EhKind.type = EhKind

  def histogram: ExpHistogram = hist
  protected def counter: WindowCounter = hist

  def copy(): EhSketch = {
    val s = new EhSketch(spec, epsilon, plannedLevels, cellEpsilon, hist.copy())
    s.copyStateFrom(this)
    s
  }

  def diffs(o: EhSketch): Seq[String] = commonDiffs(o)
}

object EhSketch {
  /** A new histogram sketch with the bound `epsilon` after `levels` merge levels. */
  def create(spec: WindowSpec, epsilon: Double, levels: Int): EhSketch = {
    val cellEps = CounterSketch.cellEpsilonFor(epsilon, levels)
    new EhSketch(spec, epsilon, levels, cellEps, new ExpHistogram(EhConfig(cellEps, spec.window)))
  }

  private[ecmsketch] def restore(spec: WindowSpec, epsilon: Double, levels: Int, cellEps: Double, h: ExpHistogram): EhSketch =
    new EhSketch(spec, epsilon, levels, cellEps, h)

  /** A fresh fine side run of `main` (cells of Bounds.sideCellEpsilon), or None (docs/design/rows-in-any-order.md, "Rows in any order"). */
  private[ecmsketch] def sideOf(main: EhSketch): Option[EhSketch] =
    Bounds.sideCellEpsilon(main.cellEpsilon).map { cf =>
      new EhSketch(main.spec, main.epsilon, Bounds.sideLevels(main.plannedLevels), cf, new ExpHistogram(EhConfig(cf, main.spec.window)))
    }

  /** Merge of partial histograms of one stream that differ at most in cell epsilon (and planned
    * levels) into `target`'s cell epsilon; depth Bounds.mixedMergeDepth (docs/design/rows-in-any-order.md).
    */
  private[ecmsketch] def mergeMixed(target: EhSketch, sketches: Seq[EhSketch]): EhSketch = {
    SketchException.require(sketches.nonEmpty, "merge needs at least one sketch")
    if (sketches.forall(s => s.cellEpsilon == target.cellEpsilon && s.plannedLevels == target.plannedLevels)) return mergeUnchecked(sketches)
    sketches.foreach { s =>
      val d = WindowSketch.mixedDiffs(target.diffs(s))
      if (d.nonEmpty) throw new SketchException(s"cannot merge exponential histograms with different parameters: ${d.mkString(", ")}")
    }
    val contributing = sketches.filter(!_.hist.isEmpty)
    val h = ExpHistogram.merge(sketches.map(_.hist), target.hist.config)
    val out = new EhSketch(target.spec, target.epsilon, target.plannedLevels, target.cellEpsilon, h)
    out.mergeStateFrom(sketches, contributing)
    out
  }

  /** Order-preserving n-way merge (ECM §5.1); count-based sketches are refused. */
  def merge(sketches: Seq[EhSketch]): EhSketch = {
    WindowSketch.checkMergeable(sketches, "eh merge")
    mergeImpl(sketches, dropBehind = true)
  }

  /** Merge without the count-window check: for partial aggregates of one stream, whose sequence
    * numbers (or timestamps) are global, so order-preserving aggregation is valid.
    */
  private[ecmsketch] def mergeUnchecked(sketches: Seq[EhSketch]): EhSketch = mergeImpl(sketches, dropBehind = false)

  /** `dropBehind` (cross-site merges, docs/design/merging.md "Time-disjoint merges"): inputs a whole window
    * behind the merged clock do not count in the depth, and the contributing inputs are merged in
    * time-disjoint clusters laid side by side ([[ExpHistogram.concat]]), so the depth is the deepest
    * cluster's. Else every non-empty input counts, in one order-preserving merge.
    */
  private def mergeImpl(sketches: Seq[EhSketch], dropBehind: Boolean): EhSketch = {
    val first = sketches.head
    sketches.tail.foreach { s =>
      val d = first.diffs(s)
      if (d.nonEmpty) throw new SketchException(s"cannot merge exponential histograms with different parameters: ${d.mkString(", ")}")
    }
    if (sketches.size == 1) return first.copy()
    val contributing = if (dropBehind) WindowSketch.retaining(sketches)(_.hist) else sketches.filter(!_.hist.isEmpty)
    val config = first.hist.config
    val clusters =
      if (dropBehind && contributing.size > 1) Windows.timeClusters(contributing)(_.hist.lowerTs, _.hist.newestEnd)
      else Seq(contributing)
    val h =
      if (clusters.size > 1) {
        val clock = sketches.iterator.map(_.hist.lastTs).max
        val c = ExpHistogram.concat(clusters.map(cl => ExpHistogram.merge(cl.map(_.hist), config)), config)
        if (clock > c.lastTs) c.advanceTo(clock)
        c
      } else ExpHistogram.merge(sketches.map(_.hist), config)
    val out = new EhSketch(first.spec, first.epsilon, first.plannedLevels, first.cellEpsilon, h)
    out.mergeStateFrom(sketches, contributing, clusters)
    out
  }
}
