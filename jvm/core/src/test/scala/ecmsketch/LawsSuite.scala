package ecmsketch

import org.scalacheck.{Gen, Shrink}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import ecmsketch.eh.EhCellKind
import ecmsketch.dwave.DwCellKind
import ecmsketch.rwave.RwCellKind
import ecmsketch.ecm.CellKinds
import ecmsketch.dwave.{DetWave, DwConfig, DwSketch}
import ecmsketch.ecm.{EcmSketch, Planner, QueryKind}
import ecmsketch.format.SketchCodec
import ecmsketch.rwave.{DistinctSketch, RandWave, RwConfig}
import ecmsketch.core.{SketchException, WindowSketch, WindowSpec}
import ecmsketch.eh.{EhSketch, ExpHistogram}

/** Laws that hold for every input, checked on generated small streams (ScalaCheck).
  *
  * What each structure promises, and hence which law is stated (docs/design/: merging.md, dwave.md, rwave.md):
  *  - encoding is canonical for every kind: decode(encode(s)) re-encodes to the same bytes and
  *    answers every query as s does (and encoding itself changes no answer);
  *  - order-preserving merges (EH, deterministic waves, ECM-sketches of any cell kind) and the
  *    lossless randomized-wave merges do not depend on the order of their inputs: same bytes;
  *  - randomized-wave merges are lossless: the merge of sketches of parts is the sketch of the
  *    union, and (a+b)+c is a+(b+c): identical bytes apart from the merge-depth field, which
  *    records the merge history and does not enter the randomized bound. Merging a sketch with a
  *    copy of itself changes no answer (events have ids);
  *  - EH and deterministic-wave merges add error, so they are not associative: (a+b)+c and
  *    a+(b+c) are different sketches. What holds is that both groupings, and the flat n-way merge
  *    (depth 1), answer within the bound each reports for its own depth;
  *  - weighted adds: an EH add(ts, v) gives the same state as v unit adds (ExpHistogram.add docs),
  *    so EH sketches and ECM-sketches with EH cells encode identically. A deterministic wave stores
  *    a weighted item as one item whose weight lies exactly at its timestamp, so its state differs
  *    from v unit items; both are within the bound of the same exact answer (and add(ts) is
  *    add(ts, 1): identical bytes). A randomized-wave cell stores v fresh events, with ids from a
  *    random salt, so states differ; while level 0 holds every event both are exact and equal;
  *  - merging with an empty sketch (either side) is the identity: same bytes, same depth.
  *
  * The last law found two bugs, fixed with regression tests in EcmSuite and DwSketchSuite: ECM
  * EH cells lagging the sketch's clock were written with expired buckets (a merge or a copy then
  * changed the bytes), and a wave merge where no input held live items took the first input's
  * max_arrivals (so merge(empty, s) could change it).
  */
class LawsSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  import LawsSuite._
  implicit override val generatorDrivenConfig: PropertyCheckConfiguration = PropertyCheckConfiguration(minSuccessful = 300)

  // ------------------------------------------------------------------ generators
  /** Mostly bursts and small steps, sometimes a gap longer than the short windows. */
  val step: Gen[Long] = Gen.frequency(4 -> Gen.const(0L), 5 -> Gen.choose(1L, 4L), 1 -> Gen.choose(20L, 400L))
  val unitOrSmall: Gen[Long] = Gen.frequency(8 -> Gen.const(1L), 1 -> Gen.const(0L), 2 -> Gen.choose(2L, 30L))

  val anyStart: Gen[Long] = Gen.oneOf(0L, 5L, -1000L, 1L << 40)
  /** Starts of the sites of one merge: close, so that their streams interleave. */
  val nearStart: Gen[Long] = Gen.choose(0L, 30L)

  /** Up to `maxN` rows with non-decreasing timestamps (strictly increasing for count windows). */
  def rows(count: Boolean, maxN: Int, weight: Gen[Long] = unitOrSmall, keys: Long = 10L, starts: Gen[Long] = anyStart): Gen[Rows] = for {
    n <- Gen.choose(0, maxN)
    start <- starts
    steps <- Gen.listOfN(n, step)
    ks <- Gen.listOfN(n, Gen.choose(0L, keys - 1))
    ws <- Gen.listOfN(n, weight)
    clockMove <- Gen.frequency(5 -> Gen.const(false), 1 -> Gen.const(true))
  } yield {
    var t = start
    val rs = steps.indices.map { i => t += (if (count) steps(i) + 1 else steps(i)); Row(ks(i), t, ws(i)) }.toVector
    // sometimes a last weight-0 row far later: it only moves the clock, so that everything expires
    // (a sketch with rows but no live data)
    if (clockMove && rs.nonEmpty) rs :+ Row(0L, t + 2000L, 0L) else rs
  }

  val timeSpecs: Gen[WindowSpec] = Gen.oneOf(50L, 1000L, Long.MaxValue).map(w => WindowSpec(countWindow = false, tsMicros = false, window = w))
  val anySpecs: Gen[WindowSpec] = Gen.frequency(3 -> timeSpecs, 1 -> Gen.const(WindowSpec(countWindow = true, tsMicros = false, window = 40)))

  // ------------------------------------------------------------------ sketch kinds
  type Answers = Seq[Either[String, Double]]

  def ranges(spec: WindowSpec): Seq[java.lang.Long] =
    null +: (Seq(1L, 7L, 30L, 300L) :+ spec.window).filter(_ <= spec.window).distinct.map(r => java.lang.Long.valueOf(r))

  /** An answer, or the message of a refusal (a deterministic wave refuses ranges reaching an overflow). */
  def ans(f: => Double): Either[String, Double] = try Right(f) catch { case e: SketchException => Left(e.getMessage) }

  abstract class Kind(val name: String) {
    /** The rows this kind is tested with (rwave kinds need more weight to reach levels above 0). */
    def rowsGen(count: Boolean, starts: Gen[Long] = anyStart): Gen[Rows] = rows(count, 40, starts = starts)
    def create(spec: WindowSpec): WindowSketch
    def add(s: WindowSketch, r: Row): Unit
    def merge(ss: Seq[WindowSketch]): WindowSketch
    def answers(s: WindowSketch): Answers
    def build(spec: WindowSpec, rs: Rows): WindowSketch = { val s = create(spec); rs.foreach(add(s, _)); s }
    override def toString: String = name
  }

  final class EhKind extends Kind("eh") {
    def create(spec: WindowSpec): WindowSketch = EhSketch.create(spec, 0.2, 1)
    def add(s: WindowSketch, r: Row): Unit = s.asInstanceOf[EhSketch].add(r.ts, r.v)
    def merge(ss: Seq[WindowSketch]): WindowSketch = EhSketch.merge(ss.map(_.asInstanceOf[EhSketch]))
    def answers(s: WindowSketch): Answers = { val h = s.asInstanceOf[EhSketch]; ranges(h.spec).map(r => ans(h.count(r, null))) }
  }

  final class DwKind(u: Long) extends Kind(if (u == DwConfig.Unbounded) "dwave" else s"dwave U=$u") {
    def create(spec: WindowSpec): WindowSketch = DwSketch.create(spec, 0.2, 1, u)
    def add(s: WindowSketch, r: Row): Unit = s.asInstanceOf[DwSketch].add(r.ts, r.v)
    def merge(ss: Seq[WindowSketch]): WindowSketch = DwSketch.merge(ss.map(_.asInstanceOf[DwSketch]))
    def answers(s: WindowSketch): Answers = { val w = s.asInstanceOf[DwSketch]; ranges(w.spec).map(r => ans(w.count(r, null))) }
  }

  final class EcmKind(cell: Int, eps: Double, delta: Double, u: Long = DwConfig.Unbounded, keys: Long = 10L)
      extends Kind(s"ecm/${CellKinds.nameOf(cell)}" + (if (u == DwConfig.Unbounded) "" else s" U=$u, $keys keys")) {
    private val plan = Planner.plan(eps, delta, QueryKind.Point, if (cell == RwCellKind.id) 0 else 1, cell)
    override def rowsGen(count: Boolean, starts: Gen[Long]): Gen[Rows] =
      if (cell == RwCellKind.id) rows(count, 40, Gen.frequency(3 -> Gen.const(1L), 2 -> Gen.choose(2L, 60L)), starts = starts)
      else rows(count, 40, keys = keys, starts = starts)
    def create(spec: WindowSpec): WindowSketch = EcmSketch.create(spec, plan, 7L, u)
    def add(s: WindowSketch, r: Row): Unit = s.asInstanceOf[EcmSketch].add(r.key, r.ts, r.v)
    def merge(ss: Seq[WindowSketch]): WindowSketch = EcmSketch.merge(ss.map(_.asInstanceOf[EcmSketch]))
    def answers(s: WindowSketch): Answers = {
      val e = s.asInstanceOf[EcmSketch]
      ranges(e.spec).flatMap { r =>
        val points = (0L to 10L).map(k => ans(e.point(k, r, null)))
        if (cell == RwCellKind.id) points else points :+ ans(e.total(r, null)) :+ ans(e.selfJoin(r, null))
      }
    }
  }

  final class DistinctKind extends Kind("distinct") {
    // capacity 45 (eps 0.9): a few hundred distinct values reach the levels above 0
    override def rowsGen(count: Boolean, starts: Gen[Long]): Gen[Rows] = rows(count, 120, keys = 400L, starts = starts)
    def create(spec: WindowSpec): WindowSketch = DistinctSketch.create(spec, 0.9, 0.2, 3L)
    def add(s: WindowSketch, r: Row): Unit = s.asInstanceOf[DistinctSketch].add(r.key, r.ts)
    def merge(ss: Seq[WindowSketch]): WindowSketch = DistinctSketch.merge(ss.map(_.asInstanceOf[DistinctSketch]))
    def answers(s: WindowSketch): Answers = { val d = s.asInstanceOf[DistinctSketch]; ranges(d.spec).map(r => ans(d.count(r, null))) }
  }

  val eh = new EhKind
  val dw = new DwKind(DwConfig.Unbounded)
  // small max_arrivals, so that generated streams overflow (a level of 12 items; ECM cells of 9
  // items, with 2 keys so that cells see many rows)
  val dwSmallU = new DwKind(4L)
  val ecmEh = new EcmKind(EhCellKind.id, 0.3, 0.1)
  val ecmDw = new EcmKind(DwCellKind.id, 0.3, 0.1)
  val ecmDwSmallU = new EcmKind(DwCellKind.id, 0.3, 0.1, 2L, keys = 2L)
  val ecmRw = new EcmKind(RwCellKind.id, 0.9, 0.5)
  val distinct = new DistinctKind
  val allKinds: Seq[Kind] = Seq(eh, dw, dwSmallU, ecmEh, ecmDw, ecmDwSmallU, ecmRw, distinct)

  def enc(s: WindowSketch): Vector[Byte] = SketchCodec.encodeAny(s).toVector

  /** A sketch of one site, or (time windows only) a merge of 2-3 sites: depth 0 or 1. */
  def sketchGen(k: Kind, spec: WindowSpec, starts: Gen[Long] = anyStart): Gen[WindowSketch] =
    if (spec.countWindow) k.rowsGen(true, starts).map(k.build(spec, _))
    else Gen.frequency(
      3 -> k.rowsGen(false, starts).map(k.build(spec, _)),
      1 -> Gen.choose(2, 3).flatMap(n => Gen.listOfN(n, k.rowsGen(false, nearStart))).map(ps => k.merge(ps.map(k.build(spec, _)))))

  /** What a generated case exercises, so that each law can assert it was not checked vacuously. */
  def features(s: WindowSketch): Set[String] = {
    val b = Set.newBuilder[String]
    if (!s.isEmpty) b += "rows"
    if (s.mergeDepth > 0) b += "merged"
    if (!s.isEmpty && !holds(s)) b += "no live data"
    def wave(c: Any): Unit = c match {
      case w: DetWave => if (w.overflowTs != Long.MinValue) b += "overflow"
      case w: RandWave => if (ecmsketch.rwave.RwTestUtil.levelSize(w, 0, 0) == w.config.capacity) b += "upper levels"
      case _ => ()
    }
    s match {
      case d: DwSketch => wave(d.wave)
      case d: DistinctSketch => wave(d.wave)
      case e: EcmSketch => e.cells.foreach(wave)
      case _ => ()
    }
    b.result()
  }

  /** Counts features over the cases of one law and checks that the expected ones occurred. */
  final class Coverage(k: Kind, expected: String*) {
    private val seen = scala.collection.mutable.Map[String, Int]().withDefaultValue(0)
    def note(s: WindowSketch): Unit = features(s).foreach(f => seen(f) += 1)
    def check(): Unit = {
      info(s"$k: " + seen.toSeq.sorted.map { case (f, n) => s"$f $n" }.mkString(", "))
      expected.foreach(f => assert(seen(f) > 0, s"$k: no generated case had '$f'"))
    }
  }

  def expectedFeatures(k: Kind, merged: Boolean): Seq[String] =
    Seq("rows") ++ (if (merged) Seq("merged") else Nil) ++
      (if (k eq dwSmallU) Seq("overflow") else if (k eq ecmDwSmallU) Seq("overflow") else Nil) ++
      (if ((k eq distinct) || (k eq ecmRw)) Seq("upper levels") else Nil)

  // ------------------------------------------------------------------ laws

  test("codec: decode(encode(s)) re-encodes to the same bytes and answers the same, for every sketch kind") {
    for (k <- allKinds) {
      val gen = for (spec <- anySpecs; s <- sketchGen(k, spec)) yield s
      val cov = new Coverage(k, expectedFeatures(k, merged = true): _*)
      forAll(gen) { s =>
        cov.note(s)
        val before = k.answers(s)
        val bytes = SketchCodec.encodeAny(s)
        assert(k.answers(s) == before, s"$k: encoding changed an answer")
        val d = SketchCodec.decode(bytes)
        assert(d.getClass == s.getClass)
        assert(java.util.Arrays.equals(SketchCodec.encodeAny(d), bytes), s"$k: re-encoding differs")
        assert(k.answers(d) == before, s"$k: decoded sketch answers differently")
        assert(d.mergeDepth == s.mergeDepth && d.count == s.count && d.firstTs == s.firstTs && d.lastTs == s.lastTs && d.isEmpty == s.isEmpty)
      }
      cov.check()
    }
  }

  test("merge is order-free: any permutation of the inputs gives identical bytes (every kind)") {
    for (k <- allKinds) {
      // inputs are sketches of one site or merges of 2-3 sites, so depths and max_arrivals differ
      val gen = for {
        spec <- timeSpecs
        n <- Gen.choose(2, 4)
        sk <- Gen.listOfN(n, sketchGen(k, spec, nearStart))
        order <- Gen.oneOf((0 until n).permutations.toSeq)
      } yield (sk, order)
      // no shrinking: a shrunk order is no longer a permutation, and the log would show a false case
      implicit val noShrink: Shrink[(List[WindowSketch], IndexedSeq[Int])] = Shrink.shrinkAny
      val cov = new Coverage(k, expectedFeatures(k, merged = true): _*)
      forAll(gen) { case (sk, order) =>
        val merged = k.merge(sk)
        cov.note(merged)
        val m = enc(merged)
        // the inputs' bytes, so that a failure can be replayed from the log (decode them with SketchCodec)
        def inputs = sk.map(s => enc(s).map("%02x".format(_)).mkString).mkString("inputs (hex): ", " ", "")
        assert(enc(k.merge(order.map(sk))) == m, s"$k: order ${order.mkString(",")}; $inputs")
        assert(enc(k.merge(sk.reverse)) == m, s"$k: reversed; $inputs")
      }
      cov.check()
    }
  }

  test("randomized waves: the merge of sketches of parts is the sketch of the union (bytes), hence associative") {
    val gen = for (sp <- timeSpecs; n <- Gen.choose(2, 4); parts <- Gen.listOfN(n, distinct.rowsGen(false, nearStart))) yield (sp, parts)
    val cov = new Coverage(distinct, expectedFeatures(distinct, merged = true): _*)
    forAll(gen) { case (sp, parts) =>
      val sk = parts.map(distinct.build(sp, _))
      val m = DistinctSketch.merge(sk.map(_.asInstanceOf[DistinctSketch]))
      cov.note(m)
      val union = distinct.build(sp, parts.flatten.sortBy(_.ts).toVector).asInstanceOf[DistinctSketch]
      assert(distinct.answers(m) == distinct.answers(union))
      // identical bytes apart from the merge-depth field (a merge records one level; it adds no error)
      union._mergeDepth = m.mergeDepth
      assert(enc(m) == enc(union))
      assert(m.errorBound == union.errorBound)
    }
    cov.check()
    // associativity, also for ECM-sketches with randomized-wave cells (whose event ids are random,
    // so a sketch of the union is a different sample: their law is associativity and idempotence)
    for (k <- Seq(distinct, ecmRw)) {
      val g3 = for (sp <- timeSpecs; a <- k.rowsGen(false, nearStart); b <- k.rowsGen(false, nearStart); c <- k.rowsGen(false, nearStart)) yield (sp, a, b, c)
      val cov3 = new Coverage(k, expectedFeatures(k, merged = true): _*)
      forAll(g3) { case (sp, ra, rb, rc) =>
        val a = k.build(sp, ra); val b = k.build(sp, rb); val c = k.build(sp, rc)
        val left = k.merge(Seq(k.merge(Seq(a, b)), c))
        cov3.note(left)
        val right = k.merge(Seq(a, k.merge(Seq(b, c))))
        // Identical bytes apart from the merge-depth field. The depth records the merge history by
        // design (docs/design/merging.md: 1 + max over the inputs that hold data at their own clock), so
        // it can differ when one grouping lets data expire at a later clock before it meets other
        // data; it does not enter the randomized bound, which is epsilon at every depth.
        assert(left.cellBound == right.cellBound && left.cellBound == left.cellEpsilon)
        right._mergeDepth = left.mergeDepth
        assert(enc(left) == enc(right), s"$k: (a+b)+c and a+(b+c) differ")
        assert(k.answers(left) == k.answers(k.merge(Seq(a, b, c))), s"$k: grouping changed an answer")
        // events have identities: merging with a copy of itself counts the shared history once
        val copy = a match {
          case e: EcmSketch => e.copy()
          case d: DistinctSketch => d.copy()
          case other => fail(s"unexpected ${other.getClass}")
        }
        assert(k.answers(k.merge(Seq(a, copy))) == k.answers(a), s"$k: merge with a copy changed an answer")
      }
      cov3.check()
    }
  }

  /** Checks what EH and deterministic-wave sketches certify against the exact rows: stand-alone
    * sketches answer within errorBound = (1 + cell eps)^(depth + 1) - 1 on every range; ECM-sketches
    * with deterministic cells have totals within that bound and never under-estimate a key beyond it.
    */
  def withinBound(m: WindowSketch, all: Rows, what: String): Unit = {
    val e = StrictMath.pow(1.0 + m.cellEpsilon, m.mergeDepth + 1.0) - 1.0
    assert(m.cellBound == e, what)
    for (r <- ranges(m.spec)) {
      val lo = m.lowerBound(r, null)
      val truth = if (lo == null) 0L else weightFrom(all, lo)
      def close(est: Double, t: Double, b: Double): Unit =
        assert(math.abs(est - t) <= b * t + 1e-9, s"$what depth ${m.mergeDepth} range $r: $est vs exact $t, bound $b")
      m match {
        case h: EhSketch => assert(h.errorBound == e); close(h.count(r, null), truth.toDouble, e)
        case w: DwSketch => assert(w.errorBound == e); close(w.count(r, null), truth.toDouble, e)
        case c: EcmSketch =>
          close(c.total(r, null), truth.toDouble, c.totalErrorBound)
          for (k <- 0L until 10L) {
            val f = if (lo == null) 0L else weightFrom(all, lo, Some(k))
            assert(c.point(k, r, null) >= (1 - e) * f - 1e-9, s"$what: key $k under-estimated beyond the bound")
          }
        case other => fail(s"unexpected ${other.getClass}")
      }
    }
  }

  /** Whether a site holds retained weight (only those add a merge level). */
  def holds(s: WindowSketch): Boolean = s match {
    case h: EhSketch => !h.histogram.isEmpty
    case w: DwSketch => !w.wave.isEmpty
    case e: EcmSketch => ecmsketch.ecm.EcmTestUtil.nonEmptyCells(e) > 0
    case d: DistinctSketch => !d.wave.isEmpty
    case _ => false
  }

  def holdsAt(s: WindowSketch, now: Long): Boolean = s match {
    case h: EhSketch => h.histogram.retainsAt(now)
    case w: DwSketch => w.wave.retainsAt(now)
    case e: EcmSketch => e.cells.exists(c => c != null && c.retainsAt(now))
    case _ => holds(s)
  }

  /** The time span (lowest lower timestamp, newest bucket end) of a sketch whose cells have a
    * time-disjoint merge (EH), None for the others.
    */
  def span(s: WindowSketch): Option[(Long, Long)] = {
    def of(hs: Seq[ExpHistogram]) = {
      val live = hs.filter(h => h != null && !h.isEmpty)
      (live.map(_.lowerTs).min, live.map(_.newestEnd).max)
    }
    s match {
      case h: EhSketch => Some(of(Seq(h.histogram)))
      case e: EcmSketch if e.cellName == "eh" => Some(of(e.cells.toSeq.map(_.asInstanceOf[ExpHistogram])))
      case _ => None
    }
  }

  /** Whether a flat merge of the holding sites adds a level: two of them overlap in time, or span
    * the same single instant (or their cells have no time-disjoint merge); time-disjoint ones are
    * laid side by side (docs/design/merging.md).
    */
  def addsLevel(holding: Seq[WindowSketch]): Boolean = holding.size >= 2 && {
    val spans = holding.map(span)
    spans.exists(_.isEmpty) || {
      val sorted = spans.flatten.sorted
      sorted.zip(sorted.tail).exists { case (a, b) => a == b } || {
        var end = Long.MinValue
        sorted.exists { case (lo, hi) => val overlaps = end != Long.MinValue && lo < end; end = math.max(end, hi); overlaps }
      }
    }
  }

  test("EH and deterministic waves: merges are not associative, but (a+b)+c, a+(b+c) and the flat merge (depth <= 1) all answer within their own bounds") {
    // (a+b)+c and a+(b+c) split different buckets, so they are different sketches (bytes and
    // answers); the law that holds is the certified bound at each one's depth.
    for (k <- Seq(eh, dw, ecmEh, ecmDw)) {
      val g3 = for (sp <- timeSpecs; a <- k.rowsGen(false, nearStart); b <- k.rowsGen(false, nearStart); c <- k.rowsGen(false, nearStart))
        yield (sp, a, b, c)
      val cov = new Coverage(k, "rows", "merged")
      var depth2 = 0; var differ = 0
      forAll(g3) { case (sp, ra, rb, rc) =>
        val sites = Seq(ra, rb, rc).map(k.build(sp, _))
        val all = (ra ++ rb ++ rc).sortBy(_.ts)
        val flat = k.merge(sites)
        val left = k.merge(Seq(k.merge(sites.take(2)), sites(2)))
        val right = k.merge(Seq(sites(0), k.merge(sites.drop(1))))
        cov.note(flat)
        // sites whose data reaches the merged clock's window (docs/design/merging.md, "Time-disjoint merges")
        val clock = sites.filter(!_.isEmpty).map(_.lastTs).foldLeft(Long.MinValue)(math.max)
        val holding = sites.filter(holdsAt(_, clock))
        assert(flat.mergeDepth == (if (addsLevel(holding)) 1 else 0), s"$k: flat merge of ${holding.size} sites holding data at the merged clock")
        assert(left.mergeDepth <= 2 && right.mergeDepth <= 2)
        if (left.mergeDepth == 2) depth2 += 1
        if (enc(left) != enc(right)) differ += 1
        for ((m, name) <- Seq((flat, "flat"), (left, "(a+b)+c"), (right, "a+(b+c)"))) withinBound(m, all, s"$k $name")
      }
      cov.check()
      info(s"$k: (a+b)+c and a+(b+c) encode differently in $differ cases")
      assert(depth2 > 0, s"$k: no case reached depth 2")
    }
  }

  test("weighted adds: EH add(ts, v) equals v unit adds (same bytes); deterministic waves within the bound; rwave cells equal while exact") {
    val heavy = Gen.frequency(3 -> Gen.choose(1L, 16L), 2 -> Gen.choose(17L, 500L)) // > 16 takes the EH carry path
    // v unit rows for a row of weight v >= 1; a row of weight 0 only moves the clock, on both sides
    def unitRows(rs: Rows): Rows = rs.flatMap(r => if (r.v == 0) Vector(r) else Vector.fill(r.v.toInt)(r.copy(v = 1L)))
    for (k <- Seq(eh, ecmEh)) {
      forAll(timeSpecs, rows(count = false, 30, heavy)) { (sp, rs) =>
        assert(enc(k.build(sp, rs)) == enc(k.build(sp, unitRows(rs))), s"$k: weighted and unit adds differ")
      }
    }
    // A deterministic wave keeps a weighted item whole (its weight lies exactly at its timestamp), so
    // its state differs from v unit items; both are within the bound of the same exact answer, and
    // their totals and sound intervals agree with the truth. add(ts) is add(ts, 1).
    forAll(timeSpecs, rows(count = false, 30, heavy)) { (sp, rs) =>
      val weighted = dw.build(sp, rs).asInstanceOf[DwSketch]
      val units = dw.build(sp, unitRows(rs)).asInstanceOf[DwSketch]
      val viaAdd = DwSketch.create(sp, 0.2, 1, DwConfig.Unbounded)
      unitRows(rs).foreach(r => if (r.v == 0) viaAdd.add(r.ts, 0L) else viaAdd.add(r.ts))
      assert(enc(viaAdd) == enc(units), "add(ts) differs from add(ts, 1)")
      assert(weighted.wave.total == units.wave.total && (weighted.count: Long) == (units.count: Long))
      for (w <- Seq(weighted, units)) {
        withinBound(w, rs, "dwave weighted/unit")
        for (r <- ranges(sp)) {
          val lo = w.lowerBound(r, null)
          if (lo != null) {
            val (low, high) = w.wave.boundsFrom(lo)
            val truth = weightFrom(rs, lo)
            assert(low <= truth && truth <= high, s"range $r: exact $truth outside [$low, $high]")
          }
        }
      }
    }
    forAll(timeSpecs, rows(count = false, 30, heavy)) { (sp, rs) =>
      val weighted = ecmDw.build(sp, rs); val units = ecmDw.build(sp, unitRows(rs))
      withinBound(weighted, rs, "ecm/dwave weighted"); withinBound(units, rs, "ecm/dwave units")
    }
    // Randomized-wave cells store v fresh events with random ids: states differ, but while level 0
    // holds every event (here at most 360 <= capacity 400) both answer exactly.
    val light = Gen.choose(1L, 12L)
    forAll(timeSpecs, rows(count = false, 30, light)) { (sp, rs) =>
      val cfg = RwConfig(0.3, 0.1, sp.window, 5L)
      val a = new RandWave(cfg); val b = new RandWave(cfg)
      rs.foreach { r => a.add(r.ts, r.v); if (r.v == 0) b.advanceTo(r.ts); var i = 0L; while (i < r.v) { b.add(r.ts); i += 1 } }
      for (r <- ranges(sp); last <- rs.lastOption) {
        val lo = ecmsketch.eh.ExpHistogram.lowerBound(last.ts, if (r == null) sp.window else r.longValue)
        assert(a.estimateFrom(lo) == weightFrom(rs, lo).toDouble && b.estimateFrom(lo) == a.estimateFrom(lo))
      }
    }
    val ecmRwExact = new EcmKind(RwCellKind.id, 0.3, 0.2)
    forAll(timeSpecs, rows(count = false, 30, light)) { (sp, rs) =>
      val weighted = ecmRwExact.build(sp, rs); val units = ecmRwExact.build(sp, unitRows(rs))
      assert(ecmRwExact.answers(weighted) == ecmRwExact.answers(units))
    }
  }

  test("merge with an empty sketch is the identity: same bytes and depth, on either side (every kind)") {
    for (k <- allKinds) {
      val gen = for (sp <- timeSpecs; s <- sketchGen(k, sp)) yield (sp, s)
      val cov = new Coverage(k, expectedFeatures(k, merged = true): _*)
      forAll(gen) { case (sp, s) =>
        cov.note(s)
        val bytes = enc(s)
        val empty = k.create(sp)
        for (m <- Seq(k.merge(Seq(s, empty)), k.merge(Seq(empty, s)), k.merge(Seq(empty, s, k.create(sp))))) {
          assert(m.mergeDepth == s.mergeDepth, s"$k: depth ${s.mergeDepth} became ${m.mergeDepth}")
          assert(enc(m) == bytes, s"$k: merging an empty sketch changed the bytes")
        }
        assert(enc(k.merge(Seq(empty, k.create(sp)))) == enc(empty))
      }
      cov.check()
    }
  }
}

object LawsSuite {
  final case class Row(key: Long, ts: Long, v: Long)
  type Rows = Vector[Row]

  /** Exact weight of the rows with ts >= lo. */
  def weightFrom(rs: Seq[Row], lo: Long, key: Option[Long] = None): Long =
    rs.iterator.filter(r => r.ts >= lo && key.forall(_ == r.key)).map(_.v).sum
}
