package ecmsketch.frequent

import ecmsketch.core.{Codec, SketchException}
import ecmsketch.ingest.SketchOps

/** How the ingest layer builds frequent-items sketches from rows in any order. A row reaches
  * [[ecmsketch.ingest.Ingest]] as 64 bits: the key itself for BIGINT and INT keys, its
  * [[FreqKeys.doubleBits]] for DOUBLE keys, and for STRING and BINARY keys the number of a slot of
  * `slots`, which holds the key's bytes until the row goes into a run. An ingest of string or
  * binary keys needs its own [[KeySlots]] (one per aggregation buffer): its rows never leave it
  * unresolved, since a partial aggregate is shuffled as finished runs.
  */
final class FrequentOps(factory: () => FrequentSketch, val keyType: Int, val slots: KeySlots)
    extends SketchOps[FrequentSketch] {
  SketchException.require(FreqKeys.isBytes(keyType) == (slots != null), "string and binary keys need key slots")

  def create(): FrequentSketch = factory()
  /** Late rows up to as many as the rows taken (at most [[ecmsketch.ingest.Ingest.MaxLate]]): a run
    * of fewer rows than about 2q holds an entry per row (two on scale 0 before encoding), so it
    * saves no memory over the rows, and every side run more is one more input each fold reads.
    */
  override def lateShift: Int = 0
  /** For the same reason, rows wait in the reorder buffer up to [[ecmsketch.ingest.Ingest.MaxLate]]:
    * a partition's rows of one group, up to that many, make one run whatever their order.
    */
  override def bufferRows: Int = ecmsketch.ingest.Ingest.MaxLate
  def add(s: FrequentSketch, bits: Long, ts: Long, v: Long): Unit =
    if (slots == null) s.addBits(keyType, bits, ts, v) else s.addBytes(slots.take(bits), keyType, ts, v)
  def merge(xs: Seq[FrequentSketch]): FrequentSketch = FrequentKind.mergeSameStream(xs)
  def encode(s: FrequentSketch): Array[Byte] = Codec.encode(FrequentKind, s)
  def decode(b: Array[Byte]): FrequentSketch = Codec.decodeAs(FrequentKind, b)
}

/** The bytes of the string or binary keys of the rows an ingest holds, by slot number: a slot is
  * filled when a row is added ([[put]]) and emptied when the row goes into a run ([[take]]) or is
  * dropped ([[release]]). Slots are reused, so it holds as many keys as the ingest holds rows.
  */
final class KeySlots {
  private var keys = new Array[Array[Byte]](64)
  private var free = new Array[Int](64)
  private var freeN = 0
  private var used = 0

  /** A slot holding `key` (the array is kept, not copied). */
  def put(key: Array[Byte]): Long = {
    val slot =
      if (freeN > 0) { freeN -= 1; free(freeN) }
      else {
        if (used == keys.length) keys = java.util.Arrays.copyOf(keys, used * 2)
        used += 1
        used - 1
      }
    keys(slot) = key
    slot.toLong
  }

  /** The key of `slot`, which is emptied. */
  def take(slot: Long): Array[Byte] = {
    val i = slot.toInt
    val k = keys(i)
    if (k == null) throw new IllegalStateException(s"key slot $slot is empty")
    keys(i) = null
    if (freeN == free.length) free = java.util.Arrays.copyOf(free, freeN * 2)
    free(freeN) = i
    freeN += 1
    k
  }

  /** Empties `slot` (its row was dropped). */
  def release(slot: Long): Unit = take(slot)

  /** Keys held. */
  def size: Int = used - freeN
}
