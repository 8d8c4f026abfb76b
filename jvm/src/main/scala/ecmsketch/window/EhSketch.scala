package ecmsketch.window

import ecmsketch.{SketchException, WindowSketch, WindowSpec}
import ecmsketch.ecm.Planner

/** A stand-alone exponential histogram with a plan and a certified bound: counts (or sums weights)
  * over the sliding window with relative error at most [[errorBound]] on every query.
  *
  * The cell epsilon is chosen so that the bound equals `epsilon` after `plannedLevels` levels of
  * order-preserving merge: cellEpsilon = (1 + epsilon)^(1/(levels+1)) - 1.
  */
final class EhSketch private (val spec: WindowSpec, val epsilon: Double, val plannedLevels: Int,
                              val cellEpsilon: Double, private[ecmsketch] var hist: ExpHistogram)
    extends WindowSketch {

  def histogram: ExpHistogram = hist

  /** Adds weight `v` (default 1) at `ts`; timestamps must be non-decreasing. */
  def add(ts: Long, v: Long = 1L): Unit = {
    checkAdd(ts, v)
    hist.add(ts, v)
    noteAdd(ts, v)
  }

  /** Estimated weight in (now - range, now]; null range = the window, null now = last timestamp. */
  def count(range: java.lang.Long, now: java.lang.Long): Double = {
    val lo = lowerBound(range, now)
    if (lo == null) 0.0 else hist.estimateFrom(lo)
  }

  /** Certified relative error of every [[count]] answer at the current merge depth. */
  def errorBound: Double = cellBound

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
    Planner.checkEpsilon(epsilon)
    var cellEps = Planner.cellEpsilonFor(epsilon, levels)
    while (StrictMath.pow(1.0 + cellEps, levels + 1.0) - 1.0 > epsilon) cellEps = Math.nextDown(cellEps)
    new EhSketch(spec, epsilon, levels, cellEps, new ExpHistogram(EhConfig(cellEps, spec.window)))
  }

  private[ecmsketch] def restore(spec: WindowSpec, epsilon: Double, levels: Int, cellEps: Double, h: ExpHistogram): EhSketch =
    new EhSketch(spec, epsilon, levels, cellEps, h)

  /** Order-preserving n-way merge (ECM §5.1); count-based sketches are refused. */
  def merge(sketches: Seq[EhSketch]): EhSketch = {
    WindowSketch.checkMergeable(sketches, "eh merge")
    mergeUnchecked(sketches)
  }

  /** Merge without the count-window check: for partial aggregates of one stream, whose sequence
    * numbers (or timestamps) are global, so order-preserving aggregation is valid.
    */
  private[ecmsketch] def mergeUnchecked(sketches: Seq[EhSketch]): EhSketch = {
    val first = sketches.head
    sketches.tail.foreach { s =>
      val d = first.diffs(s)
      if (d.nonEmpty) throw new SketchException(s"cannot merge exponential histograms with different parameters: ${d.mkString(", ")}")
    }
    if (sketches.size == 1) return first.copy()
    val contributing = sketches.filter(!_.hist.isEmpty)
    val h = ExpHistogram.merge(sketches.map(_.hist), first.hist.config)
    val out = new EhSketch(first.spec, first.epsilon, first.plannedLevels, first.cellEpsilon, h)
    out.mergeStateFrom(sketches, contributing)
    out
  }
}
