package ecmsketch.frequent

import scala.collection.mutable

import ecmsketch.core.{SketchException, WindowSketch, Windows}

/** Merges of frequent-items sketches (docs/design/windowed-top-k.md, "Merges across sites"). Inputs
  * whose times overlap are folded ([[FrequentFold]]) unless their plan is body version 1's; the rest
  * (time-disjoint roll-ups, and sketches of body version 1) merge as follows. Scale l of the merge
  * keeps the last q * 2^l units of the merged weight: it cuts at the newest timestamp `cut` after
  * which the inputs' total entries hold that much, and takes from each input the entries after
  * `cut` of the input's finest scale that holds them all. Entries keep their spans, so every
  * interval a query returns holds for the union of the inputs' streams. The partial counts of the
  * newest time cluster merge as Misra-Gries summaries (Agarwal et al., "Mergeable summaries"): summed,
  * then the (k+1)-th largest subtracted from all, the amount added to the decrement term; those of
  * older clusters become entries at their sketch's last timestamp, which no range after it reaches.
  */
private[frequent] object FrequentMerge {
  import Scale.Total

  /** Refuses inputs whose sums (a scale's key weights and decrements together, or its totals, the
    * largest of each input's) add up past 2^63 - 1, so that no sum of the merge wraps: the fold and
    * the Misra-Gries merge add to the decrements what they take from the keys. A scale's totals,
    * and its key weights plus decrements (a decrement takes at least as many units from the keys),
    * add up to at most the sketch's total weight, and the inputs' total weights must fit (checked
    * first): only crafted bytes are refused here.
    */
  private def checkSums(xs: Seq[FrequentSketch]): Unit = {
    WindowSketch.totalCount(xs)
    var sum = 0L
    xs.foreach { s =>
      var m = 0L
      s.scales.foreach { sc => val x = sc.largestSum; m = if (x < 0 || m < 0) -1L else math.max(m, x) }
      if (m < 0 || m > Long.MaxValue - sum)
        throw new SketchException("cannot merge these frequent-items sketches: the weights or decrement amounts of their scales add up past 2^63 - 1 (corrupt input)")
      sum += m
    }
  }

  def merge(xs: Seq[FrequentSketch], dropBehind: Boolean): FrequentSketch = {
    xs.foreach(_.flush())
    val first = xs.head
    xs.tail.foreach { s =>
      val d = first.diffs(s)
      if (d.nonEmpty) throw new SketchException(s"cannot merge frequent-items sketches with different parameters: ${d.mkString(", ")}")
    }
    val kt = FreqKeys.merged(xs.map(_.keyType))
    val out = first.emptyLike()
    if (kt != FreqKeys.Unset) out.setKeyType(kt)
    if (xs.size == 1) return copy(first, out)
    checkSums(xs)
    val withData = xs.filter(s => !s.isEmpty && s.scales.nonEmpty)
    val clock = if (withData.isEmpty) Long.MinValue else withData.map(_.lastTs).max
    val contributing =
      if (dropBehind && !first.spec.unbounded && withData.nonEmpty) {
        val lo = Windows.lowerBound(clock, first.spec.window)
        withData.filter(_.lastTs >= lo)
      } else withData
    val clusters =
      if (dropBehind && contributing.size > 1) Windows.timeClusters(contributing)(_.firstTs, _.lastTs) else Seq(contributing)
    if (first.plan.folds && contributing.size >= 2 && clusters.exists(_.size > 1)) {
      // inputs whose times overlap: folded into scales of one sketch's size, one more level
      out.mergeState(xs, contributing, Seq(contributing))
      FrequentFold.fold(contributing, out)
      return out
    }
    val newest: Set[FrequentSketch] = if (clusters.isEmpty) Set.empty else clusters.last.toSet
    val nScales = if (contributing.isEmpty) 0 else contributing.map(_.scales.size).max
    // the coarsest scale of the merge must hold the whole window: scales are added past the inputs'
    // coarsest ones (which then serve every merged scale) until one needs no cut
    var l = 0
    while (l < nScales || (l > 0 && out.scales.last.dropped != Long.MinValue)) {
      SketchException.require(l < FrequentSketch.MaxScales, s"a frequent-items sketch holds at most ${FrequentSketch.MaxScales} scales")
      out.scales += mergeScale(l, contributing, newest, out)
      l += 1
    }
    out.mergeState(xs, contributing, clusters)
    out.maintain()
    out
  }

  private def copy(s: FrequentSketch, out: FrequentSketch): FrequentSketch = {
    out.copyState(s)
    s.scales.foreach(sc => out.scales += remap(sc, s, out))
    out
  }

  /** A copy of scale `sc` of `from` with the key ids of `out`. */
  private def remap(sc: Scale, from: FrequentSketch, out: FrequentSketch): Scale = {
    val c = new Scale(sc.lambda, sc.k)
    var i = sc.start
    while (i < sc.end) {
      val key = if (sc.ekey(i) == Total) Total else idIn(out, from, sc.ekey(i))
      c.appendRaw(sc.ets(i), sc.espan(i), key, sc.ew(i), sc.edec(i))
      i += 1
    }
    val n = sc.rn
    val ks = new Array[Int](math.max(n, 1)); val ws = new Array[Long](math.max(n, 1)); val ss = new Array[Long](math.max(n, 1))
    var j = 0
    while (j < n) { ks(j) = idIn(out, from, sc.rKey(j)); ws(j) = sc.rW(j); ss(j) = sc.rSpan(j); j += 1 }
    c.setResiduals(ks, ws, ss, n)
    c.totR = sc.totR; c.totSpan = sc.totSpan; c.pendDec = sc.pendDec; c.dropped = sc.dropped
    c
  }

  /** The id in `out` of key `id` of `from`, with one more reference. */
  private def idIn(out: FrequentSketch, from: FrequentSketch, id: Int): Int = {
    val nid = if (from.dict.bytesKeys) out.dict.idOfBytes(from.dict.bytesKey(id)) else out.dict.idOfLong(from.dict.longKey(id))
    nid
  }

  private def mergeScale(l: Int, xs: Seq[FrequentSketch], newest: Set[FrequentSketch], out: FrequentSketch): Scale = {
    val horizon = out.horizon(l)
    def at(s: FrequentSketch): Scale = s.scales(math.min(l, s.scales.size - 1))
    val base = xs.map(s => at(s).dropped).max
    // the merged cut: newest timestamp after which the inputs' total entries hold >= horizon units
    val tot = mutable.ArrayBuffer[(Long, Long)]()
    xs.foreach { s =>
      val sc = at(s); var i = sc.firstAtOrAfter(if (base == Long.MaxValue) base else base + 1)
      while (i < sc.end) { if (sc.ekey(i) == Total) tot += ((sc.ets(i), sc.ew(i))); i += 1 }
    }
    val desc = tot.sortBy(x => -x._1)
    var acc = 0L; var found = Long.MinValue; var i = 0
    while (i < desc.size && found == Long.MinValue) {
      val t = desc(i)._1
      if (acc >= horizon) found = t
      else while (i < desc.size && desc(i)._1 == t) { acc += desc(i)._2; i += 1 }
    }
    val cut = math.max(base, found)
    val sc = new Scale(1L << l, out.plan.k)
    sc.dropped = cut
    val ent = mutable.ArrayBuffer[(Long, Long, Int, Long, Long)]()
    val res = mutable.LinkedHashMap[Int, (Long, Long)]()
    var totR = 0L; var totSpan = Long.MaxValue; var pend = 0L
    xs.foreach { s =>
      var lj = 0
      while (lj < math.min(l, s.scales.size - 1) && s.scales(lj).dropped > cut) lj += 1
      val in = s.scales(lj)
      var e = in.firstAtOrAfter(if (cut == Long.MaxValue) cut else cut + 1)
      while (e < in.end) {
        val key = if (in.ekey(e) == Total) Total else idIn(out, s, in.ekey(e))
        ent += ((in.ets(e), in.espan(e), key, in.ew(e), in.edec(e)))
        e += 1
      }
      val flush = !newest.contains(s) && s.lastTs > cut
      var j = 0
      while (j < in.rn) {
        if (in.rW(j) > 0) {
          val key = idIn(out, s, in.rKey(j))
          if (flush) ent += ((s.lastTs, in.rSpan(j), key, in.rW(j), 0L))
          else if (newest.contains(s)) {
            res.get(key) match {
              case Some((w, sp)) => res(key) = (w + in.rW(j), math.min(sp, in.rSpan(j)))
              case None => res(key) = (in.rW(j), in.rSpan(j))
            }
          } // else: an older cluster's partial count behind the cut, which no range reaches
        }
        j += 1
      }
      if (newest.contains(s)) {
        totR += in.totR; if (in.totR > 0) totSpan = math.min(totSpan, in.totSpan); pend += in.pendDec
      } else if (flush && in.totR > 0) ent += ((s.lastTs, in.totSpan, Total, in.totR, in.pendDec))
      else if (flush && in.pendDec > 0) { // decrements pending without a residual (a fold's leftovers)
        // at the older sketch's last timestamp on a total entry of weight 0; body version 1 has no
        // such entries, and its merges keep the decrements pending (wider bounds, still certain)
        if (out.plan.folds) ent += ((s.lastTs, s.lastTs, Total, 0L, in.pendDec)) else pend += in.pendDec
      }
      // else: an older cluster behind the cut, whose decrements no range of this scale reaches
    }
    // canonical order: timestamp, totals first, key, span, weight, decrement (the merge is order-free)
    val dict = out.dict
    val sorted = ent.sortWith { (a, b) =>
      if (a._1 != b._1) a._1 < b._1
      else if ((a._3 == Total) != (b._3 == Total)) a._3 == Total
      else {
        val kc = if (a._3 == Total) 0 else dict.compareKeys(a._3, b._3)
        if (kc != 0) kc < 0
        else if (a._2 != b._2) a._2 < b._2
        else if (a._4 != b._4) a._4 < b._4
        else a._5 < b._5
      }
    }
    sorted.foreach(x => sc.appendRaw(x._1, x._2, x._3, x._4, x._5))
    // the Misra-Gries merge of the newest cluster's partial counts
    val rs = res.toArray
    if (rs.length > out.plan.k) {
      val ws = rs.map(_._2._1).sorted(Ordering.Long.reverse)
      val p = ws(out.plan.k)
      pend += p
      val kept = rs.filter { case (_, (w, _)) => w > p }
      fill(sc, kept.map { case (key, (w, sp)) => (key, w - p, sp) })
    } else fill(sc, rs.map { case (key, (w, sp)) => (key, w, sp) })
    sc.totR = totR; sc.totSpan = if (totR > 0) totSpan else 0L; sc.pendDec = pend
    sc
  }

  private def fill(sc: Scale, xs: Array[(Int, Long, Long)]): Unit = {
    val n = xs.length
    val ks = new Array[Int](math.max(n, 1)); val ws = new Array[Long](math.max(n, 1)); val ss = new Array[Long](math.max(n, 1))
    var i = 0
    while (i < n) { ks(i) = xs(i)._1; ws(i) = xs(i)._2; ss(i) = xs(i)._3; i += 1 }
    sc.setResiduals(ks, ws, ss, n)
  }
}
