package ecmsketch.rwave

import ecmsketch.core.{KeyType, KeyedSketch, Params, SketchException, WindowSketch, WindowSpec}
import ecmsketch.hash.Hashing

/** Sliding-window distinct count (GT §5 distinct-values wave): estimates the number of distinct
  * values whose latest occurrence lies in (now - range, now], within epsilon relative error with
  * probability >= 1 - delta. Losslessly mergeable across sites (same seed, epsilon, delta).
  * Values are 64-bit fingerprints (ecmsketch.hash.Hashing); the key type is recorded as in ECM.
  */
final class DistinctSketch private (val spec: WindowSpec, val config: RwConfig,
                                    private[ecmsketch] var wave: RandWave) extends WindowSketch with KeyedSketch {
  def kind: DistinctKind.type = DistinctKind
  def epsilon: Double = config.epsilon
  def delta: Double = config.delta
  def cellEpsilon: Double = config.epsilon
  def plannedLevels: Int = 0
  def seed: Long = config.seed
  private[ecmsketch] var _keyType: Int = KeyType.Unset
  def keyType: Int = _keyType

  /** Records the key type on first use; a different type later is refused (as in EcmSketch). */
  def setKeyType(t: Int): Unit = if (_keyType != t) _keyType = KeyType.record(_keyType, t)

  /** Lossless merges add no error: the bound is epsilon at every merge depth. */
  override def cellBound: Double = config.epsilon

  /** Adds the value with fingerprint `fp` at `ts` (non-decreasing). */
  def addFingerprint(fp: Long, ts: Long): Unit = {
    checkAdd(ts, 1L)
    wave.addItem(fp, ts)
    noteAdd(ts, 1L)
  }

  /** Records an occurrence of an integer (INT/BIGINT) value at `ts`. */
  def add(value: Long, ts: Long): Unit = { setKeyType(KeyType.Long); addFingerprint(Hashing.fingerprintLong(value), ts) }
  /** Records an occurrence of a string value (hashed as its UTF-8 bytes, like BINARY) at `ts`. */
  def add(value: String, ts: Long): Unit = {
    SketchException.require(value != null, "value must not be null")
    setKeyType(KeyType.String); addFingerprint(Hashing.fingerprintString(value), ts)
  }
  /** Records an occurrence of a binary value at `ts`. */
  def add(value: Array[Byte], ts: Long): Unit = {
    SketchException.require(value != null, "value must not be null")
    setKeyType(KeyType.Binary); addFingerprint(Hashing.fingerprintBytes(value), ts)
  }

  // Keyed rows (KeyedSketch): every row is one occurrence of its value, so the weight must be 1.
  def addKey(key: Long, ts: Long, v: Long): Unit = { unitWeight(v); add(key, ts) }
  def addKey(key: String, ts: Long, v: Long): Unit = { unitWeight(v); add(key, ts) }
  def addKey(key: Array[Byte], ts: Long, v: Long): Unit = { unitWeight(v); add(key, ts) }
  private def unitWeight(v: Long): Unit =
    SketchException.require(v == 1L, s"a distinct-count sketch counts occurrences of values and takes no weights, got weight $v")

  /** Adds fingerprints `[from, until)` with sorted timestamps (non-decreasing, not before the last
    * timestamp; strictly increasing for count-based windows). Only the last occurrence of each
    * value in the batch is processed; the state is identical to adding them one by one.
    */
  def addSortedBatch(fps: Array[Long], ts: Array[Long], from: Int, until: Int): Unit = {
    if (until <= from) return
    var i = from
    var prev = _lastTs
    var seen = _hasRows
    while (i < until) {
      val t = ts(i)
      if (t < prev || (spec.countWindow && seen && t == prev) || _count > Long.MaxValue - (i - from + 1)) {
        var k = from; while (k < until) { addFingerprint(fps(k), ts(k)); k += 1 }; return // exact error
      }
      prev = t; seen = true; i += 1
    }
    wave.addSortedBatch(fps, ts, from, until)
    _hasRows = true
    if (ts(from) < _firstTs) _firstTs = ts(from)
    _lastTs = ts(until - 1)
    _count += until - from
  }

  /** Estimated number of distinct values whose latest occurrence is in (now - range, now]; null
    * range = the window, null now = the last timestamp.
    */
  def count(range: java.lang.Long, now: java.lang.Long): Double = {
    val lo = lowerBound(range, now)
    if (lo == null) 0.0 else wave.estimateFrom(lo)
  }

  /** Relative error of every count, with probability >= 1 - delta, at any merge depth. */
  def errorBound: Double = config.epsilon

  /** An independent copy. */
  def copy(): DistinctSketch = {
    val s = new DistinctSketch(spec, config, wave.copy())
    s.copyStateFrom(this)
    s._keyType = _keyType
    s
  }

  /** Names the parameters that differ between this sketch and `o` (empty: they merge). */
  def diffs(o: DistinctSketch): Seq[String] = {
    val b = Seq.newBuilder[String]
    b ++= commonDiffs(o)
    if (delta != o.delta) b += s"delta $delta vs ${o.delta}"
    if (seed != o.seed) b += s"seed $seed vs ${o.seed}"
    if (_keyType != KeyType.Unset && o._keyType != KeyType.Unset && _keyType != o._keyType)
      b += s"key type ${KeyType.name(_keyType)} vs ${KeyType.name(o._keyType)}"
    b.result()
  }
}

object DistinctSketch {
  final val DefaultSeed: Long = Hashing.DefaultSeed

  /** A new empty sketch: relative error `epsilon` with probability 1 - `delta`; `seed` picks the level hashes. */
  def create(spec: WindowSpec, epsilon: Double, delta: Double, seed: Long): DistinctSketch = {
    val config = RwConfig(epsilon, delta, spec.window, seed)
    new DistinctSketch(spec, config, new RandWave(config))
  }
  /** A sketch around a decoded wave; `w` may be null (an empty cell), which gives an empty wave. */
  private[ecmsketch] def restore(spec: WindowSpec, config: RwConfig, w: RandWave, keyType: Int): DistinctSketch = {
    val s = new DistinctSketch(spec, config, if (w == null) new RandWave(config) else w); s._keyType = keyType; s
  }

  /** Lossless n-way merge (GT §5, ECM §5.2); parameters and seed must be equal; count-based
    * sketches are refused (WindowSketch.checkMergeable).
    */
  def merge(sketches: Seq[DistinctSketch]): DistinctSketch = {
    WindowSketch.checkMergeable(sketches, "distinct merge")
    mergeUnchecked(sketches)
  }

  /** Merge without the count-window check: for partial aggregates of one stream. */
  private[ecmsketch] def mergeUnchecked(sketches: Seq[DistinctSketch]): DistinctSketch = {
    SketchException.require(sketches.nonEmpty, "merge needs at least one sketch")
    val first = sketches.head
    Params.requireAllSame(DistinctKind.plural, sketches)(_.diffs(_))
    val keyType = KeyType.merged(sketches.map(_._keyType), "distinct-count sketches")
    if (sketches.size == 1) return first.copy()
    val contributing = sketches.filter(s => !s.wave.isEmpty)
    val w = RandWave.merge(sketches.map(_.wave), first.config)
    val out = new DistinctSketch(first.spec, first.config, w)
    out._keyType = keyType
    out.mergeStateFrom(sketches, contributing)
    if (!out.isEmpty) w.advanceTo(out.lastTs)
    out
  }
}
