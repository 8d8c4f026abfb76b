package ecmsketch.eh

import ecmsketch.core.SketchException

/** Parameters of an exponential histogram.
  *
  * Bucket rule (see docs/design/exponential-histogram.md, "Exponential histogram"): level i holds buckets of size 2^i.
  * Level 0 keeps k0 = max(1, ceil(1/eps) - 1) or k0 + 1 buckets, every higher level k = ceil(1/(2 eps))
  * or k + 1 (the oldest level may hold fewer). With these caps every bucket j of size >= 2 satisfies
  * ECM's invariant 1, C_j <= 2 eps (1 + sum of the newer buckets), which gives (a) relative error
  * <= eps for the midpoint estimator on every range and (b) the order-preserving merge bound of
  * ECM Theorem 4 (it needs invariant 1 literally; the printed ceil(1/(2 eps)) rule alone does not give it).
  *
  * @param epsilon relative error of one histogram, in (0, 1)
  * @param window  window length N in ticks (time-based) or arrivals (count-based); Long.MaxValue = unbounded
  */
final case class EhConfig(epsilon: Double, window: Long) {
  SketchException.require(!epsilon.isNaN && epsilon > 0.0 && epsilon < 1.0,
    s"epsilon must be in (0, 1), got $epsilon")
  SketchException.require(window > 0, s"window must be positive, got $window")
  SketchException.require(epsilon >= EhConfig.MinEpsilon,
    s"epsilon $epsilon is below the supported minimum ${EhConfig.MinEpsilon}")

  /** Minimum number of size-1 buckets once a larger bucket exists. */
  val k0: Int = math.max(1, math.ceil(1.0 / epsilon - 1e-12).toInt - 1)
  /** Minimum number of buckets of each size >= 2 below the oldest level. */
  val k: Int = math.max(1, math.ceil(1.0 / (2.0 * epsilon) - 1e-12).toInt)
  /** Ring capacity of level 0 and of the other levels (the cap plus one transient slot). */
  val cap0: Int = k0 + 2
  val cap: Int = k + 2

  @inline def maxAt(level: Int): Int = if (level == 0) k0 + 1 else k + 1
  @inline def minAt(level: Int): Int = if (level == 0) k0 else k
  @inline def capAt(level: Int): Int = if (level == 0) cap0 else cap
  def unbounded: Boolean = window == Long.MaxValue
}

object EhConfig {
  final val MinEpsilon = 1e-4
  final val MaxLevels = 63
}
