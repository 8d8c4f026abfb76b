package ecmsketch.ecm

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.eh.EhCellKind
import ecmsketch.dwave.DwCellKind
import ecmsketch.rwave.RwCellKind
import ecmsketch.Oracle
import ecmsketch.ecm.{EcmSketch, Planner, QueryKind}
import ecmsketch.core.{SketchException, WindowSpec}

import scala.util.Random

/** ECM-sketch guarantees against exact answers: point and inner-product bounds hold with
  * probability >= 1 - delta (asserted as a violation rate <= delta over many keys and seeds), the
  * deterministic sides (under-estimation, total) hold on every query.
  */
class EcmSuite extends AnyFunSuite {

  /** A Zipf-like stream over `keys` keys with bursty timestamps. */
  def stream(rnd: Random, n: Int, keys: Int, start: Long = 0L): Seq[(Long, Long, Long)] = {
    val weights = (1 to keys).map(i => 1.0 / i)
    val cdf = weights.scanLeft(0.0)(_ + _).tail.map(_ / weights.sum).toArray
    var t = start
    (0 until n).map { _ =>
      t += (if (rnd.nextInt(5) == 0) rnd.nextInt(30) else 0)
      val u = rnd.nextDouble()
      var k = java.util.Arrays.binarySearch(cdf, u); if (k < 0) k = -k - 1
      (math.min(k, keys - 1).toLong, t, if (rnd.nextInt(8) == 0) 1L + rnd.nextInt(5) else 1L)
    }
  }

  def build(s: EcmSketch, data: Seq[(Long, Long, Long)], o: Oracle): EcmSketch = {
    data.foreach { case (k, t, w) => s.add(k, t, w); o.add(k, t, w) }
    s
  }

  val spec = WindowSpec(countWindow = false, tsMicros = false, window = 20000)

  test("planner: journal splits give exactly the requested bound at the planned depth") {
    for (eps <- Seq(0.01, 0.05, 0.1, 0.25); kind <- QueryKind.all; levels <- 0 to 3) {
      val p = Planner.plan(eps, 0.1, kind, levels)
      assert(p.width == math.ceil(math.E / (eps / (1 + eps)) - 1e-9).toInt)
      assert(p.depth == 3) // ceil(ln 10)
      val s = EcmSketch.create(spec, p)
      s._mergeDepth = levels
      val bound = if (kind == QueryKind.Point) s.pointErrorBound else s.innerProductErrorBound(s)
      assert(math.abs(bound - eps) < 1e-9 && bound <= eps, s"$kind $levels: $bound")
      s._mergeDepth = levels + 1
      val over = if (kind == QueryKind.Point) s.pointErrorBound else s.innerProductErrorBound(s)
      assert(over > eps, "a merge beyond the plan must raise the reported bound")
    }
    assert(intercept[SketchException](Planner.plan(0.0, 0.1, QueryKind.Point, 0)).getMessage.contains("epsilon"))
    assert(intercept[SketchException](Planner.plan(0.1, 1.0, QueryKind.Point, 0)).getMessage.contains("delta"))
  }

  /** Point and total errors of a batch of sketches. The violation rate alone only catches gross
    * regressions (it is about 0 where delta allows 0.1), so the tests also bound the mean error as a
    * fraction of the certified bound, and the mean signed error of the (unbiased) total.
    */
  final class Stats {
    var violations = 0; var queries = 0
    /** Sum over point queries of |est - f| / (pointErrorBound * A). */
    var pointRatio = 0.0
    var totals = 0
    /** Sums over totals of (est - A) / (totalErrorBound * A), signed and absolute. */
    var totalSigned = 0.0; var totalAbs = 0.0
    def meanPoint: Double = pointRatio / queries
    def meanTotalSigned: Double = totalSigned / totals
    def meanTotalAbs: Double = totalAbs / totals
    def summary: String =
      f"$violations of $queries point queries beyond the bound; mean |err|/bound: points $meanPoint%.4f, " +
        f"totals $meanTotalAbs%.4f; mean signed total err/bound $meanTotalSigned%+.4f over $totals totals"
  }

  /** (violations, queries) of one sketch (WaveCellsSuite uses this form). */
  def checkPoint(s: EcmSketch, o: Oracle, ranges: Seq[Long]): (Int, Int) = {
    val st = new Stats
    checkPoint(s, o, ranges, st)
    (st.violations, st.queries)
  }

  def checkPoint(s: EcmSketch, o: Oracle, ranges: Seq[Long], st: Stats): Unit = {
    val now = o.ts.max
    for (r <- ranges) {
      val x = now - r
      val freqs = o.freqsAfter(x)
      val a = o.after(x).toDouble
      assert(a > 0)
      val tot = s.total(r, null)
      assert(math.abs(tot - a) <= s.totalErrorBound * a + 1e-9, s"total r=$r est=$tot exact=$a")
      st.totals += 1; st.totalSigned += (tot - a) / (s.totalErrorBound * a); st.totalAbs += math.abs(tot - a) / (s.totalErrorBound * a)
      for (k <- freqs.keys ++ Seq(-1L, -2L)) {
        val f = freqs.getOrElse(k, 0L).toDouble
        val est = s.point(k, r, null)
        assert(est >= (1 - s.cellBound) * f - 1e-9, s"under-estimate beyond the deterministic bound: key $k r=$r est=$est f=$f")
        if (math.abs(est - f) > s.pointErrorBound * a + 1e-9) st.violations += 1
        st.pointRatio += math.abs(est - f) / (s.pointErrorBound * a)
        st.queries += 1
      }
    }
  }

  test("point queries and totals: fresh sketches, many seeds, ranges 10..window") {
    val st = new Stats
    for (seed <- 0 until 8; eps <- Seq(0.05, 0.1, 0.2)) {
      val rnd = new Random(seed)
      val o = new Oracle
      val s = build(EcmSketch.create(spec, eps, 0.1, QueryKind.Point, 0, seed.toLong), stream(rnd, 6000, 300), o)
      checkPoint(s, o, Seq(10L, 100L, 1000L, 5000L, 20000L), st)
    }
    info(st.summary + " (allowed violation rate delta = 0.1)")
    assert(st.violations.toDouble / st.queries <= 0.1)
    // Drift checks, thresholds = measurement + margin (these streams and seeds are fixed):
    // measured mean |err|/bound 0.121 for points (0.32 with the Count-Min width halved, which the
    // rate check above still passes) and 0.033 for totals, whose mean signed error is +0.023
    // (+0.22 when the EH answers the upper end of its interval instead of the midpoint).
    assert(st.meanPoint < 0.18, st.summary)
    assert(st.meanTotalAbs < 0.06 && math.abs(st.meanTotalSigned) < 0.06, st.summary)
  }

  test("order-preserving merge across 2..64 sites: bounds at depth 1 and 2") {
    val st1 = new Stats; val st2 = new Stats
    for (seed <- 0 until 4; sites <- Seq(2, 8, 64)) {
      val rnd = new Random(100 + seed)
      val oracles = Seq.fill(sites)(new Oracle)
      val sk = oracles.map(o => build(EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, 7L), stream(rnd, 4000 / sites + 50, 200, rnd.nextInt(100)), o))
      val m1 = EcmSketch.merge(sk)
      assert(m1.mergeDepth == 1)
      assert(math.abs(m1.pointErrorBound - 0.1) < 1e-9)
      val union = Oracle.union(oracles)
      checkPoint(m1, union, Seq(10L, 300L, 3000L, 20000L), st1)
      val half = sk.size / 2
      val m2 = EcmSketch.merge(Seq(EcmSketch.merge(sk.take(half)), EcmSketch.merge(sk.drop(half))))
      // a "merge" of a single sketch is an exact copy and adds no level
      assert(m2.mergeDepth == (if (half == 1) 1 else 2))
      if (half > 1) assert(m2.pointErrorBound > 0.1)
      checkPoint(m2, union, Seq(10L, 300L, 3000L, 20000L), st2)
    }
    info("depth 1: " + st1.summary)
    info("depth 2: " + st2.summary)
    assert((st1.violations + st2.violations).toDouble / (st1.queries + st2.queries) <= 0.1)
    // Drift checks (measured: points 0.125 at depth 1 and 0.094 at depth 2, 0.31 and 0.23 with the
    // Count-Min width halved; totals 0.018 and 0.025, 0.071 and 0.071 with EH upper-end answers).
    assert(st1.meanPoint < 0.19 && st2.meanPoint < 0.15, st1.summary + " / " + st2.summary)
    assert(st1.meanTotalAbs < 0.045 && st2.meanTotalAbs < 0.045, st1.summary + " / " + st2.summary)
  }

  test("inner product and self-join within the bound (rate <= delta), lower side deterministic") {
    var v = 0; var q = 0
    var ratio = 0.0; var rq = 0 // sum of |est - exact| / (bound * A * B) over the rq queries with A, B > 0
    for (seed <- 0 until 10) {
      val rnd = new Random(500 + seed)
      val oa = new Oracle; val ob = new Oracle
      val a = build(EcmSketch.create(spec, 0.1, 0.1, QueryKind.InnerProduct, 0, seed.toLong), stream(rnd, 5000, 150), oa)
      val b = build(EcmSketch.create(spec, 0.1, 0.1, QueryKind.InnerProduct, 0, seed.toLong), stream(rnd, 5000, 150), ob)
      val now = math.max(oa.ts.max, ob.ts.max)
      for (r <- Seq(50L, 500L, 5000L, 20000L)) {
        val fa = oa.freqsAfter(now - r); val fb = ob.freqsAfter(now - r)
        val exact = fa.map { case (k, c) => c.toDouble * fb.getOrElse(k, 0L) }.sum
        val f2 = fa.values.map(c => c.toDouble * c).sum
        val aa = fa.values.sum.toDouble; val bb = fb.values.sum.toDouble
        val est = a.innerProduct(b, r, now)
        val sj = a.selfJoin(r, now)
        assert(est >= (1 - a.cellBound) * (1 - b.cellBound) * exact - 1e-6)
        assert(sj >= (1 - a.cellBound) * (1 - a.cellBound) * f2 - 1e-6)
        if (math.abs(est - exact) > a.innerProductErrorBound(b) * aa * bb + 1e-6) v += 1
        if (math.abs(sj - f2) > a.innerProductErrorBound(a) * aa * aa + 1e-6) v += 1
        if (aa > 0 && bb > 0) {
          ratio += math.abs(est - exact) / (a.innerProductErrorBound(b) * aa * bb) + math.abs(sj - f2) / (a.innerProductErrorBound(a) * aa * aa)
          rq += 2
        }
        q += 2
      }
      // the reported bound is the journal formula max(P, (1 + P) eps_cm), P = (1 + e_a)(1 + e_b) - 1,
      // with e the cell bound (1 + cell eps)^(depth + 1) - 1; at the planned depth 0 it is epsilon itself
      val e = StrictMath.pow(1 + a.cellEpsilon, 1.0) - 1
      assert(a.mergeDepth == 0 && a.cellBound == e && b.cellBound == e)
      val p = (1 + e) * (1 + e) - 1
      val formula = math.max(p, (1 + p) * a.plan.cmEpsilon)
      assert(math.abs(a.innerProductErrorBound(b) - formula) <= 1e-15, s"${a.innerProductErrorBound(b)} vs $formula")
      assert(math.abs(a.innerProductErrorBound(b) - 0.1) < 1e-9 && a.innerProductErrorBound(b) <= 0.1)
      assert(a.selfJoin(null, null) == a.innerProduct(a, null, null))
    }
    info(f"inner-product/self-join violations: $v of $q (allowed rate 0.1); mean |err|/bound ${ratio / rq}%.4f over $rq")
    assert(v.toDouble / q <= 0.1)
    // Drift check: measured mean |err|/bound 0.232 (0.50 with the Count-Min width halved)
    assert(rq >= 50 && ratio / rq < 0.35, s"mean |err|/bound ${ratio / rq}")
  }

  test("keys: types are recorded, casts are lossless or refused") {
    val s = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 0, 1L)
    s.add(123L, 1, 5)
    assert(s.point("123", null, null) == s.point(123L, null, null))
    assert(intercept[SketchException](s.point("0123", null, null)).getMessage.contains("key type mismatch"))
    assert(intercept[SketchException](s.point("abc", null, null)).getMessage.contains("key type mismatch"))
    assert(intercept[SketchException](s.point(Array[Byte](1), null, null)).getMessage.contains("key type mismatch"))
    assert(intercept[SketchException](s.add("x", 2, 1)).getMessage.contains("bigint keys"))
    val t = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 0, 1L)
    t.add("5", 1, 3)
    assert(t.point(5L, null, null) == 3.0)
    assert(t.point("5".getBytes("UTF-8"), null, null) == 3.0)
    assert(intercept[SketchException](t.point(Array[Byte](-1, -2), null, null)).getMessage.contains("not valid UTF-8"))
  }

  test("merge refuses different parameters, seeds and count-based windows with a clear message") {
    val a = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 0, 1L)
    val b = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 0, 2L)
    assert(intercept[SketchException](EcmSketch.merge(Seq(a, b))).getMessage.contains("seed 1 vs 2"))
    val c = EcmSketch.create(spec, 0.2, 0.1, QueryKind.Point, 0, 1L)
    assert(intercept[SketchException](EcmSketch.merge(Seq(a, c))).getMessage.contains("epsilon"))
    val cw = WindowSpec(countWindow = true, tsMicros = false, window = 100)
    val d = EcmSketch.create(cw, 0.1, 0.1, QueryKind.Point, 0, 1L)
    assert(intercept[SketchException](EcmSketch.merge(Seq(d, d.copy()))).getMessage.contains("count-based"))
  }

  test("addSortedBatch gives the same bytes as adding row by row (and refuses what add refuses)") {
    val rnd = new Random(77)
    for (trial <- 0 until 20) {
      val n = 300 + rnd.nextInt(3000)
      var t = rnd.nextInt(100).toLong
      val ts = Array.fill(n) { t += (if (rnd.nextInt(3) == 0) rnd.nextInt(4) else 0); t }
      val fps = Array.fill(n)(ecmsketch.hash.Hashing.fingerprintLong(rnd.nextInt(40).toLong))
      // odd trials: unit weights only (the batch path that writes timestamps straight to the cells)
      val vs = Array.fill(n)(if (trial % 2 == 0 && rnd.nextInt(6) == 0) rnd.nextInt(5).toLong else 1L)
      val sp = WindowSpec(false, false, 50L + rnd.nextInt(500))
      val a = EcmSketch.create(sp, 0.1, 0.1, QueryKind.Point, 0, 3L)
      val b = EcmSketch.create(sp, 0.1, 0.1, QueryKind.Point, 0, 3L)
      val cut = rnd.nextInt(n)
      (0 until n).foreach(i => a.addFingerprint(fps(i), ts(i), vs(i)))
      b.addSortedBatch(fps, ts, vs, 0, cut); b.addSortedBatch(fps, ts, vs, cut, n)
      assert(java.util.Arrays.equals(ecmsketch.format.SketchCodec.encode(a), ecmsketch.format.SketchCodec.encode(b)), s"trial $trial")
    }
    // batches of sketches of different shapes interleaved on one thread (their scratch space is
    // shared per thread): each still equals its own row-by-row build
    val shapes = Seq((0.02, 0.01), (0.3, 0.2), (0.1, 0.1))
    for (units <- Seq(false, true)) {
      val byRow = shapes.map { case (e, d) => EcmSketch.create(spec, e, d, QueryKind.Point, 0, 5L) }
      val byBatch = shapes.map { case (e, d) => EcmSketch.create(spec, e, d, QueryKind.Point, 0, 5L) }
      val n = 6000
      val ts0 = Array.tabulate(n)(i => i.toLong / 3)
      val fps0 = Array.fill(n)(ecmsketch.hash.Hashing.fingerprintLong(rnd.nextInt(500).toLong))
      val vs0 = Array.fill(n)(if (!units && rnd.nextInt(4) == 0) 2L else 1L)
      (0 until n by 500).foreach { from =>
        shapes.indices.foreach { k =>
          (from until from + 500).foreach(i => byRow(k).addFingerprint(fps0(i), ts0(i), vs0(i)))
          byBatch(k).addSortedBatch(fps0, ts0, vs0, from, from + 500)
        }
      }
      shapes.indices.foreach { k =>
        assert(java.util.Arrays.equals(ecmsketch.format.SketchCodec.encode(byRow(k)), ecmsketch.format.SketchCodec.encode(byBatch(k))),
          s"shape $k units=$units")
      }
    }
    val s = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 0, 3L)
    val ts = Array.tabulate(1000)(i => (1000 - i).toLong)
    assert(intercept[SketchException](s.addSortedBatch(Array.fill(1000)(1L), ts, Array.fill(1000)(1L), 0, 1000))
      .getMessage.contains("non-decreasing"))
  }

  test("merge laws: commutative (same bytes), empty sketches are an identity, a single input is an exact copy") {
    val rnd = new Random(909)
    val sites = (0 until 5).map { i =>
      val s = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, 4L)
      build(s, stream(rnd, 500, 80, start = i * 7L), new Oracle)
    }
    val enc = (s: EcmSketch) => ecmsketch.format.SketchCodec.encode(s).toSeq
    val m = EcmSketch.merge(sites)
    for (_ <- 0 until 5) assert(enc(EcmSketch.merge(rnd.shuffle(sites))) == enc(m))
    val empty = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, 4L)
    assert(enc(EcmSketch.merge(sites :+ empty :+ empty)) == enc(m))
    assert(enc(EcmSketch.merge(Seq(sites.head, empty))) == enc(sites.head))
    assert(EcmSketch.merge(Seq(sites.head)).mergeDepth == 0)
    // regrouping changes only the depth, and the reported bound follows it
    val regrouped = EcmSketch.merge(Seq(EcmSketch.merge(sites.take(2)), EcmSketch.merge(sites.drop(2))))
    assert(regrouped.mergeDepth == 2 && regrouped.pointErrorBound > m.pointErrorBound)
  }

  test("regression: cells that lag the sketch's clock are written on it (merge with an empty sketch and a copy keep the bytes)") {
    // Found by LawsSuite: EH cells last touched at ts <= 5 kept buckets that had expired at the
    // sketch's clock 1024 and were written; merges and copies advance cells to the sketch's clock
    // and drop them, so merge(s, empty) and s.copy() encoded differently from s (same answers).
    val sp = WindowSpec(countWindow = false, tsMicros = false, window = 1000)
    val plan = Planner.plan(0.3, 0.1, QueryKind.Point, 1, EhCellKind.id)
    val s = EcmSketch.create(sp, plan, 7L)
    Seq((1L, 0L, 1L), (7L, 4L, 1L), (1L, 5L, 1L), (3L, 5L, 8L), (8L, 5L, 1L), (0L, 249L, 14L), (8L, 640L, 1L), (8L, 644L, 12L), (5L, 1024L, 1L))
      .foreach { case (k, t, v) => s.add(k, t, v) }
    assert(s.cells.exists(c => c != null && !c.isEmpty && c.lastTs <= s.lastTs - 1000), "the case needs a lagging cell")
    val answers = (0L to 9L).map(k => s.point(k, null, null)) :+ s.total(null, null) :+ s.selfJoin(null, null)
    val enc = (x: EcmSketch) => ecmsketch.format.SketchCodec.encode(x).toSeq
    val copyBytes = enc(s.copy())
    val mergedBytes = enc(EcmSketch.merge(Seq(s, EcmSketch.create(sp, plan, 7L))))
    val bytes = enc(s)
    assert(mergedBytes == bytes && copyBytes == bytes)
    assert(enc(ecmsketch.format.SketchCodec.decodeEcm(bytes.toArray)) == bytes)
    assert(((0L to 9L).map(k => s.point(k, null, null)) :+ s.total(null, null) :+ s.selfJoin(null, null)) == answers)
  }

  test("regression: merging sketch objects with lagging cells gives the bytes of merging their encodings") {
    // Found by tests/test_bytes_api.py once the encoder advanced EH cells to the sketch's clock:
    // a merge of objects that were never encoded kept buckets that had expired at their own clock,
    // which their bytes drop, so merge(objects) and merge(bytes) built different histograms.
    val sp = WindowSpec(countWindow = false, tsMicros = false, window = 300)
    for (cell <- Seq(EhCellKind.id, DwCellKind.id, RwCellKind.id); seed <- 0 until 5) {
      val plan = Planner.plan(0.1, 0.1, QueryKind.Point, 1, cell)
      def sites(): Seq[EcmSketch] = (0 until 4).map { i =>
        val rnd = new Random(100 * seed + i)
        val s = EcmSketch.create(sp, plan, 7L)
        var t = 0L
        (0 until 800).foreach { _ => t += rnd.nextInt(3); s.add((rnd.nextInt(40) * rnd.nextInt(40)).toLong, t, 1L) }
        s
      }
      val enc = (x: EcmSketch) => ecmsketch.format.SketchCodec.encode(x).toSeq
      val fresh = sites()
      val mixed = sites().zipWithIndex.map { case (s, i) => if (i % 2 == 0) s else ecmsketch.format.SketchCodec.decodeEcm(ecmsketch.format.SketchCodec.encode(s)) }
      val decoded = sites().map(s => ecmsketch.format.SketchCodec.decodeEcm(ecmsketch.format.SketchCodec.encode(s)))
      val a = EcmSketch.merge(fresh); val b = EcmSketch.merge(mixed); val c = EcmSketch.merge(decoded)
      assert(a.mergeDepth == 1 && b.mergeDepth == 1 && c.mergeDepth == 1)
      if (cell == RwCellKind.id) {
        // event-id salts differ between built and decoded sketches: compare answers, which do not depend on them
        for (k <- 0L until 200L; r <- Seq(30L, 300L)) assert(a.point(k, r, null) == c.point(k, r, null) && b.point(k, r, null) == c.point(k, r, null), s"rwave seed $seed key $k r $r")
      } else assert(enc(a) == enc(c) && enc(b) == enc(c), s"cell $cell seed $seed")
    }
  }

  test("regression: an ECM merge where no input holds live items keeps max_arrivals whatever the input order") {
    // Found by LawsSuite: deterministic-wave cells, as in the DwSketch regression test.
    val sp = WindowSpec(countWindow = false, tsMicros = false, window = 50)
    val plan = Planner.plan(0.3, 0.1, QueryKind.Point, 1, DwCellKind.id)
    val a = EcmSketch.create(sp, plan, 7L, 20L); val b = EcmSketch.create(sp, plan, 7L, 20L)
    (0L until 10L).foreach { t => a.add(t % 3, t, 1L); b.add(t % 4, t + 1, 1L) }
    val s = EcmSketch.merge(Seq(a, b))
    assert(s.maxArrivals == 40 && s.mergeDepth == 1)
    s.add(0L, 1000L, 0L) // moves the clock: every item expires, the sketch keeps its rows
    val enc = (x: EcmSketch) => ecmsketch.format.SketchCodec.encode(x).toSeq
    val bytes = enc(s) // writes the cells on the sketch's clock: all of them are empty now
    assert(ecmsketch.ecm.EcmTestUtil.nonEmptyCells(s) == 0 && !s.isEmpty)
    for (m <- Seq(EcmSketch.merge(Seq(s, EcmSketch.create(sp, plan, 7L, 20L))), EcmSketch.merge(Seq(EcmSketch.create(sp, plan, 7L, 20L), s)))) {
      assert(m.maxArrivals == 40 && m.mergeDepth == 1)
      assert(enc(m) == bytes)
    }
  }

  test("an n-way merge of 4,097 sketches held in a List (as Ingest passes them) has depth 1 and answers within its bound") {
    // regression: the merge indexed its inputs once per cell, so a List made it quadratic in the
    // inputs (about two minutes for these 4,097 small sketches, 0.3 s now). Speed is measured, not
    // asserted: a relapse shows as this test's time in the report.
    val rnd = new Random(31)
    val o = new Oracle
    val sk = List.tabulate(4097) { i =>
      val s = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, 7L)
      // each sketch's span [i, i + 2] overlaps the next one's: one order-preserving merge (time-disjoint inputs would be laid side by side)
      (0 until 10).foreach { j => val k = rnd.nextInt(100).toLong; val t = i.toLong + j / 4; s.add(k, t, 1); o.add(k, t, 1) }
      s
    }
    val t0 = System.nanoTime()
    val m = EcmSketch.merge(sk)
    val secs = (System.nanoTime() - t0) / 1e9
    assert(m.mergeDepth == 1 && m.count == 4097L * 10)
    val u = Oracle.union(Seq(o))
    val now = u.ts.max
    for (r <- Seq(100L, 1000L, spec.window)) {
      val exact = u.after(now - r).toDouble
      assert(math.abs(m.total(r, null) - exact) <= m.totalErrorBound * exact + 1e-9, s"total over $r")
      u.freqsAfter(now - r).foreach { case (k, c) => assert(m.point(k, r, null) >= (1 - m.cellBound) * c - 1e-9, s"point $k over $r") }
    }
    info(f"merge of 4,097 sketches: $secs%.2f s")
  }
}
