package ecmsketch.quantile

import ecmsketch.core.{SketchException, Windows}
import ecmsketch.ingest.RadixSort

/** One run: the rows of one stream in time order (docs/design/windowed-quantiles.md, "Runs").
  * The newest rows stay raw (timestamp, value, weight); when the raw region fills, its older half is
  * sealed into buckets, and a pass from the newest bucket to the oldest joins adjacent buckets while
  * the joined weight is at most 2 spanEpsilon times the weight newer than it in the run. Buckets are
  * kept oldest first; every bucket starts at or after the end of the one before it.
  *
  * `gen` is the run's generation ([[FoldPlan]]): 0 for a run that took rows, g for a fold of runs of
  * generations below g; `p` spends the share of the variance budget of that generation.
  */
private[quantile] final class QuantileRun(val p: QuantileParams, val rng: Rng, val gen: Int) {
  // raw rows over [rawStart, rawEnd), time order
  private[quantile] var rawTs: Array[Long] = new Array[Long](16)
  private[quantile] var rawV: Array[Double] = new Array[Double](16)
  private[quantile] var rawW: Array[Long] = new Array[Long](16)
  private[quantile] var rawStart = 0
  private[quantile] var rawEnd = 0
  private[quantile] var rawWeight = 0L
  // buckets [0, nb), oldest first
  private[quantile] var bs: Array[Bucket] = new Array[Bucket](8)
  private[quantile] var nb = 0
  private[quantile] var bucketWeight = 0L
  /** The newest timestamp the run took (Long.MinValue when it took none). */
  private[quantile] var lastTs = Long.MinValue

  def rawCount: Int = rawEnd - rawStart
  def bucketCount: Int = nb
  def bucket(i: Int): Bucket = bs(i)
  def weight: Long = rawWeight + bucketWeight
  def isEmpty: Boolean = rawEnd == rawStart && nb == 0
  def storedSamples: Long = { var s = rawCount.toLong; var i = 0; while (i < nb) { s += bs(i).samples; i += 1 }; s }
  /** Oldest retained timestamp (Long.MaxValue when empty). */
  def firstTs: Long = if (nb > 0) bs(0).tStart else if (rawEnd > rawStart) rawTs(rawStart) else Long.MaxValue
  /** The end of the oldest bucket, else the oldest raw timestamp (Long.MaxValue when empty): the first
    * thing to expire.
    */
  def oldestEnd: Long = if (nb > 0) bs(0).tEnd else if (rawEnd > rawStart) rawTs(rawStart) else Long.MaxValue
  def bucketsEnd: Long = if (nb > 0) bs(nb - 1).tEnd else Long.MinValue

  /** Adds a row (timestamp not before the run's last); the caller expires what falls out of the window. */
  def add(ts: Long, v: Double, w: Long): Unit = {
    if (rawEnd == rawTs.length) growRaw()
    rawTs(rawEnd) = ts; rawV(rawEnd) = v; rawW(rawEnd) = w
    rawEnd += 1; rawWeight += w
    lastTs = ts
    if (rawEnd - rawStart >= p.rawCapacity) seal((rawEnd - rawStart) / 2)
  }

  /** Adds the rows of positive weight among [from, until) of time-sorted parallel arrays (values as
    * their 64 bits; none NaN, none before the run's last timestamp) to the raw region at once; if it
    * then holds the raw capacity or more, all but half the capacity are sealed, as [[fold]] seals,
    * and every bucket is compacted as its ledgers allow. The caller expires what falls out of the
    * window.
    */
  def addBulk(ts: Array[Long], bits: Array[Long], ws: Array[Long], from: Int, until: Int): Unit = {
    val n = rawEnd - rawStart
    val need = n + (until - from)
    if (rawStart > 0 || need > rawTs.length) {
      val cap = math.max(16, need)
      val t = new Array[Long](cap); val v = new Array[Double](cap); val w = new Array[Long](cap)
      System.arraycopy(rawTs, rawStart, t, 0, n); System.arraycopy(rawV, rawStart, v, 0, n); System.arraycopy(rawW, rawStart, w, 0, n)
      rawTs = t; rawV = v; rawW = w
      rawStart = 0; rawEnd = n
    }
    var i = from
    while (i < until) {
      val w = ws(i)
      if (w > 0) {
        rawTs(rawEnd) = ts(i); rawV(rawEnd) = Bucket.value(bits(i)); rawW(rawEnd) = w
        rawEnd += 1; rawWeight += w
        lastTs = ts(i)
      }
      i += 1
    }
    if (rawEnd - rawStart >= p.rawCapacity) {
      seal(rawEnd - rawStart - p.rawCapacity / 2)
      compactAll()
      // the raw region back in arrays of its own size
      val m = rawEnd - rawStart
      val keep = math.max(m, 16)
      rawTs = java.util.Arrays.copyOfRange(rawTs, rawStart, rawStart + keep)
      rawV = java.util.Arrays.copyOfRange(rawV, rawStart, rawStart + keep)
      rawW = java.util.Arrays.copyOfRange(rawW, rawStart, rawStart + keep)
      rawStart = 0; rawEnd = m
    }
  }

  private def growRaw(): Unit = {
    val n = rawEnd - rawStart
    if (rawStart > 0 && n <= rawTs.length / 2) {
      System.arraycopy(rawTs, rawStart, rawTs, 0, n); System.arraycopy(rawV, rawStart, rawV, 0, n)
      System.arraycopy(rawW, rawStart, rawW, 0, n)
    } else {
      val cap = math.max(16, rawTs.length * 2)
      val t = new Array[Long](cap); val v = new Array[Double](cap); val w = new Array[Long](cap)
      System.arraycopy(rawTs, rawStart, t, 0, n); System.arraycopy(rawV, rawStart, v, 0, n); System.arraycopy(rawW, rawStart, w, 0, n)
      rawTs = t; rawV = v; rawW = w
    }
    rawStart = 0; rawEnd = n
  }

  /** Seals the `k` oldest raw rows into buckets (each at most 2 spanEpsilon times the weight newer
    * than it, or one row), then joins buckets.
    */
  private[quantile] def seal(k: Int): Unit = {
    if (k <= 0) return
    val from = rawStart; val until = rawStart + k
    var sealedWeight = 0L
    var i = from
    while (i < until) { sealedWeight += rawW(i); i += 1 }
    val cuts = QuantileRun.cuts(p, rawW, from, until, rawWeight - sealedWeight)
    val nCuts = cuts.length
    var hi = until
    val fresh = new Array[Bucket](nCuts)
    var j = 0
    while (j < nCuts) { fresh(nCuts - 1 - j) = Bucket.fromRows(rawTs, rawV, rawW, cuts(j), hi); hi = cuts(j); j += 1 }
    ensureBuckets(nb + nCuts)
    System.arraycopy(fresh, 0, bs, nb, nCuts)
    nb += nCuts
    bucketWeight += sealedWeight
    rawWeight -= sealedWeight
    rawStart = until
    if (rawStart == rawEnd) { rawStart = 0; rawEnd = 0 }
    join()
  }

  /** Compacts every bucket as far as its ledgers allow, the newest first (each with the weight after it). */
  private[quantile] def compactAll(): Unit = {
    var newer = rawWeight
    var i = nb - 1
    while (i >= 0) { bs(i).compact(p, newer, rng); newer += bs(i).count; i -= 1 }
  }

  private def ensureBuckets(n: Int): Unit =
    if (n > bs.length) bs = java.util.Arrays.copyOf(bs, math.max(n, bs.length * 2))

  /** One pass from the newest bucket to the oldest: the current bucket absorbs its older neighbour
    * while their joined weight is at most 2 spanEpsilon times the weight newer than the current one;
    * each join compacts as the ledger allows.
    */
  private[quantile] def join(): Unit = {
    if (nb <= 1) return
    var newer = rawWeight
    var out = nb // buckets are written back from the top: the kept ones end up in [out, nb)
    var cur = bs(nb - 1)
    var i = nb - 2
    while (i >= 0) {
      val b = bs(i)
      if (p.mayJoin(b.count, cur.count, newer)) {
        cur = Bucket.union(b, cur)
        cur.compact(p, newer, rng)
      } else {
        out -= 1; bs(out) = cur
        newer += cur.count
        cur = b
      }
      i -= 1
    }
    out -= 1; bs(out) = cur
    val kept = nb - out
    if (out > 0) { System.arraycopy(bs, out, bs, 0, kept); java.util.Arrays.fill(bs.asInstanceOf[Array[AnyRef]], kept, nb, null) }
    nb = kept
  }

  /** Drops the buckets and raw rows that end before `lo`, the first timestamp any query of the sketch
    * can reach.
    */
  def expireBefore(lo: Long): Unit = {
    if (lo == Long.MinValue) return
    var k = 0
    while (k < nb && bs(k).tEnd < lo) { bucketWeight -= bs(k).count; k += 1 }
    if (k > 0) {
      System.arraycopy(bs, k, bs, 0, nb - k)
      java.util.Arrays.fill(bs.asInstanceOf[Array[AnyRef]], nb - k, nb, null)
      nb -= k
    }
    if (nb == 0) {
      while (rawStart < rawEnd && rawTs(rawStart) < lo) { rawWeight -= rawW(rawStart); rawStart += 1 }
      if (rawStart == rawEnd) { rawStart = 0; rawEnd = 0 }
    }
  }

  // ---- queries over timestamps >= lo ----

  /** Index of the first bucket that ends at or after lo (it may start before lo). */
  private def firstBucketFrom(lo: Long): Int = {
    var a = 0; var b = nb
    while (a < b) { val m = (a + b) >>> 1; if (bs(m).tEnd < lo) a = m + 1 else b = m }
    a
  }

  /** Estimated weight of the rows with timestamp >= lo and value <= x. */
  def rank(lo: Long, x: Double): Long = {
    var r = 0L
    var i = firstBucketFrom(lo)
    if (i < nb && bs(i).tStart < lo) { r += bs(i).rankFrom(lo, x); i += 1 }
    while (i < nb) { r += bs(i).rankAll(x); i += 1 }
    var j = Samples.firstAtLeast(rawTs, rawStart, rawEnd, lo)
    while (j < rawEnd) { if (rawV(j) <= x) r += rawW(j); j += 1 }
    r
  }

  /** Estimated weight of the rows with timestamp >= lo. */
  def weightFrom(lo: Long): Long = {
    var r = 0L
    var i = firstBucketFrom(lo)
    if (i < nb && bs(i).tStart < lo) { r += bs(i).weightFrom(lo); i += 1 }
    while (i < nb) { r += bs(i).count; i += 1 }
    var j = Samples.firstAtLeast(rawTs, rawStart, rawEnd, lo)
    while (j < rawEnd) { r += rawW(j); j += 1 }
    r
  }

  /** The variance proxy of a query from lo: v1 of the buckets inside, v2 of the one cut. */
  def variance(lo: Long): Double = {
    var v = 0.0
    var i = firstBucketFrom(lo)
    if (i < nb && bs(i).tStart < lo) { v += bs(i).v2; i += 1 }
    while (i < nb) { v += bs(i).v1; i += 1 }
    v
  }

  /** Appends the samples and raw rows of timestamp >= lo. */
  def collect(lo: Long, out: WeightedValues): Unit = {
    var i = firstBucketFrom(lo)
    if (i < nb && bs(i).tStart < lo) { bs(i).collectFrom(lo, all = false, out); i += 1 }
    while (i < nb) { bs(i).collectFrom(lo, all = true, out); i += 1 }
    var j = Samples.firstAtLeast(rawTs, rawStart, rawEnd, lo)
    while (j < rawEnd) { out.add(rawV(j), rawW(j)); j += 1 }
  }

  def copy(): QuantileRun = {
    val r = new QuantileRun(p, new Rng(rng.state), gen)
    val n = rawCount
    r.rawTs = java.util.Arrays.copyOfRange(rawTs, rawStart, rawStart + math.max(n, 16))
    r.rawV = java.util.Arrays.copyOfRange(rawV, rawStart, rawStart + math.max(n, 16))
    r.rawW = java.util.Arrays.copyOfRange(rawW, rawStart, rawStart + math.max(n, 16))
    r.rawStart = 0; r.rawEnd = n; r.rawWeight = rawWeight
    r.bs = Array.tabulate(math.max(nb, 8))(i => if (i < nb) bs(i).copy() else null)
    r.nb = nb; r.bucketWeight = bucketWeight; r.lastTs = lastTs
    r
  }

  /** Restores the decoded state (the codec validated it). */
  private[quantile] def restore(buckets: Array[Bucket], ts: Array[Long], vs: Array[Double], ws: Array[Long]): Unit = {
    bs = if (buckets.length >= 8) buckets else java.util.Arrays.copyOf(buckets, 8)
    nb = buckets.length
    bucketWeight = buckets.iterator.map(_.count).sum
    val n = ts.length
    rawTs = java.util.Arrays.copyOf(ts, math.max(n, 16)); rawV = java.util.Arrays.copyOf(vs, math.max(n, 16))
    rawW = java.util.Arrays.copyOf(ws, math.max(n, 16))
    rawStart = 0; rawEnd = n
    rawWeight = ws.sum
    lastTs = if (n > 0) ts(n - 1) else bucketsEnd
  }
}

private[quantile] object QuantileRun {
  /** The first timestamp any query can reach when the newest row is at `last`: last - window + 1. */
  /** The bucket starts of rows [from, until) in time order, newest bucket first (the last is
    * `from`): cut from the newest row back, each bucket at most 2 spanEpsilon times the weight newer
    * than it (`newer`, the weight after `until`, and the buckets cut before it), or one row. `ws`
    * holds the rows' weights; null means every weight is 1.
    */
  def cuts(p: QuantileParams, ws: Array[Long], from: Int, until: Int, newer0: Long): Array[Int] = {
    val out = new Array[Int](until - from + 1)
    var n = 0
    var newer = newer0; var c = 0L
    var i = until - 1
    while (i >= from) {
      val w = if (ws == null) 1L else ws(i)
      if (c > 0 && !p.mayJoin(c, w, newer)) { out(n) = i + 1; n += 1; newer += c; c = 0L }
      c += w
      i -= 1
    }
    out(n) = from; n += 1
    java.util.Arrays.copyOf(out, n)
  }

  def windowStart(last: Long, window: Long): Long =
    if (window == Long.MaxValue || last == Long.MinValue) Long.MinValue else Windows.lowerBound(last, window)

  /** The run's coins start from the seed and the run's first row, so that runs of different streams
    * draw independent coins under one seed.
    */
  def startRng(seed: Long, ts: Long, v: Double, w: Long): Rng = {
    var s = seed ^ 0x6A09E667F3BCC909L
    s = mix(s ^ ts); s = mix(s ^ java.lang.Double.doubleToLongBits(v)); s = mix(s ^ w)
    new Rng(s)
  }

  def mix(x: Long): Long = {
    var z = x + 0x9E3779B97F4A7C15L
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL
    z ^ (z >>> 31)
  }

  /** Folds runs (non-empty, in canonical order) into one run of generation `gen` with parameters `p`
    * (docs/design/windowed-quantiles.md, "Folds"): their samples and raw rows at or after `lo` (the
    * first timestamp any query can reach; None when there are none), each sample a row of its
    * level's weight, are taken in time order (stably, so in the runs' order at equal timestamps)
    * as the rows of a new run, sealed at once. The samples are unchanged, so every query of the new
    * run starts from the answers of the runs it folds; its own compactions spend the budget of `p`.
    */
  def fold(runs: Seq[QuantileRun], p: QuantileParams, gen: Int, lo: Long): Option[QuantileRun] = {
    var total = 0L
    runs.foreach { r =>
      var i = 0
      while (i < r.nb) { val b = r.bs(i); if (b.tEnd >= lo) total += b.samples; i += 1 }
      total += r.rawCount
    }
    if (total > Int.MaxValue - 8) throw new SketchException(s"cannot fold quantile runs of $total entries")
    val cap = total.toInt
    val ts = new Array[Long](cap); val vb = new Array[Long](cap); val ws = new Array[Long](cap)
    var k = 0
    runs.foreach { r =>
      var i = 0
      while (i < r.nb) {
        val b = r.bs(i)
        var h = 0
        while (h < b.levels && b.tEnd >= lo) {
          val m = b.sizes(h); val vs = b.vals(h); val bt = b.tss(h); val w = 1L << h
          var j = 0
          while (j < m) {
            if (bt(j) >= lo) { ts(k) = bt(j); vb(k) = java.lang.Double.doubleToRawLongBits(vs(j)); ws(k) = w; k += 1 }
            j += 1
          }
          h += 1
        }
        i += 1
      }
      var j = r.rawStart
      while (j < r.rawEnd) {
        if (r.rawTs(j) >= lo) { ts(k) = r.rawTs(j); vb(k) = java.lang.Double.doubleToRawLongBits(r.rawV(j)); ws(k) = r.rawW(j); k += 1 }
        j += 1
      }
    }
    val n = k
    if (n == 0) return None
    RadixSort.sortByTs(ts, vb, ws, n)
    var s = p.seed ^ 0x3C6EF372FE94F82BL
    runs.foreach(r => s = mix(s ^ r.rng.state))
    val out = new QuantileRun(p, new Rng(s), gen)
    val vs = new Array[Double](n)
    var weight = 0L
    var i = 0
    while (i < n) { vs(i) = java.lang.Double.longBitsToDouble(vb(i)); weight += ws(i); i += 1 }
    out.rawTs = ts; out.rawV = vs; out.rawW = ws
    out.rawStart = 0; out.rawEnd = n; out.rawWeight = weight
    out.lastTs = ts(n - 1)
    // as a run that took these rows would hold them: fewer raw rows than the raw capacity, the older
    // ones sealed, here at once, each bucket cut and compacted with all the weight after it known
    if (n >= p.rawCapacity) {
      out.seal(n - p.rawCapacity / 2)
      out.compactAll()
    }
    // the raw region in arrays of its own size (the fold's arrays hold every entry it took)
    val m = out.rawCount
    val keep = math.max(m, 16)
    out.rawTs = java.util.Arrays.copyOfRange(out.rawTs, out.rawStart, out.rawStart + keep)
    out.rawV = java.util.Arrays.copyOfRange(out.rawV, out.rawStart, out.rawStart + keep)
    out.rawW = java.util.Arrays.copyOfRange(out.rawW, out.rawStart, out.rawStart + keep)
    out.rawStart = 0; out.rawEnd = m
    Some(out)
  }

  /** Lays run `newer` after `older` (every retained row of `newer` at or after every row of
    * `older`; both of one generation): the older run's raw rows are sealed into buckets with the
    * newer run's weight after them, its buckets follow, then one join pass. The older buckets only
    * gain newer weight, so every bucket keeps its bound (docs/design/windowed-quantiles.md,
    * "Time-disjoint merges").
    */
  def concat(older: QuantileRun, newer: QuantileRun): QuantileRun = {
    val p = older.p
    val out = new QuantileRun(p, new Rng(mix(older.rng.state) ^ newer.rng.state), older.gen)
    val o = older.copy(); val n = newer.copy()
    // seal all of the older raw rows, with the newer run's weight counted as newer
    o.rawWeight += n.weight
    o.seal(o.rawCount)
    o.rawWeight -= n.weight
    out.ensureBuckets(o.nb + n.nb)
    System.arraycopy(o.bs, 0, out.bs, 0, o.nb)
    System.arraycopy(n.bs, 0, out.bs, o.nb, n.nb)
    out.nb = o.nb + n.nb
    out.bucketWeight = o.bucketWeight + n.bucketWeight
    out.rawTs = n.rawTs; out.rawV = n.rawV; out.rawW = n.rawW
    out.rawStart = n.rawStart; out.rawEnd = n.rawEnd; out.rawWeight = n.rawWeight
    out.lastTs = math.max(older.lastTs, newer.lastTs)
    out.join()
    out
  }
}
