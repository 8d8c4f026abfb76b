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

/** An exact dictionary of the keys a sketch refers to: id -> key and key -> id. Numeric keys are
  * 64-bit values, string and binary keys byte arrays compared by content; nothing is hashed away, so
  * a key comes back exactly and two keys never share an id. Keys no entry refers to any more are
  * swept in bulk ([[sweep]], driven by the sketch). Open addressing over the ids.
  */
private[frequent] final class KeyDict(val bytesKeys: Boolean) {
  private var longs = new Array[Long](16)
  private var bytes: Array[Array[Byte]] = if (bytesKeys) new Array[Array[Byte]](16) else null
  private var hashes = new Array[Long](16)
  private var alive = new Array[Boolean](16)
  private var used = 0 // ids handed out so far (free ones are on the free list)
  private var freeList = new Array[Int](16)
  private var freeN = 0
  private var table = new Array[Int](32) // id + 1; 0 empty
  private var live = 0

  /** Keys held (some may wait for the next sweep). */
  def size: Int = live
  /** One more than the largest id handed out. */
  def capacity: Int = used

  def longKey(id: Int): Long = longs(id)
  def bytesKey(id: Int): Array[Byte] = bytes(id)
  def isLive(id: Int): Boolean = id >= 0 && id < used && alive(id)

  @inline private def slotOf(h: Long, mask: Int): Int = (Hashing.mix64(h) >>> 33).toInt & mask

  /** The slot of numeric key `v`: its id + 1 there, or 0 (where it would go). */
  private def probeLong(v: Long): Int = {
    val mask = table.length - 1
    var i = slotOf(v, mask)
    while (table(i) != 0 && longs(table(i) - 1) != v) i = (i + 1) & mask
    i
  }

  private def probeBytes(b: Array[Byte], h: Long): Int = {
    val mask = table.length - 1
    var i = slotOf(h, mask)
    while (table(i) != 0 && !(hashes(table(i) - 1) == h && java.util.Arrays.equals(bytes(table(i) - 1), b))) i = (i + 1) & mask
    i
  }

  /** The id of numeric key `v`, added if absent. */
  def idOfLong(v: Long): Int = { val i = probeLong(v); if (table(i) != 0) table(i) - 1 else insert(i, v, v, null) }

  /** The id of byte key `b` (kept by reference: the caller must not change it), added if absent. */
  def idOfBytes(b: Array[Byte]): Int = idOfBytes(b, Hashing.fingerprintBytes(b))

  /** [[idOfBytes]] of a key whose [[Hashing.fingerprintBytes]] is `h`. */
  def idOfBytes(b: Array[Byte], h: Long): Int = {
    val i = probeBytes(b, h)
    if (table(i) != 0) table(i) - 1 else insert(i, h, 0L, b)
  }

  /** The id of a numeric key, or -1. */
  def findLong(v: Long): Int = table(probeLong(v)) - 1
  /** The id of a byte key, or -1. */
  def findBytes(b: Array[Byte]): Int = table(probeBytes(b, Hashing.fingerprintBytes(b))) - 1

  private def insert(slot: Int, h: Long, v: Long, b: Array[Byte]): Int = {
    val id = if (freeN > 0) { freeN -= 1; freeList(freeN) } else {
      if (used == longs.length) growIds()
      used += 1; used - 1
    }
    longs(id) = v; hashes(id) = h; alive(id) = true
    if (bytesKeys) bytes(id) = b
    table(slot) = id + 1
    live += 1
    if (live * 2 > table.length) rehash(table.length * 2)
    id
  }

  private def growIds(): Unit = {
    val n = longs.length * 2
    longs = java.util.Arrays.copyOf(longs, n); hashes = java.util.Arrays.copyOf(hashes, n)
    alive = java.util.Arrays.copyOf(alive, n)
    if (bytesKeys) bytes = java.util.Arrays.copyOf(bytes, n)
  }

  private def rehash(n: Int): Unit = {
    table = new Array[Int](n)
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

  /** Frees every id not marked in `keep` (indexed by id) and rebuilds the table. */
  def sweep(keep: Array[Boolean]): Unit = {
    var id = 0
    while (id < used) {
      if (alive(id) && !(id < keep.length && keep(id))) {
        alive(id) = false; live -= 1
        if (bytesKeys) bytes(id) = null
        if (freeN == freeList.length) freeList = java.util.Arrays.copyOf(freeList, freeN * 2)
        freeList(freeN) = id; freeN += 1
      }
      id += 1
    }
    var n = 32
    while (n < live * 4) n *= 2
    rehash(n)
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
