package ecmsketch.quantile

import ecmsketch.core.{ByteReader, ByteWriter, SketchException}

/** How body version 3 writes a list of values (docs/FORMAT.md, "Windowed quantile sketch"): a code
  * byte `c`, then, when every value is a decimal of at most [[MaxDecimals]] digits after the point,
  * `c` is the fewest digits that write them all, and each value `v` is the integer `m = v 10^c`
  * (|m| < 2^51, so that m / 10^c gives v back exactly, and the double product v 10^c lies within
  * 3/8 of m, so that rounding it finds m): ascending lists as a zigzag varint of the
  * first and varint steps, others as zigzag varints. Otherwise `c` is [[Doubles]] and the values
  * are f64. Latencies in milliseconds of microsecond precision take 1 to 4 bytes instead of 8.
  */
private[quantile] object DecimalValues {
  final val MaxDecimals = 15
  /** The code of a list written as f64 values. */
  final val Doubles = 255
  private final val Limit = 1L << 51
  private val Pow10: Array[Double] = Array.tabulate(MaxDecimals + 1)(k => math.pow(10.0, k.toDouble)) // exact up to 10^22

  /** Whether v is m / 10^c for an integer |m| < 2^51. */
  @inline private def exactAt(v: Double, c: Int): Boolean = {
    val m = Math.rint(v * Pow10(c))
    Math.abs(m) < Limit && m / Pow10(c) == v
  }

  /** The fewest digits after the point that write every value of vs[from, until) exactly, or [[Doubles]]. */
  def scaleOf(vs: Array[Double], from: Int, until: Int): Int = {
    var c = 0
    var j = from
    while (j < until) {
      while (c <= MaxDecimals && !exactAt(vs(j), c)) c += 1
      if (c > MaxDecimals) return Doubles
      j += 1
    }
    // a value exact at fewer digits is exact at c too unless its integer reaches 2^51 (then no c works)
    j = from
    while (j < until) { if (!exactAt(vs(j), c)) return Doubles; j += 1 }
    c
  }

  /** Writes the code of vs[from, until) and returns it ([[writeValue]] then writes each value). */
  def writeCode(vs: Array[Double], from: Int, until: Int, out: ByteWriter): Int = {
    val c = scaleOf(vs, from, until)
    out.putByte(c)
    c
  }

  /** Writes value v of a list of code c, as a step from `prev` (its predecessor's integer, or
    * Long.MinValue for the first) when `ascending`. Returns v's integer (0 for f64 values).
    */
  def writeValue(v: Double, c: Int, prev: Long, ascending: Boolean, out: ByteWriter): Long =
    if (c == Doubles) { out.putDouble(v); 0L }
    else {
      val m = Math.rint(v * Pow10(c)).toLong
      if (ascending && prev != Long.MinValue) out.putVarLong(m - prev) else out.putVarLong(zigzag(m))
      m
    }

  /** Reads a list's code byte. */
  def readCode(in: ByteReader, what: => String): Int = {
    val c = in.getByte(what)
    if (c > MaxDecimals && c != Doubles)
      throw new SketchException(s"corrupt sketch: $what is $c, not 0 to $MaxDecimals (decimal digits) or $Doubles (f64 values)")
    c
  }

  /** Reads the integer of a value of a list of code c < [[Doubles]] (see [[writeValue]]). */
  def readInteger(in: ByteReader, prev: Long, ascending: Boolean, what: => String): Long = {
    val m =
      if (ascending && prev != Long.MinValue) {
        val d = in.getVarLong(what)
        if (d < 0 || d >= 2 * Limit) throw new SketchException(s"corrupt sketch: $what steps by ${java.lang.Long.toUnsignedString(d)}")
        prev + d
      } else unzigzag(in.getVarLong(what))
    if (m <= -Limit || m >= Limit) throw new SketchException(s"corrupt sketch: $what is $m, outside (-2^51, 2^51)")
    m
  }

  /** The value of integer m at c digits. */
  @inline def value(m: Long, c: Int): Double = m.toDouble / Pow10(c)

  /** Refuses a list whose code is not the one [[scaleOf]] gives its values (one encoding per sketch). */
  def requireCanonical(vs: Array[Double], from: Int, until: Int, c: Int, what: => String): Unit = {
    val want = scaleOf(vs, from, until)
    if (want != c)
      throw new SketchException(s"corrupt sketch: $what has code $c, not $want (not canonical)")
  }

  @inline private def zigzag(m: Long): Long = (m << 1) ^ (m >> 63)
  @inline private def unzigzag(z: Long): Long = (z >>> 1) ^ -(z & 1)
}
