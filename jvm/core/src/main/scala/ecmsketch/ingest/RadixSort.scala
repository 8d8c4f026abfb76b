package ecmsketch.ingest

/** Stable LSD radix sort of parallel arrays by timestamp: digits of at most 11 bits of (ts - min ts),
  * only as many passes as the range of the timestamps needs (3 for a range under 2^33). Where the
  * range and a row index fit one 64-bit key together, it sorts those keys and gathers the rows
  * once; otherwise it moves the rows in every pass. Already sorted input returns after one scan.
  * Scratch space: three arrays of n longs (kept per thread up to [[Ingest.MaxBuffer]] rows,
  * allocated per call above).
  */
object RadixSort {
  private final class Scratch(n: Int) { val t = new Array[Long](n); val a = new Array[Long](n); val b = new Array[Long](n) }
  private val small = new ThreadLocal[Scratch] { override def initialValue(): Scratch = new Scratch(Ingest.MaxBuffer) }
  /** Widest digit: 2^11 counters (8 KB) stay in the L1 cache. */
  private final val MaxDigitBits = 11

  /** Sorts rows [0, n) of the parallel arrays by `ts`, stably. `b` is not moved when all its values
    * are equal (unit weights), which gives the same arrays.
    */
  def sortByTs(ts: Array[Long], a: Array[Long], b: Array[Long], n: Int): Unit = {
    if (n < 2) return
    var mn = ts(0); var mx = ts(0); var sorted = true
    val b0 = b(0); var uniform = true
    var i = 1
    while (i < n) {
      val t = ts(i); if (t < mn) mn = t; if (t > mx) mx = t; if (t < ts(i - 1)) sorted = false
      if (b(i) != b0) uniform = false
      i += 1
    }
    if (sorted) return
    val sc = if (n <= Ingest.MaxBuffer) small.get() else new Scratch(n)
    // the range as an unsigned 64-bit number (timestamps may span more than 2^63)
    val bits = 64 - java.lang.Long.numberOfLeadingZeros(mx - mn)
    val ib = 32 - Integer.numberOfLeadingZeros(n - 1) // bits of a row index
    if (bits + ib <= 64) packed(ts, a, b, n, mn, bits, ib, uniform, sc) else wide(ts, a, b, n, mn, bits, uniform, sc)
  }

  /** Sorts keys[0, n) stably by their bits [lo, lo + bits) (unsigned), with `tmp` of at least n
    * longs; returns the array that holds the result (`keys` or `tmp`). Long inputs with more bits
    * than one digit take the top digit first, into buckets that each fit the cache, and sort each
    * bucket by the bits below (least significant digit first, or by insertion when short).
    */
  def sortKeys(keys: Array[Long], tmp: Array[Long], n: Int, lo: Int, bits: Int): Array[Long] = {
    if (bits <= 0) return keys
    val cnt = new Array[Int]((1 << MaxDigitBits) + 1)
    if (n < MsdMin || bits <= MaxDigitBits) return if (lsd(keys, tmp, 0, n, lo, bits, MaxDigitBits, cnt)) tmp else keys
    val rest = bits - MaxDigitBits
    // the top digit: one pass into tmp, after which cnt(d) is the end of bucket d
    lsd(keys, tmp, 0, n, lo + rest, MaxDigitBits, MaxDigitBits, cnt)
    val ends = java.util.Arrays.copyOf(cnt, 1 << MaxDigitBits)
    var from = 0
    var k = 0
    while (k < ends.length) {
      val until = ends(k)
      if (until - from <= InsertionMax) insertion(tmp, from, until, lo, rest)
      else {
        val digit = math.max(4, math.min(MaxDigitBits, 32 - Integer.numberOfLeadingZeros(until - from)))
        if (lsd(tmp, keys, from, until, lo, rest, digit, cnt)) System.arraycopy(keys, from, tmp, from, until - from)
      }
      from = until
      k += 1
    }
    tmp
  }

  /** Inputs of at least this many keys take their top digit first ([[sortKeys]]). */
  private final val MsdMin = 1 << 16
  /** Buckets of at most this many keys sort by insertion. */
  private final val InsertionMax = 32

  /** Sorts src[from, until) stably by bits [lo, lo + bits) in passes of at most `maxDigit` bits,
    * ping-ponging with dst[from, until); returns whether the result is in `dst`. `cnt` holds at
    * least 2^maxDigit + 1 counters.
    */
  private def lsd(src0: Array[Long], dst0: Array[Long], from: Int, until: Int, lo: Int, bits: Int, maxDigit: Int,
                  cnt: Array[Int]): Boolean = {
    val passes = (bits + maxDigit - 1) / maxDigit
    val digit = (bits + passes - 1) / passes
    val buckets = 1 << digit
    var src = src0; var dst = dst0
    var p = 0
    while (p < passes) {
      val sh = lo + digit * p
      // the last pass may be narrower: no bit above the field takes part
      val mask = (1L << math.min(digit, lo + bits - sh)) - 1
      java.util.Arrays.fill(cnt, 0, buckets + 1, 0)
      var i = from
      while (i < until) { cnt(((src(i) >>> sh) & mask).toInt + 1) += 1; i += 1 }
      cnt(0) = from
      var k = 0
      while (k < buckets) { cnt(k + 1) += cnt(k); k += 1 }
      i = from
      while (i < until) {
        val x = src(i)
        val d = ((x >>> sh) & mask).toInt
        val o = cnt(d); cnt(d) = o + 1
        dst(o) = x
        i += 1
      }
      val s1 = src; src = dst; dst = s1
      p += 1
    }
    passes % 2 == 1
  }

  /** Sorts a[from, until) stably by bits [lo, lo + bits) by insertion. */
  private def insertion(a: Array[Long], from: Int, until: Int, lo: Int, bits: Int): Unit = {
    val mask = if (bits >= 64) -1L else (1L << bits) - 1
    var i = from + 1
    while (i < until) {
      val x = a(i); val kx = (x >>> lo) & mask
      var j = i - 1
      while (j >= from && java.lang.Long.compareUnsigned((a(j) >>> lo) & mask, kx) > 0) { a(j + 1) = a(j); j -= 1 }
      a(j + 1) = x
      i += 1
    }
  }

  /** Sorts keys (ts - mn) << ib | row, then gathers the rows once. */
  private def packed(ts: Array[Long], a: Array[Long], b: Array[Long], n: Int, mn: Long, bits: Int, ib: Int,
                     uniform: Boolean, sc: Scratch): Unit = {
    val keys = sc.t
    var i = 0
    while (i < n) { keys(i) = ((ts(i) - mn) << ib) | i.toLong; i += 1 }
    val r = sortKeys(keys, sc.a, n, ib, bits)
    val free = if (r eq keys) sc.a else keys
    val rowMask = (1L << ib) - 1
    i = 0
    while (i < n) { free(i) = a((r(i) & rowMask).toInt); i += 1 }
    if (!uniform) { i = 0; while (i < n) { sc.b(i) = b((r(i) & rowMask).toInt); i += 1 } }
    i = 0
    while (i < n) { ts(i) = mn + (r(i) >>> ib); i += 1 }
    System.arraycopy(free, 0, a, 0, n)
    if (!uniform) System.arraycopy(sc.b, 0, b, 0, n)
  }

  /** Moves the rows in every pass (ranges too wide to pack with a row index). */
  private def wide(ts: Array[Long], a: Array[Long], b: Array[Long], n: Int, mn: Long, bits: Int,
                   uniform: Boolean, sc: Scratch): Unit = {
    val passes = (bits + MaxDigitBits - 1) / MaxDigitBits
    val digit = (bits + passes - 1) / passes
    val mask = (1L << digit) - 1
    val buckets = 1 << digit
    var srcT = ts; var srcA = a; var srcB = b
    var dstT = sc.t; var dstA = sc.a; var dstB = sc.b
    val cnt = new Array[Int](buckets + 1)
    var i = 0
    var p = 0
    while (p < passes) {
      val sh = digit * p
      java.util.Arrays.fill(cnt, 0)
      i = 0
      while (i < n) { cnt((((srcT(i) - mn) >>> sh) & mask).toInt + 1) += 1; i += 1 }
      var k = 0
      while (k < buckets) { cnt(k + 1) += cnt(k); k += 1 }
      i = 0
      // two copies of the scatter loop, with and without `b`, so that neither tests `uniform` per row
      if (uniform) {
        while (i < n) {
          val t = srcT(i)
          val d = (((t - mn) >>> sh) & mask).toInt
          val o = cnt(d); cnt(d) = o + 1
          dstT(o) = t; dstA(o) = srcA(i)
          i += 1
        }
      } else {
        while (i < n) {
          val t = srcT(i)
          val d = (((t - mn) >>> sh) & mask).toInt
          val o = cnt(d); cnt(d) = o + 1
          dstT(o) = t; dstA(o) = srcA(i); dstB(o) = srcB(i)
          i += 1
        }
        val b1 = srcB; srcB = dstB; dstB = b1
      }
      val t1 = srcT; srcT = dstT; dstT = t1
      val a1 = srcA; srcA = dstA; dstA = a1
      p += 1
    }
    if (srcT ne ts) { System.arraycopy(srcT, 0, ts, 0, n); System.arraycopy(srcA, 0, a, 0, n) }
    if (srcB ne b) System.arraycopy(srcB, 0, b, 0, n)
  }
}
