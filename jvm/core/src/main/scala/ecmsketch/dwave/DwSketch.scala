package ecmsketch.dwave

import ecmsketch.core.{CounterMerges, CounterSketch, WindowCounter, WindowSpec}

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

object DwSketch extends CounterMerges[DwSketch, DetWave] {
  /** A new wave whose bound is `epsilon` after `levels` merge levels, with max_arrivals `maxArrivals`. */
  def create(spec: WindowSpec, epsilon: Double, levels: Int, maxArrivals: Long): DwSketch = {
    val cellEps = CounterSketch.cellEpsilonFor(epsilon, levels)
    new DwSketch(spec, epsilon, levels, cellEps, new DetWave(DwConfig(cellEps, spec.window, maxArrivals)))
  }

  private[ecmsketch] def restore(spec: WindowSpec, epsilon: Double, levels: Int, cellEps: Double, w: DetWave): DwSketch =
    new DwSketch(spec, epsilon, levels, cellEps, w)

  // side runs, mixed, cross-site and partial merges: CounterMerges; the wave-specific parts follow
  protected def plural: String = DwKind.plural
  protected def mergeName: String = "dwave merge"
  protected def cellOf(s: DwSketch): DetWave = s.wave
  protected def diffsOf(a: DwSketch, b: DwSketch): Seq[String] = a.diffs(b)
  protected def copyOf(s: DwSketch): DwSketch = s.copy()
  protected def make(like: DwSketch, levels: Int, cellEpsilon: Double, w: DetWave): DwSketch =
    new DwSketch(like.spec, like.epsilon, levels, cellEpsilon, w)
  /** A side run keeps `like`'s U. */
  protected def emptyCell(like: DwSketch, cellEpsilon: Double): DetWave = new DetWave(DwConfig(cellEpsilon, like.spec.window, like.maxArrivals))

  /** U of a mixed merge: mergedArrivals(sameStream) of the contributing inputs (checked against an
    * oracle in IngestSuite).
    */
  protected def mixedCell(target: DwSketch, sketches: Seq[DwSketch], contributing: Seq[DwSketch]): DetWave = {
    val u =
      if (contributing.isEmpty) keeperOfU(sketches).maxArrivals
      else if (contributing.size == 1) contributing.head.maxArrivals
      else DwConfig.mergedArrivals(contributing.map(_.maxArrivals), sameStream = true)
    DetWave.merge(sketches.map(_.wave), DwConfig(target.cellEpsilon, target.spec.window, u))
  }

  /** The input whose U a merge keeps when no input holds items: the largest U among the inputs
    * with rows (among all inputs if none has rows), so that the result depends neither on the input
    * order nor on empty sketches.
    */
  private def keeperOfU(sketches: Seq[DwSketch]): DwSketch = {
    val withRows = sketches.filter(!_.isEmpty)
    (if (withRows.nonEmpty) withRows else sketches).maxBy(_.maxArrivals)
  }

  /** U = DwConfig.mergedArrivals (cross-site, or of one stream for partial merges); when at most
    * one input holds items, its wave is merged with its own U, so that no error is added where the
    * merge depth does not grow. One order-preserving merge: no time-disjoint clusters.
    */
  protected def mergedCell(sketches: Seq[DwSketch], contributing: Seq[DwSketch], crossSite: Boolean): (DetWave, Seq[Seq[DwSketch]]) = {
    val w =
      if (contributing.size <= 1) {
        val src = contributing.headOption.getOrElse(keeperOfU(sketches))
        DetWave.merge(sketches.map(_.wave), src.wave.config)
      } else {
        val first = sketches.head
        val u = DwConfig.mergedArrivals(contributing.map(_.maxArrivals), sameStream = !crossSite)
        DetWave.merge(sketches.map(_.wave), DwConfig(first.cellEpsilon, first.spec.window, u))
      }
    (w, Seq(contributing))
  }
}
