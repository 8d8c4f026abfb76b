package ecmsketch.dwave

import ecmsketch.{SketchException, WindowSketch, WindowSpec}
import ecmsketch.ecm.Planner

/** A stand-alone deterministic wave with a plan and a certified bound (mirrors EhSketch): counts
  * arrivals (or sums weights) over the sliding window with relative error <= [[errorBound]].
  *
  * The cell epsilon is chosen so that the bound equals `epsilon` after `plannedLevels` levels of
  * order-preserving merge: cellEpsilon = (1 + epsilon)^(1/(levels+1)) - 1.
  */
final class DwSketch private (val spec: WindowSpec, val epsilon: Double, val plannedLevels: Int,
                              val cellEpsilon: Double, private[ecmsketch] var wave: DetWave) extends WindowSketch {
  def maxArrivals: Long = wave.config.maxArrivals

  /** Adds weight `v` (default 1) at `ts`; timestamps must be non-decreasing. */
  def add(ts: Long, v: Long = 1L): Unit = {
    checkAdd(ts, v)
    wave.add(ts, v)
    noteAdd(ts, v)
  }

  /** Estimated weight in (now - range, now]; null range = the window, null now = last timestamp.
    * Throws SketchException naming max_arrivals when the range reaches an overflowed region.
    */
  def count(range: java.lang.Long, now: java.lang.Long): Double = {
    val lo = lowerBound(range, now)
    if (lo == null) 0.0 else wave.estimateFrom(lo)
  }

  def errorBound: Double = cellBound

  def copy(): DwSketch = {
    val s = new DwSketch(spec, epsilon, plannedLevels, cellEpsilon, wave.copy())
    s.copyStateFrom(this)
    s
  }

  /** Parameters that must agree for a merge (max_arrivals may differ). */
  def diffs(o: DwSketch): Seq[String] = commonDiffs(o)
}

object DwSketch {
  def create(spec: WindowSpec, epsilon: Double, levels: Int, maxArrivals: Long): DwSketch = {
    Planner.checkEpsilon(epsilon)
    var cellEps = Planner.cellEpsilonFor(epsilon, levels)
    while (StrictMath.pow(1.0 + cellEps, levels + 1.0) - 1.0 > epsilon) cellEps = Math.nextDown(cellEps)
    new DwSketch(spec, epsilon, levels, cellEps, new DetWave(DwConfig(cellEps, spec.window, maxArrivals)))
  }

  private[ecmsketch] def restore(spec: WindowSpec, epsilon: Double, levels: Int, cellEps: Double, w: DetWave): DwSketch =
    new DwSketch(spec, epsilon, levels, cellEps, w)

  /** Cross-site merge: count-based sketches refused; U = DwConfig.mergedArrivals. */
  def merge(sketches: Seq[DwSketch]): DwSketch = {
    WindowSketch.checkMergeable(sketches, "dwave merge")
    mergeImpl(sketches, sameStream = false)
  }

  /** Merge of partial sketches of one stream (count windows allowed): U = mergedArrivals(sameStream). */
  private[ecmsketch] def mergeUnchecked(sketches: Seq[DwSketch]): DwSketch = mergeImpl(sketches, sameStream = true)

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
    val contributing = sketches.filter(!_.wave.isEmpty)
    val w =
      if (contributing.size <= 1) {
        val src = contributing.headOption.getOrElse(first)
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
