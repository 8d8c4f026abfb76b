package ecmsketch.quantile

/** The coin source of a run: SplitMix64 over a 64-bit state that the sketch's bytes carry, so that a
  * decoded sketch continues exactly as the original would.
  */
private[quantile] final class Rng(var state: Long) {
  def next(): Long = {
    state += 0x9E3779B97F4A7C15L
    var z = state
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL
    z ^ (z >>> 31)
  }
}

/** One bucket of a run: the rows of one stream with timestamps in [tStart, tEnd] (the first and the
  * last row it took), of total weight `count`, kept as levels of samples. A sample of level h stands
  * for weight 2^h and is the (value, timestamp) of one of the bucket's rows; each level is ordered by
  * (value, timestamp). The level weights always add up to `count` exactly.
  *
  * Compaction (docs/design/windowed-quantiles.md, "Buckets") pairs the samples of one level in
  * order and keeps one of each pair by its own coin, at double weight. `v1` and `v2` ledger the
  * variance those coins can add to one query: v1 adds 4^h per compaction (a range that holds the
  * whole bucket splits at most one pair of it), v2 adds pairs * 4^h (a range boundary inside the
  * bucket may split every pair).
  */
private[quantile] final class Bucket(var tStart: Long, var tEnd: Long, var count: Long, var v1: Double, var v2: Double,
                                     var vals: Array[Array[Double]], var tss: Array[Array[Long]], var sizes: Array[Int]) {
  def levels: Int = sizes.length

  def samples: Int = { var s = 0; var h = 0; while (h < sizes.length) { s += sizes(h); h += 1 }; s }

  /** Weight of the samples with value <= x. */
  def rankAll(x: Double): Long = {
    var r = 0L; var h = 0
    while (h < sizes.length) { r += Samples.countAtMost(vals(h), sizes(h), x).toLong << h; h += 1 }
    r
  }

  /** Weight of the samples with timestamp >= lo and value <= x. */
  def rankFrom(lo: Long, x: Double): Long = {
    var r = 0L; var h = 0
    while (h < sizes.length) {
      val k = Samples.countAtMost(vals(h), sizes(h), x)
      val t = tss(h); var c = 0L; var i = 0
      while (i < k) { if (t(i) >= lo) c += 1; i += 1 }
      r += c << h
      h += 1
    }
    r
  }

  /** Weight of the samples with timestamp >= lo. */
  def weightFrom(lo: Long): Long = {
    var r = 0L; var h = 0
    while (h < sizes.length) {
      val t = tss(h); val n = sizes(h); var c = 0L; var i = 0
      while (i < n) { if (t(i) >= lo) c += 1; i += 1 }
      r += c << h
      h += 1
    }
    r
  }

  /** Compacts while the bucket holds more than the capacity and the ledger allows it: on the lowest
    * level of two samples or more, k value-adjacent pairs (as many as it takes to reach the capacity,
    * from the low or the high end of the level by a coin), if v1 + 4^h <= gamma1 B and
    * v2 + k 4^h <= gamma2 B with B = c min(c, 2 spanEpsilon newer), `newer` the weight after the
    * bucket in its run.
    */
  def compact(p: QuantileParams, newer: Long, rng: Rng): Unit = {
    val base = p.budgetBase(count, newer)
    var total = samples
    while (total > p.capacity) {
      var h = 0
      while (h < sizes.length && sizes(h) < 2) h += 1
      if (h >= sizes.length || h >= Bucket.TopLevel) return
      val n = sizes(h)
      val k = math.min(n / 2, total - p.capacity)
      val w2 = Bucket.pow4(h)
      if (v1 + w2 > p.gamma1 * base || v2 + k * w2 > p.gamma2 * base) return
      val lv = vals(h); val lt = tss(h)
      var bits = rng.next()
      val from = if ((bits & 1L) == 0L) 0 else n - 2 * k // the pairs: [from, from + 2k)
      bits >>>= 1
      var left = 63
      val kv = new Array[Double](k); val kt = new Array[Long](k)
      var j = 0
      while (j < k) {
        if (left == 0) { bits = rng.next(); left = 64 }
        val b = (bits & 1L).toInt
        bits >>>= 1; left -= 1
        kv(j) = lv(from + 2 * j + b); kt(j) = lt(from + 2 * j + b)
        j += 1
      }
      // the level keeps [0, from) and [from + 2k, n)
      System.arraycopy(lv, from + 2 * k, lv, from, n - from - 2 * k)
      System.arraycopy(lt, from + 2 * k, lt, from, n - from - 2 * k)
      sizes(h) = n - 2 * k
      ensureLevel(h + 1)
      val (mv, mt) = Samples.merge(vals(h + 1), tss(h + 1), sizes(h + 1), kv, kt, k)
      vals(h + 1) = mv; tss(h + 1) = mt; sizes(h + 1) += k
      v1 += w2; v2 += k * w2
      total -= k
    }
  }

  private def ensureLevel(h: Int): Unit =
    if (h >= sizes.length) {
      val n = h + 1
      vals = java.util.Arrays.copyOf(vals, n); tss = java.util.Arrays.copyOf(tss, n); sizes = java.util.Arrays.copyOf(sizes, n)
      var i = 0
      while (i < n) { if (vals(i) == null) { vals(i) = Samples.NoDoubles; tss(i) = Samples.NoLongs }; i += 1 }
    }

  def copy(): Bucket = new Bucket(tStart, tEnd, count, v1, v2,
    Array.tabulate(sizes.length)(h => java.util.Arrays.copyOf(vals(h), sizes(h))),
    Array.tabulate(sizes.length)(h => java.util.Arrays.copyOf(tss(h), sizes(h))), sizes.clone())

  /** Appends every sample (value, weight) of timestamp >= lo to the given buffers. */
  def collectFrom(lo: Long, all: Boolean, out: WeightedValues): Unit = {
    var h = 0
    while (h < sizes.length) {
      val v = vals(h); val t = tss(h); val n = sizes(h); val w = 1L << h
      var i = 0
      while (i < n) { if (all || t(i) >= lo) out.add(v(i), w); i += 1 }
      h += 1
    }
  }
}

private[quantile] object Bucket {
  /** Levels stop below 62: a sample of level 62 weighs 2^62, and no compaction lifts it higher. */
  final val TopLevel = 62

  def pow4(h: Int): Double = java.lang.Math.scalb(1.0, 2 * h)

  /** A bucket of rows [from, until) of time-ordered parallel arrays: each row of weight w is a sample on
    * every level h whose bit is set in w (weight 1: level 0), so the bucket is exact.
    */
  def fromRows(ts: Array[Long], vs: Array[Double], ws: Array[Long], from: Int, until: Int): Bucket = {
    var or = 0L; var count = 0L
    var i = from
    while (i < until) { or |= ws(i); count += ws(i); i += 1 }
    if (or == 1L) { // unit weights: one level
      val v = java.util.Arrays.copyOfRange(vs, from, until); val t = java.util.Arrays.copyOfRange(ts, from, until)
      Samples.sort(v, t, 0, v.length)
      return new Bucket(ts(from), ts(until - 1), count, 0.0, 0.0, Array(v), Array(t), Array(v.length))
    }
    val nLevels = 64 - java.lang.Long.numberOfLeadingZeros(or)
    val sizes = new Array[Int](nLevels)
    i = from
    while (i < until) { var w = ws(i); while (w != 0) { sizes(java.lang.Long.numberOfTrailingZeros(w)) += 1; w &= w - 1 }; i += 1 }
    val vals = Array.tabulate(nLevels)(h => if (sizes(h) == 0) Samples.NoDoubles else new Array[Double](sizes(h)))
    val tss = Array.tabulate(nLevels)(h => if (sizes(h) == 0) Samples.NoLongs else new Array[Long](sizes(h)))
    val fill = new Array[Int](nLevels)
    i = from
    while (i < until) {
      var w = ws(i)
      while (w != 0) {
        val h = java.lang.Long.numberOfTrailingZeros(w)
        vals(h)(fill(h)) = vs(i); tss(h)(fill(h)) = ts(i); fill(h) += 1
        w &= w - 1
      }
      i += 1
    }
    var h = 0
    while (h < nLevels) { Samples.sort(vals(h), tss(h), 0, sizes(h)); h += 1 }
    new Bucket(ts(from), ts(until - 1), count, 0.0, 0.0, vals, tss, sizes)
  }

  /** A value from its 64 bits, -0.0 taken as 0.0 (as adding a row takes it). */
  @inline def value(bits: Long): Double = { val v = java.lang.Double.longBitsToDouble(bits); if (v == 0.0) 0.0 else v }

  /** The exact bucket of rows [from, until) of weight 1, in any time order, with values as their 64
    * bits: the bucket [[fromRows]] makes of the same rows in time order.
    */
  def fromUnitRows(ts: Array[Long], bits: Array[Long], from: Int, until: Int): Bucket = {
    val n = until - from
    val v = new Array[Double](n); val t = java.util.Arrays.copyOfRange(ts, from, until)
    var lo = Long.MaxValue; var hi = Long.MinValue
    var i = 0
    while (i < n) { v(i) = value(bits(from + i)); val x = t(i); if (x < lo) lo = x; if (x > hi) hi = x; i += 1 }
    Samples.sort(v, t, 0, n)
    new Bucket(lo, hi, n.toLong, 0.0, 0.0, Array(v), Array(t), Array(n))
  }

  /** The union of adjacent buckets a (older) and b (newer) of one run: the ledgers add. */
  def union(a: Bucket, b: Bucket): Bucket = {
    val n = math.max(a.levels, b.levels)
    val vals = new Array[Array[Double]](n); val tss = new Array[Array[Long]](n); val sizes = new Array[Int](n)
    var h = 0
    while (h < n) {
      val na = if (h < a.levels) a.sizes(h) else 0
      val nb = if (h < b.levels) b.sizes(h) else 0
      if (na == 0 && nb == 0) { vals(h) = Samples.NoDoubles; tss(h) = Samples.NoLongs }
      else if (nb == 0) { vals(h) = a.vals(h); tss(h) = a.tss(h) }
      else if (na == 0) { vals(h) = b.vals(h); tss(h) = b.tss(h) }
      else { val (v, t) = Samples.merge(a.vals(h), a.tss(h), na, b.vals(h), b.tss(h), nb); vals(h) = v; tss(h) = t }
      sizes(h) = na + nb
      h += 1
    }
    new Bucket(a.tStart, b.tEnd, a.count + b.count, a.v1 + b.v1, a.v2 + b.v2, vals, tss, sizes)
  }
}

/** A growable list of (value, weight) pairs, for quantile queries. */
private[quantile] final class WeightedValues {
  var vs = new Array[Double](64)
  var ws = new Array[Long](64)
  var n = 0

  def add(v: Double, w: Long): Unit = {
    if (n == vs.length) { vs = java.util.Arrays.copyOf(vs, n * 2); ws = java.util.Arrays.copyOf(ws, n * 2) }
    vs(n) = v; ws(n) = w; n += 1
  }

  def total: Long = { var s = 0L; var i = 0; while (i < n) { s += ws(i); i += 1 }; s }

  /** Sorts by value (weights follow). */
  def sortByValue(): Unit = {
    // reuse the (value, long) sort: weights ride along as the tie-breaker, which is harmless
    Samples.sort(vs, ws, 0, n)
  }
}
