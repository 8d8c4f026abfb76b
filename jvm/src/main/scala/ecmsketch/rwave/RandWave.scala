package ecmsketch.rwave

import ecmsketch.SketchException
import ecmsketch.window.WindowCounter

/** Parameters of a randomized wave (Gibbons & Tirthapura §4-5, ECM §5.2; ALGORITHMS.md §4).
  *
  * @param epsilon relative error, in [0.01, 1)
  * @param delta   failure probability of one query, in (0, 1)
  * @param window  N in ticks or arrivals; Long.MaxValue = unbounded
  * @param seed    seed of the level hashes: waves merge only with an equal seed
  */
final case class RwConfig(epsilon: Double, delta: Double, window: Long, seed: Long) {
  SketchException.require(!epsilon.isNaN && epsilon >= RwConfig.MinEpsilon && epsilon < 1.0,
    s"epsilon must be in [${RwConfig.MinEpsilon}, 1), got $epsilon")
  SketchException.require(!delta.isNaN && delta > 0.0 && delta < 1.0, s"delta must be in (0, 1), got $delta")
  SketchException.require(window > 0, s"window must be positive, got $window")
  /** Queue capacity per level: ceil(c / epsilon^2), c = 36. */
  val capacity: Int = ???
  /** Number of independent instances (odd); the estimate is their median. */
  val instances: Int = ???
}

object RwConfig {
  final val C = 36
  final val MinEpsilon = 0.01
  /** Levels are 0..MaxLevel (the level hash has a 61-bit range). */
  final val MaxLevel = 60
  /** Smallest odd r with P[Binomial(r, 1/3) >= (r+1)/2] <= delta (each instance errs with
    * probability < 1/3, GT Lemma 2/3).
    */
  def instancesFor(delta: Double): Int = ???
}

/** r independent randomized waves over items (id, ts). Level l of instance i holds the
  * `capacity` most recent items (by their latest ts) whose level hash h_i(id) >= l; an id that
  * re-occurs moves to its newer ts (distinct values, GT §5). Queries take the median over the
  * instances of 2^l * |{items of level l with ts >= lo}| at the lowest level l that covers lo.
  *
  * As an ECM cell, [[add]] assigns every arrival a fresh event id (a per-wave random salt plus a
  * counter), so arrivals sharing a timestamp stay distinct (ALGORITHMS.md §4.6 (b)).
  */
final class RandWave(val config: RwConfig) extends WindowCounter {
  /** Records item `id` at `ts` (non-decreasing). */
  def addItem(id: Long, ts: Long): Unit = ???
  /** One arrival with a fresh event id. */
  def add(ts: Long): Unit = ???
  /** v arrivals with fresh ids; v > [[RandWave.MaxWeight]] is refused with a SketchException. */
  def add(ts: Long, v: Long): Unit = ???
  def estimateFrom(lo: Long): Double = ???
  def isEmpty: Boolean = ???
  def lastTs: Long = ???
  def advanceTo(now: Long): Unit = ???
  /** Stored entries over all instances and levels. */
  def entryCount: Int = ???
  def copy(): RandWave = ???
  def checkInvariants(): Unit = ???
}

object RandWave {
  final val MaxWeight = 1L << 20
  /** Lossless merge (ECM §5.2): per instance and level, the union (an id keeps its latest ts)
    * truncated to the `capacity` most recent. All inputs must have this config's seed, epsilon
    * and delta. The result equals one wave built over the union of the input streams.
    */
  def merge(inputs: Seq[RandWave], config: RwConfig): RandWave = ???
}
