package ecmsketch.ecm.dyadic

import ecmsketch.core.{Bounds, SketchException}
import ecmsketch.ecm.{CellKinds, EcmPlan, Planner, QueryKind}

/** Plans of dyadic sketches: the inner epsilon of their levels and the worst heavy-hitter gap
  * (docs/design/dyadic.md).
  */
object DyadicPlanner {
  import DyadicSketch.checkBits

  /** The worst heavy-hitter gap over ratios phi in (0, 1) of levels with cell error `e` and
    * Count-Min epsilon `epsCm`: ((1+e)/(1-e))^2 (1 + eps_cm) - 1 (the gap at phi -> 1, docs/design/dyadic.md).
    */
  def worstGap(e: Double, epsCm: Double): Double =
    if (e >= 1.0) Double.PositiveInfinity else { val r = (1 + e) / (1 - e); r * r * (1 + epsCm) - 1 }

  /** The plan of every level. The user's epsilon is Theorem 5's: every key with f >= (phi + epsilon)
    * ||a_r||_1 is reported for every ratio phi at the planned merge depth. The levels are planned
    * (journal point split, the requested merge levels and cell kind) at the largest inner epsilon
    * whose worst gap is <= epsilon (about epsilon / 5), with the Count-Min delta divided by 2 bits
    * (a range query reads at most 2 bits pieces).
    */
  def plan(epsilon: Double, delta: Double, mergeLevels: Int, cellKind: Int, universeBits: Int): EcmPlan = {
    checkBits(universeBits)
    Bounds.checkEpsilon(epsilon)
    Bounds.checkLevels(mergeLevels)
    SketchException.require(!delta.isNaN && delta > 0.0 && delta < 1.0, s"delta must be in (0, 1), got $delta")
    val ck = CellKinds.getOrFail(cellKind)
    SketchException.require(ck.deterministic,
      s"dyadic sketches need deterministic cells ('eh' or 'dwave'): range counts, quantiles and the heavy-hitter recall sum " +
        s"and compare many cells, which '${ck.name}' (randomized-wave) cells do not certify (ECM-sketch §7.2)")
    val pieceDelta = delta / (2.0 * universeBits)
    def at(x: Double): EcmPlan = Planner.plan(x, pieceDelta, QueryKind.Point, mergeLevels, cellKind)
    def gap(p: EcmPlan): Double = worstGap(Bounds.compound(p.cellEpsilon, mergeLevels), p.cmEpsilon)
    SketchException.require(gap(at(MinInnerEpsilon)) <= epsilon,
      s"epsilon $epsilon is too small for a dyadic sketch with $mergeLevels merge levels (its levels would need an inner epsilon " +
        s"below $MinInnerEpsilon)")
    // bisection on the inner epsilon: the gap grows with it
    var lo = MinInnerEpsilon; var hi = epsilon
    var i = 0
    while (i < 60) { val mid = (lo + hi) / 2; if (gap(at(mid)) <= epsilon) lo = mid else hi = mid; i += 1 }
    at(lo)
  }

  private val planCache = new java.util.concurrent.ConcurrentHashMap[(Double, Double, Int, Int, Int), EcmPlan]()

  /** [[plan]], cached (decoding a sketch re-derives its plan to check the header against it). */
  def cachedPlan(epsilon: Double, delta: Double, mergeLevels: Int, cellKind: Int, universeBits: Int): EcmPlan = {
    val k = (epsilon, delta, mergeLevels, cellKind, universeBits)
    val hit = planCache.get(k)
    if (hit != null) hit
    else {
      val p = plan(epsilon, delta, mergeLevels, cellKind, universeBits)
      if (planCache.size < 1024) planCache.put(k, p)
      p
    }
  }

  /** The smallest inner epsilon (the planner's minimum). */
  final val MinInnerEpsilon = 0.001
}
