package ecmsketch.eh

import ecmsketch.core.{CounterMerges, CounterSketch, WindowCounter, WindowSpec, Windows}

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

object EhSketch extends CounterMerges[EhSketch, ExpHistogram] {
  /** A new histogram sketch with the bound `epsilon` after `levels` merge levels. */
  def create(spec: WindowSpec, epsilon: Double, levels: Int): EhSketch = {
    val cellEps = CounterSketch.cellEpsilonFor(epsilon, levels)
    new EhSketch(spec, epsilon, levels, cellEps, new ExpHistogram(EhConfig(cellEps, spec.window)))
  }

  private[ecmsketch] def restore(spec: WindowSpec, epsilon: Double, levels: Int, cellEps: Double, h: ExpHistogram): EhSketch =
    new EhSketch(spec, epsilon, levels, cellEps, h)

  // side runs, mixed, cross-site and partial merges: CounterMerges; the histogram-specific parts follow
  protected def plural: String = EhKind.plural
  protected def mergeName: String = "eh merge"
  protected def cellOf(s: EhSketch): ExpHistogram = s.hist
  protected def diffsOf(a: EhSketch, b: EhSketch): Seq[String] = a.diffs(b)
  protected def copyOf(s: EhSketch): EhSketch = s.copy()
  protected def make(like: EhSketch, levels: Int, cellEpsilon: Double, h: ExpHistogram): EhSketch =
    new EhSketch(like.spec, like.epsilon, levels, cellEpsilon, h)
  protected def emptyCell(like: EhSketch, cellEpsilon: Double): ExpHistogram = new ExpHistogram(EhConfig(cellEpsilon, like.spec.window))
  protected def mixedCell(target: EhSketch, sketches: Seq[EhSketch], contributing: Seq[EhSketch]): ExpHistogram =
    ExpHistogram.merge(sketches.map(_.hist), target.hist.config)

  /** Cross-site merges (docs/design/merging.md "Time-disjoint merges") merge the contributing
    * inputs in time-disjoint clusters laid side by side ([[ExpHistogram.concat]]), so the depth is
    * the deepest cluster's; otherwise (and for partial merges) one order-preserving merge (ECM §5.1).
    */
  protected def mergedCell(sketches: Seq[EhSketch], contributing: Seq[EhSketch], crossSite: Boolean): (ExpHistogram, Seq[Seq[EhSketch]]) = {
    val config = sketches.head.hist.config
    val clusters =
      if (crossSite && contributing.size > 1) Windows.timeClusters(contributing)(_.hist.lowerTs, _.hist.newestEnd)
      else Seq(contributing)
    val h =
      if (clusters.size > 1) {
        val clock = sketches.iterator.map(_.hist.lastTs).max
        val c = ExpHistogram.concat(clusters.map(cl => ExpHistogram.merge(cl.map(_.hist), config)), config)
        if (clock > c.lastTs) c.advanceTo(clock)
        c
      } else ExpHistogram.merge(sketches.map(_.hist), config)
    (h, clusters)
  }
}
