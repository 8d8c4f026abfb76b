package ecmsketch.quantile

import ecmsketch.core.{Bounds, SketchException}

/** The parameters of a windowed quantile sketch and the constants derived from them
  * (docs/design/windowed-quantiles.md, "Parameters").
  *
  * `epsilon` is the rank error the sketch certifies, relative to the weight of the queried range;
  * `delta` the probability that one query misses it. Every bucket of a run holds at most
  * 2 `spanEpsilon` times the weight newer than it in its run; the two variance budgets `gamma1`
  * (buckets wholly inside a range) and `gamma2` (the one bucket a range boundary cuts) make the
  * compaction coins' error sub-Gaussian with variance proxy at most share epsilon^2 n^2 / (2 ln(2/delta))
  * on a range of weight n, `share` the part of the budget the run's generation spends ([[FoldPlan]]).
  */
final case class QuantileParams(epsilon: Double, delta: Double, seed: Long, share: Double = 1.0) {
  QuantileParams.check(epsilon, delta)
  require(share > 0.0 && share <= 1.0, s"share $share")

  /** ln(2 / delta): the two-sided sub-Gaussian tail exp(-t^2 / (2 V)) = delta / 2 at t^2 = 2 V logTerm. */
  val logTerm: Double = math.log(2.0 / delta)
  /** A bucket of a run holds at most 2 spanEpsilon times the weight newer than it. */
  val spanEpsilon: Double = QuantileParams.SpanFactor * epsilon
  /** The variance proxy a range of weight n may reach, per n^2: epsilon^2 / (2 ln(2/delta)). */
  val budget: Double = epsilon * epsilon / (2.0 * logTerm)
  /** The share of [[budget]] this run's own compactions may spend (1 for runs of sketches written
    * before folds; see [[FoldPlan]]).
    */
  private val own: Double = share * budget
  /** The part of the own budget that the buckets inside a range take (the cut bucket takes the rest). */
  val insideShare: Double = if (share >= 1.0) QuantileParams.InsideShare else QuantileParams.balancedInsideShare(own, spanEpsilon)
  /** Variance budget of a bucket wholly inside a range, per unit of c * min(c, 2 spanEpsilon W): the
    * buckets inside a range of weight n then add at most insideShare * share * budget * n^2.
    */
  val gamma1: Double = insideShare * own / spanEpsilon
  /** Variance budget of a bucket cut by a range boundary, per unit of c * min(c, 2 spanEpsilon W): the
    * one cut bucket adds at most (1 - insideShare) * share * budget * n^2.
    */
  val gamma2: Double = (1.0 - insideShare) * own / (4.0 * spanEpsilon * spanEpsilon)
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

  /** The parameters of a run whose own compactions spend `s` of the budget. */
  def withShare(s: Double): QuantileParams = if (s == share) this else copy(share = s)
}

object QuantileParams {
  /** spanEpsilon / epsilon: the share of the budget the range boundaries take (see the design note's sizing). */
  final val SpanFactor = 1.0
  /** The capacity over the fewest samples the ledgers allow. */
  final val CapacityFactor = 1.05
  /** The share of the variance budget that the buckets inside a range take (the cut bucket takes the
    * rest) in runs of the whole budget.
    */
  final val InsideShare = 0.4

  /** The inside share that makes both terms of the capacity equal for a run of own budget `own`
    * (the fewest samples per bucket): sqrt(spanEpsilon / (2 phi own)) = 2 spanEpsilon^2 / ((1 - phi) own).
    */
  private[quantile] def balancedInsideShare(own: Double, spanEpsilon: Double): Double = {
    def gap(phi: Double): Double = math.sqrt(spanEpsilon / (2.0 * phi * own)) - 2.0 * spanEpsilon * spanEpsilon / ((1.0 - phi) * own)
    var a = 0.01; var b = 0.99
    if (gap(a) <= 0.0) return a
    if (gap(b) >= 0.0) return b
    var i = 0
    while (i < 60) { val m = 0.5 * (a + b); if (gap(m) > 0.0) a = m else b = m; i += 1 }
    0.5 * (a + b)
  }
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
