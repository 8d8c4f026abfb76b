package ecmsketch.core

/** A growable little-endian byte sink with unsigned LEB128 varints. */
final class ByteWriter(initial: Int = 256) {
  private var buf = new Array[Byte](math.max(16, initial))
  private var n = 0

  private def ensure(k: Int): Unit =
    if (n + k > buf.length) buf = java.util.Arrays.copyOf(buf, math.max(buf.length * 2, n + k))

  def size: Int = n
  def putByte(v: Int): Unit = { ensure(1); buf(n) = v.toByte; n += 1 }
  def putShort(v: Int): Unit = { putByte(v); putByte(v >>> 8) }
  def putInt(v: Int): Unit = { ensure(4); var i = 0; while (i < 4) { buf(n) = (v >>> (8 * i)).toByte; n += 1; i += 1 } }
  def putLong(v: Long): Unit = { ensure(8); var i = 0; while (i < 8) { buf(n) = (v >>> (8 * i)).toByte; n += 1; i += 1 } }
  def putDouble(v: Double): Unit = putLong(java.lang.Double.doubleToLongBits(v))
  def putBytes(b: Array[Byte]): Unit = { ensure(b.length); System.arraycopy(b, 0, buf, n, b.length); n += b.length }
  /** Unsigned LEB128: 7 bits a byte, low bits first, high bit set on every byte but the last. */
  def putVarLong(v: Long): Unit = {
    ensure(10)
    var x = v
    while ((x & ~0x7FL) != 0L) { buf(n) = ((x & 0x7F) | 0x80).toByte; n += 1; x >>>= 7 }
    buf(n) = x.toByte; n += 1
  }
  /** Appends the CRC32C of every byte written so far (u32, little-endian). */
  def putChecksum(): Unit = putInt(Checksum.crc32c(buf, 0, n))
  def toByteArray: Array[Byte] = java.util.Arrays.copyOf(buf, n)
}

/** CRC32C (Castagnoli, `java.util.zip.CRC32C`) of byte ranges: the integrity check of format version 4
  * and of checksummed partial-aggregate bundles (docs/FORMAT.md).
  */
object Checksum {
  def crc32c(b: Array[Byte], from: Int, until: Int): Int = {
    val crc = new java.util.zip.CRC32C()
    crc.update(b, from, until - from)
    crc.getValue.toInt
  }

  /** The u32 stored little-endian at `at`. */
  def stored(b: Array[Byte], at: Int): Int =
    (b(at) & 0xFF) | (b(at + 1) & 0xFF) << 8 | (b(at + 2) & 0xFF) << 16 | (b(at + 3) & 0xFF) << 24

  /** The message of a mismatch, after `prefix` ("corrupt sketch: ", "corrupt partial aggregate: "). */
  def mismatch(prefix: String, stored: Int, computed: Int, length: Int): String =
    f"${prefix}checksum mismatch (stored 0x$stored%08x, computed 0x$computed%08x over $length%d bytes): " +
      "the bytes changed after they were written"
}

/** A bounds-checked reader: every read that runs past the end, and every malformed varint, fails
  * with a [[SketchException]] naming the field and the byte offset (never an index exception).
  */
final class ByteReader(val bytes: Array[Byte], limit: Int) {
  SketchException.require(bytes != null, "sketch bytes are null")
  SketchException.require(limit >= 0 && limit <= bytes.length, s"read limit $limit outside [0, ${bytes.length}]")
  private var pos = 0

  /** A reader of all of `bytes`. */
  def this(bytes: Array[Byte]) = this(bytes, if (bytes == null) 0 else bytes.length)

  def position: Int = pos
  def remaining: Int = limit - pos

  // `what` names the field in an error and is only built for one (by name: decoding allocates no text)
  private def need(k: Int, what: => String): Unit =
    if (k > limit - pos)
      throw new SketchException(s"corrupt sketch: truncated at byte $pos while reading $what ($limit bytes in all)")

  def getByte(what: => String): Int = { need(1, what); val v = bytes(pos) & 0xFF; pos += 1; v }
  def getShort(what: => String): Int = { need(2, what); val v = (bytes(pos) & 0xFF) | ((bytes(pos + 1) & 0xFF) << 8); pos += 2; v }
  def getInt(what: => String): Int = {
    need(4, what); var v = 0; var i = 0
    while (i < 4) { v |= (bytes(pos + i) & 0xFF) << (8 * i); i += 1 }
    pos += 4; v
  }
  def getLong(what: => String): Long = {
    need(8, what); var v = 0L; var i = 0
    while (i < 8) { v |= (bytes(pos + i) & 0xFFL) << (8 * i); i += 1 }
    pos += 8; v
  }
  def getBytes(n: Int, what: => String): Array[Byte] = {
    need(n, what); val b = java.util.Arrays.copyOfRange(bytes, pos, pos + n); pos += n; b
  }
  def getDouble(what: => String): Double = java.lang.Double.longBitsToDouble(getLong(what))
  def getVarLong(what: => String): Long = {
    var shift = 0; var v = 0L
    while (true) {
      val b = getByte(what)
      if (shift == 63 && (b & 0x7E) != 0) throw new SketchException(s"corrupt sketch: varint overflow at byte ${pos - 1} in $what")
      v |= (b & 0x7FL) << shift
      if ((b & 0x80) == 0) return v
      shift += 7
      if (shift > 63) throw new SketchException(s"corrupt sketch: varint longer than 10 bytes at byte $pos in $what")
    }
    v
  }
  /** Whether a varint that [[getVarLong]] would read without error (complete, at most 10 bytes,
    * within 64 bits) starts at the position: [[getReadyVarLong]] then reads it with no field name.
    */
  def varLongReady: Boolean = {
    var i = pos
    while (i < limit && i - pos < 10) {
      val b = bytes(i)
      if ((b & 0x80) == 0) return i - pos < 9 || (b & 0x7E) == 0
      i += 1
    }
    false
  }
  /** Reads a varint that [[varLongReady]] found well formed. */
  def getReadyVarLong(): Long = {
    var shift = 0; var v = 0L; var b = 0
    while ({ b = bytes(pos) & 0xFF; pos += 1; v |= (b & 0x7FL) << shift; shift += 7; (b & 0x80) != 0 }) ()
    v
  }
  /** A varint that must lie in [lo, hi]. */
  def getVarIn(what: => String, lo: Long, hi: Long): Long = {
    val at = pos
    val v = getVarLong(what)
    if (v < lo || v > hi) throw new SketchException(s"corrupt sketch: $what = $v at byte $at is outside [$lo, $hi]")
    v
  }
  def expectEnd(): Unit =
    if (pos != limit) throw new SketchException(s"corrupt sketch: ${limit - pos} trailing bytes after byte $pos")
}
