package ecmsketch.dwave

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.core.{SketchException, WindowSpec}

import scala.util.Random

class DwSketchSuite extends AnyFunSuite {
  val time = WindowSpec(countWindow = false, tsMicros = false, window = 1000)
  val count = WindowSpec(countWindow = true, tsMicros = false, window = 1000)

  test("create, add, count, copy") {
    val s = DwSketch.create(time, 0.1, 2, Long.MaxValue)
    assert(math.pow(1 + s.cellEpsilon, 3) - 1 <= 0.1 && s.errorBound <= 0.1)
    val rnd = new Random(1)
    val ts = (0 until 5000).map(i => i.toLong / 2)
    var truth = 0L
    ts.foreach { t => val v = 1L + rnd.nextInt(3); s.add(t, v); if (t > ts.last - 1000) truth += v }
    assert(math.abs(s.count(null, null) - truth) <= s.errorBound * truth)
    assert(s.count(0L, null) == 0.0)
    val c = s.copy(); c.add(ts.last + 1)
    assert(c.count(null, null) != s.count(null, null) || c.lastTs != s.lastTs)
    assert(s.count(null, java.lang.Long.valueOf(ts.last + 5000)) == 0.0)
    // the messages name the problem and the offending values
    val back = intercept[SketchException](s.add(0L)).getMessage
    assert(back.contains("timestamps must be non-decreasing") && back.contains(s"got 0 after ${ts.last}"), back)
    val tooLong = intercept[SketchException](s.count(2000L, null)).getMessage
    assert(tooLong.contains("range 2000 exceeds the sketch window 1000"), tooLong)
    val negative = intercept[SketchException](s.add(ts.last, -3L)).getMessage
    assert(negative.contains("weight must be non-negative, got -3"), negative)
    val early = intercept[SketchException](s.count(10L, java.lang.Long.valueOf(ts.last - 1))).getMessage
    assert(early.contains(s"now (${ts.last - 1}) must not precede the sketch's last timestamp (${ts.last})"), early)
  }

  test("merge: time windows merge within the bound; count windows refused, partials allowed") {
    val rnd = new Random(2)
    val parts = (0 until 4).map(_ => DwSketch.create(time, 0.2, 2, 5000))
    var all = Seq[(Long, Long)]()
    parts.foreach { p => var t = rnd.nextInt(50).toLong; for (_ <- 0 until 800) { t += rnd.nextInt(3); p.add(t); all :+= ((t, 1L)) } }
    val m = DwSketch.merge(parts)
    assert(m.mergeDepth == 1 && m.errorBound <= 0.2 && m.maxArrivals == 4 * 5000) // sites: the sum of their U
    val now = all.map(_._1).max
    val truth = all.count(_._1 > now - 1000)
    assert(math.abs(m.count(null, null) - truth) <= m.errorBound * truth)
    val m2 = DwSketch.merge(Seq(m, DwSketch.create(time, 0.2, 2, 5000)))
    assert(m2.mergeDepth == 1 && m2.count(null, null) == m.count(null, null))
    val c1 = DwSketch.create(count, 0.2, 1, Long.MaxValue); val c2 = DwSketch.create(count, 0.2, 1, Long.MaxValue)
    (1L to 100L).foreach(i => if (i % 2 == 0) c1.add(i) else c2.add(i))
    assert(intercept[SketchException](DwSketch.merge(Seq(c1, c2))).getMessage.contains("count-based"))
    val cu = DwSketch.mergeUnchecked(Seq(c1, c2))
    assert(math.abs(cu.count(50L, null) - 50) <= cu.errorBound * 50)
    val dup = intercept[SketchException](c1.add(100L)).getMessage // sequence numbers are unique
    assert(dup.contains("count-based windows take unique arrival sequence numbers; got 100 twice"), dup)
    val other = DwSketch.create(time, 0.1, 2, 5000)
    val diff = intercept[SketchException](DwSketch.merge(Seq(parts(0), other))).getMessage
    assert(diff.contains("cannot merge deterministic waves with different parameters") && diff.contains("epsilon 0.2 vs 0.1"), diff)
  }

  test("regression: a merge where no input holds live items keeps max_arrivals whatever the input order (empty sketches change nothing)") {
    // Found by LawsSuite: with no input holding live items the merge took the first input's
    // max_arrivals, so merge(empty, s) had U = 25 where s had 50 (sum of its two sites).
    val w50 = WindowSpec(countWindow = false, tsMicros = false, window = 50)
    val a = DwSketch.create(w50, 0.2, 1, 25); val b = DwSketch.create(w50, 0.2, 1, 25)
    (0L until 10L).foreach { t => a.add(t); b.add(t + 1) }
    val s = DwSketch.merge(Seq(a, b))
    assert(s.maxArrivals == 50 && s.mergeDepth == 1)
    s.add(1000L, 0L) // moves the clock: every item expires, the sketch keeps its rows
    val bytes = ecmsketch.format.SketchCodec.encode(s).toSeq // writing expires them fully
    assert(s.wave.isEmpty && !s.isEmpty)
    for (m <- Seq(DwSketch.merge(Seq(s, DwSketch.create(w50, 0.2, 1, 25))), DwSketch.merge(Seq(DwSketch.create(w50, 0.2, 1, 25), s)))) {
      assert(m.maxArrivals == 50 && m.mergeDepth == 1)
      assert(ecmsketch.format.SketchCodec.encode(m).toSeq == bytes)
    }
  }
}
