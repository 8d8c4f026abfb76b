package ecmsketch.quantile

import ecmsketch.ingest.RadixSort

/** Array helpers for samples: (value, timestamp) pairs in two parallel arrays, ordered by value,
  * then timestamp. Values are never NaN and never -0.0 (adds map -0.0 to 0.0), so `<` is a total order.
  */
private[quantile] object Samples {
  final val NoDoubles = new Array[Double](0)
  final val NoLongs = new Array[Long](0)

  @inline def less(v1: Double, t1: Long, v2: Double, t2: Long): Boolean = v1 < v2 || (v1 == v2 && t1 < t2)

  /** Sorts vs/ts over [from, until) by (value, timestamp). Longer stretches sort 64-bit keys instead:
    * the value rounded to a float (a monotone map) over the position, with java.util.Arrays.sort; the
    * pairs are then gathered in that order, and each stretch of one float is sorted by (value,
    * timestamp) where it is not in order already.
    */
  def sort(vs: Array[Double], ts: Array[Long], from: Int, until: Int): Unit = {
    val n = until - from
    if (n <= 1) return
    if (n < KeySortMin) { quick(vs, ts, from, until - 1); return }
    var keys = new Array[Long](n)
    var i = 0
    if (n < RadixMin) {
      while (i < n) { keys(i) = (floatKey(vs(from + i)).toLong << 32) | i.toLong; i += 1 }
      java.util.Arrays.sort(keys)
    } else {
      // the same order, by a radix sort of the float keys as unsigned numbers over the positions
      while (i < n) { keys(i) = ((floatKey(vs(from + i)) ^ Int.MinValue).toLong << 32) | i.toLong; i += 1 }
      keys = RadixSort.sortKeys(keys, new Array[Long](n), n, 32, 32)
    }
    val v2 = new Array[Double](n); val t2 = new Array[Long](n)
    i = 0
    while (i < n) { val j = from + (keys(i) & 0xFFFFFFFFL).toInt; v2(i) = vs(j); t2(i) = ts(j); i += 1 }
    System.arraycopy(v2, 0, vs, from, n); System.arraycopy(t2, 0, ts, from, n)
    // pairs whose values round to one float keep their positions' order: sort them where needed
    i = 0
    while (i < n) {
      var j = i + 1
      var ordered = true
      while (j < n && (keys(j) >>> 32) == (keys(i) >>> 32)) {
        if (less(vs(from + j), ts(from + j), vs(from + j - 1), ts(from + j - 1))) ordered = false
        j += 1
      }
      if (!ordered) quick(vs, ts, from + i, from + j - 1)
      i = j
    }
  }

  /** Stretches of at least this many sort their keys by radix rather than by comparisons. */
  private final val RadixMin = 1024

  /** Stretches shorter than this sort by comparisons of (value, timestamp) pairs. */
  private final val KeySortMin = 48

  /** A signed 32-bit key in the order of `v`'s float rounding: a monotone map of v for the values
    * samples hold (never NaN; never -0.0, whose key would fall below 0.0's).
    */
  @inline private def floatKey(v: Double): Int = {
    val b = java.lang.Float.floatToRawIntBits(v.toFloat)
    if (b < 0) b ^ 0x7FFFFFFF else b
  }

  private def quick(vs: Array[Double], ts: Array[Long], lo0: Int, hi0: Int): Unit = {
    var lo = lo0; var hi = hi0
    while (hi - lo > 16) {
      val mid = (lo + hi) >>> 1
      // median of three to lo
      if (less(vs(mid), ts(mid), vs(lo), ts(lo))) swap(vs, ts, mid, lo)
      if (less(vs(hi), ts(hi), vs(lo), ts(lo))) swap(vs, ts, hi, lo)
      if (less(vs(hi), ts(hi), vs(mid), ts(mid))) swap(vs, ts, hi, mid)
      val pv = vs(mid); val pt = ts(mid)
      var i = lo; var j = hi
      while (i <= j) {
        while (less(vs(i), ts(i), pv, pt)) i += 1
        while (less(pv, pt, vs(j), ts(j))) j -= 1
        if (i <= j) { swap(vs, ts, i, j); i += 1; j -= 1 }
      }
      // recurse into the smaller side, loop on the larger
      if (j - lo < hi - i) { quick(vs, ts, lo, j); lo = i } else { quick(vs, ts, i, hi); hi = j }
    }
    var k = lo + 1
    while (k <= hi) {
      val v = vs(k); val t = ts(k)
      var m = k - 1
      while (m >= lo && less(v, t, vs(m), ts(m))) { vs(m + 1) = vs(m); ts(m + 1) = ts(m); m -= 1 }
      vs(m + 1) = v; ts(m + 1) = t
      k += 1
    }
  }

  @inline private def swap(vs: Array[Double], ts: Array[Long], i: Int, j: Int): Unit = {
    val v = vs(i); vs(i) = vs(j); vs(j) = v
    val t = ts(i); ts(i) = ts(j); ts(j) = t
  }

  /** Merges sorted a[0, na) and b[0, nb) into fresh arrays of length na + nb (a's first on ties). */
  def merge(av: Array[Double], at: Array[Long], na: Int, bv: Array[Double], bt: Array[Long], nb: Int): (Array[Double], Array[Long]) = {
    val n = na + nb
    val ov = new Array[Double](n); val ot = new Array[Long](n)
    var i = 0; var j = 0; var o = 0
    while (i < na && j < nb) {
      if (less(bv(j), bt(j), av(i), at(i))) { ov(o) = bv(j); ot(o) = bt(j); j += 1 }
      else { ov(o) = av(i); ot(o) = at(i); i += 1 }
      o += 1
    }
    while (i < na) { ov(o) = av(i); ot(o) = at(i); i += 1; o += 1 }
    while (j < nb) { ov(o) = bv(j); ot(o) = bt(j); j += 1; o += 1 }
    (ov, ot)
  }

  /** Number of values <= x in sorted vs[0, n). */
  def countAtMost(vs: Array[Double], n: Int, x: Double): Int = {
    var lo = 0; var hi = n
    while (lo < hi) { val m = (lo + hi) >>> 1; if (vs(m) <= x) lo = m + 1 else hi = m }
    lo
  }

  /** The first index in the non-decreasing ts[from, until) with ts >= t. */
  def firstAtLeast(ts: Array[Long], from: Int, until: Int, t: Long): Int = {
    var lo = from; var hi = until
    while (lo < hi) { val m = (lo + hi) >>> 1; if (ts(m) < t) lo = m + 1 else hi = m }
    lo
  }
}
