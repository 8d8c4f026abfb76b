package ecmsketch.core

/** The error arithmetic every sketch kind shares: a cell of epsilon `e` after `h` levels of
  * order-preserving merge answers within (1 + e)^(h+1) - 1 (ECM Theorem 4, compounded), and the
  * inverse, the cell epsilon that keeps a target error after a number of planned merge levels.
  */
object Bounds {
  /** Most merge levels a plan may budget for. */
  final val MaxLevels = 64
  /** The smallest cell epsilon a deterministic plan may ask of its cells (EhConfig/DwConfig.MinEpsilon). */
  final val MinCellEpsilon = 1e-4

  /** Relative error of a cell of epsilon `cellEps` after `depth` merge levels: (1 + e)^(depth+1) - 1. */
  def compound(cellEps: Double, depth: Int): Double = StrictMath.pow(1.0 + cellEps, depth + 1.0) - 1.0

  /** a + b for b >= 0, stopping at Long.MaxValue: an upper bound or a time that would pass
    * 2^63 - 1 stays an upper bound.
    */
  def satAdd(a: Long, b: Long): Long = { val r = a + b; if (((a ^ r) & (b ^ r)) < 0) Long.MaxValue else r }

  /** The smallest epsilon a plan may ask for. */
  final val MinEpsilon = 0.001

  def checkEpsilon(epsilon: Double): Unit =
    SketchException.require(!epsilon.isNaN && epsilon >= MinEpsilon && epsilon < 1.0,
      s"epsilon must be in [$MinEpsilon, 1), got $epsilon")

  def checkLevels(levels: Int): Unit =
    SketchException.require(levels >= 0 && levels <= MaxLevels, s"merge_levels must be in [0, $MaxLevels], got $levels")

  /** Cell epsilon such that a cell merged `levels` times has error at most `target` (in exact arithmetic). */
  def cellEpsilonFor(target: Double, levels: Int): Double = {
    checkLevels(levels)
    StrictMath.pow(1.0 + target, 1.0 / (levels + 1)) - 1.0
  }

  /** Cell epsilon of fine side runs (docs/design/rows-in-any-order.md, "Rows in any order"): the largest c_f with
    * (1 + c_f)^2 <= 1 + cellEps, so that one merge of side runs built with c_f (depth 1 at c_f) is
    * within cellEps, the bound of a depth-0 run of the main plan. None when c_f would fall below
    * [[MinCellEpsilon]] (side runs then use the main cell epsilon and cost one merge level).
    */
  def sideCellEpsilon(cellEps: Double): Option[Double] = {
    val cf = fitDown(StrictMath.sqrt(1.0 + cellEps) - 1.0, c => compound(c, 1) <= cellEps)
    if (cf >= MinCellEpsilon && compound(cf, 1) <= cellEps) Some(cf) else None
  }

  /** Planned levels recorded on a side run of a plan with `levels` (informational: with
    * (1 + c_f)^2 <= 1 + c, a side run at 2 levels + 1 is within the plan's epsilon).
    */
  def sideLevels(levels: Int): Int = math.min(MaxLevels, 2 * levels + 1)

  /** The smallest depth d >= 0 at cell epsilon `cellEps` whose bound covers every input's bound
    * (1 + c_i)^(d_i + 1) - 1: min{d : (1 + cellEps)^(d+1) >= max_i (1 + c_i)^(d_i+1)}.
    */
  def depthCovering(cellEps: Double, inputs: Seq[(Double, Int)]): Int = {
    val worst = inputs.iterator.map { case (c, d) => compound(c, d) }.foldLeft(0.0)(math.max)
    var d = 0
    while (compound(cellEps, d) < worst && d < 65535) d += 1
    d
  }

  /** Merge depth of an order-preserving merge into cells of epsilon `cellEps` of inputs with cell
    * epsilons c_i at depths d_i ("mixed" merge, docs/design/rows-in-any-order.md): 1 + [[depthCovering]]. With equal
    * epsilons this is 1 + max d_i, the usual rule.
    */
  def mixedMergeDepth(cellEps: Double, inputs: Seq[(Double, Int)]): Int = 1 + depthCovering(cellEps, inputs)

  /** The largest value <= x (stepping down by ulps) that satisfies ok. */
  def fitDown(x: Double, ok: Double => Boolean): Double = {
    var c = x; var i = 0
    while (!ok(c) && i < 100000) { c = Math.nextDown(c); i += 1 }
    c
  }
}
