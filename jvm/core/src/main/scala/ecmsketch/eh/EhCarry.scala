package ecmsketch.eh

/** The carry of an [[ExpHistogram]]: buckets pushed into level 0 in bulk (explicit ends, a run of
  * equal ends, or run-length lists) and carried up level by level, with the same result as pushing
  * them one at a time.
  */
private[eh] object EhCarry {
  import ExpHistogram.EmptyLongs

  /** The two buffers of carried pairs that [[carry]] alternates between, one pair per
    * thread (a carry never runs inside another on the same thread): many small histograms (the cells
    * of many sketches) would otherwise each keep their own. Buffers above [[CarryKeep]] longs are not kept.
    */
  private[eh] final class CarryScratch { var p: Array[Long] = EmptyLongs; var q: Array[Long] = EmptyLongs }
  private[eh] final val CarryKeep = 1 << 16 // 512 KB a buffer: a batch of 2^16 rows per cell fits
  private[eh] val carryScratch: ThreadLocal[CarryScratch] = ThreadLocal.withInitial(() => new CarryScratch)

  /** Two run-length lists (ends, counts) per thread for [[carryRuns]], used in turn;
    * lists above [[CarryKeep]] runs are not kept.
    */
  private[eh] final class RunScratch {
    var e1: Array[Long] = EmptyLongs; var c1: Array[Long] = EmptyLongs
    var e2: Array[Long] = EmptyLongs; var c2: Array[Long] = EmptyLongs
    /** List 1 (or 2), made to hold at least `n` runs. */
    def pair(first: Boolean, n: Int): (Array[Long], Array[Long]) = {
      val (e, c) = if (first) (e1, c1) else (e2, c2)
      if (e.length >= n) (e, c)
      else {
        val m = math.max(n, 2 * e.length)
        val (ne, nc) = (new Array[Long](m), new Array[Long](m))
        if (m <= CarryKeep) { if (first) { e1 = ne; c1 = nc } else { e2 = ne; c2 = nc } }
        (ne, nc)
      }
    }
  }
  private[eh] val runScratch: ThreadLocal[RunScratch] = ThreadLocal.withInitial(() => new RunScratch)

  /** Registers weight `ws(i)` at `ts(i)` for every i in [from, until) (timestamps non-decreasing, not
    * before the last one): the same state as `add(ts(i), ws(i))` in order. As in [[ExpHistogram.addSorted]], the
    * events are cut where one drops a bucket; the events between cuts go into level 0 as one
    * run-length list of bucket ends and are carried up level by level ([[carryRuns]]), so the cost is
    * O((k + n) log W) for n events of total weight W instead of O(n k log W). Input that `add` would
    * refuse (a negative weight, an overflow, a timestamp out of order) is added one by one, so that
    * the same event fails with the same message.
    */
  def addWeightedSorted(eh: ExpHistogram, ts: Array[Long], ws: Array[Long], from: Int, until: Int): Unit = {
    if (until <= from) return
    var prev = eh._lastTs
    var sum = 0L
    var i = from
    while (i < until) {
      val t = ts(i); val v = ws(i)
      if (t < prev || v <= 0 || Long.MaxValue - eh._total - sum < v) { // refused input or weight 0: one by one
        var j = from; while (j < until) { eh.add(ts(j), ws(j)); j += 1 }
        return
      }
      sum += v; prev = t; i += 1
    }
    var a = from
    while (a < until) {
      val b = eh.expiryFree(ts, a, until)
      if (b > a) {
        eh._lastTs = ts(b - 1)
        if (eh.levels == 0) { eh.ensureLevel(0); eh.levels = 1; if (eh._lowerTs == Long.MaxValue) eh._lowerTs = ts(a) }
        var w = 0L; var j = a; while (j < b) { w += ws(j); j += 1 }
        eh._total += w
        carryRuns(eh, ts, ws, a, b - a)
      }
      if (b < until) eh.add(ts(b), ws(b)) // the event that drops a bucket, with its expiry
      a = b + 1
    }
  }

  /** Pushes into level 0 the run-length list of bucket ends `ends(off until off + n)` (oldest first),
    * `counts(j)` buckets ending at `ends(j)`, and carries up as [[carry]] does: a level holding s
    * buckets that receives c more keeps the newest (s + c) - 2m of them, m = ceil((s + c - maxK) / 2),
    * and passes on the ends of the pairs it merged (positions 1, 3, .., 2m - 1 of its sequence,
    * oldest first) as the next level's run-length list. The result is the state of pushing the
    * buckets one at a time; each level costs O(its buckets + the runs it receives).
    */
  def carryRuns(eh: ExpHistogram, ends: Array[Long], counts: Array[Long], off: Int, n: Int): Unit = {
    val sc = runScratch.get()
    var inE = ends; var inC = counts; var inOff = off; var inN = n
    var level = 0
    while (inN > 0) {
      if (level >= eh.levels) { eh.ensureLevel(level); eh.levels = level + 1 }
      val s = eh.sizes(level)
      var incoming = 0L
      var j = 0
      while (j < inN) { incoming += inC(inOff + j); j += 1 }
      val d = incoming - (eh.config.maxAt(level) - s) // (s + incoming) - maxK, without overflow
      if (d <= 0) {
        j = 0
        while (j < inN) { eh.appendRun(level, inE(inOff + j), inC(inOff + j).toInt); j += 1 }
        inN = 0
      } else {
        val lim = 2 * (d / 2 + (d & 1)) // the merged prefix: 2m items
        // the next level's runs: the ends at the odd positions below lim
        val (outE, outC) = sc.pair(!(inE eq sc.e1), inN + s / 2 + 1)
        var outN = 0
        val r = eh.rings(level); val h = eh.heads(level)
        var p = 1
        while (p < s && p < lim) {
          var x = h + p; if (x >= r.length) x -= r.length
          val e = r(x)
          if (outN > 0 && outE(outN - 1) == e) outC(outN - 1) += 1 else { outE(outN) = e; outC(outN) = 1; outN += 1 }
          p += 2
        }
        var pos = s.toLong
        j = 0
        while (j < inN && pos < lim) {
          val c = inC(inOff + j)
          val odd = (math.min(pos + c, lim) >> 1) - (pos >> 1) // odd positions in [pos, min(pos + c, lim))
          if (odd > 0) {
            val e = inE(inOff + j)
            if (outN > 0 && outE(outN - 1) == e) outC(outN - 1) += odd else { outE(outN) = e; outC(outN) = odd; outN += 1 }
          }
          pos += c; j += 1
        }
        // this level keeps positions [lim, s + incoming)
        if (lim <= s) {
          var nh = h + lim.toInt; if (nh >= r.length) nh -= r.length
          eh.heads(level) = nh; eh.sizes(level) = s - lim.toInt
          j = 0
          while (j < inN) { eh.appendRun(level, inE(inOff + j), inC(inOff + j).toInt); j += 1 }
        } else {
          eh.heads(level) = 0; eh.sizes(level) = 0
          pos = s.toLong
          j = 0
          while (j < inN) {
            val c = inC(inOff + j); val end = pos + c; val st = math.max(pos, lim)
            if (end > st) eh.appendRun(level, inE(inOff + j), (end - st).toInt)
            pos = end; j += 1
          }
        }
        inE = outE; inC = outC; inOff = 0; inN = outN
      }
      level += 1
    }
  }

  /** Pushes, into level 0, the explicit bucket ends `inc0(off until off + incN0)` (oldest first) followed by
    * `run` buckets ending at `ts`, and carries up: a level over its cap merges its oldest buckets in
    * pairs (each pair ends at its newer end) and passes those pairs on, oldest first, to the next
    * level. The result is the state of pushing the buckets one at a time.
    */
  def carry(eh: ExpHistogram, inc0: Array[Long], off: Int, incN0: Int, ts: Long, run0: Long): Unit = {
    var inc = inc0
    var incOff = off // where inc's items start (level 0 only; the carried pairs start at 0)
    var incN = incN0
    var run = run0
    var level = 0
    var done = false
    var sc: CarryScratch = null
    while (!done) {
      if (level >= eh.levels) { eh.ensureLevel(level); eh.levels = level + 1 }
      val s = eh.sizes(level)
      val maxK = eh.config.maxAt(level)
      val a = s + incN // materialized prefix: the level's buckets, then the explicit incoming ones
      if (a.toLong + run <= maxK.toLong) {
        eh.appendRange(level, inc, incOff, incOff + incN)
        eh.appendRun(level, ts, run.toInt)
        done = true
      } else {
        val n = a.toLong + run
        val m = (n - maxK + 1) / 2 // pair merges; leaves n - 2m in {maxK - 1, maxK} = {k_i, k_i + 1}
        // The sequence, oldest first: the level's s buckets, inc(0 until incN), then `run` buckets
        // ending at ts. Pair p merges items 2p and 2p + 1; its end is the newer one.
        val explicitPairs = math.min(m, (a / 2).toLong).toInt
        if (sc == null) sc = carryScratch.get()
        var out = if (inc eq sc.p) sc.q else sc.p
        if (out.length < explicitPairs) {
          out = new Array[Long](math.max(explicitPairs, 2 * out.length))
          if (out.length <= CarryKeep) { if (inc eq sc.p) sc.q = out else sc.p = out }
        }
        val r = eh.rings(level)
        val h = eh.heads(level)
        var j = 0
        while (j < explicitPairs) {
          val q = 2 * j + 1
          out(j) = if (q < s) { var i = h + q; if (i >= r.length) i -= r.length; r(i) } else inc(incOff + q - s)
          j += 1
        }
        val nextRun = m - explicitPairs
        // this level keeps the newest n - 2m items of the sequence
        val from = 2 * m
        if (from <= s) {
          var nh = h + from.toInt
          if (nh >= r.length) nh -= r.length
          eh.heads(level) = nh; eh.sizes(level) = s - from.toInt
          eh.appendRange(level, inc, incOff, incOff + incN)
        } else {
          eh.heads(level) = 0; eh.sizes(level) = 0
          if (from < a) eh.appendRange(level, inc, incOff + (from - s).toInt, incOff + incN)
        }
        eh.appendRun(level, ts, (n - math.max(from, a.toLong)).toInt)
        inc = out; incOff = 0; incN = explicitPairs; run = nextRun
        level += 1
        if (incN == 0 && run == 0) done = true
      }
    }
  }
}
