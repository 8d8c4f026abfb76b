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

  def checkEpsilon(epsilon: Double): Unit =
    SketchException.require(!epsilon.isNaN && epsilon >= 0.001 && epsilon < 1.0,
      s"epsilon must be in [0.001, 1), got $epsilon")

  def checkLevels(levels: Int): Unit =
    SketchException.require(levels >= 0 && levels <= MaxLevels, s"merge_levels must be in [0, $MaxLevels], got $levels")

  /** Cell epsilon such that a cell merged `levels` times has error at most `target` (in exact arithmetic). */
  def cellEpsilonFor(target: Double, levels: Int): Double = {
    checkLevels(levels)
    StrictMath.pow(1.0 + target, 1.0 / (levels + 1)) - 1.0
  }

  /** The largest value <= x (stepping down by ulps) that satisfies ok. */
  def fitDown(x: Double, ok: Double => Boolean): Double = {
    var c = x; var i = 0
    while (!ok(c) && i < 100000) { c = Math.nextDown(c); i += 1 }
    c
  }
}
