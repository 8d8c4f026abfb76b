package ecmsketch.frequent

import ecmsketch.core.{Bounds, SketchException}

/** The plan of a frequent-items sketch (docs/design/windowed-top-k.md, "Bound" and "Size"): the
  * horizon ratio `q` (scale l keeps the entries of the last q * 2^l units of weight) and the
  * Misra-Gries table size `k` of every scale, chosen so that the bound at the planned merge depth
  * is at most epsilon.
  */
final case class FreqPlan(q: Long, k: Int) {
  /** Growth of the straddle allowance per level of order-preserving merge: 2q / (q - 1). */
  def growth: Double = 2.0 * q / (q - 1.0)

  /** The certified error at merge depth `depth`, as a fraction of the range's weight: of every
    * frequency estimate, and the margin around phi of heavy hitters (|f^ - f| + phi |n^ - n|):
    * (4 g^d - 1) / (q - 1) + 1 / (2 (k + 1)), g = [[growth]]; at depth 0, 3 / (q - 1) + 1 / (2 (k + 1)).
    */
  def bound(depth: Int): Double =
    (4.0 * StrictMath.pow(growth, depth) - 1.0) / (q - 1.0) + 1.0 / (2.0 * (k + 1.0))
}

object FreqPlan {
  /** Smallest epsilon a sketch takes; largest horizon ratio and table size. */
  final val MinEpsilon: Double = Bounds.MinEpsilon
  final val MaxQ = 1L << 24
  final val MaxK = 1 << 22

  def checkEpsilon(epsilon: Double): Unit =
    SketchException.require(!epsilon.isNaN && epsilon >= MinEpsilon && epsilon < 1.0,
      s"epsilon must be in [$MinEpsilon, 1), got $epsilon")

  /** The plan for `epsilon` after `levels` merge levels: the smallest q + k (about the entries a scale
    * holds) with bound(levels) <= epsilon, from the optimum of a / (q - 1) + b / (k + 1) = epsilon,
    * a = 4 g^levels - 1, b = 1/2 (q = sqrt a (sqrt a + sqrt b) / epsilon, k the same with sqrt b),
    * raised until the bound holds in floating point.
    */
  def of(epsilon: Double, levels: Int): FreqPlan = {
    checkEpsilon(epsilon)
    Bounds.checkLevels(levels)
    SketchException.require(levels <= MaxLevels, s"merge_levels of a frequent-items sketch must be in [0, $MaxLevels], got $levels")
    val a = 4.0 * StrictMath.pow(2.0, levels) - 1.0
    val b = 0.5
    val s = math.sqrt(a) + math.sqrt(b)
    var q = math.ceil(math.sqrt(a) * s / epsilon).toLong + 1
    var k = math.ceil(math.sqrt(b) * s / epsilon).toInt
    var p = FreqPlan(q, k)
    while (p.bound(levels) > epsilon) {
      q += q / 64 + 1; k += k / 64 + 1
      p = FreqPlan(q, k)
    }
    SketchException.require(q <= MaxQ && k <= MaxK, s"epsilon $epsilon with merge_levels $levels needs a plan too large (q $q, k $k)")
    p
  }

  /** Most merge levels a frequent-items sketch plans for (its straddle allowance doubles per level). */
  final val MaxLevels = 8
}
