package ecmsketch.window

import org.scalatest.funsuite.AnyFunSuite

import scala.util.Random

import ecmsketch.Oracle
import ecmsketch.core.{SketchException, WindowSpec}
import ecmsketch.dwave.DwSketch
import ecmsketch.ecm.{EcmSketch, QueryKind}

/** Merges of sketches whose time spans do not overlap (docs/DESIGN.md, "Time-disjoint merges"):
  *  - the concatenation of time-disjoint histograms answers within each piece's own epsilon (the
  *    lemma), with seams at equal timestamps;
  *  - no histogram of the bucket rule holds that concatenation without error (brute force over every
  *    grouping of the pieces' buckets, the counterexample of the design notes);
  *  - pieces that lie a whole window before the merged clock take no part: a merge keeps the depth
  *    when at most one piece reaches the window (EH, deterministic wave, ECM), and every answer stays
  *    within the reported bound of the brute-force oracle, for all ranges and query times.
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

  test("lemma: time-disjoint histograms side by side answer within epsilon, seams at equal timestamps included") {
    var worst = 0.0
    for (eps <- Seq(0.5, 0.2, 0.1, 0.05); shared <- Seq(false, true); seed <- 0 until 3) {
      val rnd = new Random(seed * 31 + (eps * 100).toInt)
      val cfg = EhConfig(eps, Long.MaxValue)
      val ps = pieces(rnd, 30, 1000, 40 + rnd.nextInt(200), shared)
      val hs = ps.map(hist(cfg, _))
      val o = new Oracle; ps.flatten.foreach { case (t, w) => o.add(0, t, w) }
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

  test("EH: days a whole window before the merged clock take no part, so a half-day window keeps the depth; 7 days cost a level") {
    for (seed <- 0 until 3; shared <- Seq(false, true)) {
      checkEh(window = day / 2, levels = 1, expectedDepth = 0, shared, seed)
      // a 1-day window reaches back to the previous day's last tick: only a row there (the shared seam) takes part
      checkEh(window = day, levels = 1, expectedDepth = if (shared) 1 else 0, shared, seed)
      checkEh(window = 7 * day, levels = 1, expectedDepth = 1, shared, seed)
      checkEh(window = Long.MaxValue, levels = 1, expectedDepth = 1, shared, seed)
    }
  }

  test("EH: the seam of expiry is exact: a bucket ending at clock - N takes no part, one ending at clock - N + 1 does") {
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = 100)
    def sk(ts: Long*) = { val s = EhSketch.create(spec, 0.1, 1); ts.foreach(s.add(_)); s }
    val newer = sk(150, 170, 200)
    val gone = EhSketch.merge(Seq(sk(10, 50, 100), newer))
    assert(gone.mergeDepth == 0 && gone.count(100L, null) == 3.0)
    val kept = EhSketch.merge(Seq(sk(10, 50, 101), newer))
    assert(kept.mergeDepth == 1 && math.abs(kept.count(100L, null) - 4.0) <= kept.errorBound * 4.0)
    // empty inputs add nothing either
    assert(EhSketch.merge(Seq(EhSketch.create(spec, 0.1, 1), newer, EhSketch.create(spec, 0.1, 1))).mergeDepth == 0)
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

  test("ECM (EH cells): 30 days x 33 sites; days merge per site, then sites; depth and total within the bound") {
    val rnd = new Random(5)
    for ((window, dayDepth) <- Seq(day / 2 -> 0, 7 * day -> 1)) {
      val spec = WindowSpec(countWindow = false, tsMicros = false, window = window)
      val o = new Oracle
      val perSite = (0 until 33).map { site =>
        val ps = pieces(rnd, 30, day, 12, sharedSeams = site % 2 == 0)
        val days = ps.map { rows =>
          val s = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 2, EcmSketch.DefaultSeed)
          rows.foreach { case (t, w) => val k = rnd.nextInt(20).toLong; s.add(k, t, w); o.add(k, t, w) }
          s
        }
        val m = EcmSketch.merge(days)
        assert(m.mergeDepth == dayDepth)
        m
      }
      val all = EcmSketch.merge(perSite)
      assert(all.mergeDepth == dayDepth + 1)
      val u = Oracle.union(Seq(o))
      val now = u.ts.max
      (1L to window by 13).foreach { r =>
        val truth = u.after(now - r)
        assert(math.abs(all.total(r, null) - truth) <= all.totalErrorBound * truth + 1e-9, s"r=$r")
        u.freqsAfter(now - r).take(5).foreach { case (k, f) =>
          val est = all.point(k, r, null)
          assert(est >= f * (1 - all.totalErrorBound) - 1e-9)
        }
      }
    }
  }
}
