package ecmsketch.frequent

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.core.{Codec, SketchException}

/** One sketch against exact answers: every interval holds the truth, every estimate is within the
  * certified bound of the range's weight, heavy hitters and top-10 recall as promised.
  */
class FrequentSketchSuite extends AnyFunSuite {
  import FreqKit._

  private def run(rows: Seq[Row], window: Long, eps: Double, seed: Long): (FrequentSketch, Double) = {
    val s = build(rows, window, eps)
    val o = oracle(rows)
    val last = rows.last.ts
    var worst = 0.0
    Seq(last, last + 3).foreach { now =>
      worst = math.max(worst, check(s, o, window, now, ranges(rows, window, now, 40, seed)))
    }
    (s, worst)
  }

  test("Zipf keys in time order: intervals, bounds, heavy hitters, top-10 across ranges") {
    val rows = zipf(60000, 5000, 1.1, 2, 1L)
    val (s, worst) = run(rows, 40000L, 0.02, 2L)
    assert(s.scaleCount >= 3, s"only ${s.scaleCount} scales: the test does not reach coarse scales")
    info(f"scales ${s.scaleCount}, entries ${s.storedEntries}, keys ${s.keysHeld}, worst error ${worst}%.5f of n, bound ${s.errorBound}%.5f")
  }

  test("bursts: thousands of rows at one timestamp, ranges starting inside and on a burst") {
    val rows = zipf(40000, 2000, 1.0, 0, 3L).zipWithIndex.map { case (r, i) => r.copy(ts = 1000L + i / 3000) }
    run(rows, 20L, 0.02, 4L)
  }

  test("adversarial: many distinct keys beside a few heavy ones") {
    val rows = adversarial(50000, 5L)
    val (s, _) = run(rows, 800L, 0.02, 6L)
    assert(s.keysHeld < 20000, s"${s.keysHeld} keys held")
  }

  test("a sorted batch into an empty sketch: each scale takes the rows its horizon keeps, within the bound") {
    val shapes = Seq(
      ("zipf", zipf(60000, 5000, 1.1, 2, 21L), 40000L),
      ("bursts", zipf(40000, 2000, 1.0, 0, 22L).zipWithIndex.map { case (r, i) => r.copy(ts = 1000L + i / 3000) }, 20L),
      ("adversarial", adversarial(50000, 23L), 800L),
      ("weighted", zipf(30000, 3000, 1.2, 3, 24L, weights = true), 30000L),
      ("unbounded", zipf(60000, 5000, 1.1, 2, 25L), Long.MaxValue),
      ("window of a tenth", zipf(60000, 5000, 1.1, 2, 26L), 6000L))
    for ((name, rows, window) <- shapes; batch <- Seq(Int.MaxValue, 7000)) {
      val what = s"$name, batches of $batch"
      val s = buildSorted(rows, window, 0.02, batch = batch)
      assert(s.scaleCount >= 2 && s.count == rows.map(_.w).sum, what)
      assert(s.scales.init.exists(_.dropped != Long.MinValue), s"$what: no scale starts after the first row")
      checkHorizons(s, rows, what)
      val o = oracle(rows)
      val last = rows.last.ts
      Seq(last, last + 3).foreach(now => check(s, o, window, now, ranges(rows, window, now, 40, 27L)))
      checkHorizons(roundTrip(s), rows, s"$what, decoded")
    }
  }

  test("a sorted batch with a bad row is refused whole") {
    val ops = new FrequentOps(() => FrequentSketch.create(spec(100L), 0.05), FreqKeys.BigInt, null)
    val s = ops.create()
    val keys = Array.tabulate(3000)(_.toLong); val ts = Array.tabulate(3000)(i => i.toLong / 2); val ws = Array.fill(3000)(1L)
    val bad = ts.clone(); bad(2000) = 3L
    assert(intercept[SketchException](ops.addSorted(s, keys, bad, ws, 0, 3000)).getMessage.contains("non-decreasing"))
    val neg = ws.clone(); neg(2999) = -1L
    assert(intercept[SketchException](ops.addSorted(s, keys, ts, neg, 0, 3000)).getMessage.contains("weight must be non-negative"))
    val min = ts.clone(); min(0) = Long.MinValue
    assert(intercept[SketchException](ops.addSorted(s, keys, min, ws, 0, 3000)).getMessage.contains("above -2^63"))
    assert(s.isEmpty && s.keysHeld == 0 && s.scaleCount == 0)
    ops.addSorted(s, keys, ts, ws, 0, 3000)
    assert(s.count == 3000L && s.keysHeld > 0)
  }

  test("sorted batches after the first go row by row: keys of many distinct keys survive sweeps in a batch") {
    // distinct keys in time order, beside a few heavy ones: the dictionary is swept every few
    // thousand rows, inside batches of 8,192 rows
    val rows = (0 until 40960).map(i => Row(if (i % 3 == 0) (i % 7).toLong else 1000000L + i, i.toLong, 1L))
    val o = oracle(rows)
    for (batch <- Seq(8192, 1000)) {
      val s = buildSorted(rows, 1000000L, 0.01, batch = batch)
      val now = rows.last.ts
      check(s, o, 1000000L, now, Seq(1L, 2L, 100L, 5000L, 40000L, 1000000L), absent = Seq(-1L, 1000000L + 40958L))
      roundTrip(s)
    }
    // string keys through key slots, as the SQL aggregate gives them
    val slots = new KeySlots
    val ops = new FrequentOps(() => FrequentSketch.create(spec(1000000L), 0.01), FreqKeys.Str, slots)
    val s = ops.create()
    val fps = rows.map(r => slots.put(("k" + r.key).getBytes("UTF-8"))).toArray
    val ts = rows.map(_.ts).toArray; val ws = rows.map(_.w).toArray
    (0 until rows.length by 8192).foreach(from => ops.addSorted(s, fps, ts, ws, from, math.min(rows.length, from + 8192)))
    val back = roundTrip(s)
    for (x <- Seq(s, back); r <- Seq(1L, 100L, 40000L); key <- Seq(0L, 3L, 1000000L + 40958L, 1000000L + 40957L, 1000000L + 20000L)) {
      val f = o.freqsAfter(rows.last.ts - r).getOrElse(key, 0L)
      val n = rows.count(_.ts > rows.last.ts - r)
      val e = x.estimate("k" + key, r, null)
      assert(e.lower <= f && f <= e.upper && math.abs(e.estimate - f) <= x.errorBound * n + 1e-9, s"string key $key, range $r: $f vs $e")
    }
  }

  test("keys at exactly (phi +- e) n are classified as promised") {
    // range = the whole stream of n = 20000 rows; key 1 at phi + e, key 2 at phi - e (with e the bound)
    val eps = 0.02
    val e = FreqPlan.of(eps, 0).bound(0)
    val n = 20000
    val phi = 0.1
    val hi = math.ceil((phi + e) * n).toInt; val lo = math.floor((phi - e) * n).toInt - 1
    val keys = (Seq.fill(hi)(1L) ++ Seq.fill(lo)(2L) ++ (0 until n - hi - lo).map(i => 100L + i % 300)).toArray
    val r = new scala.util.Random(7L); val shuffled = r.shuffle(keys.toSeq)
    val rows = shuffled.zipWithIndex.map { case (k, i) => Row(k, i.toLong / 4, 1L) }
    val s = build(rows, 1000000L, eps)
    val hh = s.heavyHitters(phi, null, null).map(_.key)
    assert(hh.contains(1L) && !hh.contains(2L), hh)
  }

  test("an unbounded window: the whole stream and shorter ranges, over coarse scales") {
    val rows = zipf(60000, 5000, 1.1, 2, 11L)
    val s = build(rows, Long.MaxValue, 0.02)
    assert(s.scaleCount >= 3, s"only ${s.scaleCount} scales: the test does not reach coarse scales")
    val last = rows.last.ts
    check(s, oracle(rows), Long.MaxValue, last, Seq(Long.MaxValue, 1L, 500L, last / 2, last + 1))
  }

  test("rows of weight 0 move the clock: the window still drops what lies behind it, and the bytes decode") {
    val rows = zipf(20000, 500, 1.1, 2, 12L, weights = true)
    val last = rows.last.ts
    val s = build(rows, 3000L, 0.02)
    s.addKey(1L, last + 2500L, 0L) // weight 0, 2500 ticks later
    val back = roundTrip(s)
    val o = oracle(rows)
    Seq(s, back).foreach(x => check(x, o, 3000L, last + 2500L, Seq(3000L, 2600L, 2501L)))
  }

  test("weighted rows") {
    val rows = zipf(30000, 3000, 1.2, 3, 8L, weights = true)
    run(rows, 30000L, 0.02, 9L)
  }

  test("a single sketch's bound is the plan's bound at depth 0, and at most epsilon") {
    Seq(0.001, 0.01, 0.05, 0.3).foreach { eps =>
      Seq(0, 1, 2).foreach { h =>
        val p = FreqPlan.of(eps, h)
        assert(p.bound(h) <= eps && p.bound(0) <= p.bound(h), (eps, h, p))
      }
    }
  }

  test("keys come back in their own type: int, bigint, double, string, binary") {
    val sp = spec(100L)
    val a = FrequentSketch.create(sp, 0.05); a.addInt(7, 1L, 3L); a.addInt(-2, 2L, 1L)
    assert(a.topK(1, null, null).head.key == Integer.valueOf(7))
    val b = FrequentSketch.create(sp, 0.05); b.addDouble(-0.0, 1L, 2L); b.addDouble(0.0, 1L, 1L); b.addDouble(2.5, 1L, 1L)
    assert(b.topK(1, null, null).head == FrequentItem(java.lang.Double.valueOf(0.0), 3.0, 3L, 3L))
    val c = FrequentSketch.create(sp, 0.05); c.addKey("héllo", 1L, 2L); c.addKey("x", 2L, 1L)
    assert(c.topK(1, null, null).head.key == "héllo" && c.estimate("héllo", null, null).lower == 2L)
    val d = FrequentSketch.create(sp, 0.05); d.addKey(Array[Byte](1, 2), 1L, 2L)
    assert(d.topK(1, null, null).head.key.asInstanceOf[Array[Byte]].toSeq == Seq[Byte](1, 2))
    Seq(a, b, c, d).foreach { s =>
      val r = roundTrip(s)
      assert(r.keyTypeName == s.keyTypeName)
      def keys(x: FrequentSketch) = x.topK(3, null, null).map(_.key match { case b: Array[Byte] => b.toSeq; case o => o })
      assert(keys(r) == keys(s))
    }
    assert(intercept[SketchException](c.addKey(5L, 3L, 1L)).getMessage.contains("holds string keys; cannot add a bigint key"))
    assert(intercept[SketchException](c.estimate(java.lang.Long.valueOf(5L), null, null)).getMessage.contains("holds string keys"))
    assert(intercept[SketchException](a.addDouble(1.0, 3L, 1L)).getMessage.contains("holds int keys; cannot add a double key"))
  }

  test("bad input: epsilon, merge levels, timestamps, weights, phi, k, range") {
    val sp = spec(100L)
    assert(intercept[SketchException](FrequentSketch.create(sp, 0.0)).getMessage.contains("epsilon must be in"))
    assert(intercept[SketchException](FrequentSketch.create(sp, 1.0)).getMessage.contains("epsilon must be in"))
    assert(intercept[SketchException](FrequentSketch.create(sp, Double.NaN)).getMessage.contains("epsilon must be in"))
    assert(intercept[SketchException](FrequentSketch.create(sp, 0.01, 9)).getMessage.contains("merge_levels"))
    val s = FrequentSketch.create(sp, 0.05)
    s.addKey(1L, 10L, 1L)
    assert(intercept[SketchException](s.addKey(1L, 9L, 1L)).getMessage.contains("non-decreasing"))
    assert(intercept[SketchException](s.addKey(1L, 11L, -1L)).getMessage.contains("non-negative"))
    assert(intercept[SketchException](s.addKey(null: String, 11L, 1L)).getMessage.contains("null"))
    assert(intercept[SketchException](s.heavyHitters(0.0, null, null)).getMessage.contains("phi"))
    assert(intercept[SketchException](s.topK(0, null, null)).getMessage.contains("k must be positive"))
    assert(intercept[SketchException](s.rangeCount(101L, null)).getMessage.contains("exceeds the sketch window"))
    assert(intercept[SketchException](s.rangeCount(5L, 9L)).getMessage.contains("must not precede"))
  }

  test("empty sketches and zero weights") {
    val s = FrequentSketch.create(spec(100L), 0.05)
    assert(s.topK(5, null, 0L).isEmpty && s.rangeCount(null, 0L) == RangeCount(0.0, 0L, 0L))
    roundTrip(s)
    s.addKey(4L, 5L, 0L)
    assert(s.topK(5, null, null).isEmpty && s.keyTypeName == "bigint" && s.count == 0L)
    roundTrip(s)
    s.addKey(4L, 6L, 2L)
    assert(s.estimate(java.lang.Long.valueOf(4L), 1L, null) == FrequentItem(java.lang.Long.valueOf(4L), 2.0, 2L, 2L))
    assert(s.rangeCount(0L, null) == RangeCount(0.0, 0L, 0L))
    assert(Codec.decodeAs(FrequentKind, Codec.encode(FrequentKind, s)).rangeCount(null, null) == s.rangeCount(null, null))
  }
}
