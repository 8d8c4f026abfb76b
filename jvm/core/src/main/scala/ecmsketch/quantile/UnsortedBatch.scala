package ecmsketch.quantile

import ecmsketch.ingest.RadixSort

/** Fills an empty run with rows of weight 1 in any time order (the ingest layer's reorder buffer
  * before a main run exists) in the state that sorting them by time, stably, and
  * [[QuantileRun.addBulk]] give, byte for byte, without sorting every row by time.
  *
  * The rows are scattered by the top bits of their timestamps into slices, which lie in time order;
  * a row's place among the rows by time is then its slice's place, up to the order within the slice.
  * Bucket boundaries depend only on how many rows lie after them (every weight is 1), so they are
  * known before any row is placed. Only the slices that a boundary cuts, and those of the raw region,
  * are sorted by time. The others need no order: a bucket sorts its samples by (value, timestamp).
  */
private[quantile] object UnsortedBatch {
  /** Slices: 2^11, so that each one of a large batch of spread timestamps stays in the cache while
    * it is sorted.
    */
  private final val SliceBits = 11

  /** The slices of timestamps ts[0, n), from `mn` to `mx`: the start of each slice's rows once
    * scattered, and n at the end; or null when they do not spread (one slice would hold more than
    * three quarters of the rows: a far outlier, one timestamp), as such rows are better sorted whole.
    */
  def slices(ts: Array[Long], n: Int, mn: Long, mx: Long): Array[Int] = {
    val (shift, m) = slicing(mx - mn)
    val start = new Array[Int](m + 1)
    var i = 0
    while (i < n) { start(((ts(i) - mn) >>> shift).toInt + 1) += 1; i += 1 }
    var most = 0
    var s = 0
    while (s < m) { most = math.max(most, start(s + 1)); start(s + 1) += start(s); s += 1 }
    if (most.toLong * 4 > n.toLong * 3) null else start
  }

  /** The shift and the number of slices of a range of timestamps (unsigned). */
  private def slicing(range: Long): (Int, Int) = {
    val rangeBits = 64 - java.lang.Long.numberOfLeadingZeros(range)
    (math.max(0, rangeBits - SliceBits), 1 << math.min(rangeBits, SliceBits))
  }

  /** Fills the empty run `r` with rows [0, n): timestamps from `mn` to `mx` with the slices `start`
    * ([[slices]]), values as their 64 bits (none NaN), each of weight 1, with n at least
    * `r.p.rawCapacity`.
    */
  def fill(r: QuantileRun, ts: Array[Long], bits: Array[Long], n: Int, mn: Long, mx: Long, start: Array[Int]): Unit = {
    val p = r.p
    val keep = p.rawCapacity / 2
    val k = n - keep // rows [0, k) by time are sealed, [k, n) stay raw
    // bucket starts, newest first, as QuantileRun.seal cuts them
    val cuts = QuantileRun.cuts(p, null, 0, k, keep.toLong)
    val nCuts = cuts.length
    // scattered by slice, stably (each slice keeps the rows' order)
    val (shift, slices) = slicing(mx - mn)
    val fill = java.util.Arrays.copyOf(start, slices)
    val sTs = new Array[Long](n); val sBits = new Array[Long](n)
    var i = 0
    while (i < n) {
      val d = ((ts(i) - mn) >>> shift).toInt
      val o = fill(d); fill(d) = o + 1
      sTs(o) = ts(i); sBits(o) = bits(i)
      i += 1
    }
    // sort by time the slices that a boundary cuts (a bucket start or k) and those of the raw region
    var most = 0
    var s = 0
    while (s < slices) { most = math.max(most, start(s + 1) - start(s)); s += 1 }
    val tT = new Array[Long](most); val tB = new Array[Long](most); val zeros = new Array[Long](most)
    var b = nCuts - 2 // the bucket starts above 0, ascending from cuts(nCuts - 2)
    s = 0
    while (s < slices) {
      val from = start(s); val until = start(s + 1)
      while (b >= 0 && cuts(b) <= from) b -= 1
      val cut = until > k || (b >= 0 && cuts(b) < until)
      if (cut && until - from > 1) {
        // sorted by time, stably, in scratch arrays of the largest slice's size
        val m = until - from
        System.arraycopy(sTs, from, tT, 0, m); System.arraycopy(sBits, from, tB, 0, m)
        RadixSort.sortByTs(tT, tB, zeros, m)
        System.arraycopy(tT, 0, sTs, from, m); System.arraycopy(tB, 0, sBits, from, m)
      }
      s += 1
    }
    // the buckets, oldest first, each from its rows in any order
    val fresh = new Array[Bucket](nCuts)
    var j = nCuts - 1
    i = 0
    while (j >= 0) {
      fresh(i) = Bucket.fromUnitRows(sTs, sBits, cuts(j), if (j == 0) k else cuts(j - 1))
      i += 1
      j -= 1
    }
    r.bs = fresh; r.nb = nCuts; r.bucketWeight = k.toLong
    // the raw region: rows [k, n), in time order
    val cap = math.max(keep, 16)
    r.rawTs = new Array[Long](cap); r.rawV = new Array[Double](cap); r.rawW = new Array[Long](cap)
    i = 0
    while (i < keep) {
      r.rawTs(i) = sTs(k + i); r.rawV(i) = Bucket.value(sBits(k + i)); r.rawW(i) = 1L
      i += 1
    }
    r.rawStart = 0; r.rawEnd = keep; r.rawWeight = keep.toLong
    r.lastTs = mx
    r.join()
    r.compactAll()
  }
}
