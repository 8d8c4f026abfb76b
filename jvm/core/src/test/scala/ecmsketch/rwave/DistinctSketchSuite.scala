package ecmsketch.rwave

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.core.{KeyType, SketchException, WindowSpec}

import scala.util.Random

class DistinctSketchSuite extends AnyFunSuite {
  val time = WindowSpec(countWindow = false, tsMicros = false, window = 10000)
  val count = WindowSpec(countWindow = true, tsMicros = false, window = 10000)

  test("distinct counts of bigint, string and binary values; key types are fixed on first use") {
    val s = DistinctSketch.create(time, 0.2, 0.05, 7)
    for (t <- 0L until 100L) s.add(t % 30, t)
    assert(s.count(null, null) == 30.0)
    assert(s.count(10L, null) == 10.0)
    assert(s.count(0L, null) == 0.0)
    assert(s.keyType == KeyType.Long && s.count == 100 && s.firstTs == 0 && s.lastTs == 99)
    val mixed = intercept[SketchException](s.add("x", 100)).getMessage
    assert(mixed == "this sketch holds bigint keys; cannot add a string key", mixed)
    val str = DistinctSketch.create(time, 0.2, 0.05, 7)
    Seq("a", "b", "a", "c").zipWithIndex.foreach { case (v, t) => str.add(v, t.toLong) }
    assert(str.count(null, null) == 3.0)
    val mixed2 = intercept[SketchException](str.add(Array[Byte](1), 5)).getMessage
    assert(mixed2 == "this sketch holds string keys; cannot add a binary key", mixed2)
    val bin = DistinctSketch.create(time, 0.2, 0.05, 7)
    bin.add(Array[Byte](1, 2), 0); bin.add(Array[Byte](1, 2), 1); bin.add(Array[Byte](3), 2)
    assert(bin.count(null, null) == 2.0 && bin.keyType == KeyType.Binary)
    val back = intercept[SketchException](s.add(1L, 5)).getMessage // timestamps must not go back
    assert(back.contains("timestamps must be non-decreasing: got 5 after 99"), back)
    val tooLong = intercept[SketchException](s.count(20000L, null)).getMessage // range beyond the window
    assert(tooLong == "range 20000 exceeds the sketch window 10000", tooLong)
    val negative = intercept[SketchException](s.count(-1L, null)).getMessage
    assert(negative == "range must be non-negative, got -1", negative)
    val badEps = intercept[SketchException](DistinctSketch.create(time, 1.5, 0.05, 7)).getMessage
    assert(badEps == "epsilon must be in [0.01, 1), got 1.5", badEps)
    val badDelta = intercept[SketchException](DistinctSketch.create(time, 0.2, 0.0, 7)).getMessage
    assert(badDelta == "delta must be in (0, 1), got 0.0", badDelta)
    assert(s.errorBound == 0.2 && s.cellBound == 0.2)
  }

  test("estimates within epsilon on large streams; merge equals one sketch over the union") {
    val rnd = new Random(3)
    val sites = Array.fill(5)(DistinctSketch.create(time, 0.3, 0.05, 11))
    val single = DistinctSketch.create(time, 0.3, 0.05, 11)
    val latest = scala.collection.mutable.HashMap[Long, Long]()
    var t = 0L
    for (_ <- 0 until 40000) {
      t += rnd.nextInt(2)
      val v = rnd.nextInt(20000).toLong
      sites(rnd.nextInt(5)).add(v, t); single.add(v, t); latest(v) = t
    }
    val m = DistinctSketch.merge(sites.toSeq)
    assert(m.count == 40000 && m.lastTs == single.lastTs && m.firstTs == single.firstTs && m.keyType == KeyType.Long)
    for (r <- Seq(1L, 10L, 100L, 1000L, 5000L, 10000L)) {
      val truth = latest.values.count(_ > t - r).toDouble
      assert(m.count(r, null) == single.count(r, null))
      assert(math.abs(single.count(r, null) - truth) <= 0.3 * truth, s"range $r")
    }
    assert(m.count(100L, t + 50) == single.count(100L, t + 50))
    val c = m.copy()
    assert(c.count(5000L, null) == m.count(5000L, null) && c.keyType == m.keyType)
  }

  test("many seeds: failure rate <= delta, and the mean error of inexact answers stays where it was measured") {
    // 40 seeds, eps 0.5 (capacity 144), delta 0.1 (3 instances); each stream is split over 3 sites
    // and merged. Failures beyond eps are about 0 where delta allows 10%, so the rate check catches
    // only gross regressions; the mean |err|/(eps*truth) and mean signed err/truth over the answers
    // level 0 does not cover (the others are exact) catch drift.
    var q = 0; var f = 0; var inexact = 0; var sumAbs = 0.0; var sumSigned = 0.0
    // per-seed means, for standard errors (the seeds are independent)
    val perSeedAbs = scala.collection.mutable.ArrayBuffer[Double]()
    val perSeedSigned = scala.collection.mutable.ArrayBuffer[Double]()
    for (seed <- 0 until 40) {
      val (i0, a0, s0) = (inexact, sumAbs, sumSigned)
      val rnd = new Random(900 + seed)
      val sites = Array.fill(3)(DistinctSketch.create(time, 0.5, 0.1, seed.toLong))
      val latest = scala.collection.mutable.HashMap[Long, Long]()
      var t = 0L
      for (_ <- 0 until 8000) {
        t += rnd.nextInt(3)
        val v = rnd.nextInt(5000).toLong
        sites(rnd.nextInt(3)).add(v, t); latest(v) = t
      }
      val m = DistinctSketch.merge(sites.toSeq)
      for (r <- Seq(30L, 100L) ++ (200L to 10000L by 200L)) {
        val truth = latest.values.count(_ > t - r).toDouble
        val est = m.count(r, null)
        q += 1; if (math.abs(est - truth) > 0.5 * truth) f += 1
        if (RwTestUtil.coveringLevel(m.wave, 0, t - r + 1) > 0) {
          inexact += 1; sumAbs += math.abs(est - truth) / (0.5 * truth); sumSigned += (est - truth) / truth
        } else assert(est == truth)
      }
      perSeedAbs += (sumAbs - a0) / (inexact - i0)
      perSeedSigned += (sumSigned - s0) / (inexact - i0)
    }
    def se(xs: Seq[Double]): Double = {
      val m = xs.sum / xs.size
      math.sqrt(xs.map(x => (x - m) * (x - m)).sum / (xs.size - 1) / xs.size)
    }
    info(f"$f of $q beyond eps; over $inexact inexact answers mean |err|/(eps*truth) ${sumAbs / inexact}%.4f (standard error ${se(perSeedAbs.toSeq)}%.4f), mean signed err/truth ${sumSigned / inexact}%+.5f (standard error ${se(perSeedSigned.toSeq)}%.4f)")
    assert(f.toDouble / q <= 0.1)
    // Drift checks (fixed seeds): measured mean |err|/(eps*truth) 0.0981 with a standard error of
    // 0.0092 over the 40 independent seeds (the median of 3 instances; 0.0466 with version 0.1.0's
    // 15), so 0.125 is about 3 standard errors above. The median is slightly low: measured mean
    // signed err/truth -0.0110, standard error 0.0080; 0.035 is about 3 standard errors beyond it.
    // RandWaveSuite's single-instance failure rates catch a smaller capacity constant.
    assert(sumAbs / inexact < 0.125, s"mean |err|/(eps*truth) ${sumAbs / inexact}")
    assert(math.abs(sumSigned / inexact) < 0.035, s"mean signed err/truth ${sumSigned / inexact}")
  }

  test("merge refuses count windows and different parameters; diffs name them") {
    val a = DistinctSketch.create(count, 0.3, 0.05, 1); a.add(1L, 1)
    val b = DistinctSketch.create(count, 0.3, 0.05, 1); b.add(2L, 2)
    val e = intercept[SketchException](DistinctSketch.merge(Seq(a, b)))
    assert(e.getMessage.contains("count-based"))
    assert(DistinctSketch.mergeUnchecked(Seq(a, b)).count(null, null) == 2.0) // partials of one stream
    val dup = intercept[SketchException](a.add(3L, 1)).getMessage // count windows take unique sequence numbers
    assert(dup == "count-based windows take unique arrival sequence numbers; got 1 twice", dup)
    val x = DistinctSketch.create(time, 0.3, 0.05, 1)
    assert(x.diffs(DistinctSketch.create(time, 0.3, 0.05, 2)) == Seq("seed 1 vs 2"))
    assert(x.diffs(DistinctSketch.create(time, 0.3, 0.1, 1)) == Seq("delta 0.05 vs 0.1"))
    assert(x.diffs(DistinctSketch.create(time, 0.2, 0.05, 1)).exists(_.startsWith("epsilon")))
    assert(x.diffs(DistinctSketch.create(time.copy(window = 5), 0.3, 0.05, 1)).exists(_.startsWith("window")))
    val y = DistinctSketch.create(time, 0.3, 0.05, 1); y.add("s", 0)
    val z = DistinctSketch.create(time, 0.3, 0.05, 1); z.add(5L, 0)
    assert(y.diffs(z) == Seq("key type string vs bigint"))
    assert(y.diffs(x).isEmpty)
    val kinds = intercept[SketchException](DistinctSketch.merge(Seq(y, z))).getMessage
    assert(kinds.contains("cannot merge distinct-count sketches with different parameters: key type string vs bigint"), kinds)
    assert(DistinctSketch.merge(Seq(x, y)).keyType == KeyType.String)
    val e2 = intercept[SketchException](DistinctSketch.merge(Seq(x, DistinctSketch.create(time, 0.3, 0.05, 2))))
    assert(e2.getMessage.contains("seed 1 vs 2"))
  }

  test("addSortedBatch equals one-by-one adds") {
    val rnd = new Random(4)
    val n = 30000
    var t = 0L
    val ts = Array.fill(n) { t += rnd.nextInt(3); t }
    val fps = Array.fill(n)(rnd.nextInt(5000).toLong)
    val a = DistinctSketch.create(time, 0.3, 0.05, 3); val b = DistinctSketch.create(time, 0.3, 0.05, 3)
    (0 until n).foreach(i => a.addFingerprint(fps(i), ts(i)))
    var i = 0
    while (i < n) { val j = math.min(n, i + 1 + rnd.nextInt(5000)); b.addSortedBatch(fps, ts, i, j); i = j }
    assert(a.count == b.count && a.lastTs == b.lastTs && a.firstTs == b.firstTs)
    for (r <- Seq(1L, 50L, 777L, 10000L)) assert(a.count(r, null) == b.count(r, null))
    val o1 = new ecmsketch.core.ByteWriter(); new RwCells(a.config).write(a.wave, o1, a.firstTs)
    val o2 = new ecmsketch.core.ByteWriter(); new RwCells(b.config).write(b.wave, o2, b.firstTs)
    assert(java.util.Arrays.equals(o1.toByteArray, o2.toByteArray))
    val back = intercept[SketchException](b.addSortedBatch(Array(1L), Array(t - 1), 0, 1)).getMessage
    assert(back.contains(s"timestamps must be non-decreasing: got ${t - 1} after $t"), back)
  }
}
