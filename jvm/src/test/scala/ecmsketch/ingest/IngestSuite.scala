package ecmsketch.ingest

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.Oracle
import ecmsketch.core.{WindowSketch, WindowSpec}
import ecmsketch.ecm.{EcmSketch, QueryKind}
import ecmsketch.format.SketchCodec
import ecmsketch.ingest.{Ingest, SketchOps}
import ecmsketch.window.EhSketch

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
    new SketchOps.Ecm(() => EcmSketch.create(sp, 0.1, 0.1, QueryKind.Point, 1, seed), ecmsketch.core.KeyType.Long)

  def ingest(ops: SketchOps.Ecm, data: Seq[(Long, Long, Long)]): Ingest[EcmSketch] = {
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
  // The schedule as documented (docs/DESIGN.md, "Rows in any order"; the Ingest scaladoc). The
  // numbers are stated here, not read from Ingest, so that a change of schedule fails these tests.

  /** Late rows are sorted and built into side runs of up to 65,536 rows ("late chunks"). */
  val LateChunk = 65536L
  /** Side runs of equal depth merge 16 at a time. */
  val Fanout = 16L
  /** Over 4,096 collected runs of other partial aggregates, they are merged early. */
  val MaxForeign = 4096

  def lateChunks(late: Long): Long = (late + LateChunk - 1) / LateChunk

  /** Merge depth of result() of one ingest whose late rows filled `chunks` late chunks: the side runs
    * form a base-16 counter (16 runs of depth d merge into one of depth d + 1), so the deepest has
    * depth floor(log16(chunks)), and the final n-way merge with the main run adds one level. No late
    * rows: the main run alone, depth 0.
    */
  def expectedDepth(chunks: Long): Int =
    if (chunks == 0) 0 else { var d = 1; var x = chunks; while (x >= Fanout) { x /= Fanout; d += 1 }; d }

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

  /** Feeds `d` in `order` to an EH and an ECM ingest; checks the late chunk count lies in `chunks`,
    * the exact depth of the schedule, the bounds at that depth, and every answer against the oracle.
    */
  def checkDisorder(what: String, sp: WindowSpec, d: Rows, order: Array[Int], chunks: Range, lateRows: Option[Long] = None): Unit = {
    assert(chunks.start >= 0)
    val hIng = feed(SketchOps.eh(() => EhSketch.create(sp, 0.05, 1)), sp, d, order)
    val eIng = feed(ecmOps(4, sp), sp, d, order)
    assert(hIng.late == eIng.late && hIng.dropped == 0 && eIng.dropped == 0)
    lateRows.foreach(k => assert(hIng.late == k, s"$what: ${hIng.late} late rows, expected $k"))
    val c = lateChunks(hIng.late).toInt
    assert(chunks.contains(c), s"$what: ${hIng.late} late rows make $c late chunks, outside $chunks")
    val depth = expectedDepth(c)
    val h = hIng.result()
    val e = eIng.result()
    checkEhBound(h, depth, what)
    checkEcmBound(e, depth, what)
    assert(h.count == d.ws.sum && e.count == d.ws.sum)
    val span = d.ts.last - d.ts.head
    val ranges = Seq(1L, 10L, 100L, 1000L, span / 3, span, sp.window).distinct
    checkEhAnswers(h, d.oracle, ranges, s"$what EH")
    val (v, q) = checkEcmAnswers(e, d.oracle, ranges, s"$what ECM")
    info(f"$what: ${hIng.late} late rows, $c chunks, depth $depth; EH bound ${h.errorBound}%.4f, ECM point bound ${e.pointErrorBound}%.4f, point violations $v/$q")
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

  test("a few side runs (2..15 late chunks): depth 1") {
    val sp = WindowSpec(countWindow = false, tsMicros = false, window = 1000000)
    val rnd = new Random(21)
    val d = sortedRows(rnd, 240000)
    checkDisorder("shuffled", sp, d, shuffled(rnd, d.n), 2 to 15)
    val k = 3 * LateChunk.toInt - 1000
    checkDisorder("oldest rows last", sp, d, oldestLast(rnd, d.n, k), 3 to 3, Some(k.toLong))
  }

  test("more than 16 side runs: early merges of the side runs, depth 2") {
    val sp = WindowSpec(countWindow = false, tsMicros = false, window = 4000000)
    val rnd = new Random(22)
    val k = 17 * LateChunk.toInt - 7
    val d = sortedRows(rnd, k + 40000)
    checkDisorder("oldest rows last", sp, d, oldestLast(rnd, d.n, k), 17 to 17, Some(k.toLong))
    checkDisorder("shuffled", sp, d, shuffled(rnd, d.n), 16 to 255)
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
}
