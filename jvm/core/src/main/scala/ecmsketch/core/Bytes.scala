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
  def toByteArray: Array[Byte] = java.util.Arrays.copyOf(buf, n)
}

/** A bounds-checked reader: every read that runs past the end, and every malformed varint, fails
  * with a [[SketchException]] naming the field and the byte offset (never an index exception).
  */
final class ByteReader(val bytes: Array[Byte]) {
  SketchException.require(bytes != null, "sketch bytes are null")
  private var pos = 0

  def position: Int = pos
  def remaining: Int = bytes.length - pos

  private def need(k: Int, what: String): Unit =
    if (k > bytes.length - pos)
      throw new SketchException(s"corrupt sketch: truncated at byte $pos while reading $what (${bytes.length} bytes in all)")

  def getByte(what: String): Int = { need(1, what); val v = bytes(pos) & 0xFF; pos += 1; v }
  def getShort(what: String): Int = { need(2, what); val v = (bytes(pos) & 0xFF) | ((bytes(pos + 1) & 0xFF) << 8); pos += 2; v }
  def getInt(what: String): Int = {
    need(4, what); var v = 0; var i = 0
    while (i < 4) { v |= (bytes(pos + i) & 0xFF) << (8 * i); i += 1 }
    pos += 4; v
  }
  def getLong(what: String): Long = {
    need(8, what); var v = 0L; var i = 0
    while (i < 8) { v |= (bytes(pos + i) & 0xFFL) << (8 * i); i += 1 }
    pos += 8; v
  }
  def getBytes(n: Int, what: String): Array[Byte] = {
    need(n, what); val b = java.util.Arrays.copyOfRange(bytes, pos, pos + n); pos += n; b
  }
  def getDouble(what: String): Double = java.lang.Double.longBitsToDouble(getLong(what))
  def getVarLong(what: String): Long = {
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
  /** A varint that must lie in [lo, hi]. */
  def getVarIn(what: String, lo: Long, hi: Long): Long = {
    val at = pos
    val v = getVarLong(what)
    if (v < lo || v > hi) throw new SketchException(s"corrupt sketch: $what = $v at byte $at is outside [$lo, $hi]")
    v
  }
  def expectEnd(): Unit =
    if (pos != bytes.length) throw new SketchException(s"corrupt sketch: ${bytes.length - pos} trailing bytes after byte $pos")
}
