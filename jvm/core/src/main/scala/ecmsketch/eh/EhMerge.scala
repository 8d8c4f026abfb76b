package ecmsketch.eh

import ecmsketch.core.{SketchException, Windows}

/** Merges of exponential histograms: the order-preserving merge ([[ExpHistogram.merge]]) and the
  * time-disjoint concatenation ([[ExpHistogram.concat]]).
  */
private[eh] object EhMerge {
  import ExpHistogram.EmptyLongs

  /** Event arrays of [[ExpHistogram.merge]], one set per thread (a merge never runs inside another on the same
    * thread); sets above [[MergeKeep]] events are not kept.
    */
  private[eh] final class MergeScratch {
    var t: Array[Long] = EmptyLongs; var w: Array[Long] = EmptyLongs
    var t2: Array[Long] = EmptyLongs; var w2: Array[Long] = EmptyLongs
    /** Makes every array hold at least `n` events. */
    def reserve(n: Int): MergeScratch = {
      if (t.length < n) {
        val m = math.max(n, math.min(MergeKeep, 2 * t.length))
        t = new Array[Long](m); w = new Array[Long](m); t2 = new Array[Long](m); w2 = new Array[Long](m)
      }
      this
    }
    /** Drops arrays above [[MergeKeep]] events (a rare large merge does not pin them). */
    def release(): Unit = if (t.length > MergeKeep) { t = EmptyLongs; w = EmptyLongs; t2 = EmptyLongs; w2 = EmptyLongs }
  }
  private[eh] final val MergeKeep = 1 << 15 // 256 KB an array, 1 MB a thread: the 11 K events of a cell at eps 0.01 fit
  private[eh] val mergeScratch: ThreadLocal[MergeScratch] = ThreadLocal.withInitial(() => new MergeScratch)

  /** See [[ExpHistogram.timeDisjoint]]. */
  def timeDisjoint(parts: Seq[ExpHistogram]): Boolean = {
    var end = Long.MinValue
    parts.forall { h =>
      h == null || h.isEmpty || { val ok = h.lowerTs >= end; end = math.max(end, h.newestEnd); ok }
    }
  }

  /** See [[ExpHistogram.concat]]. */
  def concat(parts: Seq[ExpHistogram], config: EhConfig): ExpHistogram = {
    val ps = parts.filter(h => h != null && !h.isEmpty)
    if (ps.isEmpty) return new ExpHistogram(config)
    if (ps.exists(_.config != config)) throw new SketchException("a time-disjoint merge needs histograms of one epsilon and window")
    if (!timeDisjoint(ps)) throw new SketchException("a time-disjoint merge of histograms whose time spans overlap")
    val newest = ps.last
    val out = newest.copy()
    if (ps.size > 1) {
      var n = newest.segmentCount
      var total = newest.total
      ps.init.foreach { h =>
        n += h.bucketCount
        if (h.total > Long.MaxValue - total) throw new SketchException("exponential histogram overflow: more than 2^63 - 1 weight")
        total += h.total
      }
      val sz = new Array[Long](n); val en = new Array[Long](n)
      var i = 0
      ps.init.foreach(_.foreachBucket { (c, e) => sz(i) = c; en(i) = e; i += 1 })
      var segWeight = 0L
      var j = 0
      while (j < newest.segmentCount) { sz(i) = newest.segmentSizeAt(j); en(i) = newest.segmentEndAt(j); segWeight += sz(i); i += 1; j += 1 }
      compactInto(out, sz, en, n, newest.total - segWeight, config.epsilon)
      out._total = total
      out._lowerTs = ps.head.lowerTs
      out._lastTs = ps.iterator.map(_.lastTs).max
      out.expire(out._lastTs)
    }
    out
  }

  /** Joins consecutive buckets of `sz`/`en` (oldest first), newest first, while the joined bucket
    * satisfies invariant 1 against `newer` plus the weight of the groups newer than it, and installs
    * the groups as `h`'s segment.
    */
  private def compactInto(h: ExpHistogram, sz: Array[Long], en: Array[Long], n: Int, newer: Long, eps: Double): Unit = {
    val gs = new Array[Long](n); val ge = new Array[Long](n) // groups, newest first
    var m = 0
    var w = newer
    var i = n - 1
    while (i >= 0) {
      val c = sz(i)
      if (m > 0 && (gs(m - 1) + c).toDouble <= 2.0 * eps * (1.0 + (w - gs(m - 1)).toDouble)) gs(m - 1) += c
      else { gs(m) = c; ge(m) = en(i); m += 1 }
      w += c
      i -= 1
    }
    val osz = new Array[Long](m); val oen = new Array[Long](m)
    var k = 0
    while (k < m) { osz(k) = gs(m - 1 - k); oen(k) = ge(m - 1 - k); k += 1 }
    h.setSegment(osz, oen)
  }

  /** See [[ExpHistogram.merge]]. */
  def merge(inputs: Seq[ExpHistogram], config: EhConfig): ExpHistogram = {
    var lastTs = Long.MinValue
    inputs.foreach(h => if (h != null && h.lastTs > lastTs) lastTs = h.lastTs)
    val nonEmpty = inputs.filter(h => h != null && h.retainsAt(lastTs))
    val out =
      if (nonEmpty.size == 1 && nonEmpty.head.config == config) nonEmpty.head.copy()
      else {
        val res = new ExpHistogram(config)
        if (nonEmpty.nonEmpty) {
          var count = 0
          nonEmpty.foreach(h => count += 2 * h.bucketCount)
          // scratch space per thread: a sketch merge merges every cell in turn
          val sc = mergeScratch.get().reserve(count)
          val ts = sc.t; val ws = sc.w
          val runStarts = new Array[Int](nonEmpty.size + 1)
          var n = 0
          var r = 0
          nonEmpty.foreach { h =>
            runStarts(r) = n; r += 1
            // a bucket of c elements ending at e, after the previous end p: floor((c-1)/2) at p
            // when positive, then the rest at e
            var prev = h.lowerTs
            h.foreachBucket { (c, e) =>
              val lo = (c - 1) / 2
              if (lo > 0) { ts(n) = prev; ws(n) = lo; n += 1 }
              ts(n) = e; ws(n) = c - lo; n += 1
              prev = e
            }
          }
          runStarts(r) = n
          val (sts, sws) = Windows.mergeSortedRuns(ts, ws, runStarts, r, n, sc.t2, sc.w2)
          sc.release()
          // equal timestamps summed in place, then added as one sorted list of weighted events
          var i = 0
          var m = 0
          while (i < n) {
            val t = sts(i); var w = sws(i); i += 1
            while (i < n && sts(i) == t) { w += sws(i); i += 1 }
            sts(m) = t; sws(m) = w; m += 1
          }
          EhCarry.addWeightedSorted(res, sts, sws, 0, m)
        }
        res
      }
    if (lastTs != Long.MinValue && lastTs > out.lastTs) out.advanceTo(lastTs)
    out
  }
}
