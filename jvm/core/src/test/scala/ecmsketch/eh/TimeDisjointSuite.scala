package ecmsketch.eh

import org.scalatest.funsuite.AnyFunSuite

import scala.util.Random

import ecmsketch.Families
import ecmsketch.Oracle
import ecmsketch.core.{SketchException, WindowSpec}
import ecmsketch.dwave.DwSketch
import ecmsketch.ecm.{EcmSketch, Planner, QueryKind}

/** Merges of sketches whose time spans do not overlap (docs/design/merging.md, "Time-disjoint merges"):
  *  - the concatenation of time-disjoint histograms answers within each piece's own epsilon (the
  *    lemma), with seams at equal timestamps;
  *  - no histogram of the bucket rule holds that concatenation without error (brute force over every
  *    grouping of the pieces' buckets), hence the segment of [[ExpHistogram.concat]];
  *  - the segmented histogram answers every boundary within the pieces' bound (depth 0 and depth 1
  *    pieces), keeps its invariants under later inserts, expiry and merges, and holds about one
  *    histogram's buckets however many pieces it joins;
  *  - EH and ECM merges of consecutive periods keep the depth of one period, whatever the window;
  *    inputs that overlap add a level per cluster; deterministic waves still add a level;
  *  - pieces a whole window before the merged clock take no part.
  */
class TimeDisjointSuite extends AnyFunSuite {

  /** `pieces` consecutive pieces of one stream, piece i in [i * span, (i + 1) * span); the last row
    * of a piece and the first of the next share a timestamp when `sharedSeams` (an adversarial seam).
    * The last piece ends with a row at its last tick (the merged clock).
    */
  private def pieces(rnd: Random, n: Int, span: Long, rows: Int, sharedSeams: Boolean): Seq[Seq[(Long, Long)]] =
    (0 until n).map { i =>
      val start = i * span
      val ts = (Seq.fill(rows)(start + rnd.nextLong(span)) ++ (if (sharedSeams && i > 0) Seq(start) else Nil) ++
        (if (sharedSeams && i < n - 1) Seq(start + span) else Nil) ++ (if (i == n - 1) Seq(start + span - 1) else Nil)).sorted
      ts.map(t => (t, if (rnd.nextInt(8) == 0) 1L + rnd.nextInt(40) else 1L))
    }

  private def hist(cfg: EhConfig, rows: Seq[(Long, Long)]): ExpHistogram = {
    val h = new ExpHistogram(cfg); rows.foreach { case (t, w) => h.add(t, w) }; h
  }

  /** Boundaries worth probing: every row's timestamp and the one before it, within [lowest, now]. */
  private def probes(o: Oracle, lowest: Long, now: Long): Seq[Long] =
    (o.ts.toSeq.distinct.flatMap(t => Seq(t - 1, t)) :+ lowest).filter(x => x >= lowest && x <= now)

  /** 30 time-disjoint pieces of 40..440 rows for every epsilon, seam kind and seed: `f(eps, shared,
    * seed, pieces, oracle of their union)`.
    */
  private def disjointCases(f: (Double, Boolean, Int, Seq[Seq[(Long, Long)]], Oracle) => Unit): Unit =
    for (eps <- Seq(0.5, 0.2, 0.1, 0.05); shared <- Seq(false, true); seed <- 0 until 3) {
      val rnd = new Random(seed * 31 + (eps * 100).toInt)
      val ps = pieces(rnd, 30, 1000, 40 + rnd.nextInt(400), shared)
      val o = new Oracle; ps.flatten.foreach { case (t, w) => o.add(0, t, w) }
      f(eps, shared, seed, ps, o)
    }

  test("lemma: time-disjoint histograms side by side answer within epsilon, seams at equal timestamps included") {
    var worst = 0.0
    disjointCases { (eps, shared, _, ps, o) =>
      val hs = ps.map(hist(EhConfig(eps, Long.MaxValue), _))
      // the seam condition of the lemma: each piece's lower bound is at or after the previous piece's last bucket end
      hs.zip(hs.tail).foreach { case (a, b) => assert(b.lowerTs >= a.newestEnd) }
      if (shared) assert(hs.zip(hs.tail).exists { case (a, b) => b.lowerTs == a.newestEnd })
      val now = o.ts.max
      probes(o, Long.MinValue + 1, now).foreach { x =>
        val lo = x + 1
        // the newest piece that may hold rows before lo straddles; newer pieces count exactly, older ones not at all
        val j = hs.lastIndexWhere(_.lowerTs < lo)
        val est = (if (j >= 0) hs(j).estimateFrom(lo) else 0.0) + hs.drop(j + 1).map(_.total).sum
        val truth = o.after(x)
        assert(math.abs(est - truth) <= eps * truth + 1e-9, s"eps=$eps x=$x est=$est truth=$truth")
        if (truth > 0) worst = math.max(worst, math.abs(est - truth) / (eps * truth))
      }
    }
    info(f"worst error / epsilon of the side-by-side pieces: $worst%.3f")
  }

  test("no histogram of the bucket rule holds an older single row followed by a histogram of top level >= 1 without error") {
    for (eps <- Seq(0.5, 0.25); n2 <- Seq(12, 25, 40)) {
      val cfg = EhConfig(eps, Long.MaxValue)
      val h2 = hist(cfg, (1 to n2).map(t => (t.toLong, 1L)))
      assert(h2.levelCount >= 2)
      // atoms oldest first: (size, end); the older piece is one row at ts 0
      val atoms = ArrayBufferOf((1L, 0L)) ++ {
        val b = scala.collection.mutable.ArrayBuffer[(Long, Long)](); h2.foreachBucket((s, e) => b += ((s, e))); b
      }
      // every way to cut the atoms into consecutive groups whose sizes are powers of two, as a histogram
      var valid = 0
      val cuts = atoms.size - 1
      for (mask <- 0 until (1 << cuts)) {
        val groups = scala.collection.mutable.ArrayBuffer[(Long, Long)]()
        var size = 0L
        atoms.indices.foreach { i =>
          size += atoms(i)._1
          if (i == atoms.size - 1 || (mask & (1 << i)) != 0) { groups += ((size, atoms(i)._2)); size = 0 }
        }
        val pow2 = groups.forall { case (s, _) => java.lang.Long.bitCount(s) == 1 }
        // oldest first, sizes must not grow toward the newest end
        val ordered = groups.zip(groups.tail).forall { case (a, b) => a._1 >= b._1 }
        if (pow2 && ordered) {
          val top = java.lang.Long.numberOfTrailingZeros(groups.head._1)
          val ends = Array.tabulate(top + 1)(l => groups.filter(_._1 == (1L << l)).map(_._2).toArray)
          val h = new ExpHistogram(cfg)
          try { h.restore(ends, 0L, n2.toLong); valid += 1 } catch { case _: SketchException => () }
        }
      }
      assert(valid == 0, s"eps=$eps n2=$n2: $valid groupings form a valid histogram")
    }
  }

  private def ArrayBufferOf[T](xs: T*) = scala.collection.mutable.ArrayBuffer[T](xs: _*)

  private val day = 1000L

  /** Daily sketches of one site over 30 days; merged over the days with `window`. */
  private def checkEh(window: Long, levels: Int, expectedDepth: Int, shared: Boolean, seed: Int): Unit = {
    val rnd = new Random(seed)
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = window)
    val ps = pieces(rnd, 30, day, 60 + rnd.nextInt(100), shared)
    val days = ps.map { rows => val s = EhSketch.create(spec, 0.1, levels); rows.foreach { case (t, w) => s.add(t, w) }; s }
    val m = EhSketch.merge(Random.shuffle(days))
    assert(m.mergeDepth == expectedDepth, s"window $window")
    val o = new Oracle; ps.flatten.foreach { case (t, w) => o.add(0, t, w) }
    val last = o.ts.max
    val span = math.min(window, 31 * day)
    for (now <- Seq(last, last + 1, last + day / 2); r <- (1L to span by math.max(1L, span / 97)) :+ window) {
      val truth = if (r == Long.MaxValue) o.ws.sum else o.after(now - r) - o.after(now)
      val est = m.count(r, now)
      assert(math.abs(est - truth) <= m.errorBound * truth + 1e-9, s"now=$now r=$r est=$est truth=$truth bound=${m.errorBound}")
    }
  }

  test("EH: a merge over 30 days keeps the depth of one day, whatever the window, seams at shared timestamps included") {
    for (seed <- 0 until 3; shared <- Seq(false, true); window <- Seq(day / 2, day, 7 * day, Long.MaxValue))
      checkEh(window, levels = 1, expectedDepth = 0, shared, seed)
  }

  test("EH: the seam of expiry is exact: a bucket ending at clock - N takes no part, one ending at clock - N + 1 does") {
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = 100)
    def sk(ts: Long*) = { val s = EhSketch.create(spec, 0.1, 1); ts.foreach(s.add(_)); s }
    val newer = sk(150, 170, 200)
    val gone = EhSketch.merge(Seq(sk(10, 50, 100), newer))
    assert(gone.mergeDepth == 0 && gone.count(100L, null) == 3.0 && !gone.histogram.segmented)
    // time-disjoint: laid side by side, no level added, the row at 101 held in the segment
    val kept = EhSketch.merge(Seq(sk(10, 50, 101), newer))
    assert(kept.mergeDepth == 0 && kept.histogram.segmented && kept.count(100L, null) == 4.0)
    // overlapping spans (160 > 150): one order-preserving merge, one level
    val overlap = EhSketch.merge(Seq(sk(10, 50, 160), newer))
    assert(overlap.mergeDepth == 1 && !overlap.histogram.segmented && math.abs(overlap.count(100L, null) - 4.0) <= overlap.errorBound * 4.0)
    // empty inputs add nothing either
    assert(EhSketch.merge(Seq(EhSketch.create(spec, 0.1, 1), newer, EhSketch.create(spec, 0.1, 1))).mergeDepth == 0)
  }

  /** Every boundary x of the union's rows: |estimate - truth| <= bound * truth. Returns the worst error / (bound * truth). */
  private def checkAll(h: ExpHistogram, o: Oracle, bound: Double, ctx: String): Double = {
    var worst = 0.0
    probes(o, Long.MinValue + 1, o.ts.max).foreach { x =>
      val truth = o.after(x)
      val est = h.estimateFrom(x + 1)
      assert(math.abs(est - truth) <= bound * truth + 1e-9, s"$ctx: x=$x est=$est truth=$truth bound=$bound")
      if (truth > 0) worst = math.max(worst, math.abs(est - truth) / (bound * truth))
    }
    worst
  }

  test("concat: 30 time-disjoint pieces answer every boundary within epsilon, and hold about one histogram's buckets") {
    var worst = 0.0
    disjointCases { (eps, shared, seed, ps, o) =>
      val cfg = EhConfig(eps, Long.MaxValue)
      val c = ExpHistogram.concat(ps.map(hist(cfg, _)), cfg)
      c.checkInvariants()
      assert(c.segmented && c.total == o.ws.sum && c.lowerTs == o.ts.min)
      worst = math.max(worst, checkAll(c, o, eps, s"eps=$eps shared=$shared seed=$seed"))
      // memory: one histogram over all the rows, and the segment's bound: every two consecutive groups
      // failed to join, so the weight newer than them grows by 1 + 2 eps per two groups
      val single = hist(cfg, ps.flatten)
      val segBound = 2 * math.ceil(math.log(1.0 + c.total) / math.log(1 + 2 * eps)) + 2
      assert(c.segmentCount <= segBound, s"segment of ${c.segmentCount} buckets, bound $segBound")
      assert(c.bucketCount <= 2 * single.bucketCount, s"eps=$eps: ${c.bucketCount} buckets vs ${single.bucketCount} in one histogram")
      if (eps == 0.1 && seed == 0 && !shared)
        info(s"eps 0.1, 30 pieces, ${c.total} weight: ${c.bucketCount} buckets (${c.segmentCount} in the segment) vs ${single.bucketCount} in one histogram; " +
          s"${ps.map(hist(cfg, _).bucketCount).sum} in the pieces")
    }
    info(f"worst error / epsilon: $worst%.3f")
  }

  test("concat of merged pieces (depth 1 each) answers within (1 + eps)^2 - 1; a concat of concats equals the flat concat's bound") {
    for (eps <- Seq(0.2, 0.05); seed <- 0 until 3) {
      val rnd = new Random(seed + 101)
      val cfg = EhConfig(eps, Long.MaxValue)
      // each day: two sites whose rows interleave, merged order-preservingly (one level)
      val days = pieces(rnd, 20, 1000, 200, sharedSeams = seed == 1)
      val merged = days.map { rows =>
        val (a, b) = rows.partition(_ => rnd.nextBoolean())
        ExpHistogram.merge(Seq(hist(cfg, a), hist(cfg, b)), cfg)
      }
      val o = new Oracle; days.flatten.foreach { case (t, w) => o.add(0, t, w) }
      val bound = (1 + eps) * (1 + eps) - 1
      val flat = ExpHistogram.concat(merged, cfg)
      flat.checkInvariants()
      checkAll(flat, o, bound, s"flat eps=$eps")
      // weeks, then the weeks side by side: a segment of segments
      val weeks = merged.grouped(7).map(ExpHistogram.concat(_, cfg)).toSeq
      val nested = ExpHistogram.concat(weeks, cfg)
      nested.checkInvariants()
      checkAll(nested, o, bound, s"nested eps=$eps")
    }
  }

  test("a segmented histogram takes new rows, expires its segment first, and merges with overlapping histograms within the next level's bound") {
    for (seed <- 0 until 4) {
      val rnd = new Random(seed + 7)
      val eps = 0.1
      val window = 5000L
      val cfg = EhConfig(eps, window)
      val ps = pieces(rnd, 10, 1000, 300, sharedSeams = seed % 2 == 0)
      val o = new Oracle; ps.flatten.foreach { case (t, w) => o.add(0, t, w) }
      val h = ExpHistogram.concat(ps.map(hist(cfg, _)), cfg)
      assert(h.segmented)
      // only the last window's rows are reachable: ranges up to the window from the clock
      def checkWindow(hh: ExpHistogram, oo: Oracle, bound: Double, ctx: String): Unit = {
        val now = hh.lastTs
        (1L to window by 37).foreach { r =>
          val truth = oo.after(now - r)
          val est = hh.estimateFrom(now - r + 1)
          assert(math.abs(est - truth) <= bound * truth + 1e-9, s"$ctx: r=$r est=$est truth=$truth")
        }
      }
      checkWindow(h, o, eps, "after concat")
      // new rows cascade in the levels; the segment only grows older
      var t = o.ts.max
      (0 until 3000).foreach { _ =>
        t += 1 + rnd.nextInt(4); val w = if (rnd.nextInt(10) == 0) 1L + rnd.nextInt(30) else 1L
        h.add(t, w); o.add(0, t, w)
        if (rnd.nextInt(500) == 0) { h.checkInvariants(); checkWindow(h, o, eps, s"adding at $t") }
      }
      h.checkInvariants()
      checkWindow(h, o, eps, "after adds")
      // by now every piece lies a window behind: the segment has expired
      assert(!h.segmented, s"segment of ${h.segmentCount} buckets left at $t")
      // a fresh segmented histogram merged with an overlapping one: one level (the order-preserving merge reads the segment as buckets)
      val again = ExpHistogram.concat(ps.map(hist(cfg, _)), cfg)
      val other = ps.last.map { case (tt, _) => (tt, 2L) }
      val o2 = new Oracle
      (ps.flatten ++ other).sortBy(_._1).foreach { case (tt, w) => o2.add(0, tt, w) }
      val m = ExpHistogram.merge(Seq(again, hist(cfg, other)), cfg)
      m.checkInvariants()
      checkWindow(m, o2, (1 + eps) * (1 + eps) - 1, "segment merged with an overlapping histogram")
    }
  }

  test("a segmented histogram takes long sorted runs exactly as one by one (the runs cut where a bucket expires, segment first)") {
    for (seed <- 0 until 6; window <- Seq(50L, 700L, 3000L)) {
      val rnd = new Random(seed + 500)
      val cfg = EhConfig(Seq(0.3, 0.1, 0.02)(seed % 3), window)
      val ps = pieces(rnd, 8, 400, 150, sharedSeams = seed % 2 == 1)
      val a = ExpHistogram.concat(ps.map(hist(cfg, _)), cfg)
      val b = a.copy()
      var t = a.lastTs
      for (step <- 0 until 40) {
        val n = 1 + rnd.nextInt(if (step % 3 == 0) 5 else 2000)
        val ts = Array.fill(n) { t += (if (rnd.nextInt(4) == 0) 0 else rnd.nextInt(3)); t }
        a.addSorted(ts, n)
        ts.foreach(b.add)
        assert(a.toString == b.toString && a.lowerTs == b.lowerTs && a.total == b.total, s"seed=$seed window=$window step=$step")
        a.checkInvariants()
      }
    }
  }

  test("concat refuses overlapping inputs and other epsilons (the merges never pass them)") {
    val cfg = EhConfig(0.1, Long.MaxValue)
    val a = hist(cfg, Seq((10L, 1L), (20L, 1L))); val b = hist(cfg, Seq((15L, 1L), (30L, 1L)))
    assert(intercept[SketchException](ExpHistogram.concat(Seq(a, b), cfg)).getMessage.contains("overlap"))
    assert(intercept[SketchException](ExpHistogram.concat(Seq(a, hist(EhConfig(0.2, Long.MaxValue), Seq((40L, 1L)))), cfg)).getMessage.contains("epsilon"))
    assert(ExpHistogram.timeDisjoint(Seq(a, hist(cfg, Seq((20L, 1L), (25L, 1L))))))
  }

  test("regression: inputs that each span one instant t merge order-free (EH and ECM), in one cluster") {
    // Found by LawsSuite (CI, seed 4712552520355635714): an EH of 11 rows and one of 1 row, all at
    // t = 120, are time-disjoint either way round; the clusters split between them, so the input
    // order chose which one was laid side by side as the older part, and the bytes differed.
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = 50)
    def eh(n: Int, t: Long) = { val s = EhSketch.create(spec, 0.2, 1); (1 to n).foreach(_ => s.add(t)); s }
    val enc = (x: ecmsketch.core.WindowSketch) => ecmsketch.format.SketchCodec.encodeAny(x).toSeq
    val parts = Seq(eh(11, 120L), eh(1, 120L), eh(3, 120L), eh(2, 110L))
    val ms = parts.permutations.map(ps => EhSketch.merge(ps)).toSeq
    assert(ms.map(enc).distinct.size == 1)
    // the three inputs at t = 120 are one cluster (one merge level), after the one at t = 110
    val span = (s: EhSketch) => (s.histogram.lowerTs, s.histogram.newestEnd)
    assert(parts.permutations.forall(ps => ecmsketch.core.Windows.timeClusters(ps)(span(_)._1, span(_)._2).map(_.size) == Seq(1, 3)))
    assert(ms.head.mergeDepth == 1 && math.abs(ms.head.count(50L, null) - 17.0) <= 17.0 * ms.head.errorBound)
    val plan = Planner.plan(0.2, 0.1, QueryKind.Point, 1)
    def ecm(n: Int, t: Long) = { val s = EcmSketch.create(spec, plan, 7L); (1 to n).foreach(i => s.add(i % 3L, t, 1L)); s }
    val es = Seq(ecm(11, 120L), ecm(1, 120L), ecm(4, 120L))
    assert(es.permutations.map(ps => enc(EcmSketch.merge(ps))).toSeq.distinct.size == 1)
    // a split at a shared instant between different spans stays: [100, 120] then [120, 120]
    val a = EhSketch.create(spec, 0.2, 1); a.add(100L); a.add(120L)
    assert(ecmsketch.core.Windows.timeClusters(Seq(eh(1, 120L), a))(_.histogram.lowerTs, _.histogram.newestEnd).map(_.size) == Seq(1, 1))
  }

  test("EH count-based window: a same-stream partial merge of a piece a window behind copies the newer piece (depth counted as before)") {
    val spec = WindowSpec(countWindow = true, tsMicros = false, window = 50)
    val a = EhSketch.create(spec, 0.1, 1); (1L to 100L).foreach(a.add(_))
    val b = EhSketch.create(spec, 0.1, 1); (101L to 200L).foreach(b.add(_))
    val m = EhSketch.mergeUnchecked(Seq(a, b))
    // merges inside one aggregation count every non-empty run (conservative), but the histogram is b's
    assert(m.mergeDepth == 1 && m.histogram.toString == b.histogram.toString)
    (1L to 50L).foreach(r => assert(math.abs(m.count(r, null) - r) <= m.errorBound * r))
    // across streams a count-based merge is still refused
    assert(intercept[SketchException](EhSketch.merge(Seq(a, b))).getMessage.contains("count-based"))
  }

  test("deterministic wave: days a whole window before the merged clock take no part") {
    for (seed <- 0 until 3) {
      val rnd = new Random(seed)
      for ((window, depth) <- Seq(day / 2 -> 0, 7 * day -> 1)) {
        val spec = WindowSpec(countWindow = false, tsMicros = false, window = window)
        val ps = pieces(rnd, 30, day, 80, sharedSeams = seed == 1)
        val days = ps.map { rows => val s = DwSketch.create(spec, 0.1, 1, Long.MaxValue); rows.foreach { case (t, w) => s.add(t, w) }; s }
        val m = DwSketch.merge(days)
        assert(m.mergeDepth == depth)
        val o = new Oracle; ps.flatten.foreach { case (t, w) => o.add(0, t, w) }
        val now = o.ts.max
        (1L to window by 7).foreach { r =>
          val truth = o.after(now - r)
          assert(math.abs(m.count(r, null) - truth) <= m.errorBound * truth + 1e-9)
        }
      }
    }
  }

  test("ECM (EH cells): 30 days x 33 sites; days merge per site (no level), then sites (one); one flat merge of all 990 costs one level") {
    val rnd = new Random(5)
    for ((window, dayDepth) <- Seq(day / 2 -> 0, 7 * day -> 0, Long.MaxValue -> 0)) {
      val spec = WindowSpec(countWindow = false, tsMicros = false, window = window)
      val o = new Oracle
      val flat = Seq.newBuilder[EcmSketch]
      val perSite = (0 until 33).map { site =>
        val ps = pieces(rnd, 30, day, 12, sharedSeams = site % 2 == 0)
        val days = ps.map { rows =>
          val s = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 2, EcmSketch.DefaultSeed)
          rows.foreach { case (t, w) => val k = rnd.nextInt(20).toLong; s.add(k, t, w); o.add(k, t, w) }
          s
        }
        flat ++= days
        val m = EcmSketch.merge(Random.shuffle(days))
        assert(m.mergeDepth == dayDepth)
        m
      }
      val all = EcmSketch.merge(perSite)
      assert(all.mergeDepth == dayDepth + 1)
      // the 990 daily sketches at once: the sites of one day overlap, the days do not
      val oneShot = EcmSketch.merge(Random.shuffle(flat.result()))
      assert(oneShot.mergeDepth == 1)
      val u = Oracle.union(Seq(o))
      val now = u.ts.max
      for (m <- Seq(all, oneShot); r <- (1L to math.min(window, 31 * day) by 13) :+ window) {
        val truth = if (r == Long.MaxValue) u.ws.sum else u.after(now - r)
        assert(math.abs(m.total(r, null) - truth) <= m.totalErrorBound * truth + 1e-9, s"r=$r")
        u.freqsAfter(if (r == Long.MaxValue) Long.MinValue else now - r).take(5).foreach { case (k, f) =>
          val est = m.point(k, r, null)
          assert(est >= f * (1 - m.totalErrorBound) - 1e-9)
        }
      }
    }
  }

  test("ECM memory: a roll-up of 30 days holds about one sketch's bytes (the seams compacted), not 30 days' worth") {
    val rnd = new Random(11)
    for (window <- Seq(7 * day, Long.MaxValue)) {
      val spec = WindowSpec(countWindow = false, tsMicros = false, window = window)
      def sketch() = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, EcmSketch.DefaultSeed)
      val ps = pieces(rnd, 30, day, 3000, sharedSeams = false)
      val keyed = ps.map(_.map { case (t, w) => (rnd.nextInt(200).toLong, t, w) })
      val days = keyed.map { rows => val s = sketch(); rows.foreach { case (k, t, w) => s.add(k, t, w) }; s }
      val single = sketch(); keyed.flatten.foreach { case (k, t, w) => single.add(k, t, w) }
      val side = EcmSketch.merge(days)
      val merged = EcmSketch.merge(days, timeDisjoint = false)
      val (bSide, bSingle, bMerged, bDays) = (ecmsketch.format.SketchCodec.encode(side).length,
        ecmsketch.format.SketchCodec.encode(single).length, ecmsketch.format.SketchCodec.encode(merged).length,
        days.map(ecmsketch.format.SketchCodec.encode(_).length).sum)
      assert(side.mergeDepth == 0 && merged.mergeDepth == 1)
      assert(bSide <= 1.5 * bSingle, s"window $window: side by side $bSide bytes vs $bSingle for one sketch over all rows")
      info(s"window ${if (window == Long.MaxValue) "unbounded" else window}: 30 days side by side $bSide bytes (depth 0), " +
        s"order-preserving merge $bMerged (depth 1), one sketch over all rows $bSingle, the 30 daily sketches $bDays")
    }
  }

  test("ECM: a segmented sketch round-trips as format version 2; version 1 with a segment, or 2 without, is refused") {
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = 7 * day)
    val rnd = new Random(3)
    val days = pieces(rnd, 10, day, 200, sharedSeams = true).map { rows =>
      val s = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, EcmSketch.DefaultSeed)
      rows.foreach { case (t, w) => s.add(rnd.nextInt(30).toLong, t, w) }
      s
    }
    val m = EcmSketch.merge(days)
    assert(m.mergeDepth == 0)
    val b = ecmsketch.format.SketchCodec.encode(m)
    assert(b(4) == 4 && ecmsketch.core.Codec.layoutVersion(m) == 2)
    val d = ecmsketch.format.SketchCodec.decodeEcm(b)
    assert(java.util.Arrays.equals(ecmsketch.format.SketchCodec.encode(d), b))
    (0L until 30L).foreach(k => assert(d.point(k, null, null) == m.point(k, null, null)))
    val legacy = ecmsketch.format.GoldenInputs.withoutChecksum(b)
    assert(legacy(4) == 2 && Families.info(d, legacy)("format_version") == 2)
    val v1 = legacy.clone(); v1(4) = 1
    assert(intercept[SketchException](ecmsketch.format.SketchCodec.decode(v1)).getMessage.startsWith("corrupt sketch: format version 1, but its cells are of version 2"))
    val plain = ecmsketch.format.GoldenInputs.withoutChecksum(ecmsketch.format.SketchCodec.encode(days.head))
    assert(plain(4) == 1)
    val v2 = plain.clone(); v2(4) = 2
    assert(intercept[SketchException](ecmsketch.format.SketchCodec.decode(v2)).getMessage.startsWith("corrupt sketch: format version 2, but its cells are of version 1"))
    // merged again with an overlapping sketch: one order-preserving merge, no segment, version 1
    val o = EcmSketch.merge(Seq(m, days.last))
    assert(o.mergeDepth == 1 && ecmsketch.core.Codec.layoutVersion(o) == 1)
    // a side-by-side result larger than the size limit (max_size_bytes in merge) falls back to the
    // order-preserving merge: one level, no segment; at the limit it is kept
    val capped = ecmsketch.ecm.EcmTestUtil.mergeWithin(days, b.length - 1L)
    assert(capped.mergeDepth == 1 && ecmsketch.core.Codec.layoutVersion(capped) == 1)
    assert(java.util.Arrays.equals(ecmsketch.format.SketchCodec.encode(ecmsketch.ecm.EcmTestUtil.mergeWithin(days, b.length.toLong)), b))
    assert(java.util.Arrays.equals(ecmsketch.format.SketchCodec.encode(capped),
      ecmsketch.format.SketchCodec.encode(EcmSketch.merge(days, timeDisjoint = false))))
    // the real limit of this plan is far above it
    assert(Planner.worstCaseBytes(spec, m.plan).exists(_ > 4L * b.length))
  }
}
