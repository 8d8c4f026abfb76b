package ecmsketch.dwave

import ecmsketch.core.SketchException

/** Parameters of a deterministic wave (Gibbons & Tirthapura §3; docs/design/dwave.md).
  *
  * @param epsilon     relative error of one wave, in [1e-4, 1)
  * @param window      N in ticks (time-based) or arrivals (count-based); Long.MaxValue = unbounded
  * @param maxArrivals U: an upper bound on the total weight (arrivals, or the sum of values) inside
  *                    any window of N ticks. Long.MaxValue = no bound given (the wave then keeps up
  *                    to [[DwConfig.MaxLevels]] levels; levels are allocated lazily, so an unused
  *                    bound costs nothing).
  */
final case class DwConfig(epsilon: Double, window: Long, maxArrivals: Long) {
  SketchException.require(!epsilon.isNaN && epsilon >= DwConfig.MinEpsilon && epsilon < 1.0,
    s"epsilon must be in [${DwConfig.MinEpsilon}, 1), got $epsilon")
  SketchException.require(window > 0, s"window must be positive, got $window")
  SketchException.require(maxArrivals > 0, s"max_arrivals must be positive, got $maxArrivals")

  /** k = ceil(1/epsilon), so 1/k <= epsilon. */
  val k: Int = math.max(1, math.ceil(1.0 / epsilon - 1e-12).toInt)
  /** Number of levels l = ceil(log2(4U/k)) clamped to [1, MaxLevels]: GT's ceil(log2(2 eps U))
    * plus one level of headroom, so that the top level spans at least 2U and the merge of waves
    * whose union respects U (or, across sites, the sum of their U) never needs a larger U.
    */
  val levels: Int =
    if (maxArrivals == DwConfig.Unbounded) DwConfig.MaxLevels
    else {
      val u2 = if (maxArrivals > Long.MaxValue / 2) Long.MaxValue else 2 * maxArrivals
      // smallest l >= 1 with k * 2^(l-1) >= 2U, i.e. not (k * 2^(l-1) <= 2U - 1)
      var l = 1
      while (l < DwConfig.MaxLevels && ((u2 - 1) >> (l - 1)) >= k) l += 1
      l
    }
  private[this] val lowCap = (k + 2) / 2
  /** Queue capacity of a level: ceil((k+1)/2) below the top level, k+1 at the top level l-1. */
  def capacityAt(level: Int): Int = if (level == levels - 1) k + 1 else lowCap
  /** Sum of the level capacities: the most items a wave ever stores. */
  val maxItems: Int = (levels - 1) * lowCap + k + 1
  def unbounded: Boolean = maxArrivals == DwConfig.Unbounded
}

object DwConfig {
  final val MinEpsilon = 1e-4
  final val MaxLevels = 62
  final val Unbounded = Long.MaxValue
  /** U of a merge of waves of different streams (sites): see the two-argument form. */
  def mergedArrivals(us: Seq[Long]): Long = mergedArrivals(us, sameStream = false)

  /** U of an order-preserving merge: Unbounded if any input is; else the sum of the inputs' U for
    * waves of different streams (sites), or their maximum for partial waves of one stream (whose
    * union respects one U). The split events of the merge move at most eps of the weight, which the
    * level of headroom in [[DwConfig.levels]] absorbs; were it ever exceeded, the merged wave
    * reports the overflow like any other (an error on the affected ranges, never a wrong answer).
    */
  def mergedArrivals(us: Seq[Long], sameStream: Boolean): Long = {
    SketchException.require(us.nonEmpty, "mergedArrivals needs at least one max_arrivals")
    var s = 0L
    val it = us.iterator
    while (it.hasNext) {
      val u = it.next()
      SketchException.require(u > 0, s"max_arrivals must be positive, got $u")
      if (u == Unbounded) return Unbounded
      if (sameStream) s = math.max(s, u)
      else if (s > Unbounded - u) return Unbounded
      else s += u
    }
    s
  }

}
