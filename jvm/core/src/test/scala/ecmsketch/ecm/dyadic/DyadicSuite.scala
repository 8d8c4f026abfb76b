package ecmsketch.ecm.dyadic

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.eh.EhCellKind
import ecmsketch.dwave.DwCellKind
import ecmsketch.rwave.RwCellKind
import ecmsketch.Oracle
import ecmsketch.core.{Codec, SketchException, WindowSpec}

import scala.util.Random

/** Dyadic ECM-sketch answers against exact ones (a brute-force oracle), on seeded Zipf streams in
  * time order, on adversarial streams (keys sorted, one key flooding) and merged across sites. The
  * deterministic sides (range under-count, heavy-hitter recall, quantile upper rank) hold on every
  * query; the probabilistic sides within the certified failure rate.
  */
class DyadicSuite extends AnyFunSuite {
  import DyadicSuite._

  val spec = WindowSpec(countWindow = false, tsMicros = false, window = 5000)

  test("dyadic decomposition: disjoint maximal pieces covering [lo, hi], at most two per level") {
    val rnd = new Random(7)
    for (bits <- Seq(1, 2, 3, 5, 8, 16, 63, 64); _ <- 0 until 200) {
      val max = if (bits == 64) -1L else (1L << bits) - 1
      def pick(): Long = if (bits >= 63) rnd.nextLong() & max else (rnd.nextLong() & Long.MaxValue) % (max + 1)
      val a = pick(); val b = pick()
      val (lo, hi) = if (java.lang.Long.compareUnsigned(a, b) <= 0) (a, b) else (b, a)
      val ps = DyadicUniverse.decompose(lo, hi, bits)
      var next = lo
      ps.foreach { case (i, p) =>
        val start = if (i >= 64) 0L else p << i
        assert(start == next, s"bits $bits [$lo, $hi]: piece ($i, $p) starts at $start, expected $next")
        next = start + (if (i >= 64) 0L else 1L << i)
      }
      assert(next - 1 == hi, s"bits $bits: pieces end at ${next - 1}, not $hi")
      assert(ps.groupBy(_._1).values.forall(_.size <= 2), ps)
      assert(ps.size <= 2 * bits)
    }
    assert(DyadicUniverse.decompose(0, 255, 8) == Seq((8, 0L)))
    assert(DyadicUniverse.decompose(0, -1L, 64) == Seq((64, 0L)))
  }

  test("key maps are order-preserving; keys outside the universe and NaN are refused") {
    val rnd = new Random(3)
    val longs = (Seq(Long.MinValue, -1L, 0L, 1L, Long.MaxValue) ++ Seq.fill(500)(rnd.nextLong())).sorted
    longs.sliding(2).foreach { w => val (a, b) = (w(0), w(1))
      assert(java.lang.Long.compareUnsigned(DyadicUniverse.longIndex(a, 64), DyadicUniverse.longIndex(b, 64)) <= 0)
      assert(DyadicUniverse.longKey(DyadicUniverse.longIndex(a, 64), 64) == a)
    }
    for (bits <- Seq(1, 8, 32)) {
      val (lo, hi) = DyadicUniverse.keyRange(bits)
      assert(DyadicUniverse.longIndex(lo, bits) == 0 && DyadicUniverse.longIndex(hi, bits) == (1L << bits) - 1)
      assert(DyadicUniverse.longKey(DyadicUniverse.longIndex(-1, bits), bits) == -1)
      val e = intercept[SketchException](DyadicUniverse.longIndex(hi + 1, bits))
      assert(e.getMessage.contains("outside the dyadic sketch's universe") && e.getMessage.contains("universe_bits"))
      intercept[SketchException](DyadicUniverse.longIndex(lo - 1, bits))
    }
    val doubles = (Seq(Double.NegativeInfinity, -1e300, -1.0, -Double.MinPositiveValue, 0.0, Double.MinPositiveValue, 1.0,
      1e300, Double.PositiveInfinity) ++ Seq.fill(500)(rnd.nextGaussian() * math.pow(10, rnd.nextInt(40) - 20))).sorted
    for (bits <- Seq(16, 32, 64)) {
      doubles.sliding(2).foreach { w => val (a, b) = (w(0), w(1))
        val (ua, ub) = (DyadicUniverse.doubleIndex(a, bits), DyadicUniverse.doubleIndex(b, bits))
        assert(java.lang.Long.compareUnsigned(ua, ub) <= 0, s"$a $b at $bits bits")
      }
      doubles.foreach { x =>
        val u = DyadicUniverse.doubleIndex(x, bits)
        val rep = DyadicUniverse.doubleKey(u, bits)
        assert(rep <= x && DyadicUniverse.doubleIndex(rep, bits) == u, s"$x at $bits bits: representative $rep")
        if (bits == 64) assert(rep == x || (x == 0.0 && rep == 0.0))
        if (bits == 32 && x != 0.0 && !x.isInfinite && math.abs(x) > 1e-300) assert(math.abs(x - rep) <= math.abs(x) * math.pow(2, -20))
      }
    }
    assert(DyadicUniverse.doubleIndex(-0.0, 32) == DyadicUniverse.doubleIndex(0.0, 32))
    assert(intercept[SketchException](DyadicUniverse.orderedBits(Double.NaN)).getMessage.contains("NaN"))
    val s = DyadicSketch.create(spec, 0.1, 0.1, universeBits = 8)
    assert(intercept[SketchException](s.add(128L, 0, 1)).getMessage.contains("[-128, 127]"))
    assert(s.isEmpty, "a refused key must leave the sketch unchanged")
    s.add(-128L, 0, 1)
    assert(intercept[SketchException](s.add(1.5, 1, 1)).getMessage.contains("bigint keys"))
  }

  test("plan: the user's epsilon is Theorem 5's gap at the planned depth, and a merge beyond it raises the gap") {
    for (eps <- Seq(0.01, 0.05, 0.2); levels <- Seq(0, 1, 3)) {
      val s = DyadicSketch.create(spec, eps, 0.05, mergeLevels = levels, universeBits = 20)
      s.levels.foreach(_._mergeDepth = levels)
      assert(s.heavyHitterErrorBound <= eps && s.heavyHitterErrorBound > 0.9 * eps, s"$eps $levels: ${s.heavyHitterErrorBound}")
      assert(Seq(0.01, 0.3, 0.99).forall(phi => s.heavyHitterGap(phi) <= eps))
      assert(s.depth == math.ceil(math.log(2 * 20 / 0.05) - 1e-9).toInt)
      s.levels.foreach(_._mergeDepth = levels + 1)
      assert(s.heavyHitterErrorBound > eps)
    }
    assert(intercept[SketchException](DyadicSketch.create(spec, 0.002, 0.05)).getMessage.contains("too small"))
  }

  test("phi_min: built with delta * phi_min, the heavy-hitter failure bound is <= delta for every phi >= phi_min") {
    val d = DyadicSketch.deltaFor(0.01, 0.01)
    assert(math.abs(d - 1e-4) < 1e-18)
    val s = DyadicSketch.create(spec, 0.05, d, universeBits = 32)
    val plain = DyadicSketch.create(spec, 0.05, 0.01, universeBits = 32)
    assert(s.depth == math.ceil(math.log(64 / d) - 1e-9).toInt && plain.depth == 9 && s.depth == 14)
    Seq(0.01, 0.05, 0.5).foreach(phi => assert(s.heavyHitterFailureProbability(phi) <= 0.01 + 1e-15))
    assert(s.heavyHitterFailureProbability(0.005) > 0.01 && plain.heavyHitterFailureProbability(0.05) > 0.01)
    assert(DyadicSketch.deltaFor(0.01, 1.0) == 0.01)
    Seq(0.0, 1.5, Double.NaN).foreach(p => assert(intercept[SketchException](DyadicSketch.deltaFor(0.01, p)).getMessage.contains("phi_min")))
  }

  test("randomized-wave cells and bad parameters are refused") {
    val e = intercept[SketchException](DyadicSketch.create(spec, 0.1, 0.1, cellKind = RwCellKind.id))
    assert(e.getMessage.contains("deterministic cells"))
    assert(intercept[SketchException](DyadicSketch.create(spec, 0.1, 0.1, universeBits = 0)).getMessage.contains("universe_bits"))
    assert(intercept[SketchException](DyadicSketch.create(spec, 0.1, 0.1, universeBits = 65)).getMessage.contains("universe_bits"))
    assert(intercept[SketchException](DyadicSketch.create(spec, 0.1, 1.5)).getMessage.contains("delta"))
  }

  /** Every query family against the oracle for several ranges; returns the number of probabilistic violations. */
  def checkAll(s: DyadicSketch, o: Oracle, rnd: Random, bits: Int, what: String): Checks = {
    val c = new Checks
    val now = s.lastTs
    val (minK, maxK) = DyadicUniverse.keyRange(bits)
    for (r <- Seq(50L, 500L, 2000L, spec.window)) {
      val from = now - r
      val freqs = o.freqsAfter(from)
      val a = freqs.values.sum.toDouble
      val range = java.lang.Long.valueOf(r)
      val e = s.cellBound
      // total: deterministic, within e A
      val t = s.total(range, null)
      assert(math.abs(t - a) <= e * a + 1e-9, s"$what r=$r: total $t vs $a")
      val sortedKeys = freqs.keys.toArray.sorted
      // range counts
      for (_ <- 0 until 30) {
        val x = if (sortedKeys.nonEmpty && rnd.nextBoolean()) sortedKeys(rnd.nextInt(sortedKeys.length)) else minK + (rnd.nextLong() & Long.MaxValue) % (maxK - minK + 1)
        val y = if (sortedKeys.nonEmpty && rnd.nextBoolean()) sortedKeys(rnd.nextInt(sortedKeys.length)) else minK + (rnd.nextLong() & Long.MaxValue) % (maxK - minK + 1)
        val (lo, hi) = (math.min(x, y), math.max(x, y))
        val f = freqs.iterator.filter { case (k, _) => k >= lo && k <= hi }.map(_._2).sum.toDouble
        val est = s.rangeCount(lo, hi, range, null)
        val k = DyadicUniverse.decompose(DyadicUniverse.longIndex(lo, bits), DyadicUniverse.longIndex(hi, bits), bits).size
        assert(est.estimate >= (1 - e) * f - 1e-9, s"$what: range [$lo, $hi] under-counted beyond e: ${est.estimate} vs $f")
        assert(est.upper >= f - 1e-9, s"$what: range upper ${est.upper} < $f")
        c.queries += 1
        if (est.lower > f + 1e-9 || est.estimate > f + s.rangeErrorBound(k) * a + 1e-9) c.violations += 1
        c.rangeErr = math.max(c.rangeErr, if (a > 0) math.abs(est.estimate - f) / a else 0.0)
      }
      if (a > 0) {
        // quantiles: R(v - 1) < (q + 2e/(1-e)) A always; R(v) >= (q - 2e/(1+e) - (bits+1) eps_cm) A w.p.
        val cum = sortedKeys.scanLeft(0L)((acc, k) => acc + freqs(k)).tail
        def rankOf(v: Long): Long = { var i = java.util.Arrays.binarySearch(sortedKeys, v); if (i < 0) i = -i - 2; if (i < 0) 0L else cum(i) }
        for (q <- Seq(0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 1.0)) {
          val v = s.quantile(q, range, null).get
          val below = if (v == minK) 0L else rankOf(v - 1)
          assert(below < (q + 2 * e / (1 - e)) * a + 1e-9, s"$what r=$r q=$q: value $v has $below rows below it, A=$a")
          c.queries += 1
          val lower = (q - 2 * e / (1 + e) - (bits + 1) * s.cmEpsilon) * a
          if (rankOf(v) < lower - 1e-9) c.violations += 1
          c.rankErr = math.max(c.rankErr, math.max(below - q * a, q * a - rankOf(v)) / a)
        }
        // rank
        for (_ <- 0 until 10 if sortedKeys.nonEmpty) {
          val x = sortedKeys(rnd.nextInt(sortedKeys.length))
          val est = s.rank(x, range, null)
          assert(est.upper >= rankOf(x) - 1e-9 && est.estimate >= (1 - e) * rankOf(x) - 1e-9)
        }
        // heavy hitters: recall of every key >= (phi + gap) A always; none below phi A w.p.
        for (phi <- Seq(0.02, 0.05, 0.2)) {
          val hh = s.heavyHitters(phi, range, null)
          val got = hh.map(_.key).toSet
          val must = freqs.filter(_._2 >= (phi + s.heavyHitterGap(phi)) * a).keySet
          assert(must.subsetOf(got), s"$what r=$r phi=$phi: missed ${must -- got}")
          c.hhQueries += 1
          if (hh.exists(k => freqs.getOrElse(k.key, 0L) < phi * a)) c.hhViolations += 1
          hh.foreach(k => assert(k.upper >= freqs.getOrElse(k.key, 0L) - 1e-9))
          assert(hh.map(_.estimate) == hh.map(_.estimate).sorted.reverse)
          // recall above phi + eps: the measured quantity of the brief
          val above = freqs.filter(_._2 >= (phi + s.epsilon) * a).keySet
          c.recallNum += (above & got).size; c.recallDen += above.size
        }
        // absolute threshold
        val cnt = math.max(1.0, 0.1 * a)
        val hhAbs = s.heavyHitters(cnt, range, null).map(_.key).toSet
        val e2 = s.cellBound
        val tau = s.heavyHitterThreshold(cnt, range, null)
        assert(freqs.filter(_._2 >= tau / (1 - e2)).keySet.subsetOf(hhAbs))
        // top-k: no key left out beats a returned one by more than (2e/(1-e^2) + eps_cm) A_up
        val k = 5
        val top = s.topK(k, range, null)
        assert(top.size == math.min(k, freqs.size))
        val minReturned = top.map(x => freqs.getOrElse(x.key, 0L)).min
        val maxLeft = (freqs -- top.map(_.key)).values.foldLeft(0L)(math.max)
        c.hhQueries += 1
        if (maxLeft - minReturned > s.topKErrorBound * a + 1e-9) c.hhViolations += 1
        val exactTop = freqs.toSeq.sortBy(x => (-x._2, x._1)).take(k).map(_._1).toSet
        c.topNum += (exactTop & top.map(_.key).toSet).size; c.topDen += exactTop.size
      }
    }
    c
  }

  def assertChecks(c: Checks, s: DyadicSketch, what: String): Unit = {
    // probabilistic sides: each query fails w.p. <= delta (the requested one); allow delta of them plus one
    assert(c.violations <= math.max(1.0, 2 * s.requestedDelta * c.queries), s"$what: ${c.violations} of ${c.queries} range/quantile answers outside the bound")
    assert(c.hhViolations <= 1, s"$what: ${c.hhViolations} heavy-hitter/top-k answers outside the bound")
    assert(c.recallNum == c.recallDen, s"$what: recall above phi + eps ${c.recallNum}/${c.recallDen}")
  }

  test("Zipf stream over signed keys: every answer within its certified bound") {
    for (seed <- 1 to 3; bits <- Seq(16, 32)) {
      val rnd = new Random(seed)
      val s = DyadicSketch.create(spec, 0.05, 0.05, universeBits = bits, seed = seed.toLong)
      val o = new Oracle
      zipf(rnd, 8000, 300, bits).foreach { case (k, t, w) => s.add(k, t, w); o.add(k, t, w) }
      val c = checkAll(s, o, rnd, bits, s"zipf seed $seed bits $bits")
      assertChecks(c, s, s"zipf seed $seed bits $bits")
      info(f"bits $bits seed $seed: max range err ${c.rangeErr}%.4f A (bound ${s.rangeCountErrorBound}%.3f), max rank err ${c.rankErr}%.4f A " +
        f"(bound ${s.quantileRankErrorBound}%.3f), HH recall ${c.recallNum}/${c.recallDen}, top-5 recall ${c.topNum}/${c.topDen}")
    }
  }

  test("adversarial streams: keys in sorted order, one key flooding, universe extremes") {
    val bits = 16
    val (minK, maxK) = DyadicUniverse.keyRange(bits)
    val rnd = new Random(11)
    val s = DyadicSketch.create(spec, 0.05, 0.05, universeBits = bits)
    val o = new Oracle
    var t = 0L
    // ascending keys over time, then a flood of one key, then the universe's extremes
    (minK to maxK by 37).foreach { k => s.add(k, t, 1); o.add(k, t, 1); if (rnd.nextInt(4) == 0) t += 1 }
    (0 until 2000).foreach { _ => s.add(12345L, t, 1); o.add(12345L, t, 1); t += 1 }
    Seq(minK, maxK, minK, maxK, 0L, -1L).foreach { k => s.add(k, t, 3); o.add(k, t, 3) }
    val c = checkAll(s, o, rnd, bits, "adversarial")
    assertChecks(c, s, "adversarial")
    assert(s.heavyHitters(0.4, null, null).map(_.key) == Seq(12345L))
    assert(s.quantile(0.0, java.lang.Long.valueOf(1), null).get == minK)
    assert(s.quantile(1.0, java.lang.Long.valueOf(1), null).get == maxK)
  }

  test("merged across 2-8 sites: bounds at the merge depth, same answers as one sketch of the union's accuracy") {
    for (sites <- Seq(2, 5, 8)) {
      val bits = 16
      val rnd = new Random(100 + sites)
      val parts = (0 until sites).map { i =>
        val s = DyadicSketch.create(spec, 0.05, 0.05, mergeLevels = 1, universeBits = bits)
        val o = new Oracle
        // one key set, shared by the sites
        zipf(new Random(sites * 31 + i), 2500, 200, bits, Some(new Random(sites))).foreach { case (k, t, w) => s.add(k, t, w); o.add(k, t, w) }
        (s, o)
      }
      val m = DyadicSketch.merge(parts.map(_._1))
      assert(m.mergeDepth == 1 && math.abs(m.cellBound - ecmsketch.core.Bounds.compound(m.cellEpsilon, 1)) < 1e-12)
      assert(m.count == parts.map(_._1.count).sum)
      val c = checkAll(m, Oracle.union(parts.map(_._2)), rnd, bits, s"$sites sites")
      assertChecks(c, m, s"$sites sites")
      assert(c.recallDen > 0, "the merged stream must have heavy hitters to find")
      info(f"$sites sites: max range err ${c.rangeErr}%.4f A, max rank err ${c.rankErr}%.4f A, HH recall ${c.recallNum}/${c.recallDen}, top-5 ${c.topNum}/${c.topDen}")
    }
    val a = DyadicSketch.create(spec, 0.05, 0.05, universeBits = 16)
    val b = DyadicSketch.create(spec, 0.05, 0.05, universeBits = 17)
    assert(intercept[SketchException](DyadicSketch.merge(Seq(a, b))).getMessage.contains("universe_bits 16 vs 17"))
    val d = DyadicSketch.create(spec, 0.05, 0.05, universeBits = 16); d.add(1.0, 0, 1)
    a.add(1L, 0, 1)
    assert(intercept[SketchException](DyadicSketch.merge(Seq(a, d))).getMessage.contains("key type"))
  }

  test("double keys: quantiles within the rank bound, answers are bucket representatives") {
    val rnd = new Random(5)
    val s = DyadicSketch.create(spec, 0.02, 0.05)
    val xs = Array.fill(6000)(math.exp(rnd.nextGaussian() * 2) * (if (rnd.nextInt(10) == 0) -1 else 1))
    xs.indices.foreach(i => s.add(xs(i), i.toLong / 2, 1)) // all within the window
    val all = xs.sorted
    val a = xs.length.toDouble
    val e = s.cellBound
    for (q <- Seq(0.01, 0.1, 0.5, 0.9, 0.99)) {
      val v = s.quantileDouble(q, null, null).get
      val bucket = DyadicUniverse.doubleIndex(v, 32)
      val below = all.count(x => java.lang.Long.compareUnsigned(DyadicUniverse.doubleIndex(x, 32), bucket) < 0)
      val atMost = all.count(x => java.lang.Long.compareUnsigned(DyadicUniverse.doubleIndex(x, 32), bucket) <= 0)
      assert(below < (q + 2 * e / (1 - e)) * a, s"q=$q v=$v below=$below")
      assert(atMost >= (q - s.quantileRankErrorBound) * a, s"q=$q v=$v atMost=$atMost")
    }
    val r = s.rangeCount(-1.0, 1.0, null, null)
    val exact = xs.count(x => x >= -1.0 && x <= 1.0)
    assert(r.lower <= exact && exact <= r.upper, s"$r vs $exact")
    assert(intercept[SketchException](s.quantile(0.5, null, null)).getMessage.contains("double keys"))
  }

  test("sorted batches give the same sketch as rows one by one (several universes, weights, equal timestamps, expiry)") {
    val rnd = new Random(41)
    var compared = 0
    for (bits <- Seq(1, 3, 16, 33, 63, 64); strict <- Seq(false, true); cell <- Seq(EhCellKind.id, DwCellKind.id)) {
      val sp = WindowSpec(countWindow = strict, tsMicros = false, window = if (strict) 2000 else 300)
      val a = DyadicSketch.create(sp, 0.1, 0.05, cellKind = cell, universeBits = bits, maxArrivals = if (cell == DwCellKind.id) 1L << 40 else ecmsketch.core.CellParams.Unbounded)
      val b = DyadicSketch.create(sp, 0.1, 0.05, cellKind = cell, universeBits = bits, maxArrivals = if (cell == DwCellKind.id) 1L << 40 else ecmsketch.core.CellParams.Unbounded)
      var t = 0L
      // batches below and above EcmSketch's grouping threshold (256 rows), read at an offset
      for (n <- Seq(1, 100, 300, 1200, 257, 2000)) {
        val off = rnd.nextInt(7)
        val (us, ts, vs) = indexStream(rnd, n + off, bits, t, 4, strict)
        t = ts.last
        var i = off; while (i < n + off) { a.addIndex(us(i), ts(i), vs(i)); i += 1 }
        b.addSortedBatch(us, ts, vs, off, n + off)
        assert(encoded(a) == encoded(b), s"bits $bits strict $strict cell $cell after a batch of $n")
        assert(a.count == b.count && a.lastTs == b.lastTs && a.firstTs == b.firstTs)
        compared += 1
      }
      assert(a.count > 0 && DyadicTestUtil.nonEmptyCells(a) == DyadicTestUtil.nonEmptyCells(b))
    }
    assert(compared == 6 * 2 * 2 * 6)
  }

  test("sorted batches refuse bad rows with the row-by-row error, after adding the rows before them") {
    val rnd = new Random(42)
    val bits = 12
    val bads = Seq[(String, (Array[Long], Array[Long], Array[Long], Int) => Unit)](
      "outside" -> ((us, _, _, p) => us(p) = 1L << bits),
      "decreasing" -> ((_, ts, _, p) => ts(p) = ts(p - 1) - 1),
      "negative" -> ((_, _, vs, p) => vs(p) = -3L),
      "overflow" -> ((_, _, vs, p) => vs(p) = Long.MaxValue - 5))
    for ((what, spoil) <- bads; n <- Seq(50, 2000); strict <- Seq(false, true)) {
      val sp = WindowSpec(countWindow = strict, tsMicros = false, window = 500)
      val a = DyadicSketch.create(sp, 0.1, 0.05, universeBits = bits)
      val b = DyadicSketch.create(sp, 0.1, 0.05, universeBits = bits)
      val (us0, ts0, vs0) = indexStream(rnd, 300, bits, 0L, 3, strict)
      a.addSortedBatch(us0, ts0, vs0, 0, 300); b.addSortedBatch(us0, ts0, vs0, 0, 300)
      val (us, ts, vs) = indexStream(rnd, n, bits, ts0.last + 1, 3, strict)
      val p = 1 + rnd.nextInt(n - 1)
      spoil(us, ts, vs, p)
      val ea = intercept[SketchException] { var i = 0; while (i < n) { a.addIndex(us(i), ts(i), vs(i)); i += 1 } }
      val eb = intercept[SketchException] { b.addSortedBatch(us, ts, vs, 0, n) }
      assert(ea.getMessage == eb.getMessage, s"$what n $n")
      assert(encoded(a) == encoded(b), s"$what n $n: state after the error")
    }
    // an equal timestamp in a count window
    val sp = WindowSpec(countWindow = true, tsMicros = false, window = 500)
    val a = DyadicSketch.create(sp, 0.1, 0.05, universeBits = bits)
    val b = DyadicSketch.create(sp, 0.1, 0.05, universeBits = bits)
    val (us, ts, vs) = indexStream(rnd, 1000, bits, 0L, 3, strict = true)
    ts(700) = ts(699); var i = 701; while (i < 1000) { ts(i) = ts(i - 1) + 1; i += 1 }
    val ea = intercept[SketchException] { var i = 0; while (i < 1000) { a.addIndex(us(i), ts(i), vs(i)); i += 1 } }
    val eb = intercept[SketchException] { b.addSortedBatch(us, ts, vs, 0, 1000) }
    assert(ea.getMessage == eb.getMessage && ea.getMessage.contains("twice"))
    assert(encoded(a) == encoded(b) && a.count == b.count)
  }
}

object DyadicSuite {
  final class Checks {
    var violations = 0; var queries = 0; var hhViolations = 0; var hhQueries = 0
    var recallNum = 0; var recallDen = 0; var topNum = 0; var topDen = 0
    var rangeErr = 0.0; var rankErr = 0.0
  }

  /** A time-sorted stream of universe indexes (a few hot ones, some random), runs of equal timestamps, some weights != 1. */
  def indexStream(rnd: Random, n: Int, bits: Int, t0: Long, step: Int, strict: Boolean): (Array[Long], Array[Long], Array[Long]) = {
    def any(): Long = if (bits >= 64) rnd.nextLong() else rnd.nextLong() >>> (64 - bits)
    val hot = Array.fill(5)(any())
    val us = Array.fill(n)(if (rnd.nextInt(3) == 0) any() else hot(rnd.nextInt(hot.length)))
    var t = t0
    val ts = Array.fill(n) { t += (if (strict) 1 + rnd.nextInt(step) else if (rnd.nextInt(3) == 0) rnd.nextInt(step) else 0); t }
    val vs = Array.fill(n)(rnd.nextInt(10) match { case 0 => 0L; case 1 => 2L + rnd.nextInt(1000); case _ => 1L })
    (us, ts, vs)
  }

  def encoded(s: DyadicSketch): Seq[Byte] = Codec.encode(DyadicKind, s).toSeq

  /** A Zipf(1) stream over `keys` signed keys scattered over the universe, with bursty timestamps. */
  def zipf(rnd: Random, n: Int, keys: Int, bits: Int, idRnd: Option[Random] = None): Seq[(Long, Long, Long)] = {
    val (minK, maxK) = DyadicUniverse.keyRange(bits)
    val span = BigInt(maxK) - BigInt(minK) + 1
    val ir = idRnd.getOrElse(rnd)
    val ids = Array.fill(keys)((BigInt(minK) + (BigInt(ir.nextLong() & Long.MaxValue) % span)).toLong)
    val weights = (1 to keys).map(i => 1.0 / i)
    val cdf = weights.scanLeft(0.0)(_ + _).tail.map(_ / weights.sum).toArray
    var t = 0L
    (0 until n).map { _ =>
      t += (if (rnd.nextInt(3) == 0) rnd.nextInt(4) else 0)
      var k = java.util.Arrays.binarySearch(cdf, rnd.nextDouble()); if (k < 0) k = -k - 1
      (ids(math.min(k, keys - 1)), t, if (rnd.nextInt(8) == 0) 1L + rnd.nextInt(3) else 1L)
    }
  }
}
