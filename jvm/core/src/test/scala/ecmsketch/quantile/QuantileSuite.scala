package ecmsketch.quantile

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.Families
import ecmsketch.core.{ByteWriter, Codec, SketchException, WindowSpec, Windows}

/** Windowed quantile sketches against brute-force oracles: every rank, count and quantile of every
  * range checked is within the certified bound epsilon times the range's weight, and the ledger's
  * own bound (rankErrorBound) is never above it.
  */
class QuantileSuite extends AnyFunSuite {
  import QuantileSuite._

  def enc(s: QuantileSketch): Array[Byte] = Codec.encode(QuantileKind, s)
  def dec(b: Array[Byte]): QuantileSketch = Codec.decodeAs(QuantileKind, b)

  test("time order, values increasing, decreasing, shuffled and log-normal: every range within the bound") {
    for ((shape, eps) <- Seq("up" -> 0.05, "down" -> 0.05, "shuffled" -> 0.02, "lognormal" -> 0.02)) {
      val rnd = new Random(11)
      val n = 40000
      val vals: IndexedSeq[Double] = shape match {
        case "up" => (0 until n).map(_.toDouble)
        case "down" => (0 until n).map(i => (n - i).toDouble)
        case "shuffled" => rnd.shuffle((0 until n).map(_.toDouble))
        case _ => IndexedSeq.fill(n)(math.exp(3.0 + rnd.nextGaussian()))
      }
      val rows = (0 until n).map(i => Row(i.toLong * 3 + rnd.nextInt(3), vals(i), 1L)).sortBy(_.ts)
      val s = build(rows, eps, window = 90000L, delta = 1e-6)
      checkRanges(s, rows, rangesOf(s, rows, rnd), s"$shape eps $eps")
    }
  }

  test("rows given in sorted batches are sealed at once: every range within the bound") {
    val rnd = new Random(23)
    def rowsOf(n: Int, shape: String): IndexedSeq[Row] = {
      val rows = (0 until n).map { i =>
        val ts = shape match { case "bursts" => (i / 500).toLong * 40; case _ => i.toLong * 3 + rnd.nextInt(3) }
        val w = shape match { case "weights" => if (rnd.nextInt(10) == 0) 1L + rnd.nextInt(1 << 20) else 1L + rnd.nextInt(3); case _ => 1L }
        Row(ts, math.exp(3.0 + rnd.nextGaussian()), w)
      }
      rows.sortBy(_.ts)
    }
    // one batch; batches of random sizes, some below the raw capacity (800 rows at eps 0.02), some of
    // weight 0; a window of a third of the rows, so batches reach past it
    for (shape <- Seq("plain", "bursts", "weights"); (cuts, window) <- Seq("one" -> 200000L, "random" -> 200000L, "random" -> 40000L)) {
      val rows = rowsOf(40000, shape)
      val s = QuantileSketch.create(WindowSpec(countWindow = false, tsMicros = false, window = window), 0.02, 1e-6)
      val ts = rows.map(_.ts).toArray; val bits = rows.map(r => java.lang.Double.doubleToRawLongBits(r.value)).toArray
      val ws = rows.map(_.weight).toArray
      if (cuts == "random") (0 until 300).foreach(_ => ws(rnd.nextInt(ws.length)) = 0L)
      var from = 0
      while (from < rows.length) {
        val until = if (cuts == "one") rows.length else math.min(rows.length, from + 1 + rnd.nextInt(if (rnd.nextBoolean()) 700 else 9000))
        s.addSorted(ts, bits, ws, from, until)
        from = until
      }
      val kept = rows.indices.map(i => rows(i).copy(weight = ws(i))).filter(_.weight > 0)
      val what = s"$shape, batches $cuts, window $window"
      assert(s.count == ws.sum && s.lastTs == ts.last, what)
      checkRanges(s, kept, rangesOf(s, kept, rnd), what)
    }
  }

  test("a sorted batch with a bad row is refused whole, with the row's problem named") {
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = 1000000L)
    val s = QuantileSketch.create(spec, 0.05)
    val n = 2000
    val ts = Array.tabulate(n)(_.toLong); val bits = Array.tabulate(n)(i => java.lang.Double.doubleToRawLongBits(i * 0.5))
    val ws = Array.fill(n)(1L)
    s.addSorted(ts, bits, ws, 0, n / 2)
    val before = enc(s)
    def refused(t: Array[Long], b: Array[Long], w: Array[Long]): String = {
      val m = intercept[SketchException](s.addSorted(t, b, w, n / 2, n)).getMessage
      assert(enc(s).sameElements(before), m)
      m
    }
    val nan = bits.clone(); nan(1900) = java.lang.Double.doubleToRawLongBits(Double.NaN)
    assert(refused(ts, nan, ws).contains("NaN value"))
    // the first bad row names the error, as adding row by row would
    val backThenNan = ts.clone(); backThenNan(1500) = 3L
    assert(refused(backThenNan, nan, ws).contains("non-decreasing"))
    val nanThenBack = ts.clone(); nanThenBack(1950) = 3L
    assert(refused(nanThenBack, nan, ws).contains("NaN value"))
    val back = ts.clone(); back(1500) = 3L
    assert(refused(back, bits, ws).contains("timestamps must be non-decreasing: got 3 after 1499"))
    assert(intercept[SketchException](s.addSorted(ts, bits, ws.take(10), n / 2, n)).getMessage
      .contains("a batch of rows [1000, 2000) needs timestamps, values and weights of at least 2000 rows"))
    assert(intercept[SketchException](s.addUnsorted(ts, bits, ws, n + 1)).getMessage.contains("at least 2001 rows"))
    assert(enc(s).sameElements(before))
    val neg = ws.clone(); neg(1999) = -2L
    assert(refused(ts, bits, neg).contains("weight must be non-negative, got -2"))
    val big = ws.clone(); big(1200) = Long.MaxValue
    assert(refused(ts, bits, big).contains("total weight overflows"))
    val c = QuantileSketch.create(WindowSpec(countWindow = true, tsMicros = false, window = 100000L), 0.05)
    c.addSorted(ts, bits, ws, 0, n / 2)
    val cb = enc(c)
    val dup = ts.clone(); dup(1700) = 1699L
    assert(intercept[SketchException](c.addSorted(dup, bits, ws, n / 2, n)).getMessage.contains("unique arrival sequence numbers; got 1699 twice"))
    assert(enc(c).sameElements(cb))
    // the good batch goes in, and -0.0 is taken as 0.0
    val z = bits.clone(); z(n - 1) = java.lang.Double.doubleToRawLongBits(-0.0)
    s.addSorted(ts, z, ws, n / 2, n)
    val last = java.lang.Long.valueOf(1L)
    assert(s.count == n && s.rank(0.0, last, null) == 1.0)
    assert(java.lang.Double.doubleToRawLongBits(s.quantile(0.5, last, null).doubleValue) == 0L)
  }

  test("ranges that start inside a bucket and on its boundaries") {
    val rnd = new Random(3)
    val rows = (0 until 30000).map(i => Row(i.toLong, rnd.nextGaussian(), 1L))
    val s = build(rows, 0.02, window = Long.MaxValue, delta = 1e-6)
    val run = s.runs(0)
    val now = rows.last.ts
    val los = (0 until run.bucketCount).flatMap { i =>
      val b = run.bucket(i); Seq(b.tStart, b.tStart + 1, (b.tStart + b.tEnd) / 2, b.tEnd, b.tEnd + 1)
    }.distinct.filter(lo => lo <= now)
    assert(run.bucketCount > 20, run.bucketCount)
    checkRanges(s, rows, los.map(lo => now - lo + 1), "boundaries")
  }

  test("bursts: many rows on one timestamp, tied values, and heavy weights") {
    val rnd = new Random(5)
    val rows = (0 until 400).flatMap { t =>
      val k = if (t % 50 == 0) 2000 else 1 + rnd.nextInt(20)
      Seq.fill(k)(Row(t.toLong * 1000, rnd.nextInt(30).toDouble, if (rnd.nextInt(100) == 0) 1L + rnd.nextInt(1 << 20) else 1L))
    }
    val s = build(rows, 0.02, window = 400000L, delta = 1e-6)
    checkRanges(s, rows, rangesOf(s, rows, rnd), "bursts")
  }

  test("random weights, including weights of many bits") {
    val rnd = new Random(8)
    val rows = (0 until 20000).map(i => Row(i.toLong, rnd.nextDouble(), 1L + (rnd.nextLong() >>> (24 + rnd.nextInt(40)))))
    val s = build(rows, 0.05, window = Long.MaxValue, delta = 1e-6)
    checkRanges(s, rows, rangesOf(s, rows, rnd), "weights")
  }

  test("a window: rows out of it are dropped, and ranges reach back to it") {
    val rnd = new Random(9)
    val rows = (0 until 50000).map(i => Row(i.toLong * 2, rnd.nextGaussian(), 1L))
    val s = build(rows, 0.05, window = 7000L, delta = 1e-6)
    val lo = Windows.lowerBound(rows.last.ts, 7000L)
    assert(s.runs.forall(r => (0 until r.bucketCount).forall(i => r.bucket(i).tEnd >= lo)))
    assert(s.storedEntries < 7000, s.storedEntries)
    checkRanges(s, rows, Seq(1L, 10L, 100L, 999L, 3500L, 6999L, 7000L), "window")
    assert(intercept[SketchException](s.count(7001L, null)).getMessage.contains("exceeds the sketch window"))
  }

  test("merges of 2 to 33 sites: folded into one run within the bound, order-free") {
    val rnd = new Random(21)
    for (sites <- Seq(2, 3, 7, 33)) {
      val rows = (0 until 60000).map(i => Row(i.toLong, math.exp(rnd.nextGaussian()), 1L))
      val bySite = rows.groupBy(_ => rnd.nextInt(sites)).values.toSeq.map(_.sortBy(_.ts))
      val parts = bySite.map(b => build(b, 0.02, window = 50000L, delta = 1e-6, levels = 2))
      val m = QuantileSketch.merge(parts)
      assert(m.runCount == 1 && m.runs(0).gen == 1, s"$sites sites: ${m.runCount} runs")
      assert(m.errorBound == 0.02)
      checkRanges(m, rows, rangesOf(m, rows, rnd), s"$sites sites")
      val other = QuantileSketch.merge(rnd.shuffle(parts))
      assert(enc(other).sameElements(enc(m)), s"merge of $sites sites depends on the order")
      // a merge of merges folds once more (the second planned level), then no more: runs stay side by side
      val nested = QuantileSketch.merge(Seq(QuantileSketch.merge(parts.take(sites / 2)), QuantileSketch.merge(parts.drop(sites / 2))))
      assert(nested.runCount == 1 && nested.runs(0).gen == (if (sites == 2) 1 else 2))
      checkRanges(nested, rows, rangesOf(nested, rows, rnd), s"$sites sites, nested")
      if (sites >= 7) {
        val pairs = QuantileSketch.merge(parts.grouped(2).map(QuantileSketch.merge).toSeq)
        val deeper = QuantileSketch.merge(Seq(nested, pairs))
        assert(deeper.runCount == 2 && deeper.runs.forall(_.gen == 2), deeper.runs.map(_.gen).toSeq)
        checkRanges(deeper, rows ++ rows, rangesOf(deeper, rows, rnd), s"$sites sites, beyond the plan")
      }
    }
  }

  test("a fold leaves out what lies before the window, so its bytes decode") {
    // a's oldest buckets and raw rows lie before the merged window (31..130) or straddle its start
    val a = build((0 until 64).map(i => Row(i.toLong, i.toDouble, 1L)), 0.25, 100L, levels = 1)
    val b = build(Seq(Row(40L, 0.25, 1L), Row(130L, 0.5, 1L)), 0.25, 100L, levels = 1)
    val m = QuantileSketch.merge(Seq(a, b))
    assert(m.generations == Seq(1))
    checkRanges(m, (Seq(Row(40L, 0.25, 1L), Row(130L, 0.5, 1L)) ++ (31 until 64).map(i => Row(i.toLong, i.toDouble, 1L))).sortBy(_.ts),
      Seq(1L, 50L, 91L, 100L), "small fold")
    // random sites over four windows, folds of many sizes
    val rnd = new Random(24)
    for (trial <- 0 until 30) {
      val sites = 2 + rnd.nextInt(4)
      val eps = Seq(0.05, 0.1, 0.25)(trial % 3)
      val rows = (0 until 2000 + rnd.nextInt(30000)).map(_ => Row(rnd.nextInt(8000).toLong, rnd.nextGaussian(), 1L + (if (rnd.nextInt(10) == 0) rnd.nextInt(1000) else 0)))
      val bySite = rows.groupBy(_ => rnd.nextInt(sites)).values.toSeq.map(_.sortBy(_.ts))
      val m = QuantileSketch.merge(bySite.map(b => build(b, eps, window = 2000L, delta = 1e-6, levels = 1)))
      checkRanges(m, rows.sortBy(_.ts), Seq(1L, 100L, 1000L, 1999L, 2000L), s"trial $trial")
    }
  }

  test("early merges keep runs side by side; a fold too large is made in several runs") {
    val rnd = new Random(25)
    val rows = (0 until 40000).map(_ => Row(rnd.nextInt(100000).toLong, rnd.nextGaussian(), 1L))
    val parts = rows.grouped(5000).map(p => build(p.sortBy(_.ts), 0.02, window = 100000L, delta = 1e-6, levels = 1)).toSeq
    val early = QuantileKind.mergeEarly(parts)
    assert(early.runCount == parts.size && early.generations.forall(_ == 0))
    // tiny time-disjoint sketches: merged early in any grouping, then once more, as one merge of all
    val tiny = (0 until 60).map(i => build(Seq(Row(i * 10L + rnd.nextInt(5), rnd.nextGaussian(), 1L), Row(i * 10L + 7, 1.0, 1L)), 0.1, 1000L, levels = 1))
    val once = Codec.encode(QuantileKind, QuantileSketch.merge(tiny)).drop(Codec.ChecksumHeaderSize)
    for (k <- Seq(7, 16, 59)) {
      val grouped = rnd.shuffle(tiny).grouped(k).map(g => QuantileKind.mergeEarly(g)).toSeq
      assert(Codec.encode(QuantileKind, QuantileSketch.merge(grouped)).drop(Codec.ChecksumHeaderSize).sameElements(once), k)
    }
    // the last merge folds the runs an early merge kept: one run of generation 1, as one merge of all
    val late = QuantileSketch.merge(Seq(early))
    assert(late.generations == Seq(1))
    assert(Codec.encode(QuantileKind, late).drop(Codec.ChecksumHeaderSize)
      .sameElements(Codec.encode(QuantileKind, QuantileSketch.merge(parts)).drop(Codec.ChecksumHeaderSize)))
    // folds of at most 3 runs' entries: several runs of generation 1, side by side, within the bound
    val limit = parts.map(_.storedEntries).max * 3
    val s = QuantileSketch.mergeFoldingAtMost(parts, limit)
    assert(s.runCount >= 3 && s.generations.forall(_ == 1) && s.runs.forall(_.storedSamples <= limit), s.runs.map(_.storedSamples).toSeq)
    assert(Codec.encode(QuantileKind, QuantileSketch.mergeFoldingAtMost(parts.reverse, limit)).sameElements(Codec.encode(QuantileKind, s)))
    checkRanges(s, rows.sortBy(_.ts), Seq(1L, 1000L, 50000L, 100000L), "folds in chunks")
  }

  test("a fold keeps about the entries of one run, however many runs it folds") {
    val rnd = new Random(23)
    for (sites <- Seq(8, 33)) {
      val rows = (0 until 800000).map(_ => Row(rnd.nextInt(1000000).toLong, rnd.nextGaussian(), 1L))
      val parts = rows.grouped(800000 / sites).map(p => build(p.sortBy(_.ts), 0.02, window = 1000000L, levels = 2)).toSeq
      val m = QuantileSketch.merge(parts)
      val sum = parts.iterator.map(_.storedEntries).sum
      assert(m.runCount == 1 && m.storedEntries * 4 < sum, s"$sites sites: ${m.storedEntries} entries of $sum")
      val all = rows.sortBy(_.ts)
      checkRanges(m, all, Seq(1L, 1000L, 100000L, 1000000L), s"$sites sites")
    }
  }

  test("folds: overlapping sites of other value ranges, bursts and heavy weights, within the bound") {
    val rnd = new Random(22)
    for ((eps, levels) <- Seq(0.05 -> 1, 0.02 -> 2, 0.02 -> 4, 0.2 -> 3)) {
      val sites = (0 until 6).map { k =>
        (0 until 15000).map { i =>
          val ts = if (i % 997 == 0) 5000L * k else rnd.nextInt(40000).toLong
          val w = if (rnd.nextInt(200) == 0) 1L + rnd.nextInt(1 << 16) else 1L
          Row(ts, k * 3.0 + rnd.nextGaussian() * (k + 1), w)
        }.sortBy(_.ts)
      }
      val parts = sites.map(b => build(b, eps, window = 30000L, delta = 1e-6, levels = levels))
      val m = QuantileSketch.merge(parts)
      val all = sites.flatten.sortBy(_.ts)
      assert(m.runCount == 1)
      checkRanges(m, all, rangesOf(m, all, rnd), s"eps $eps, $levels levels")
      // a tree of pairwise merges folds one generation per level while the plan allows
      val folds = math.min(levels, FoldPlan.MaxFolds)
      var level: Seq[QuantileSketch] = parts
      var g = 1
      while (level.size > 1) {
        level = level.grouped(2).map(QuantileSketch.merge).toSeq
        val gens = level.flatMap(_.runs.map(_.gen))
        assert(gens.forall(x => x >= 1 && x <= math.min(g, folds)), (g, gens))
        g += 1
      }
      assert(level.head.runs.exists(_.gen == folds) || g - 1 < folds)
      checkRanges(level.head, all, rangesOf(level.head, all, rnd), s"eps $eps, $levels levels, a tree of merges")
      // the lemma the plan rests on: a run of generation g that stands for rows of weight n from lo
      // ledgers at most share(g) X (grow^g n)^2 of its own for a query from lo
      for (s <- Seq(m, level.head) if s.runCount == 1) {
        val run = s.runs(0)
        val cap = s.plan.share(run.gen) * s.params.budget * math.pow(s.plan.grow, 2.0 * run.gen)
        val now = all.last.ts
        (Seq(1L, 7L, 100L, 2999L, 30000L) ++ Seq.fill(40)(1L + rnd.nextInt(30000))).foreach { r =>
          val lo = Windows.lowerBound(now, r)
          val n = all.iterator.filter(_.ts >= lo).map(_.weight.toDouble).sum
          assert(run.variance(lo) <= cap * n * n * (1 + 1e-9), s"eps $eps, generation ${run.gen}, range $r: ${run.variance(lo)} > ${cap * n * n}")
        }
      }
    }
  }

  test("the fold plan: the generations spend at most the budget, with the growth of sample weights") {
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = 100L)
    for (eps <- Seq(0.001, 0.01, 0.3, 0.9); levels <- Seq(0, 1, 2, 3, 10, 64)) {
      val plan = QuantileSketch.create(spec, eps, levels = levels).plan
      assert(plan.folds == math.min(levels, FoldPlan.MaxFolds))
      val spent = (0 to plan.folds).map(g => plan.share(g) * math.pow(plan.grow, 2.0 * g))
      assert(math.abs(spent.sum - 1.0) < 1e-12, (eps, levels, spent))
      (1 to plan.folds).foreach(g => assert(math.abs(plan.inherited(g) - spent.take(g).sum) < 1e-12))
      (0 to plan.folds).foreach { g =>
        val p = plan.params(g)
        // both terms of the capacity are within the budget of the generation's share
        assert(p.gamma1 * p.spanEpsilon <= p.insideShare * plan.share(g) * p.budget * (1 + 1e-12))
        assert(p.gamma2 * 4 * p.spanEpsilon * p.spanEpsilon <= (1 - p.insideShare) * plan.share(g) * p.budget * (1 + 1e-12))
        assert(p.insideShare > 0 && p.insideShare < 1)
      }
    }
  }

  test("time-disjoint roll-ups over days: laid one after the other, free of error") {
    val rnd = new Random(4)
    val day = 86400L
    val days = (0 until 6).map(d => (0 until 8000).map(i => Row(d * day + i * 10L + rnd.nextInt(10), rnd.nextGaussian(), 1L)).sortBy(_.ts))
    // a window of three days: the roll-up keeps the last three days in one run
    val parts = days.map(rs => build(rs, 0.02, window = 3 * day, delta = 1e-6))
    val m = QuantileSketch.merge(rnd.shuffle(parts))
    assert(m.runCount == 1)
    checkRanges(m, days.flatten, Seq(1L, 100L, day, day + 5000, 2 * day, 3 * day), "roll-up")
    // a window of an hour: only the last day counts
    val hourly = days.map(rs => build(rs, 0.02, window = 3600L, delta = 1e-6))
    val h = QuantileSketch.merge(hourly)
    assert(h.runCount == 1 && h.count(null, null) == build(days.last, 0.02, window = 3600L, delta = 1e-6).count(null, null))
  }

  test("merge laws: identity, order, the one-sketch case, empty sketches") {
    val rnd = new Random(6)
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = 10000L)
    val a = build((0 until 3000).map(i => Row(i.toLong, rnd.nextDouble(), 1L)), 0.05, 10000L)
    val b = build((0 until 3000).map(i => Row(i.toLong * 2, rnd.nextDouble(), 1L)), 0.05, 10000L)
    val e = QuantileSketch.create(spec, 0.05)
    assert(enc(QuantileSketch.merge(Seq(a, b))).sameElements(enc(QuantileSketch.merge(Seq(b, a)))))
    assert(enc(QuantileSketch.merge(Seq(a, e))).drop(Codec.ChecksumHeaderSize).sameElements(enc(a).drop(Codec.ChecksumHeaderSize)))
    val one = QuantileSketch.merge(Seq(a))
    assert(one.count(null, null) == a.count(null, null) && one.quantile(0.5, null, null) == a.quantile(0.5, null, null))
    val ee = QuantileSketch.merge(Seq(e, e))
    assert(ee.isEmpty && ee.quantile(0.5, null, null) == null && ee.count(null, null) == 0.0)
    assert(dec(enc(ee)).isEmpty)
  }

  test("codec: round trip, and a decoded sketch continues as the original") {
    val rnd = new Random(12)
    val rows = (0 until 20000).map(i => Row(i.toLong, rnd.nextGaussian(), 1L + rnd.nextInt(3)))
    val s = build(rows.take(15000), 0.02, window = 12000L)
    val d = dec(enc(s))
    assert(enc(d).sameElements(enc(s)))
    rows.drop(15000).foreach { r => s.add(r.ts, r.value, r.weight); d.add(r.ts, r.value, r.weight) }
    assert(enc(d).sameElements(enc(s)))
    val m = QuantileSketch.merge(Seq(s, build(rows.take(9000), 0.02, window = 12000L)))
    assert(enc(dec(enc(m))).sameElements(enc(m)))
    val info = Families.info(s)
    assert(info("kind") == "quantile" && info("quantile_rank_error_bound") == 0.02 && info("error_bound") == 0.02)
    assert(info("delta") == QuantileParams.DefaultDelta && info("stored_entries") == s.storedEntries)
  }

  test("random damage to body version 3 bytes gives a SketchException or a sketch, never another error") {
    val rnd = new Random(41)
    val rows = (0 until 6000).map(i => Row(i.toLong, math.round(math.exp(3.0 + rnd.nextGaussian()) * 1000) / 1000.0, 1L + rnd.nextInt(3)))
    val one = build(rows, 0.05, window = 100000L)
    val folded = QuantileSketch.merge(Seq(build(rows.filter(_.ts % 2 == 0), 0.05, 100000L, levels = 1),
      build(rows.filter(_.ts % 2 == 1), 0.05, 100000L, levels = 1)))
    // bit flips may give another valid sketch (a flipped value digit); a truncated body never does
    var refused = 0; var read = 0; var cutRead = 0
    for (s <- Seq(one, folded); trial <- 0 until 1500) {
      val b = enc(s)
      val d = if (trial % 5 == 0) b.take(Codec.ChecksumHeaderSize + rnd.nextInt(b.length - Codec.ChecksumHeaderSize)) else b.clone()
      if (trial % 5 != 0) (0 to rnd.nextInt(3)).foreach { _ =>
        val at = Codec.ChecksumHeaderSize + rnd.nextInt(d.length - Codec.ChecksumHeaderSize)
        d(at) = (d(at) ^ (1 << rnd.nextInt(8))).toByte
      }
      try { dec(resealed(d)); read += 1; if (trial % 5 == 0) cutRead += 1 }
      catch { case _: SketchException => refused += 1 } // anything else fails the test
    }
    assert(cutRead == 0 && refused >= 600, s"$refused refused, $read read, $cutRead of them truncated")
  }

  test("corrupt bodies are refused with their field named") {
    val rnd = new Random(13)
    val s = build((0 until 3000).map(i => Row(i.toLong, rnd.nextGaussian(), 1L)), 0.05, window = 100000L, levels = 1)
    val good = enc(s)
    val header = good.take(Codec.ChecksumHeaderSize)
    val p = s.params
    def body(f: ByteWriter => Unit): Array[Byte] = { val w = new ByteWriter(); f(w); resealed(header ++ w.toByteArray) }
    def refused(b: Array[Byte]): String = intercept[SketchException](dec(b)).getMessage
    def prelude(w: ByteWriter, version: Int = 1, delta: Double = p.delta, runs: Long = 1): Unit = {
      w.putByte(version); w.putDouble(delta); w.putLong(p.seed); w.putVarLong(runs)
    }
    // one bucket [0, 10] of weight 2: level 0 holds `samples` (value, ts offset), then no raw rows
    def oneBucket(w: ByteWriter, count: Long = 2, v1: Double = 0.0, levels: Int = 1,
                  samples: Seq[(Double, Long)] = Seq(1.0 -> 0L, 2.0 -> 10L), start: Long = 0L): Unit = {
      w.putLong(1L); w.putVarLong(1); w.putVarLong(start); w.putVarLong(10); w.putVarLong(count)
      w.putDouble(v1); w.putDouble(0.0); w.putByte(levels)
      w.putVarLong(samples.size.toLong)
      samples.foreach { case (v, t) => w.putDouble(v); w.putVarLong(t) }
      (1 until levels).foreach(_ => w.putVarLong(0))
      w.putVarLong(0)
    }
    assert(dec(body { w => prelude(w); oneBucket(w) }).count(null, null) == 2.0) // the template reads
    assert(refused(body(w => prelude(w, version = 4))).contains("quantile body version 4"))
    // body version 3: each level's values behind a code (digits after the point, or 255 for f64)
    def bucket3(code: Int, values: Seq[Long], w: ByteWriter, doubles: Seq[Double] = Nil): Unit = {
      prelude(w, version = 3); w.putLong(1L); w.putByte(0); w.putVarLong(1); w.putVarLong(0); w.putVarLong(10); w.putVarLong(2)
      w.putDouble(0.0); w.putDouble(0.0); w.putByte(1); w.putVarLong(2); w.putByte(code)
      if (code == 255) doubles.zip(Seq(0L, 10L)).foreach { case (v, t) => w.putDouble(v); w.putVarLong(t) }
      else values.zip(Seq(0L, 10L)).foreach { case (m, t) => w.putVarLong(m); w.putVarLong(t) }
      w.putVarLong(0)
    }
    // 1.5 and 2.5: m = 15 (zigzag 30), then a step of 10
    val ok3 = dec(body(bucket3(1, Seq(30L, 10L), _)))
    assert(ok3.quantile(0.0, null, null).doubleValue == 1.5 && ok3.quantile(1.0, null, null).doubleValue == 2.5)
    assert(refused(body(bucket3(2, Seq(300L, 100L), _))).contains("has code 2, not 1 (not canonical)"))
    assert(refused(body(bucket3(255, Nil, _, Seq(1.5, 2.5)))).contains("has code 255, not 1 (not canonical)"))
    assert(refused(body(bucket3(16, Seq(30L, 10L), _))).contains("not 0 to 15"))
    assert(refused(body(bucket3(0, Seq(1L << 52, 1L), _))).contains("outside (-2^51, 2^51)"))
    // a negative first value (zigzag 3 is -2) and a step of 3: -2.0 and 1.0
    assert(dec(body(bucket3(0, Seq(3L, 3L), _))).quantile(0.0, null, null).doubleValue == -2.0)
    // equal values must still come in timestamp order: a step of 0 to an earlier time is refused
    def equalBackwards(w: ByteWriter): Unit = {
      prelude(w, version = 3); w.putLong(1L); w.putByte(0); w.putVarLong(1); w.putVarLong(0); w.putVarLong(10); w.putVarLong(2)
      w.putDouble(0.0); w.putDouble(0.0); w.putByte(1); w.putVarLong(2); w.putByte(0)
      w.putVarLong(4L); w.putVarLong(10L); w.putVarLong(0L); w.putVarLong(0L); w.putVarLong(0)
    }
    assert(refused(body(equalBackwards)).contains("not in (value, timestamp) order"))
    // raw rows carry their own code: 2.5 and 3.0 need 1 digit, not 2
    def raw3(code: Int, ms: Seq[Long])(w: ByteWriter): Unit = {
      prelude(w, version = 3); w.putLong(1L); w.putByte(0); w.putVarLong(0); w.putVarLong(2); w.putByte(code)
      ms.zipWithIndex.foreach { case (m, t) => w.putVarLong(t.toLong); w.putVarLong(m); w.putVarLong(1) }
    }
    assert(dec(body(raw3(1, Seq(50L, 60L)))).quantile(1.0, null, null).doubleValue == 3.0)
    assert(refused(body(raw3(2, Seq(500L, 600L)))).contains("the raw rows of run 0 has code 2, not 1 (not canonical)"))
    // an f64 level claiming more samples than its bytes hold
    def manyF64(w: ByteWriter): Unit = {
      prelude(w, version = 3); w.putLong(1L); w.putByte(0); w.putVarLong(1); w.putVarLong(0); w.putVarLong(10); w.putVarLong(2)
      w.putDouble(0.0); w.putDouble(0.0); w.putByte(1); w.putVarLong(20); w.putByte(255)
      (0 until 60).foreach(_ => w.putByte(0)) // room for 20 scaled samples, not for 20 f64 ones
    }
    assert(refused(body(manyF64)).contains("more than its bytes can"))
    assert(dec(body(bucket3(255, Nil, _, Seq(1.0 / 3, 2.0 / 3)))).quantile(1.0, null, null).doubleValue == 2.0 / 3)
    // body version 2 carries each run's generation: a sketch of 1 merge level folds up to generation 1
    def genBucket(gen: Int)(w: ByteWriter): Unit = {
      prelude(w, version = 2); w.putLong(1L); w.putByte(gen); w.putVarLong(0); w.putVarLong(1); w.putVarLong(5)
      w.putDouble(1.0); w.putVarLong(1)
    }
    assert(dec(body(genBucket(1))).runs(0).gen == 1 && dec(body(genBucket(FoldPlan.Legacy))).runs(0).gen == FoldPlan.Legacy)
    assert(dec(body(genBucket(0))).count(null, null) == 1.0)
    assert(refused(body(genBucket(2))).contains("run 0 is of generation 2; a sketch of 1 merge level folds up to generation 1"))
    assert(refused(body(w => prelude(w, delta = 0.9))).contains("delta must be in"))
    assert(refused(body { w => prelude(w); oneBucket(w, count = 3) }).contains("weigh 2, not its weight 3"))
    assert(refused(body { w => prelude(w); oneBucket(w, samples = Seq(2.0 -> 0L, 1.0 -> 10L)) }).contains("not in (value, timestamp) order"))
    assert(refused(body { w => prelude(w); oneBucket(w, samples = Seq(Double.NaN -> 0L, 1.0 -> 10L)) }).contains("is NaN"))
    assert(refused(body { w => prelude(w); oneBucket(w, samples = Seq(-0.0 -> 0L, 1.0 -> 10L)) }).contains("-0.0"))
    assert(refused(body { w => prelude(w); oneBucket(w, samples = Seq(1.0 -> 0L, 2.0 -> 11L)) }).contains("lies after the last timestamp"))
    assert(refused(body { w => prelude(w); oneBucket(w, v1 = 1e9) }).contains("variance ledger v1"))
    assert(refused(body { w => prelude(w); oneBucket(w, levels = 2) }).contains("top level"))
    assert(refused(body { w => prelude(w); oneBucket(w, start = 1L << 40) }).contains("lies after the last timestamp"))
    assert(refused(body { w => prelude(w); oneBucket(w); w.putByte(0) }).contains("trailing bytes"))
    assert(refused(body { w => prelude(w, runs = 2); oneBucket(w) }).contains("truncated"))
    assert(refused(body { w => prelude(w); w.putLong(1L); w.putVarLong(0); w.putVarLong(0) }).contains("run 0 is empty"))
    assert(refused(body { w => prelude(w); w.putLong(1L); w.putVarLong(0); w.putVarLong(1); w.putVarLong(5); w.putDouble(1.0); w.putVarLong(0) })
      .contains("weight of raw row 0"))
    assert(refused(good.dropRight(3)).contains("checksum mismatch") || refused(resealed(good.dropRight(3))).contains("truncated"))
    assert(refused(resealed(good.dropRight(3))).contains("corrupt sketch"))
  }

  test("body version 3 writes decimal values as integers and gives every value back exactly") {
    val r = new Random(91)
    // values of 0 to 6 digits after the point, negative and large ones, doubles of no short decimal
    // form, values of 16 significant digits near the integer limit 2^51, and 2^52 on both sides
    val shapes: Seq[() => Double] = Seq(
      () => math.round(math.exp(r.nextGaussian() + 3.0) * 1000) / 1000.0,
      () => (r.nextInt(2000001) - 1000000) / 100.0,
      () => r.nextInt(1000).toDouble,
      () => math.round(r.nextGaussian() * 1e6) / 1e6,
      () => r.nextGaussian(),
      () => Seq(1.0 / 3, 0.1 + 0.2, 4503599627370495.0, -4503599627370495.0, 4503599627370496.0, 1e300, Double.MinPositiveValue)(r.nextInt(7)),
      () => (2251799813685248L - 1 - r.nextInt(1000)).toDouble / Seq(1.0, 10.0, 1e5)(r.nextInt(3)) * (if (r.nextBoolean()) 1 else -1))
    for ((shape, i) <- shapes.zipWithIndex) {
      val rows = (0 until 5000).map(t => Row(t.toLong, shape(), 1L + r.nextInt(3)))
      val s = build(rows, 0.05, window = 4000L)
      val b = enc(s)
      assert(b(Codec.ChecksumHeaderSize) == QuantileKind.BodyVersion)
      val d = dec(b)
      assert(enc(d).sameElements(b), s"shape $i: bytes change on a round trip")
      Seq(0.0, 0.1, 0.5, 0.9, 1.0).foreach { q =>
        assert(d.quantile(q, null, null) == s.quantile(q, null, null), s"shape $i q $q")
        assert(d.quantile(q, 300L, null) == s.quantile(q, 300L, null), s"shape $i q $q, range 300")
      }
    }
    // the decimal shapes take fewer bytes than 8 a value
    val dec3 = build((0 until 20000).map(t => Row(t.toLong, math.round(math.exp(r.nextGaussian() + 3.0) * 1000) / 1000.0, 1L)), 0.01, 20000L)
    val f64 = build((0 until 20000).map(t => Row(t.toLong, math.exp(r.nextGaussian() + 3.0), 1L)), 0.01, 20000L)
    assert(enc(dec3).length < 0.75 * enc(f64).length, (enc(dec3).length, enc(f64).length))
  }

  test("bad input: NaN, epsilon, delta, q, mismatched and count-based merges") {
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = 100L)
    val s = QuantileSketch.create(spec, 0.05)
    assert(intercept[SketchException](s.add(1L, Double.NaN)).getMessage.contains("NaN value"))
    assert(intercept[SketchException](s.rank(Double.NaN, null, null)).getMessage.contains("NaN value"))
    assert(intercept[SketchException](QuantileSketch.create(spec, 0.0005)).getMessage.contains("epsilon must be in"))
    assert(intercept[SketchException](QuantileSketch.create(spec, 1.0)).getMessage.contains("epsilon must be in"))
    assert(intercept[SketchException](QuantileSketch.create(spec, 0.05, delta = 0.0)).getMessage.contains("delta must be in"))
    assert(intercept[SketchException](QuantileSketch.create(spec, 0.05, levels = 65)).getMessage.contains("merge_levels"))
    s.add(5L, 1.0)
    assert(intercept[SketchException](s.add(4L, 1.0)).getMessage.contains("non-decreasing"))
    assert(intercept[SketchException](s.add(6L, 1.0, -1L)).getMessage.contains("weight must be non-negative"))
    assert(intercept[SketchException](s.quantile(1.5, null, null)).getMessage.contains("q must be in [0, 1]"))
    val t = QuantileSketch.create(spec, 0.02)
    assert(intercept[SketchException](QuantileSketch.merge(Seq(s, t))).getMessage
      .contains("cannot merge quantile sketches with different parameters: epsilon 0.05 vs 0.02"))
    val u = QuantileSketch.create(spec, 0.05, delta = 0.1)
    assert(intercept[SketchException](QuantileSketch.merge(Seq(s, u))).getMessage.contains("delta 0.01 vs 0.1"))
    val c = QuantileSketch.create(WindowSpec(countWindow = true, tsMicros = false, window = 100L), 0.05)
    assert(intercept[SketchException](QuantileSketch.merge(Seq(c, c))).getMessage.contains("count-based sketches cannot be merged"))
    assert(QuantileSketch.mergeSameStream(Seq(c, c)).isEmpty)
    // -0.0 is 0.0, a weight of 0 counts in the total only
    s.add(7L, -0.0); s.add(8L, 3.0, 0L)
    assert(s.rank(0.0, null, null) == 1.0 && s.count(null, null) == 2.0 && Families.info(s)("total_weight") == 2L)
  }
}

object QuantileSuite {
  final case class Row(ts: Long, value: Double, weight: Long)

  def build(rows: Seq[Row], eps: Double, window: Long, delta: Double = QuantileParams.DefaultDelta, levels: Int = 0): QuantileSketch = {
    val s = QuantileSketch.create(WindowSpec(countWindow = false, tsMicros = false, window = window), eps, delta, levels = levels)
    rows.foreach(r => s.add(r.ts, r.value, r.weight))
    s
  }

  def resealed(b: Array[Byte]): Array[Byte] = {
    val c = b.clone()
    val crc = Codec.checksum(c)
    (0 until 4).foreach(i => c(Codec.ChecksumOffset + i) = (crc >>> (8 * i)).toByte)
    c
  }

  /** Ranges of every scale: 1, powers of two up to the window, and random ones. */
  def rangesOf(s: QuantileSketch, rows: Seq[Row], rnd: Random): Seq[Long] = {
    val span = math.min(s.spec.window, rows.last.ts - rows.head.ts + 1)
    val pow = Iterator.iterate(1L)(_ * 2).takeWhile(_ < span).toSeq
    (pow ++ Seq(span) ++ Seq.fill(12)(1L + (rnd.nextDouble() * span).toLong)).distinct
  }

  /** Every range: count, ranks at a grid of values and quantiles within epsilon times the range's
    * weight, and within the ledgers' bound (rankErrorBound). That bound is no larger than epsilon
    * times the weight for runs that took rows; for a folded run of generation g it is stated on the
    * weight its samples may stand for, at most grow^(g + 1) times the range's.
    */
  def checkRanges(s: QuantileSketch, rows: Seq[Row], ranges: Seq[Long], what: String): Unit = {
    // the bytes decode (every field validated) to the same sketch
    val bytes = Codec.encode(QuantileKind, s)
    val again = try Codec.decodeAs(QuantileKind, bytes) catch { case e: SketchException => throw new AssertionError(s"$what: $e") }
    assert(Codec.encode(QuantileKind, again).sameElements(bytes), s"$what: the decoded sketch encodes differently")
    val now = rows.last.ts
    ranges.foreach { r =>
      val lo = Windows.lowerBound(now, r)
      val in = rows.filter(_.ts >= lo).sortBy(_.value)
      val n = in.iterator.map(_.weight.toDouble).sum
      val bound = s.epsilon * n + 1e-9 * n
      val certified = s.rankErrorBound(r, now)
      val slack = s.runs.iterator.map(run => if (run.gen == 0 || run.gen == FoldPlan.Legacy) 1.0 else math.pow(s.plan.grow, run.gen + 1.0)).max
      assert(certified <= bound * slack, s"$what: range $r: the ledger's bound $certified exceeds epsilon n = ${s.epsilon * n}")
      assert(math.abs(s.count(r, now) - n) <= math.min(bound, certified + 1e-9), s"$what: range $r: count ${s.count(r, now)} vs $n")
      if (in.nonEmpty) {
        val cum = in.scanLeft(0.0)(_ + _.weight)
        val values = in.map(_.value).toArray
        def exactLeq(x: Double): Double = cum(upper(values, x))
        def exactLess(x: Double): Double = cum(lower(values, x))
        val probes = (0 to 20).map(i => values(math.min(values.length - 1, i * values.length / 20)))
        probes.foreach { x =>
          val err = math.abs(s.rank(x, r, now) - exactLeq(x))
          assert(err <= math.min(bound, certified + 1e-9), s"$what: range $r: rank($x) off by $err > $bound or $certified (n = $n)")
        }
        Seq(0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0).foreach { q =>
          val v = s.quantile(q, r, now).doubleValue
          val target = q * n
          assert(exactLess(v) - bound <= target && target <= exactLeq(v) + bound,
            s"$what: range $r: quantile($q) = $v has rank [${exactLess(v)}, ${exactLeq(v)}], target $target, bound $bound")
        }
      }
    }
  }

  private def upper(a: Array[Double], x: Double): Int = { var lo = 0; var hi = a.length; while (lo < hi) { val m = (lo + hi) >>> 1; if (a(m) <= x) lo = m + 1 else hi = m }; lo }
  private def lower(a: Array[Double], x: Double): Int = { var lo = 0; var hi = a.length; while (lo < hi) { val m = (lo + hi) >>> 1; if (a(m) < x) lo = m + 1 else hi = m }; lo }
}
