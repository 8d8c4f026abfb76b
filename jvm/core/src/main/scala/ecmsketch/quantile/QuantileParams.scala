package ecmsketch.quantile

import ecmsketch.core.{Bounds, SketchException}

/** The parameters of a windowed quantile sketch and the constants derived from them
  * (docs/design/windowed-quantiles.md, "Parameters").
  *
  * `epsilon` is the rank error the sketch certifies, relative to the weight of the queried range;
  * `delta` the probability that one query misses it. Every bucket of a run holds at most
  * 2 `spanEpsilon` times the weight newer than it in its run; the two variance budgets `gamma1`
  * (buckets wholly inside a range) and `gamma2` (the one bucket a range boundary cuts) make the
  * compaction coins' error sub-Gaussian with variance proxy at most epsilon^2 n^2 / (2 ln(2/delta))
  * on a range of weight n.
  */
final case class QuantileParams(epsilon: Double, delta: Double, seed: Long) {
  QuantileParams.check(epsilon, delta)

  /** ln(2 / delta): the two-sided sub-Gaussian tail exp(-t^2 / (2 V)) = delta / 2 at t^2 = 2 V logTerm. */
  val logTerm: Double = math.log(2.0 / delta)
  /** A bucket of a run holds at most 2 spanEpsilon times the weight newer than it. */
  val spanEpsilon: Double = QuantileParams.SpanFactor * epsilon
  /** The variance proxy a range of weight n may reach, per n^2: epsilon^2 / (2 ln(2/delta)). */
  private val budget: Double = epsilon * epsilon / (2.0 * logTerm)
  /** Variance budget of a bucket wholly inside a range, per unit of c * min(c, 2 spanEpsilon W): the
    * buckets inside a range of weight n then add at most InsideShare * budget * n^2.
    */
  val gamma1: Double = QuantileParams.InsideShare * budget / spanEpsilon
  /** Variance budget of a bucket cut by a range boundary, per unit of c * min(c, 2 spanEpsilon W): the
    * one cut bucket adds at most (1 - InsideShare) * budget * n^2.
    */
  val gamma2: Double = (1.0 - QuantileParams.InsideShare) * budget / (4.0 * spanEpsilon * spanEpsilon)
  /** Samples a bucket keeps before it tries to compact: about the fewest its ledgers allow (a bucket
    * of s samples at the top level ledgers about c^2 / (2 s^2) and c^2 / (2 s)).
    */
  val capacity: Int = math.min(QuantileParams.MaxCapacity, math.max(QuantileParams.MinCapacity,
    math.ceil(QuantileParams.CapacityFactor * math.max(math.sqrt(0.5 / gamma1), 0.5 / gamma2)).toInt))
  /** Rows the raw region holds before its older half is sealed into buckets (even). */
  val rawCapacity: Int = {
    val r = math.ceil(QuantileParams.RawFactor / epsilon).toLong
    (math.min(QuantileParams.MaxRaw.toLong, math.max(QuantileParams.MinRaw.toLong, r)).toInt + 1) & ~1
  }

  /** The variance budget base of a bucket of weight `c` with weight `newer` after it in its run:
    * c * min(c, 2 spanEpsilon newer).
    */
  @inline def budgetBase(c: Long, newer: Long): Double = c.toDouble * math.min(c.toDouble, 2.0 * spanEpsilon * newer.toDouble)

  /** Whether buckets of weights a and b (adjacent in a run) may become one with `newer` weight after them. */
  @inline def mayJoin(a: Long, b: Long, newer: Long): Boolean = a.toDouble + b.toDouble <= 2.0 * spanEpsilon * newer.toDouble

  /** The certified rank error of one query whose variance proxy is `v`: sqrt(2 v ln(2/delta)). */
  def errorFor(v: Double): Double = math.sqrt(2.0 * v * logTerm)
}

object QuantileParams {
  /** spanEpsilon / epsilon: the share of the budget the range boundaries take (see the design note's sizing). */
  final val SpanFactor = 1.0
  /** The capacity over the fewest samples the ledgers allow. */
  final val CapacityFactor = 1.05
  /** The share of the variance budget that the buckets inside a range take (the cut bucket takes the rest). */
  final val InsideShare = 0.4
  final val MinCapacity = 16
  final val MaxCapacity = 1 << 20
  final val RawFactor = 16.0
  final val MinRaw = 64
  final val MaxRaw = 1 << 16
  final val MinDelta = 1e-12
  final val MaxDelta = 0.5
  final val DefaultDelta = 0.01

  def check(epsilon: Double, delta: Double): Unit = {
    Bounds.checkEpsilon(epsilon)
    SketchException.require(!delta.isNaN && delta >= MinDelta && delta <= MaxDelta,
      s"delta must be in [$MinDelta, $MaxDelta], got $delta")
  }
}
