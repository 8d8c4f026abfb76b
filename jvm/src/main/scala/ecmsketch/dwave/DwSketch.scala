package ecmsketch.dwave

import ecmsketch.{SketchException, WindowSketch, WindowSpec}

/** A stand-alone deterministic wave with a plan and a certified bound (mirrors EhSketch): counts
  * arrivals (or sums weights) over the sliding window with relative error <= [[errorBound]].
  */
final class DwSketch private (val spec: WindowSpec, val epsilon: Double, val plannedLevels: Int,
                              val cellEpsilon: Double, private[ecmsketch] var wave: DetWave) extends WindowSketch {
  def maxArrivals: Long = wave.config.maxArrivals
  def add(ts: Long, v: Long = 1L): Unit = ???
  def count(range: java.lang.Long, now: java.lang.Long): Double = ???
  def errorBound: Double = cellBound
  def copy(): DwSketch = ???
  /** Parameters that must agree for a merge (max_arrivals may differ). */
  def diffs(o: DwSketch): Seq[String] = commonDiffs(o)
}

object DwSketch {
  def create(spec: WindowSpec, epsilon: Double, levels: Int, maxArrivals: Long): DwSketch = ???
  private[ecmsketch] def restore(spec: WindowSpec, epsilon: Double, levels: Int, cellEps: Double, w: DetWave): DwSketch =
    new DwSketch(spec, epsilon, levels, cellEps, w)
  /** Cross-site merge: count-based sketches refused; U = DwConfig.mergedArrivals. */
  def merge(sketches: Seq[DwSketch]): DwSketch = ???
  /** Merge of partial sketches of one stream (count windows allowed). */
  private[ecmsketch] def mergeUnchecked(sketches: Seq[DwSketch]): DwSketch = ???
}
