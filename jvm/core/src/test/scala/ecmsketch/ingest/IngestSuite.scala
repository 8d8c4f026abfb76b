package ecmsketch.ingest

import ecmsketch.ecm.EcmOps

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.Oracle
import ecmsketch.core.{Bounds, Bundle, CounterSketch, SketchException, WindowSketch, WindowSpec}
import ecmsketch.dwave.{DwConfig, DwSketch}
import ecmsketch.ecm.{EcmSketch, QueryKind}
import ecmsketch.format.SketchCodec
import ecmsketch.ingest.{Ingest, SketchOps}
import ecmsketch.eh.EhSketch

import scala.util.Random

/** Rows in any order: sorted and nearly sorted input costs nothing, any other order stays within
  * the bound the result reports.
  */
class IngestSuite extends AnyFunSuite {
  val spec = WindowSpec(countWindow = false, tsMicros = false, window = 50000)

  def rows(rnd: Random, n: Int): IndexedSeq[(Long, Long, Long)] = {
    var t = 0L
    (0 until n).map { _ => t += rnd.nextInt(3); (rnd.nextInt(200).toLong, t, 1L + (if (rnd.nextInt(10) == 0) rnd.nextInt(9) else 0)) }
  }

  def ecmOps(seed: Long, sp: WindowSpec = spec) =
    new EcmOps(() => EcmSketch.create(sp, 0.1, 0.1, QueryKind.Point, 1, seed), ecmsketch.core.KeyType.Long)

  def ingest(ops: EcmOps, data: Seq[(Long, Long, Long)]): Ingest[EcmSketch] = {
    val ing = new Ingest(ops, spec.window)
    data.foreach { case (k, t, w) => ing.add(ecmsketch.hash.Hashing.fingerprintLong(k), t, w) }
    ing
  }

  def direct(data: Seq[(Long, Long, Long)], seed: Long): EcmSketch = {
    val s = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, seed)
    data.sortBy(_._2).foreach { case (k, t, w) => s.add(k, t, w) }
    s
  }

  test("sorted and nearly sorted input give exactly the sketch of the sorted stream (depth 0)") {
    val rnd = new Random(1)
    val data = rows(rnd, 60000)
    val expected = SketchCodec.encode(direct(data, 9))
    val sorted = ingest(ecmOps(9), data).result()
    assert(sorted.mergeDepth == 0)
    assert(java.util.Arrays.equals(SketchCodec.encode(sorted), expected))
    // disorder: every row displaced by up to 4000 positions
    val noisy = data.zipWithIndex.map { case (r, i) => (i + rnd.nextInt(4000), r) }.sortBy(_._1).map(_._2)
    val ing = ingest(ecmOps(9), noisy)
    val nearly = ing.result()
    assert(ing.late == 0, s"${ing.late} late rows")
    assert(nearly.mergeDepth == 0)
    assert(java.util.Arrays.equals(SketchCodec.encode(nearly), expected))
  }

  // ------------------------------------------------------------------ merge depth under disorder
  // The schedule as documented (docs/design/rows-in-any-order.md, "Rows in any order"; the Ingest scaladoc). The
  // numbers are stated here, not read from Ingest, so that a change of schedule fails these tests.

  /** Late rows are radix-sorted and built into fine side runs; all side runs of an ingest merge once
    * into one run S within the main cell epsilon, so the final n-way merge with the main run is the
    * only level the bound sees: depth 1 for any number of side runs, 0 without late rows.
    */
  def expectedDepth(late: Long): Int = if (late == 0) 0 else 1
  /** Over 4,096 collected runs of other partial aggregates, they are merged early. */
  val MaxForeign = 4096

  /** Merge depth of result() of an ingest holding a main run of its own that absorbed `partials`
    * one-run partial aggregates: whenever more than 4,096 runs are held they merge into one (one level
    * above the deepest of them, so k early merges give depth k), and the final merge adds one level.
    */
  def absorbDepth(partials: Int): Int = if (partials == 0) 0 else (partials - 1) / MaxForeign + 1

  /** Bound of one cell after h merge levels. */
  def cellBoundAt(cellEps: Double, h: Int): Double = StrictMath.pow(1.0 + cellEps, h + 1.0) - 1.0

  /** What the requested epsilon allows at depth h: epsilon up to the planned levels, then each level
    * multiplies 1 + bound by at most (1 + epsilon)^(1/(levels+1)).
    */
  def ceiling(eps: Double, levels: Int, h: Int): Double = math.pow(1.0 + eps, (math.max(h, levels) + 1.0) / (levels + 1)) - 1.0

  def close(a: Double, b: Double): Boolean = math.abs(a - b) <= 1e-12

  def checkEhBound(h: EhSketch, depth: Int, what: String): Unit = {
    assert(h.mergeDepth == depth, s"$what: EH merge depth ${h.mergeDepth}, documented schedule gives $depth")
    assert(close(h.errorBound, cellBoundAt(h.cellEpsilon, depth)), s"$what: EH bound ${h.errorBound} at depth $depth")
    assert(h.errorBound <= ceiling(h.epsilon, h.plannedLevels, depth) + 1e-12, s"$what: EH bound ${h.errorBound}")
  }

  def checkEcmBound(s: EcmSketch, depth: Int, what: String): Unit = {
    assert(s.mergeDepth == depth, s"$what: ECM merge depth ${s.mergeDepth}, documented schedule gives $depth")
    val e = cellBoundAt(s.cellEpsilon, depth)
    assert(close(s.cellBound, e) && close(s.totalErrorBound, e), s"$what: ECM cell bound ${s.cellBound} at depth $depth")
    assert(close(s.pointErrorBound, math.max(e, (1 + e) * s.plan.cmEpsilon)), s"$what: ECM point bound ${s.pointErrorBound}")
    assert(s.pointErrorBound <= ceiling(s.epsilon, s.plannedLevels, depth) + 1e-12, s"$what: ECM point bound ${s.pointErrorBound}")
  }

  /** Rows in time order as parallel arrays (200 keys, ticks advancing by 0..2, weights mostly 1). */
  final class Rows(val keys: Array[Long], val ts: Array[Long], val ws: Array[Long]) {
    def n: Int = ts.length
    lazy val oracle: Oracle = { val o = new Oracle; var i = 0; while (i < n) { o.add(keys(i), ts(i), ws(i)); i += 1 }; o }
  }

  def sortedRows(rnd: Random, n: Int): Rows = {
    val keys = new Array[Long](n); val ts = new Array[Long](n); val ws = new Array[Long](n)
    var t = 0L
    var i = 0
    while (i < n) {
      t += rnd.nextInt(3); keys(i) = rnd.nextInt(200).toLong; ts(i) = t
      ws(i) = 1L + (if (rnd.nextInt(10) == 0) rnd.nextInt(9) else 0)
      i += 1
    }
    new Rows(keys, ts, ws)
  }

  def shuffle(rnd: Random, a: Array[Int]): Array[Int] = {
    var i = a.length - 1
    while (i > 0) { val j = rnd.nextInt(i + 1); val x = a(i); a(i) = a(j); a(j) = x; i -= 1 }
    a
  }
  /** A random permutation of all rows. */
  def shuffled(rnd: Random, n: Int): Array[Int] = shuffle(rnd, Array.tabulate(n)(identity))
  /** The `k` oldest rows (shuffled) after all the others (in order): exactly `k` late rows. */
  def oldestLast(rnd: Random, n: Int, k: Int): Array[Int] =
    Array.tabulate(n - k)(_ + k) ++ shuffle(rnd, Array.tabulate(k)(identity))
  /** Every row displaced by up to `d` positions. */
  def displaced(rnd: Random, n: Int, d: Int): Array[Int] =
    Array.tabulate(n)(i => (i + rnd.nextInt(d), i)).sortBy(_._1).map(_._2)

  def feed[S <: WindowSketch](ops: SketchOps[S], sp: WindowSpec, d: Rows, order: Array[Int]): Ingest[S] = {
    val ing = new Ingest(ops, sp.window)
    order.foreach(i => ing.add(ecmsketch.hash.Hashing.fingerprintLong(d.keys(i)), d.ts(i), d.ws(i)))
    ing
  }

  /** EH answers are deterministic: every range within the reported bound. */
  def checkEhAnswers(h: EhSketch, o: Oracle, ranges: Seq[Long], what: String): Unit = {
    val now = o.ts.last
    for (r <- ranges) {
      val exact = o.after(now - r).toDouble
      val est = h.count(r, null)
      assert(math.abs(est - exact) <= h.errorBound * exact + 1e-9, s"$what r=$r est=$est exact=$exact bound=${h.errorBound}")
    }
  }

  /** ECM: totals and the lower side of point queries on every query; the point bound with rate <= delta.
    * Returns (violations, queries).
    */
  def checkEcmAnswers(e: EcmSketch, o: Oracle, ranges: Seq[Long], what: String): (Int, Int) = {
    val now = o.ts.last
    var v = 0; var q = 0
    for (r <- ranges) {
      val f = o.freqsAfter(now - r); val a = f.values.sum.toDouble
      val tot = e.total(r, null)
      assert(math.abs(tot - a) <= e.totalErrorBound * a + 1e-9, s"$what: total r=$r est=$tot exact=$a bound=${e.totalErrorBound}")
      (f.keys ++ Seq(-1L, -2L)).foreach { k =>
        val c = f.getOrElse(k, 0L).toDouble
        val est = e.point(k, r, null)
        assert(est >= (1 - e.cellBound) * c - 1e-9, s"$what: under-estimate key $k r=$r est=$est exact=$c")
        if (math.abs(est - c) > e.pointErrorBound * a + 1e-9) v += 1
        q += 1
      }
    }
    assert(v.toDouble / q <= e.delta, s"$what: $v of $q point queries outside the bound")
    (v, q)
  }

  /** Feeds `d` in `order` to an EH and an ECM ingest; checks the side run count lies in `sides`,
    * the exact depth of the schedule, the bounds at that depth, and every answer against the oracle.
    */
  def checkDisorder(what: String, sp: WindowSpec, d: Rows, order: Array[Int], sides: Range, lateRows: Option[Long] = None): Unit = {
    assert(sides.start >= 0)
    val hIng = feed(SketchOps.eh(() => EhSketch.create(sp, 0.05, 1)), sp, d, order)
    val eIng = feed(ecmOps(4, sp), sp, d, order)
    assert(hIng.late == eIng.late && hIng.dropped == 0 && eIng.dropped == 0)
    lateRows.foreach(k => assert(hIng.late == k, s"$what: ${hIng.late} late rows, expected $k"))
    val h = hIng.result()
    val e = eIng.result()
    val c = hIng.sideRunCount
    assert(sides.contains(c) && eIng.sideRunCount == c, s"$what: ${hIng.late} late rows make $c side runs, outside $sides")
    assert(c == 0 || (hIng.fineSideRuns && eIng.fineSideRuns), s"$what: side runs without fine cells")
    val depth = expectedDepth(hIng.late)
    checkEhBound(h, depth, what)
    checkEcmBound(e, depth, what)
    assert(h.count == d.ws.sum && e.count == d.ws.sum)
    val span = d.ts.last - d.ts.head
    val ranges = Seq(1L, 10L, 100L, 1000L, span / 3, span, sp.window).distinct
    checkEhAnswers(h, d.oracle, ranges, s"$what EH")
    val (v, q) = checkEcmAnswers(e, d.oracle, ranges, s"$what ECM")
    info(f"$what: ${hIng.late} late rows, $c side runs, depth $depth; EH bound ${h.errorBound}%.4f, ECM point bound ${e.pointErrorBound}%.4f, point violations $v/$q")
  }

  test("no side runs: disorder the reorder buffer absorbs gives depth 0 and the unmerged bound") {
    val sp = WindowSpec(countWindow = false, tsMicros = false, window = 100000)
    val rnd = new Random(20)
    // 16,384 rows fit the reorder buffer: any order reaches the main run sorted
    val small = sortedRows(rnd, 16384)
    checkDisorder("shuffled, 16384 rows", sp, small, shuffled(rnd, small.n), 0 to 0, Some(0L))
    val d = sortedRows(rnd, 60000)
    checkDisorder("late by <= 4000 positions", sp, d, displaced(rnd, d.n, 4000), 0 to 0, Some(0L))
  }

  test("a few side runs: depth 1, the bound asked for") {
    val sp = WindowSpec(countWindow = false, tsMicros = false, window = 1000000)
    val rnd = new Random(21)
    val d = sortedRows(rnd, 240000)
    // 240,000 rows: side runs of 65,536 late rows (Ingest.lateCapacity), the last one partial
    checkDisorder("shuffled", sp, d, shuffled(rnd, d.n), 3 to 4)
    val k = 3 * 65536 - 1000
    checkDisorder("oldest rows last", sp, d, oldestLast(rnd, d.n, k), 3 to 3, Some(k.toLong))
  }

  test("many side runs (17 and more): still depth 1, no early merge") {
    val sp = WindowSpec(countWindow = false, tsMicros = false, window = 4000000)
    val rnd = new Random(22)
    // the late buffer holds 65,536 rows while the ingest has seen fewer than 262,144 rows, then a
    // quarter of the rows seen: 1.1 M late rows make 9 side runs
    val k = 17 * 65536
    val d = sortedRows(rnd, k + 40000)
    checkDisorder("oldest rows last", sp, d, oldestLast(rnd, d.n, k), 5 to 17, Some(k.toLong))
    checkDisorder("shuffled", sp, d, shuffled(rnd, d.n), 5 to 17)
  }

  test("absorbing more than 4,096 partial aggregates: early merge, depth from the schedule, answers within the bound") {
    val rnd = new Random(23)
    val partials = MaxForeign + 4
    val rowsPer = 10
    // the absorbing buffer's own rows, then one time slice per partial aggregate (each in time order)
    val d = sortedRows(rnd, (partials + 1) * rowsPer)
    val ecmO = ecmOps(6)
    val ehO = SketchOps.eh(() => EhSketch.create(spec, 0.05, 1))
    def slice[S <: WindowSketch](ops: SketchOps[S], p: Int): Ingest[S] =
      feed(ops, spec, d, Array.tabulate(rowsPer)(_ + p * rowsPer))
    val eAll = slice(ecmO, 0); val hAll = slice(ehO, 0)
    for (p <- 1 to partials) {
      // partial aggregates travel serialized, as in Spark
      eAll.absorb(Ingest.deserialize(ecmO, spec.window, slice(ecmO, p).serialize()))
      hAll.absorb(Ingest.deserialize(ehO, spec.window, slice(ehO, p).serialize()))
    }
    val depth = absorbDepth(partials)
    assert(depth == 2)
    val e = eAll.result(); val h = hAll.result()
    checkEcmBound(e, depth, s"$partials partials")
    checkEhBound(h, depth, s"$partials partials")
    assert(e.count == d.ws.sum && h.count == d.ws.sum)
    val ranges = Seq(1L, 10L, 100L, 1000L, 10000L, spec.window)
    checkEhAnswers(h, d.oracle, ranges, "absorbed EH")
    val (v, q) = checkEcmAnswers(e, d.oracle, ranges, "absorbed ECM")
    info(f"$partials partials: depth $depth, ECM point bound ${e.pointErrorBound}%.4f, violations $v/$q")
  }

  test("a partial aggregate with runs of its own and 4,096 taken over serializes into a bundle it reads back") {
    // regression: the bundle held 4,098 runs and Ingest.deserialize refused it ("run count = 4098")
    val sp = WindowSpec(countWindow = false, tsMicros = false, window = 200000)
    val rnd = new Random(24)
    val rowsPer = 10; val own = 20000; val lateOwn = 100
    val d = sortedRows(rnd, lateOwn + own + MaxForeign * rowsPer)
    val ranges = Seq(1L, 100L, 10000L, sp.window)
    def run[S <: WindowSketch](ops: SketchOps[S], check: (S, Int, String) => Unit): Unit = {
      // a main run and one side run (the 100 oldest rows come last), then 4,096 one-run partials
      val a = feed(ops, sp, d, oldestLast(rnd, lateOwn + own, lateOwn))
      assert(a.late == lateOwn)
      for (p <- 0 until MaxForeign) {
        val slice = Array.tabulate(rowsPer)(_ + lateOwn + own + p * rowsPer)
        a.absorb(Ingest.deserialize(ops, sp.window, feed(ops, sp, d, slice).serialize()))
      }
      // held: 4,096 runs taken over (not more than 4,096, so no early merge); one final merge
      check(a.result(), 1, "held")
      // the bundle would hold 2 + 4,096 runs: the 4,096 are merged first (one level), then the final merge
      val back = Ingest.deserialize(ops, sp.window, a.serialize())
      check(back.result(), 2, "bundled")
    }
    run[EhSketch](SketchOps.eh(() => EhSketch.create(sp, 0.05, 1)), { (h, depth, what) =>
      checkEhBound(h, depth, what); assert(h.count == d.ws.sum); checkEhAnswers(h, d.oracle, ranges, what)
    })
    run[EcmSketch](ecmOps(8, sp), { (e, depth, what) =>
      checkEcmBound(e, depth, what); assert(e.count == d.ws.sum); checkEcmAnswers(e, d.oracle, ranges, what)
    })
  }

  test("rows a whole window behind the newest row are dropped without changing any answer") {
    val sp = WindowSpec(false, false, 100)
    val ops = SketchOps.eh(() => EhSketch.create(sp, 0.1, 1))
    val ing = new Ingest(ops, 100)
    (1000L until 2000L).foreach(t => ing.add(0, t, 1))
    (0L until 500L).foreach(t => ing.add(0, t, 1)) // all older than 1999 - 100
    assert(ing.dropped == 500 && ing.late == 0)
    val h = ing.result()
    checkEhBound(h, 0, "dropped rows")
    // the sketch's own bound (its cell epsilon at depth 0), not the planned epsilon
    assert(math.abs(h.count(100, null) - 100) <= h.errorBound * 100)
    // the same answers as the sketch of the rows kept; the dropped rows count only in the totals
    val kept = EhSketch.create(sp, 0.1, 1)
    (1000L until 2000L).foreach(t => kept.add(t))
    for (r <- Seq(1L, 7L, 50L, 100L)) assert(h.count(r, null) == kept.count(r, null), s"r=$r")
    assert(h.count == 1500 && h.firstTs == 0 && h.lastTs == 1999)
  }

  test("200 time-ordered partitions merged as Spark does (pairwise, serialized) report depth 1") {
    val rnd = new Random(3)
    val data = rows(rnd, 100000)
    val parts = data.grouped(500).toSeq // each partition in time order
    val ops = ecmOps(5)
    val partials = parts.map(p => Ingest.deserialize(ops, spec.window, ingest(ops, p).serialize()))
    // an arbitrary merge tree of partial buffers
    var level = partials
    while (level.size > 1) level = level.grouped(3).map { g => val b = g.head; g.tail.foreach(b.absorb); b }.toSeq
    val s = level.head.result()
    // one buffer holds every other partition's run: fewer than 4,096, so one final merge
    checkEcmBound(s, absorbDepth(parts.size - 1), "200 partitions")
    assert(s.mergeDepth == 1)
    assert(math.abs(s.pointErrorBound - 0.1) < 1e-9)
    assert(s.count == data.map(_._3).sum)
  }

  // ------------------------------------------------------------------ any row order (fine side runs)

  /** Blocks of `b` rows in time order, the blocks newest first. */
  def blockReversed(n: Int, b: Int): Array[Int] = {
    val nb = (n + b - 1) / b
    (nb - 1 to 0 by -1).toArray.flatMap(k => (k * b) until math.min(n, (k + 1) * b))
  }

  /** Counter answers are deterministic: every range within the reported bound. */
  def checkCounterAnswers(h: CounterSketch, o: Oracle, ranges: Seq[Long], what: String): Unit = {
    val now = o.ts.last
    for (r <- ranges) {
      val exact = o.after(now - r).toDouble
      val est = h.count(r, null)
      assert(math.abs(est - exact) <= h.errorBound * exact + 1e-9, s"$what r=$r est=$est exact=$exact bound=${h.errorBound}")
    }
  }

  /** Rows of `order` split round-robin over `parts` ingests, each serialized and read back, absorbed
    * into one (Spark's partial aggregates); parts = 1: one ingest, no bundle.
    */
  def viaPartitions[S <: WindowSketch](ops: SketchOps[S], sp: WindowSpec, d: Rows, order: Array[Int], parts: Int): (S, Long) = {
    if (parts == 1) { val ing = feed(ops, sp, d, order); val r = ing.result(); (r, ing.late) }
    else {
      val ings = (0 until parts).map(p => feed(ops, sp, d, order.indices.filter(_ % parts == p).map(order).toArray))
      val late = ings.map(_.late).sum
      val back = ings.map(i => Ingest.deserialize(ops, sp.window, i.serialize()))
      back.tail.foreach(back.head.absorb)
      (back.head.result(), late)
    }
  }

  test("any row order, one or many partitions: ECM, EH and dwave certify the epsilon asked, answers within it") {
    val rnd = new Random(40)
    val d = sortedRows(rnd, 150000)
    val span = d.ts.last - d.ts.head
    val orders = Seq(
      "shuffled" -> shuffled(rnd, d.n),
      "reversed" -> Array.tabulate(d.n)(i => d.n - 1 - i),
      "block-reversed" -> blockReversed(d.n, 5000),
      "jittered" -> displaced(rnd, d.n, 120000))
    for (w <- Seq(1L << 40, 30000L); (name, order) <- orders; parts <- Seq(1, 4)) {
      val sp = WindowSpec(countWindow = false, tsMicros = false, window = w)
      val what = s"$name w=$w parts=$parts"
      val ranges = Seq(1L, 10L, 100L, 1000L, 10000L, math.min(w, span / 2), math.min(w, span + 1)).distinct
      val eOps = new EcmOps(() => EcmSketch.create(sp, 0.1, 0.1, QueryKind.Point, 1, 3), ecmsketch.core.KeyType.Long)
      val (e, late) = viaPartitions(eOps, sp, d, order, parts)
      // with the short window most late rows lie a window behind and are dropped
      if (w > span) assert(late > 0, s"$what: no late rows")
      val depth = if (late == 0 && parts == 1) 0 else 1
      assert(e.mergeDepth == depth && e.pointErrorBound <= 0.1 && e.errorBound <= e.epsilon, s"$what: ECM depth ${e.mergeDepth} bound ${e.pointErrorBound}")
      checkEcmAnswers(e, d.oracle, ranges, s"$what ECM")
      val (h, _) = viaPartitions(SketchOps.eh(() => EhSketch.create(sp, 0.05, 1)), sp, d, order, parts)
      assert(h.mergeDepth == depth && h.errorBound <= 0.05, s"$what: EH depth ${h.mergeDepth} bound ${h.errorBound}")
      checkCounterAnswers(h, d.oracle, ranges, s"$what EH")
      val (v, _) = viaPartitions(SketchOps.dw(() => DwSketch.create(sp, 0.05, 1, DwConfig.Unbounded)), sp, d, order, parts)
      assert(v.mergeDepth == depth && v.errorBound <= 0.05, s"$what: dwave depth ${v.mergeDepth} bound ${v.errorBound}")
      checkCounterAnswers(v, d.oracle, ranges, s"$what dwave")
      assert(e.count == d.ws.sum && h.count == d.ws.sum && v.count == d.ws.sum)
      info(f"$what: $late late rows, depth $depth, ECM point bound ${e.pointErrorBound}%.4f, EH ${h.errorBound}%.4f, dwave ${v.errorBound}%.4f")
    }
  }

  test("late buffers grow with the rows taken (many groups stay small): a quarter of the rows, between 65,536 and 2^20") {
    assert(Ingest.lateCapacity(0) == 65536 && Ingest.lateCapacity(262144) == 65536)
    assert(Ingest.lateCapacity(4000000) == 1000000 && Ingest.lateCapacity(4194304) == (1 << 20))
    assert(Ingest.lateCapacity(Long.MaxValue) == (1 << 20))
    // groups of fewer than 16,384 rows (10 K groups over 10 M rows: 1,000 each) never have late rows
    val sp = WindowSpec(countWindow = false, tsMicros = false, window = 1L << 40)
    val rnd = new Random(42)
    val d = sortedRows(rnd, 1000)
    for (_ <- 0 until 20) {
      val ing = feed(SketchOps.eh(() => EhSketch.create(sp, 0.1, 1)), sp, d, shuffled(rnd, d.n))
      assert(ing.late == 0 && ing.sideRunCount == 0 && ing.result().mergeDepth == 0)
    }
  }

  test("the side plan: (1 + c_f)^2 <= 1 + c, and the planner's side plan differs from the plan only in its cells") {
    for (eps <- Seq(0.001, 0.01, 0.1, 0.5); levels <- Seq(0, 1, 3, 10)) {
      // plans the planner refuses (cell epsilon below 1e-4) are skipped
      scala.util.Try(ecmsketch.ecm.Planner.plan(eps, 0.1, QueryKind.Point, levels)).toOption.foreach { p =>
      ecmsketch.ecm.Planner.sidePlan(p) match {
        case Some(sp) =>
          assert(Bounds.compound(sp.cellEpsilon, 1) <= p.cellEpsilon)
          assert(sp.cellEpsilon >= Bounds.MinCellEpsilon)
          assert(sp.copy(cellEpsilon = p.cellEpsilon, levels = p.levels) == p)
          // a merge of fine runs counts as depth 0 at the plan's cell epsilon
          assert(Bounds.mixedMergeDepth(p.cellEpsilon, Seq((p.cellEpsilon, 0), (sp.cellEpsilon, 1))) == 1)
        case None => assert(Bounds.sideCellEpsilon(p.cellEpsilon).isEmpty, s"eps $eps levels $levels")
      }
      }
    }
    assert(Bounds.sideCellEpsilon(1.5e-4).isEmpty) // finer cells would fall below the supported 1e-4
    val rw = ecmsketch.ecm.Planner.plan(0.1, 0.1, QueryKind.Point, 1, ecmsketch.ecm.Planner.cellKind("rwave"))
    assert(ecmsketch.ecm.Planner.sidePlan(rw).isEmpty)
  }

  test("mixed-epsilon merges (EH and dwave cells) against a brute-force oracle: depth from the inputs' bounds") {
    var cases = 0; var worst = 0.0
    for (seed <- 1 to 30) {
      val rnd = new Random(100 + seed)
      val n = 6000 + rnd.nextInt(6000)
      val d = sortedRows(rnd, n)
      val w = if (rnd.nextBoolean()) 1L << 40 else 2000L + rnd.nextInt(4000)
      val sp = WindowSpec(countWindow = false, tsMicros = false, window = w)
      val target = rnd.nextInt(3) // planned levels of the output
      val parts = 2 + rnd.nextInt(4)
      val assign = Array.fill(n)(rnd.nextInt(parts))
      // each part: its own planned levels (so its own cell epsilon), and depth 0 or 1 (built from two halves merged)
      val levels = Array.fill(parts)(rnd.nextInt(5))
      val split = Array.fill(parts)(rnd.nextBoolean())
      def build[S <: CounterSketch](mk: Int => S, merge: Seq[S] => S): Seq[S] = (0 until parts).map { p =>
        val idx = (0 until n).filter(assign(_) == p)
        val halves = if (split(p)) Seq(idx.filter(_ % 2 == 0), idx.filter(_ % 2 == 1)) else Seq(idx)
        val hs = halves.map { is => val s = mk(levels(p)); is.foreach(i => s.add(d.ts(i), d.ws(i))); s }
        if (hs.size == 1) hs.head else merge(hs)
      }
      def expectDepth(target: Double, ins: Seq[CounterSketch]): Int = {
        val ws = ins.filter(!_.isEmpty)
        val worstIn = ws.map(s => StrictMath.pow(1 + s.cellEpsilon, s.mergeDepth + 1.0)).max
        var k = 0
        while (StrictMath.pow(1 + target, k + 1.0) < worstIn) k += 1
        k + 1
      }
      val span = d.ts.last - d.ts.head
      val ranges = (1L to 12L).map(i => math.max(1L, math.min(w, span + 1) * i / 12)) ++ Seq(1L, 2L, 5L, 17L)
      val ehIn = build(l => EhSketch.create(sp, 0.1, l), EhSketch.mergeUnchecked)
      val ehT = EhSketch.create(sp, 0.1, target)
      val eh = EhSketch.mergeMixed(ehT, ehIn)
      val dwIn = build(l => DwSketch.create(sp, 0.1, l, DwConfig.Unbounded), DwSketch.mergeUnchecked)
      val dwT = DwSketch.create(sp, 0.1, target, DwConfig.Unbounded)
      val dw = DwSketch.mergeMixed(dwT, dwIn)
      for ((m, ins, t, name) <- Seq[(CounterSketch, Seq[CounterSketch], CounterSketch, String)]((eh, ehIn, ehT, "EH"), (dw, dwIn, dwT, "dwave"))) {
        val what = s"seed $seed $name: levels ${levels.mkString(",")} split ${split.mkString(",")} target $target"
        val contributing = ins.filter(!_.isEmpty)
        if (contributing.exists(_.cellEpsilon != t.cellEpsilon))
          assert(m.mergeDepth == expectDepth(t.cellEpsilon, ins), s"$what: depth ${m.mergeDepth}")
        assert(m.cellEpsilon == t.cellEpsilon && m.count == d.ws.sum)
        val now = d.oracle.ts.last
        for (r <- ranges.distinct) {
          val exact = d.oracle.after(now - r).toDouble
          val est = m.count(r, null)
          if (exact > 0) worst = math.max(worst, math.abs(est - exact) / exact / m.errorBound)
          assert(math.abs(est - exact) <= m.errorBound * exact + 1e-9, s"$what r=$r est=$est exact=$exact bound=${m.errorBound}")
        }
        cases += 1
      }
    }
    info(f"$cases mixed merges, worst observed error / certified bound = $worst%.3f")
  }

  test("partial bundle: version 4 round trip, versions 1 to 3 read, bad bytes refused with a clear message") {
    val sp = WindowSpec(countWindow = false, tsMicros = false, window = 1L << 40)
    val rnd = new Random(41)
    val d = sortedRows(rnd, 60000)
    val ops = ecmOps(2, sp)
    val ing = feed(ops, sp, d, shuffled(rnd, d.n))
    val bytes = ing.serialize()
    assert(bytes(4) == 4, "an ingest with fine side runs writes bundle version 4")
    assert(feed(ops, sp, d, Array.tabulate(d.n)(identity)).serialize()(4) == 3, "runs of the main plan only: version 3")
    // version 2: the same bundle without its checksum, as the previous release wrote it
    val v2 = ecmsketch.format.GoldenInputs.withoutChecksum(bytes)
    assert(v2(4) == 2 && java.util.Arrays.equals(SketchCodec.encode(Ingest.deserialize(ops, sp.window, v2).result()), SketchCodec.encode(ing.result())))
    val back = Ingest.deserialize(ops, sp.window, bytes)
    val a = ing.result(); val b = back.result()
    assert(java.util.Arrays.equals(SketchCodec.encode(a), SketchCodec.encode(b)))
    assert(b.mergeDepth == 1 && b.pointErrorBound <= 0.1 && b.count == d.ws.sum)
    // serializing twice gives the same bytes (S is cached, not merged again)
    assert(java.util.Arrays.equals(ing.serialize(), bytes))
    // version 1: runs of the main plan only (as the previous release wrote them)
    val halves = Seq(Array.tabulate(d.n / 2)(identity), Array.tabulate(d.n - d.n / 2)(_ + d.n / 2))
    val v1runs = halves.map(h => SketchCodec.encode(feed(ops, sp, d, h).result()))
    val v1 = Bundle.write(Ingest.BundleMagic, 1, v1runs) { out => out.putVarLong(0); out.putVarLong(0); out.putVarLong(0); out.putLong(Long.MaxValue) }
    val r1 = Ingest.deserialize(ops, sp.window, v1).result()
    assert(r1.mergeDepth == 1 && r1.count == d.ws.sum)
    checkEcmAnswers(r1, d.oracle, Seq(10L, 1000L, 100000L), "v1 bundle")
    // bad bytes
    def refused(bs: Array[Byte], msg: String): Unit = {
      val e = intercept[SketchException](Ingest.deserialize(ops, sp.window, bs).result())
      assert(e.getMessage.startsWith("corrupt partial aggregate: ") || e.getMessage.contains(msg), e.getMessage)
      assert(e.getMessage.contains(msg), s"'${e.getMessage}' does not name '$msg'")
    }
    val v5 = bytes.clone(); v5(4) = 5
    refused(v5, "unknown bundle version 5")
    val flipped = bytes.clone(); flipped(bytes.length - 20) = (flipped(bytes.length - 20) ^ 4).toByte
    refused(flipped, "corrupt partial aggregate: checksum mismatch")
    refused(java.util.Arrays.copyOf(bytes, bytes.length - 3), "corrupt partial aggregate: ")
    val badMagic = bytes.clone(); badMagic(0) = 'X'.toByte
    refused(badMagic, "bad magic")
    // a run of another plan (epsilon 0.2) inside a v2 bundle is refused when the runs are merged
    val other = new EcmOps(() => EcmSketch.create(sp, 0.2, 0.1, QueryKind.Point, 1, 2), ecmsketch.core.KeyType.Long)
    val alien = Bundle.write(Ingest.BundleMagic, 2, Seq(SketchCodec.encode(a), SketchCodec.encode(feed(other, sp, d, halves(0)).result()))) { out =>
      out.putVarLong(0); out.putVarLong(0); out.putVarLong(0); out.putLong(Long.MaxValue) }
    refused(alien, "different parameters")
  }
}
