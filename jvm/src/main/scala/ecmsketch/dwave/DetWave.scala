package ecmsketch.dwave

import ecmsketch.SketchException
import ecmsketch.window.WindowCounter

/** Parameters of a deterministic wave (Gibbons & Tirthapura §3.3-3.5; ALGORITHMS.md §3).
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
  val k: Int = ???
  /** Number of levels l = ceil(log2(2U/k)) clamped to [1, MaxLevels]. */
  val levels: Int = ???
  /** Queue capacity of a level: ceil((k+1)/2) below the top level, k+1 at the top level l-1. */
  def capacityAt(level: Int): Int = ???
  def unbounded: Boolean = maxArrivals == DwConfig.Unbounded
}

object DwConfig {
  final val MinEpsilon = 1e-4
  final val MaxLevels = 62
  final val Unbounded = Long.MaxValue
  /** U of an order-preserving merge: Unbounded if any input is, else 2 * sum (saturating). */
  def mergedArrivals(us: Seq[Long]): Long = ???
}

/** A deterministic wave: a sliding-window counter (or sum of non-negative integer weights) with
  * relative error <= epsilon on every range r <= N, O(1) worst-case time per update, and the
  * order-preserving merge of ECM §5.1. See ALGORITHMS.md §3 and the implementation notes in
  * docs/DESIGN.md ("Deterministic waves").
  */
final class DetWave(val config: DwConfig) extends WindowCounter {
  /** Adds one arrival at `ts` (non-decreasing; equal timestamps allowed). */
  def add(ts: Long): Unit = ???
  /** Adds weight v >= 0 at `ts` (the sum wave update, Fig. 5). */
  def add(ts: Long, v: Long): Unit = ???
  /** Midpoint estimate of the weight with timestamps >= lo. Throws SketchException naming
    * max_arrivals when lo <= [[overflowTs]] (the bound U was exceeded inside the queried range).
    */
  def estimateFrom(lo: Long): Double = ???
  /** Sound interval [low, high] of the weight with timestamps >= lo (same overflow rule). */
  def boundsFrom(lo: Long): (Long, Long) = ???
  def isEmpty: Boolean = ???
  def lastTs: Long = ???
  def advanceTo(now: Long): Unit = ???
  /** Total weight ever added. */
  def total: Long = ???
  /** Largest timestamp of an unexpired item the top level had to discard because more than
    * max_arrivals arrived within a window; Long.MinValue if that never happened.
    */
  def overflowTs: Long = ???
  /** Items currently stored. */
  def itemCount: Int = ???
  def copy(): DetWave = ???
  /** Throws AssertionError if an internal invariant fails (tests). */
  def checkInvariants(): Unit = ???
}

object DetWave {
  /** Order-preserving n-way merge (ECM §5.1, ALGORITHMS.md §3.7) into a wave with `config`
    * (callers pick its max_arrivals, see [[DwConfig.mergedArrivals]]). Adds the same error as the
    * EH merge: the result answers within (1 + eps_in)(1 + eps_out) - 1 of the union. A single
    * non-empty input with an equal config is copied.
    */
  def merge(inputs: Seq[DetWave], config: DwConfig): DetWave = ???
}
