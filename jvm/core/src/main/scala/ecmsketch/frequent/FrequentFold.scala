package ecmsketch.frequent

import ecmsketch.core.{SketchException, Windows}
import ecmsketch.ingest.RadixSort

/** The fold of frequent-items sketches whose times overlap (docs/design/windowed-top-k.md, "Folds").
  * Merged scale `l` answers the ranges starting after its drop mark `B_l`, the newest time after
  * which a lower bound of the merged weight still holds q 2^l units. Each input answers with its
  * finest scale holding every start after `B_l`, and the fold sums the inputs' bounds of each key
  * and of the total. It writes each sum as blocks of `b_l` units, newest first: a block's time is
  * that of its newest unit in the upper bound, its span that of its oldest unit in the lower bound.
  * A key's units beyond its last whole block are dropped and counted in the scale's pending
  * decrement. The steps of the summed decrement bound go on total entries of their own time (of
  * weight 0 when no block has it); steps that add up to less than lambda / 4 after the newest of them
  * share its entry. The output holds about one sketch's entries whatever the number of inputs; the
  * plan pays for what it adds to the bound ([[FreqPlan.foldTerm]]).
  */
private[frequent] object FrequentFold {
  import Scale.Total

  /** Block size of scale `l` of a fold: [[FreqPlan.FoldRatio]] lambda, and 1 at scale 0, which answers
    * the shortest ranges and stays exact.
    */
  def blockSize(l: Int): Long =
    if (l == 0) 1L else math.max(1L, math.floor(FreqPlan.FoldRatio * (1L << l).toDouble).toLong)

  /** Fills `out` (state merged: first and last timestamps, count, depth; key type set; no scales)
    * with the fold of `xs` (flushed, with scales).
    */
  def fold(xs: Seq[FrequentSketch], out: FrequentSketch): Unit = {
    val windowLo = if (out.spec.unbounded || out.isEmpty) Long.MinValue else Windows.lowerBound(out.lastTs, out.spec.window)
    val low0 = if (windowLo == Long.MinValue) Long.MinValue else windowLo - 1
    val f = new Folder(xs.toArray, out)
    // drop marks: scale l drops what lies at or before the newest B with lo_n(B + 1) >= q 2^l
    val (times, values) = f.lowerTotals(low0)
    var l = 0
    var done = false
    while (!done) {
      SketchException.require(l < FrequentSketch.MaxScales, s"a frequent-items sketch holds at most ${FrequentSketch.MaxScales} scales")
      val h = out.horizon(l)
      var i = 0
      while (i < values.length && values(i) < h) i += 1
      val b = if (i == values.length) Long.MinValue else times(i) - 1
      // a mark before the first timestamp or the window drops nothing: the scale is the coarsest
      val mark = if (b == Long.MinValue || b <= low0 || b < out.firstTs) Long.MinValue else b
      out.scales += f.scale(l, mark, math.max(mark, low0), blockSize(l),
        math.floor(FreqPlan.StepSlack * (1L << l).toDouble).toLong)
      done = mark == Long.MinValue
      l += 1
    }
  }

  /** Growable (key, time, delta) events of the upper bound ([[Hi]]) or the lower bound ([[Lo]]): a
    * bound at start t0 is the sum of its deltas at times >= t0. `key` holds key << 2 | the bound.
    */
  private final val Hi = 1
  private final val Lo = 2
  /** Stretches of events sorted by insertion before merging. */
  private final val SmallSort = 24
  /** Most ascending runs of events a sort by time merges (more take a radix sort): 4 passes. */
  private final val MaxMergedRuns = 16

  private final class Events(capacity: Int) {
    var key = new Array[Long](capacity); var time = new Array[Long](capacity); var delta = new Array[Long](capacity)
    var n = 0
    def add(k: Int, t: Long, d: Long, bounds: Int): Unit = {
      if (n == time.length) {
        val c = math.max(1024, math.min(Int.MaxValue - 8L, n * 2L).toInt)
        key = java.util.Arrays.copyOf(key, c); time = java.util.Arrays.copyOf(time, c); delta = java.util.Arrays.copyOf(delta, c)
      }
      key(n) = (k.toLong << 2) | bounds; time(n) = t; delta(n) = d; n += 1
    }
    def clear(): Unit = n = 0
    /** Groups the events by key, each key's in time order (a counting sort by key, then each key's
      * events sorted by time): key k holds [start(k), start(k + 1)) of the returned array. Events of
      * one time may come in any order (the bounds sum them).
      */
    def sortByKeyThenTime(keys: Int): Array[Int] = {
      val start = new Array[Int](keys + 2)
      var i = 0
      while (i < n) { start((key(i) >> 2).toInt + 2) += 1; i += 1 }
      var k = 2
      while (k < start.length) { start(k) += start(k - 1); k += 1 }
      scratch()
      val t2 = sT; val k2 = sK; val d2 = sD
      i = 0
      while (i < n) {
        val kk = (key(i) >> 2).toInt + 1
        val p = start(kk); start(kk) += 1; t2(p) = time(i); k2(p) = key(i); d2(p) = delta(i); i += 1
      }
      sT = time; sK = key; sD = delta
      time = t2; key = k2; delta = d2
      k = 0
      while (k < keys) { if (start(k + 1) - start(k) > 1) sortRange(start(k), start(k + 1)); k += 1 }
      start
    }

    // scratch of the sorts (as long as the events when in use; the counting sort swaps it with them)
    private var sT = new Array[Long](0); private var sK = new Array[Long](0); private var sD = new Array[Long](0)
    private def scratch(): Unit =
      if (sT.length < n) { val c = math.max(n, time.length); sT = new Array[Long](c); sK = new Array[Long](c); sD = new Array[Long](c) }

    /** Starts of the ascending runs of events [from, until) by time, and their number. */
    private def runStarts(from: Int, until: Int): (Array[Int], Int) = {
      var runs = 1
      var i = from + 1
      while (i < until) { if (time(i) < time(i - 1)) runs += 1; i += 1 }
      val starts = new Array[Int](runs + 1)
      var r = 1
      i = from + 1
      while (i < until) { if (time(i) < time(i - 1)) { starts(r) = i; r += 1 }; i += 1 }
      starts(0) = from; starts(runs) = until
      (starts, runs)
    }

    /** Sorts events [from, until) by time: insertion sort of short stretches, then the ascending
      * runs merged ([[Windows.mergeRunsInto]]).
      */
    private def sortRange(from: Int, until: Int): Unit = {
      var a = from
      while (a < until) { insertion(a, math.min(until, a + SmallSort)); a += SmallSort }
      if (until - from <= SmallSort) return
      val (starts, runs) = runStarts(from, until)
      if (runs > 1 && Windows.mergeRunsInto(time, key, delta, starts, runs, until, sT, sK, sD)) {
        val len = until - from
        System.arraycopy(sT, from, time, from, len); System.arraycopy(sK, from, key, from, len); System.arraycopy(sD, from, delta, from, len)
      }
    }

    private def insertion(from: Int, until: Int): Unit = {
      var i = from + 1
      while (i < until) {
        val t = time(i); val kk = key(i); val d = delta(i)
        var j = i - 1
        while (j >= from && time(j) > t) { time(j + 1) = time(j); key(j + 1) = key(j); delta(j + 1) = delta(j); j -= 1 }
        time(j + 1) = t; key(j + 1) = kk; delta(j + 1) = d
        i += 1
      }
    }

    /** Sorts all events by time. Events that come as a few ascending runs (each input's, in the
      * order [[Folder.collect]] writes them) are merged run by run; others take a radix sort.
      */
    def sortByTime(): Unit = if (n > 1) {
      val (starts, runs) = runStarts(0, n)
      if (runs > MaxMergedRuns) RadixSort.sortByTs(time, key, delta, n)
      else if (runs > 1) {
        scratch()
        if (Windows.mergeRunsInto(time, key, delta, starts, runs, n, sT, sK, sD)) {
          val t = time; time = sT; sT = t
          val kk = key; key = sK; sK = kk
          val d = delta; delta = sD; sD = d
        }
      }
    }

    /** Sets the delta of event `i` (written before its value was known). */
    def setDelta(i: Int, d: Long): Unit = delta(i) = d
  }

  /** A monotone bound as steps, newest first: units (end(i - 1), end(i)] have time(i). */
  private final class Steps {
    var time = new Array[Long](64); var end = new Array[Long](64); var n = 0
    def clear(): Unit = n = 0
    /** Clears, with room for `c` steps (one allocation, not a chain of doublings). */
    def clear(c: Int): Unit = {
      n = 0
      if (time.length < c) { time = new Array[Long](c); end = new Array[Long](c) }
    }
    def add(t: Long, e: Long): Unit = {
      if (n == time.length) { time = java.util.Arrays.copyOf(time, n * 2); end = java.util.Arrays.copyOf(end, n * 2) }
      time(n) = t; end(n) = e; n += 1
    }
    def units: Long = if (n == 0) 0L else end(n - 1)
  }

  private final class Folder(xs: Array[FrequentSketch], out: FrequentSketch) {
    private val idMaps: Array[Array[Int]] = xs.map(s => Array.fill(if (s.dict == null) 0 else s.dict.capacity)(-1))
    private def outId(j: Int, id: Int): Int = {
      val m = idMaps(j)
      if (m(id) < 0) {
        val from = xs(j)
        m(id) = if (from.dict.bytesKeys) out.dict.idOfBytes(from.dict.bytesKey(id)) else out.dict.idOfLong(from.dict.longKey(id))
      }
      m(id)
    }
    private def keyCount: Int = if (out.dict == null) 0 else out.dict.capacity

    // per-key accumulators of one piece (constant part, in-piece part), indexed by output id
    private var cHi = new Array[Long](1024); private var cLo = new Array[Long](1024)
    private var sHi = new Array[Long](1024); private var sLo = new Array[Long](1024)
    private var touched = new Array[Int](1024); private var nTouched = 0
    private def touch(o: Int): Unit = {
      if (o >= cHi.length) {
        val c = math.max(o + 1, cHi.length * 2)
        cHi = java.util.Arrays.copyOf(cHi, c); cLo = java.util.Arrays.copyOf(cLo, c)
        sHi = java.util.Arrays.copyOf(sHi, c); sLo = java.util.Arrays.copyOf(sLo, c)
      }
      if (cHi(o) == 0 && cLo(o) == 0 && sHi(o) == 0 && sLo(o) == 0) {
        if (nTouched == touched.length) touched = java.util.Arrays.copyOf(touched, nTouched * 2)
        touched(nTouched) = o; nTouched += 1
      }
    }

    // each bound's events apart: an input's events of one bound come in time order, so sorting them
    // merges a run per input
    // room for the events of one merged scale, which reads one scale of each input: its entries and
    // partial counts (one allocation each, not a chain of doublings)
    private val eventRoom: Int = {
      var c = 1024L
      xs.foreach(s => c += s.scales.iterator.map(sc => (sc.end - sc.start).toLong + sc.rn).foldLeft(0L)(math.max))
      math.min(c, Int.MaxValue - 8L).toInt
    }
    private val keyHi = new Events(eventRoom); private val keyLo = new Events(eventRoom)
    private val totHi = new Events(eventRoom); private val totLo = new Events(eventRoom); private val decEv = new Events(1024)

    /** The pending decrements of the pieces that reach the newest start (the decrement bound's floor). */
    private var pendingTop = 0L

    /** The events of every input over the starts t0 > `low`: with `single`, each input answers with
      * its finest scale holding every such start (the fold's sums); otherwise with its finest scale
      * holding t0 (the lower bound of the merged weight that sets the drop marks).
      */
    private def collect(low: Long, keys: Boolean, single: Boolean): Unit = {
      keyHi.clear(); keyLo.clear(); totHi.clear(); totLo.clear(); decEv.clear()
      pendingTop = 0L
      var j = 0
      while (j < xs.length) {
        val s = xs(j)
        if (single) {
          var i = 0
          while (i < s.scales.size - 1 && s.scales(i).dropped > low) i += 1
          piece(j, s, s.scales(i), low, Long.MaxValue, bottom = true, keys)
        } else {
          // the pieces: scale i answers the starts in (max(B_i, low), min over finer B]; written
          // coarsest first, so that the input's events come in time order
          val tops = new Array[Long](s.scales.size)
          var top = Long.MaxValue
          var i = 0
          while (i < s.scales.size && top > low) {
            tops(i) = top
            if (s.scales(i).dropped < top) top = s.scales(i).dropped
            i += 1
          }
          i -= 1
          while (i >= 0) {
            val sc = s.scales(i)
            val bottom = math.max(sc.dropped, low)
            if (bottom < tops(i)) piece(j, s, sc, bottom, tops(i), bottom == low, keys)
            i -= 1
          }
        }
        j += 1
      }
    }

    /** The events of scale `sc` of input `j` for the starts in (a, b]; below a the piece gives 0. */
    private def piece(j: Int, s: FrequentSketch, sc: Scale, a: Long, b: Long, bottom: Boolean, keys: Boolean): Unit = {
      var cTH = 0L; var cTL = 0L; var sTH = 0L; var sTL = 0L; var cD = sc.pendDec; var sD = 0L
      // the piece's events at a (their deltas known at the end) go first: the events then come in time order
      val hiAtA = totHi.n; val loAtA = totLo.n; val decAtA = decEv.n
      if (!bottom) { totHi.add(0, a, 0L, Hi); totLo.add(0, a, 0L, Lo); decEv.add(0, a, 0L, Hi) }
      var e = if (a == Long.MinValue) sc.start else sc.firstAtOrAfter(a + 1)
      while (e < sc.end) {
        val ts = sc.ets(e); val span = sc.espan(e); val w = sc.ew(e)
        if (sc.ekey(e) == Total) {
          if (span == ts && ts <= b && span > a) { totHi.add(0, ts, w, Hi); totLo.add(0, ts, w, Lo); sTH += w; sTL += w }
          else { // the lower bound's event (at span <= ts) first
            if (span > b) cTL += w else if (span > a) { totLo.add(0, span, w, Lo); sTL += w }
            if (ts > b) cTH += w else { totHi.add(0, ts, w, Hi); sTH += w }
          }
          val dec = sc.edec(e)
          if (dec > 0) { if (ts > b) cD += dec else { decEv.add(0, ts, dec, Hi); sD += dec } }
        } else if (keys) {
          val o = outId(j, sc.ekey(e)); touch(o)
          if (span == ts && ts <= b && span > a) { keyHi.add(o, ts, w, Hi); keyLo.add(o, ts, w, Lo); sHi(o) += w; sLo(o) += w }
          else {
            if (ts > b) cHi(o) += w else { keyHi.add(o, ts, w, Hi); sHi(o) += w }
            if (span > b) cLo(o) += w else if (span > a) { keyLo.add(o, span, w, Lo); sLo(o) += w }
          }
        }
        e += 1
      }
      val last = s.lastTs
      if (keys) {
        var r = 0
        while (r < sc.rn) {
          val w = sc.rW(r)
          if (w > 0 && last > a) {
            val o = outId(j, sc.rKey(r)); touch(o)
            if (last > b) cHi(o) += w else { keyHi.add(o, last, w, Hi); sHi(o) += w }
            val span = sc.rSpan(r)
            if (span > b) cLo(o) += w else if (span > a) { keyLo.add(o, span, w, Lo); sLo(o) += w }
          }
          r += 1
        }
      }
      if (sc.totR > 0 && last > a) {
        val w = sc.totR
        if (sc.totSpan > b) cTL += w else if (sc.totSpan > a) { totLo.add(0, sc.totSpan, w, Lo); sTL += w }
        if (last > b) cTH += w else { totHi.add(0, last, w, Hi); sTH += w }
      }
      if (cTH > 0) totHi.add(0, b, cTH, Hi)
      if (cTL > 0) totLo.add(0, b, cTL, Lo)
      if (cD > 0) { if (b == Long.MaxValue) pendingTop += cD else decEv.add(0, b, cD, Hi) }
      if (!bottom) {
        totHi.setDelta(hiAtA, -(cTH + sTH)); totLo.setDelta(loAtA, -(cTL + sTL))
        decEv.setDelta(decAtA, -(cD + sD))
      }
      var t = 0
      while (t < nTouched) {
        val o = touched(t)
        if (cHi(o) > 0) keyHi.add(o, b, cHi(o), Hi)
        if (cLo(o) > 0) keyLo.add(o, b, cLo(o), Lo)
        if (!bottom) {
          if (cHi(o) + sHi(o) > 0) keyHi.add(o, a, -(cHi(o) + sHi(o)), Hi)
          if (cLo(o) + sLo(o) > 0) keyLo.add(o, a, -(cLo(o) + sLo(o)), Lo)
        }
        cHi(o) = 0; cLo(o) = 0; sHi(o) = 0; sLo(o) = 0
        t += 1
      }
      nTouched = 0
    }

    /** The monotone lower bound of events [from, until) (sorted by time) as steps: the largest sum at
      * a later start. With `upper`, the monotone upper bound instead: the smallest sum at an earlier
      * start (down to the domain's bottom). Negative sums count as 0.
      */
    private def steps(ev: Events, from: Int, until: Int, upper: Boolean, st: Steps): Unit = {
      val bound = if (upper) Hi else Lo
      st.clear(until - from) // a step per distinct time at most
      // sums at each distinct time, newest first
      var acc = 0L
      var i = until - 1
      while (i >= from) {
        val t = ev.time(i)
        while (i >= from && ev.time(i) == t) { if ((ev.key(i) & bound) != 0) acc += ev.delta(i); i -= 1 }
        st.add(t, math.max(acc, 0L))
      }
      if (!upper) {
        var mx = 0L; var k = 0; var m = 0
        while (k < st.n) { if (st.end(k) > mx) { mx = st.end(k); st.time(m) = st.time(k); st.end(m) = mx; m += 1 }; k += 1 }
        st.n = m
      } else {
        var k = st.n - 1
        var mn = Long.MaxValue
        while (k >= 0) { if (st.end(k) < mn) mn = st.end(k); st.end(k) = mn; k -= 1 }
        // keep the first time of each rise
        var prev = 0L; var m = 0
        k = 0
        while (k < st.n) { if (st.end(k) > prev) { prev = st.end(k); st.time(m) = st.time(k); st.end(m) = prev; m += 1 }; k += 1 }
        st.n = m
      }
    }

    private val hiSteps = new Steps; private val loSteps = new Steps

    // the scale being built
    private var oTs = new Array[Long](1024); private var oSpan = new Array[Long](1024)
    private var oKey = new Array[Long](1024); private var oW = new Array[Long](1024); private var oDec = new Array[Long](1024)
    private var on = 0
    private def emit(ts: Long, span: Long, key: Int, w: Long): Unit = {
      if (on == oTs.length) {
        val c = on * 2
        oTs = java.util.Arrays.copyOf(oTs, c); oSpan = java.util.Arrays.copyOf(oSpan, c); oKey = java.util.Arrays.copyOf(oKey, c)
        oW = java.util.Arrays.copyOf(oW, c); oDec = java.util.Arrays.copyOf(oDec, c)
      }
      oTs(on) = ts; oSpan(on) = math.min(span, ts); oKey(on) = key; oW(on) = w; oDec(on) = 0L; on += 1
    }

    /** Blocks of `bs` units, newest first, from the bounds in hiSteps / loSteps; coalesced when
      * consecutive blocks share their time and span. Returns the units left over (not written unless
      * `keepRest`, which writes them as one last, smaller block).
      */
    private def blocks(key: Int, bs: Long, floorSpan: Long, keepRest: Boolean): Long = {
      val w = hiSteps.units
      val lo = math.min(loSteps.units, w)
      var u1 = 1L; var ia = 0; var ib = 0
      def spanAt(u: Long): Long = {
        if (u > lo) floorSpan
        else { while (loSteps.end(ib) < u) ib += 1; loSteps.time(ib) }
      }
      while (w - u1 + 1 >= bs) {
        while (hiSteps.end(ia) < u1) ia += 1
        val u2 = u1 + bs - 1
        val span = spanAt(u2)
        val mA = (hiSteps.end(ia) - u1) / bs
        val mB = if (u2 > lo) (w - u2) / bs else (loSteps.end(ib) - u2) / bs
        val m = math.min(math.min(mA, mB), (w - u2) / bs)
        emit(hiSteps.time(ia), span, key, (m + 1) * bs)
        u1 += (m + 1) * bs
      }
      val rest = w - u1 + 1
      if (rest > 0 && keepRest) {
        while (hiSteps.end(ia) < u1) ia += 1
        emit(hiSteps.time(ia), spanAt(w), key, rest)
        0L
      } else rest
    }

    /** The totals' monotone lower bound over starts > `low`: (times, values), newest first. */
    def lowerTotals(low: Long): (Array[Long], Array[Long]) = {
      collect(low, keys = false, single = false)
      totLo.sortByTime()
      steps(totLo, 0, totLo.n, upper = false, loSteps)
      (java.util.Arrays.copyOf(loSteps.time, loSteps.n), java.util.Arrays.copyOf(loSteps.end, loSteps.n))
    }

    /** Scale `l` with drop mark `mark`, answering starts > `low`, in blocks of `bs` units. */
    def scale(l: Int, mark: Long, low: Long, bs: Long, slack: Long): Scale = {
      collect(low, keys = true, single = true)
      on = 0
      val floorSpan = if (low == Long.MinValue) out.firstTs else math.max(low, out.firstTs)
      // keys
      val nk = keyCount
      val ksHi = keyHi.sortByKeyThenTime(nk)
      val ksLo = keyLo.sortByKeyThenTime(nk)
      var rest = 0L
      var k = 0
      while (k < nk) {
        if (ksHi(k + 1) > ksHi(k)) {
          steps(keyHi, ksHi(k), ksHi(k + 1), upper = true, hiSteps)
          steps(keyLo, ksLo(k), ksLo(k + 1), upper = false, loSteps)
          if (hiSteps.units > 0) rest = math.max(rest, blocks(k, bs, floorSpan, keepRest = false))
        }
        k += 1
      }
      // totals
      val tFirst = on
      totHi.sortByTime(); totLo.sortByTime()
      steps(totHi, 0, totHi.n, upper = true, hiSteps)
      steps(totLo, 0, totLo.n, upper = false, loSteps)
      if (hiSteps.units > 0) blocks(Total, bs, floorSpan, keepRest = true)
      val tEnd = on // total entries [tFirst, tEnd), times non-increasing
      // the decrement bound: largest value at a later start, its steps on total entries of their time
      decEv.sortByTime()
      var acc = 0L; var mx = 0L
      val pending = pendingTop
      var groupTs = Long.MinValue; var groupDec = 0L; var groupSlack = 0L
      def place(): Unit = if (groupDec > 0) {
        var lo = tFirst; var hi = tEnd // first total entry with time <= groupTs (times non-increasing)
        while (lo < hi) { val mid = (lo + hi) >>> 1; if (oTs(mid) > groupTs) lo = mid + 1 else hi = mid }
        if (lo < tEnd && oTs(lo) == groupTs) oDec(lo) += groupDec
        else { emit(groupTs, groupTs, Total, 0L); oDec(on - 1) = groupDec }
      }
      var i = decEv.n - 1
      while (i >= 0) {
        val t = decEv.time(i)
        while (i >= 0 && decEv.time(i) == t) { acc += decEv.delta(i); i -= 1 }
        if (acc > mx) {
          val step = acc - mx
          mx = acc
          if (groupDec > 0 && groupSlack + step < slack) { groupDec += step; groupSlack += step }
          else { place(); groupTs = t; groupDec = step; groupSlack = 0L }
        }
      }
      place()
      // the scale, in timestamp order
      val sc = new Scale(1L << l, out.plan.k)
      sc.dropped = mark
      sc.pendDec = pending + rest
      val idx = new Array[Long](on); val ts = java.util.Arrays.copyOf(oTs, on)
      var e = 0
      while (e < on) { idx(e) = e; e += 1 }
      RadixSort.sortByTs(ts, idx, new Array[Long](on), on)
      val mirror = sc.pendDec == 0L && exact(idx)
      sc.reserve(on)
      e = 0
      while (e < on) {
        val x = idx(e).toInt
        if (!mirror) sc.appendRaw(oTs(x), oSpan(x), oKey(x).toInt, oW(x), oDec(x))
        else if (oKey(x) != Total) { // the totals of an exact scale: one per key entry, as one sketch has them
          sc.appendRaw(oTs(x), oTs(x), Total, oW(x), 0L)
          sc.appendRaw(oTs(x), oSpan(x), oKey(x).toInt, oW(x), 0L)
        }
        e += 1
      }
      sc
    }

    /** Whether the entries (in timestamp order by `idx`) are exact: every entry spans nothing, no
      * total carries a decrement or weighs 0, and the totals of each timestamp weigh what its key
      * entries weigh.
      */
    private def exact(idx: Array[Long]): Boolean = {
      var e = 0
      while (e < on) {
        val t = oTs(idx(e).toInt)
        var keys = 0L; var tots = 0L
        while (e < on && oTs(idx(e).toInt) == t) {
          val x = idx(e).toInt
          if (oSpan(x) != t) return false
          if (oKey(x) == Total) { if (oDec(x) != 0L || oW(x) == 0L) return false; tots += oW(x) } else keys += oW(x)
          e += 1
        }
        if (keys != tots) return false
      }
      true
    }
  }
}
