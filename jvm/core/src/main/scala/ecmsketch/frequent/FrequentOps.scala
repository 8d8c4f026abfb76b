package ecmsketch.frequent

import ecmsketch.core.{Codec, SketchException}
import ecmsketch.hash.Hashing
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
  /** For the same reason, rows in no order wait in the reorder buffer up to
    * [[ecmsketch.ingest.Ingest.MaxLate]] (they would otherwise wait as late rows): a partition's rows
    * of one group, up to that many, make one run whatever their order. Rows in order still start the
    * main run after [[ecmsketch.ingest.Ingest.MaxBuffer]].
    */
  override def bufferRows: Int = ecmsketch.ingest.Ingest.MaxLate
  def add(s: FrequentSketch, bits: Long, ts: Long, v: Long): Unit =
    if (slots == null) s.addBits(keyType, bits, ts, v)
    else { val h = slots.hash(bits); s.addBytes(slots.take(bits), h, keyType, ts, v) }
  /** A sorted batch that the sketch takes at once ([[FrequentSketch.takesSortedBatch]]): its keys are
    * looked up in the sketch's dictionary, and the rows go in through
    * [[FrequentSketch.addSortedIds]]. Other batches go row by row.
    */
  override def addSorted(s: FrequentSketch, fps: Array[Long], ts: Array[Long], vs: Array[Long], from: Int, until: Int): Unit =
    if (!s.takesSortedBatch(until - from)) super.addSorted(s, fps, ts, vs, from, until)
    else {
      s.checkSorted(ts, vs, from, until)
      val ids = new Array[Int](until - from)
      var i = from
      if (slots == null) while (i < until) { ids(i - from) = s.idOfBits(keyType, fps(i)); i += 1 }
      else while (i < until) { val h = slots.hash(fps(i)); ids(i - from) = s.idOfBytes(slots.take(fps(i)), h, keyType); i += 1 }
      s.addSortedIds(ids, ts, vs, from, until)
    }
  def merge(xs: Seq[FrequentSketch]): FrequentSketch = FrequentKind.mergeSameStream(xs)
  def encode(s: FrequentSketch): Array[Byte] = Codec.encode(FrequentKind, s)
  def decode(b: Array[Byte]): FrequentSketch = Codec.decodeAs(FrequentKind, b)
}

/** The bytes of the string or binary keys of the rows an ingest holds, by slot number. Equal keys
  * share a slot, which counts the rows that hold it: [[put]] finds or fills the slot of a key, and
  * [[take]] (the row went into a run) or [[release]] (the row was dropped) gives one row's hold back,
  * emptying the slot with its last row. So it holds each distinct key of the rows it holds once,
  * and a run built from the rows finds a key's bytes and hash in a few hot slots rather than one
  * array per row.
  */
final class KeySlots {
  private var keys = new Array[Array[Byte]](64)
  private var hashes = new Array[Long](64)
  private var holds = new Array[Int](64)
  private var free = new Array[Int](64)
  private var freeN = 0
  private var used = 0
  // open addressing, linear probing: slot + 1, 0 empty
  private var table = new Array[Int](128)

  @inline private def home(h: Long, mask: Int): Int = (h >>> 40).toInt & mask

  /** The slot of `key` with one more row holding it (the array is kept, not copied, when the key is new). */
  def put(key: Array[Byte]): Long = put(key, 0, key.length, copy = false)

  /** The slot of the key `b[off, off + len)` with one more row holding it; the bytes are copied when
    * the key is new, so `b` may be reused.
    */
  def put(b: Array[Byte], off: Int, len: Int): Long = put(b, off, len, copy = true)

  private def put(b: Array[Byte], off: Int, len: Int, copy: Boolean): Long = {
    val h = Hashing.xxh64(b, off, len, 0L)
    val mask = table.length - 1
    var i = home(h, mask)
    while (table(i) != 0) {
      val s = table(i) - 1
      if (hashes(s) == h && java.util.Arrays.equals(keys(s), 0, keys(s).length, b, off, off + len)) { holds(s) += 1; return s.toLong }
      i = (i + 1) & mask
    }
    val key = if (copy || off != 0 || len != b.length) java.util.Arrays.copyOfRange(b, off, off + len) else b
    val slot =
      if (freeN > 0) { freeN -= 1; free(freeN) }
      else {
        if (used == keys.length) {
          val c = used * 2
          keys = java.util.Arrays.copyOf(keys, c); hashes = java.util.Arrays.copyOf(hashes, c); holds = java.util.Arrays.copyOf(holds, c)
        }
        used += 1
        used - 1
      }
    keys(slot) = key; hashes(slot) = h; holds(slot) = 1
    table(i) = slot + 1
    if (size * 2 > table.length) rehash(table.length * 2)
    slot.toLong
  }

  /** The key of `slot`, which one row fewer holds (emptied with its last row). */
  def take(slot: Long): Array[Byte] = {
    val i = slot.toInt
    val k = if (i >= 0 && i < used) keys(i) else null
    if (k == null) throw new IllegalStateException(s"key slot $slot is empty")
    holds(i) -= 1
    if (holds(i) == 0) remove(i)
    k
  }

  /** The hash of the key of `slot` ([[Hashing.fingerprintBytes]]), read before [[take]]. */
  def hash(slot: Long): Long = hashes(slot.toInt)

  /** Gives back a hold of `slot` (its row was dropped). */
  def release(slot: Long): Unit = take(slot)

  /** Distinct keys held. */
  def size: Int = used - freeN

  private def remove(s: Int): Unit = {
    val mask = table.length - 1
    var i = home(hashes(s), mask)
    while (table(i) != s + 1) i = (i + 1) & mask
    // backward-shift deletion: move later entries of the probe run into the hole when their home allows
    var j = i
    var done = false
    while (!done) {
      j = (j + 1) & mask
      if (table(j) == 0) done = true
      else {
        val hj = home(hashes(table(j) - 1), mask)
        // the entry at j may move to i unless its home lies cyclically in (i, j]
        if (((j - hj) & mask) >= ((j - i) & mask)) { table(i) = table(j); i = j }
      }
    }
    table(i) = 0
    keys(s) = null
    if (freeN == free.length) free = java.util.Arrays.copyOf(free, freeN * 2)
    free(freeN) = s
    freeN += 1
  }

  private def rehash(n: Int): Unit = {
    table = new Array[Int](n)
    val mask = n - 1
    var s = 0
    while (s < used) {
      if (keys(s) != null) {
        var i = home(hashes(s), mask)
        while (table(i) != 0) i = (i + 1) & mask
        table(i) = s + 1
      }
      s += 1
    }
  }
}
