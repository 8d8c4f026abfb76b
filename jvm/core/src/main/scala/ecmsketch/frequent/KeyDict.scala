package ecmsketch.frequent

import ecmsketch.core.{KeyType, SketchException}
import ecmsketch.hash.Hashing

/** The key types a frequent-items sketch keeps, so that its answers come back in the type it was
  * built from. Numeric keys are held as 64 bits (an INT widened, a DOUBLE as its raw bits with -0.0
  * and NaN made canonical); string and binary keys as their bytes (UTF-8 for strings).
  */
object FreqKeys {
  final val Unset = KeyType.Unset
  final val BigInt = KeyType.Long
  final val Str = KeyType.String
  final val Binary = KeyType.Binary
  final val Int = 4
  final val Double = 5
  final val MaxType = 5
  /** Longest string or binary key (bytes) a sketch takes. */
  final val MaxKeyBytes = 1 << 16

  def name(t: Int): String = t match {
    case Int => "int"
    case Double => "double"
    case other => KeyType.name(other)
  }

  def isBytes(t: Int): Boolean = t == Str || t == Binary

  /** The type after adding a key of type `t` to a sketch of type `current`; another type is refused. */
  def record(current: Int, t: Int): Int =
    if (current == t || current == Unset) t
    else throw new SketchException(s"this frequent-items sketch holds ${name(current)} keys; cannot add a ${name(t)} key")

  def merged(types: Seq[Int]): Int = types.foldLeft(Unset) { (acc, t) =>
    if (t == Unset || t == acc) acc
    else if (acc == Unset) t
    else throw new SketchException(s"cannot merge frequent-items sketches with ${name(acc)} keys and ${name(t)} keys")
  }

  /** The 64 bits a DOUBLE key is held as: -0.0 as 0.0 and every NaN as the canonical NaN, so that
    * keys equal in SQL are one key.
    */
  def doubleBits(d: scala.Double): Long =
    if (d == 0.0) 0L else java.lang.Double.doubleToLongBits(d)

  /** A numeric key back in its type (Long for BIGINT, Integer for INT, Double for DOUBLE). */
  def numericValue(t: Int, bits: Long): Any = t match {
    case Int => java.lang.Integer.valueOf(bits.toInt)
    case Double => java.lang.Double.valueOf(java.lang.Double.longBitsToDouble(bits))
    case _ => java.lang.Long.valueOf(bits)
  }
}

/** An exact dictionary of the keys a sketch refers to: id -> key and key -> id, with reference
  * counts (an id is freed when nothing refers to it any more). Numeric keys are 64-bit values,
  * string and binary keys byte arrays compared by content; nothing is hashed away, so a key comes
  * back exactly and two keys never share an id. Open addressing over the ids, tombstones rebuilt away.
  */
private[frequent] final class KeyDict(val bytesKeys: Boolean) {
  private var longs = new Array[Long](16)
  private var bytes: Array[Array[Byte]] = if (bytesKeys) new Array[Array[Byte]](16) else null
  private var hashes = new Array[Long](16)
  private var refs = new Array[Int](16)
  private var alive = new Array[Boolean](16)
  private var used = 0 // ids handed out so far (free ones are on the free list)
  private var freeList = new Array[Int](16)
  private var freeN = 0
  private var table = new Array[Int](32) // id + 1; 0 empty; -1 tombstone
  private var live = 0
  private var tombs = 0

  def size: Int = live
  def capacity: Int = used

  def longKey(id: Int): Long = longs(id)
  def bytesKey(id: Int): Array[Byte] = bytes(id)
  def refCount(id: Int): Int = refs(id)
  def isLive(id: Int): Boolean = id >= 0 && id < used && alive(id)

  @inline private def slotOf(h: Long, mask: Int): Int = (Hashing.mix64(h) >>> 33).toInt & mask

  /** The id of numeric key `v`, added (with no references) if absent. */
  def idOfLong(v: Long): Int = {
    val h = v
    val mask = table.length - 1
    var i = slotOf(h, mask)
    var tomb = -1
    while (table(i) != 0) {
      val t = table(i)
      if (t > 0 && longs(t - 1) == v) return t - 1
      if (t < 0 && tomb < 0) tomb = i
      i = (i + 1) & mask
    }
    insert(if (tomb >= 0) tomb else i, h, v, null)
  }

  /** The id of byte key `b` (kept by reference: the caller must not change it), added if absent. */
  def idOfBytes(b: Array[Byte]): Int = {
    val h = Hashing.fingerprintBytes(b)
    val mask = table.length - 1
    var i = slotOf(h, mask)
    var tomb = -1
    while (table(i) != 0) {
      val t = table(i)
      if (t > 0 && hashes(t - 1) == h && java.util.Arrays.equals(bytes(t - 1), b)) return t - 1
      if (t < 0 && tomb < 0) tomb = i
      i = (i + 1) & mask
    }
    insert(if (tomb >= 0) tomb else i, h, 0L, b)
  }

  private def insert(slot: Int, h: Long, v: Long, b: Array[Byte]): Int = {
    val id = if (freeN > 0) { freeN -= 1; freeList(freeN) } else {
      if (used == longs.length) growIds()
      used += 1; used - 1
    }
    longs(id) = v; hashes(id) = h; refs(id) = 0; alive(id) = true
    if (bytesKeys) bytes(id) = b
    if (table(slot) < 0) tombs -= 1
    table(slot) = id + 1
    live += 1
    if ((live + tombs) * 2 > table.length) rehash(if (live * 4 > table.length) table.length * 2 else table.length)
    id
  }

  private def growIds(): Unit = {
    val n = longs.length * 2
    longs = java.util.Arrays.copyOf(longs, n); hashes = java.util.Arrays.copyOf(hashes, n)
    refs = java.util.Arrays.copyOf(refs, n); alive = java.util.Arrays.copyOf(alive, n)
    if (bytesKeys) bytes = java.util.Arrays.copyOf(bytes, n)
  }

  private def rehash(n: Int): Unit = {
    table = new Array[Int](n); tombs = 0
    val mask = n - 1
    var id = 0
    while (id < used) {
      if (alive(id)) {
        var i = slotOf(hashes(id), mask)
        while (table(i) != 0) i = (i + 1) & mask
        table(i) = id + 1
      }
      id += 1
    }
  }

  @inline def ref(id: Int): Unit = refs(id) += 1
  @inline def ref(id: Int, n: Int): Unit = refs(id) += n

  /** Drops one reference; the key leaves the dictionary when none is left. */
  def unref(id: Int): Unit = { refs(id) -= 1; if (refs(id) == 0) remove(id) }

  /** Removes `id` if nothing refers to it (a key looked up for an arrival that stored nothing). */
  def release(id: Int): Unit = if (refs(id) == 0) remove(id)

  private def remove(id: Int): Unit = {
    val mask = table.length - 1
    var i = slotOf(hashes(id), mask)
    while (table(i) != id + 1) i = (i + 1) & mask
    table(i) = -1; tombs += 1; live -= 1
    if (bytesKeys) bytes(id) = null
    if (freeN == freeList.length) freeList = java.util.Arrays.copyOf(freeList, freeN * 2)
    freeList(freeN) = id; freeN += 1
    alive(id) = false
    if (tombs * 4 > table.length) rehash(table.length)
  }

  /** The key of `id` as the value a query returns, in the sketch's key type. */
  def value(id: Int, keyType: Int): Any =
    if (bytesKeys) {
      if (keyType == FreqKeys.Str) new String(bytes(id), java.nio.charset.StandardCharsets.UTF_8) else bytes(id).clone()
    } else FreqKeys.numericValue(keyType, longs(id))

  /** Orders ids by key: numeric keys by signed value, byte keys lexicographically (unsigned bytes). */
  def compareKeys(a: Int, b: Int): Int =
    if (bytesKeys) java.util.Arrays.compareUnsigned(bytes(a), bytes(b)) else java.lang.Long.compare(longs(a), longs(b))
}
