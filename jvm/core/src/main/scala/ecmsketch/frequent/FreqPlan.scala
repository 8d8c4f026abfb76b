package ecmsketch.frequent

import ecmsketch.core.{Bounds, SketchException}

/** The plan of a frequent-items sketch (docs/design/windowed-top-k.md, "Bound", "Folds" and "Size"):
  * the horizon ratio `q` (scale l keeps the entries of the last q * 2^l units of weight) and the
  * Misra-Gries table size `k` of every scale, chosen so that the bound at the planned merge depth
  * is at most epsilon. `folds` is false for the plans of body version 1, whose merges keep every
  * input's entries and whose bound has no term for folds.
  */
final case class FreqPlan(q: Long, k: Int, folds: Boolean = true) {
  /** Growth of the straddle allowance per level of order-preserving merge: 2q / (q - 1). */
  def growth: Double = 2.0 * q / (q - 1.0)

  /** The certified error at merge depth `depth`, as a fraction of the range's weight: of every
    * frequency estimate, and the margin around phi of heavy hitters (|f^ - f| + phi |n^ - n|):
    * (4 g^d - 1 + C_d) / (q - 1) + 1 / (2 (k + 1)), g = [[growth]], where C_d is what d levels of
    * folds add (0 without folds): C_0 = 0, C_(d+1) = g C_d + 5 [[FreqPlan.FoldRatio]] + [[FreqPlan.StepSlack]].
    * At depth 0, 3 / (q - 1) + 1 / (2 (k + 1)).
    */
  def bound(depth: Int): Double =
    (4.0 * StrictMath.pow(growth, depth) - 1.0 + (if (folds) FreqPlan.foldTerm(growth, depth) else 0.0)) / (q - 1.0) +
      1.0 / (2.0 * (k + 1.0))

  override def toString: String = s"(q $q, k $k${if (folds) "" else ", body version 1"})"
}

object FreqPlan {
  /** Smallest epsilon a sketch takes; largest horizon ratio and table size. */
  final val MinEpsilon: Double = Bounds.MinEpsilon
  final val MaxQ = 1L << 24
  final val MaxK = 1 << 22

  def checkEpsilon(epsilon: Double): Unit =
    SketchException.require(!epsilon.isNaN && epsilon >= MinEpsilon && epsilon < 1.0,
      s"epsilon must be in [$MinEpsilon, 1), got $epsilon")

  /** Block size of a fold's scale over its lambda (docs/design/windowed-top-k.md, "Folds"). */
  final val FoldRatio = 2.0
  /** In a fold, decrement steps that add up to less than this fraction of lambda after the newest
    * of them share its entry.
    */
  final val StepSlack = 0.25

  /** What `depth` levels of folds add to the bound, times (q - 1). */
  def foldTerm(g: Double, depth: Int): Double = {
    var c = 0.0
    var d = 0
    while (d < depth) { c = g * c + 5.0 * FoldRatio + StepSlack; d += 1 }
    c
  }

  /** The plan for `epsilon` after `levels` merge levels: the smallest q + k (about the entries a scale
    * holds) with bound(levels) <= epsilon, from the optimum of a / (q - 1) + b / (k + 1) = epsilon,
    * a = 4 g^levels - 1 + C_levels, b = 1/2 (q = sqrt a (sqrt a + sqrt b) / epsilon, k the same with
    * sqrt b), raised until the bound holds in floating point.
    */
  def of(epsilon: Double, levels: Int): FreqPlan = plan(epsilon, levels, folds = true)

  /** The plan body version 1 wrote: the same without the term for folds. */
  def legacy(epsilon: Double, levels: Int): FreqPlan = plan(epsilon, levels, folds = false)

  private def plan(epsilon: Double, levels: Int, folds: Boolean): FreqPlan = {
    checkEpsilon(epsilon)
    Bounds.checkLevels(levels)
    SketchException.require(levels <= MaxLevels, s"merge_levels of a frequent-items sketch must be in [0, $MaxLevels], got $levels")
    val a = 4.0 * StrictMath.pow(2.0, levels) - 1.0 + (if (folds) foldTerm(2.0, levels) else 0.0)
    val b = 0.5
    val s = math.sqrt(a) + math.sqrt(b)
    var q = math.ceil(math.sqrt(a) * s / epsilon).toLong + 1
    var k = math.ceil(math.sqrt(b) * s / epsilon).toInt
    var p = FreqPlan(q, k, folds)
    while (p.bound(levels) > epsilon) {
      q += q / 64 + 1; k += k / 64 + 1
      p = FreqPlan(q, k, folds)
    }
    SketchException.require(q <= MaxQ && k <= MaxK, s"epsilon $epsilon with merge_levels $levels needs a plan too large (q $q, k $k)")
    p
  }

  /** Most merge levels a frequent-items sketch plans for (its straddle allowance doubles per level). */
  final val MaxLevels = 8
}
