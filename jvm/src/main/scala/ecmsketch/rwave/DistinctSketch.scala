package ecmsketch.rwave

import ecmsketch.{SketchException, WindowSketch, WindowSpec}

/** Sliding-window distinct count (GT §5 distinct-values wave): estimates the number of distinct
  * values whose latest occurrence lies in (now - range, now], within epsilon relative error with
  * probability >= 1 - delta. Losslessly mergeable across sites (same seed, epsilon, delta).
  * Values are 64-bit fingerprints (ecmsketch.hash.Hashing); the key type is recorded as in ECM.
  */
final class DistinctSketch private (val spec: WindowSpec, val config: RwConfig,
                                    private[ecmsketch] var wave: RandWave) extends WindowSketch {
  def epsilon: Double = config.epsilon
  def delta: Double = config.delta
  def cellEpsilon: Double = config.epsilon
  def plannedLevels: Int = 0
  def seed: Long = config.seed
  private[ecmsketch] var _keyType: Int = ecmsketch.ecm.KeyType.Unset
  def keyType: Int = _keyType
  def setKeyType(t: Int): Unit = ???
  override def cellBound: Double = config.epsilon
  def addFingerprint(fp: Long, ts: Long): Unit = ???
  def add(value: Long, ts: Long): Unit = ???
  def add(value: String, ts: Long): Unit = ???
  def add(value: Array[Byte], ts: Long): Unit = ???
  def count(range: java.lang.Long, now: java.lang.Long): Double = ???
  def errorBound: Double = config.epsilon
  def copy(): DistinctSketch = ???
  def diffs(o: DistinctSketch): Seq[String] = ???
}

object DistinctSketch {
  def create(spec: WindowSpec, epsilon: Double, delta: Double, seed: Long): DistinctSketch = ???
  private[ecmsketch] def restore(spec: WindowSpec, config: RwConfig, w: RandWave, keyType: Int): DistinctSketch = {
    val s = new DistinctSketch(spec, config, w); s._keyType = keyType; s
  }
  def merge(sketches: Seq[DistinctSketch]): DistinctSketch = ???
  private[ecmsketch] def mergeUnchecked(sketches: Seq[DistinctSketch]): DistinctSketch = ???
}
