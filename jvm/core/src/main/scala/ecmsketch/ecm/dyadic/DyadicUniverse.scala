package ecmsketch.ecm.dyadic

import scala.collection.mutable.ArrayBuffer

import ecmsketch.core.SketchException

/** The universe of a dyadic sketch: the order-preserving maps of BIGINT and DOUBLE keys to unsigned
  * indexes of `bits` bits, and the dyadic pieces of an index interval (docs/design/dyadic.md).
  */
object DyadicUniverse {
  /** Level-i prefix of index u: floor(u / 2^i) (unsigned; 0 at i = 64). */
  @inline def prefix(u: Long, i: Int): Long = if (i >= 64) 0L else u >>> i

  /** Smallest and largest BIGINT key of a universe of `bits` bits. */
  def keyRange(bits: Int): (Long, Long) =
    if (bits >= 64) (Long.MinValue, Long.MaxValue) else (-(1L << (bits - 1)), (1L << (bits - 1)) - 1)

  def longIndex(key: Long, bits: Int): Long =
    if (bits >= 64) key ^ Long.MinValue
    else {
      val (lo, hi) = keyRange(bits)
      if (key < lo || key > hi) throw new SketchException(
        s"key $key is outside the dyadic sketch's universe [$lo, $hi] (universe_bits => $bits); " +
          s"build the sketch with a larger universe_bits (up to 64 covers every BIGINT)")
      key - lo
    }

  def longKey(u: Long, bits: Int): Long = if (bits >= 64) u ^ Long.MinValue else u + keyRange(bits)._1

  /** Order-preserving map of a double to an unsigned 64-bit integer (-0.0 as 0.0; NaN refused). */
  def orderedBits(x: Double): Long = {
    SketchException.require(!x.isNaN, "a dyadic sketch key must not be NaN")
    val b = java.lang.Double.doubleToLongBits(if (x == 0.0) 0.0 else x)
    if (b < 0) ~b else b ^ Long.MinValue
  }

  def doubleIndex(x: Double, bits: Int): Long = { val o = orderedBits(x); if (bits >= 64) o else o >>> (64 - bits) }

  private val NegInfOrdered = orderedBits(Double.NegativeInfinity)

  /** The smallest double of bucket u (-Infinity / +Infinity for the buckets of the two infinities). */
  def doubleKey(u: Long, bits: Int): Double = {
    val lo = if (bits >= 64) u else u << (64 - bits)
    val o = if (java.lang.Long.compareUnsigned(lo, NegInfOrdered) < 0) NegInfOrdered else lo
    val b = if (o < 0) o ^ Long.MinValue else ~o
    val d = java.lang.Double.longBitsToDouble(b)
    if (d.isNaN) Double.PositiveInfinity else d
  }

  /** Maximal dyadic pieces (level, prefix) of the unsigned index interval [lo, hi] in a universe of
    * `bits` bits: at most two per level below the top, or the whole universe as one piece.
    */
  def decompose(lo: Long, hi: Long, bits: Int): Seq[(Int, Long)] = {
    val out = ArrayBuffer[(Int, Long)]()
    val maxIdx = if (bits >= 64) -1L else (1L << bits) - 1
    if (lo == 0L && hi == maxIdx) { out += ((bits, 0L)); return out.toSeq }
    var a = lo; var done = false
    while (!done) {
      // largest level i with a aligned to 2^i and a + 2^i - 1 <= hi
      var i = 0
      while (i + 1 < bits && (a & ((1L << (i + 1)) - 1)) == 0 &&
             java.lang.Long.compareUnsigned(a + ((1L << (i + 1)) - 1), hi) <= 0) i += 1
      out += ((i, prefix(a, i)))
      val end = a + ((1L << i) - 1)
      if (end == hi) done = true else a = end + 1
    }
    out.toSeq
  }
}
