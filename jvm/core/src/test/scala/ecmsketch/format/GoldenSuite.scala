package ecmsketch.format

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.core.{CounterSketch, SketchException, WindowSketch}
import ecmsketch.format.GoldenInputs._
import ecmsketch.dwave.DwSketch
import ecmsketch.ecm.EcmSketch
import ecmsketch.format.SketchCodec
import ecmsketch.hash.Hashing
import ecmsketch.ingest.Ingest
import ecmsketch.rwave.{DistinctSketch, RwConfig, RwTestUtil}
import ecmsketch.window.EhSketch

/** Golden bytes of format versions 4 and 1 to 3 (docs/FORMAT.md) for every sketch kind, cell kind and
  * bundle, and golden vectors of the randomized-wave level hash.
  *
  * For every case (inputs in [[GoldenInputs]], bytes in src/test/resources/golden/<name>.hex):
  *  - encoding: the fixed input encodes to exactly the stored version-4 bytes (golden/v4/<name>.hex),
  *    and without the checksum to the older file, so version 4 changed nothing but the header;
  *  - decoding: the *stored* older bytes decode, re-encode to the version-4 bytes, and answer exactly the
  *    pinned values; every pinned value is also checked against the brute-force answer of the input
  *    within the bound the decoded sketch certifies (for randomized sketches: the bound that holds
  *    with probability 1 - delta, which these inputs meet), so the pins are known to be right.
  * A change of the format, of a hash or of an algorithm that feeds the bytes fails here.
  */
class GoldenSuite extends AnyFunSuite {
  import GoldenSuite.Answer

  private def sameBytes(name: String, got: Array[Byte], expected: Array[Byte]): Unit =
    if (!java.util.Arrays.equals(got, expected)) {
      val i = (0 until math.min(got.length, expected.length)).find(k => got(k) != expected(k)).getOrElse(math.min(got.length, expected.length))
      fail(s"golden $name: bytes differ first at byte $i of ${expected.length} (${got.length} now); now: ${hex(got)}")
    }

  private def render(xs: Seq[(String, Double)]): String = xs.map { case (l, v) => s"""  "$l" -> $v,""" }.mkString("\n", "\n", "\n")

  /** The answers must equal the pins (same labels, bit-identical values) and lie within their bounds. */
  private def checkAnswers(name: String, got: Seq[Answer], pinned: Seq[(String, Double)]): Unit = {
    val actual = got.map(a => a.label -> a.value)
    val same = actual.size == pinned.size && actual.zip(pinned).forall { case ((l1, v1), (l2, v2)) =>
      l1 == l2 && java.lang.Double.compare(v1, v2) == 0
    }
    if (!same) {
      val diff = actual.zipAll(pinned, ("-", Double.NaN), ("-", Double.NaN)).find { case ((l1, v1), (l2, v2)) =>
        l1 != l2 || java.lang.Double.compare(v1, v2) != 0
      }
      fail(s"golden $name: decoded answers changed, first ${diff.map { case (a, p) => s"$a (pinned $p)" }.getOrElse("")}; all now:${render(actual)}")
    }
    got.foreach { a =>
      if (!a.value.isNaN)
        assert(math.abs(a.value - a.truth) <= a.bound + 1e-9, s"golden $name: ${a.label} = ${a.value}, exact ${a.truth}, bound ${a.bound}")
    }
  }

  // ------------------------------------------------------------------ brute force

  /** Exact weight of rows in (now - r, now]. */
  private def weightIn(rows: Seq[(Long, Long)], now: Long, r: Long): Long = rows.filter { case (t, _) => t > now - r && t <= now }.map(_._2).sum

  /** Answers of a stand-alone counter (EH or deterministic wave) for the given ranges. */
  private def counterAnswers(s: CounterSketch, rows: Seq[(Long, Long)], ranges: Seq[Long], depth: Int,
                             extraNow: Option[Long] = None): Seq[Answer] = {
    val last = rows.map(_._1).max
    val meta = Seq(
      Answer("merge depth", s.mergeDepth, depth, 0),
      Answer("total weight", s.count.toDouble, rows.map(_._2).sum.toDouble, 0),
      Answer("first ts", s.firstTs.toDouble, rows.map(_._1).min.toDouble, 0),
      Answer("last ts", s.lastTs.toDouble, last.toDouble, 0))
    val nows = Seq(None) ++ extraNow.map(Some(_))
    meta ++ (for (now <- nows; r <- ranges) yield {
      val t = now.getOrElse(last)
      val truth = weightIn(rows, t, r).toDouble
      val v = try s.count(r, now.map(java.lang.Long.valueOf).orNull)
      catch { case e: SketchException if e.getMessage.contains("max_arrivals") => Double.NaN }
      Answer(s"count(r=$r${now.fold("")(n => s", now=$n")})", v, truth, s.errorBound * truth)
    })
  }

  /** Every range of the window answers within the bound (not pinned, only checked). */
  private def checkAllRanges(name: String, s: CounterSketch, rows: Seq[(Long, Long)]): Unit = {
    val last = rows.map(_._1).max
    for (r <- 1L to math.min(s.spec.window, 200L)) {
      val truth = weightIn(rows, last, r).toDouble
      val v = s.count(r, null)
      assert(math.abs(v - truth) <= s.errorBound * truth + 1e-9, s"golden $name: count(r=$r) = $v, exact $truth")
    }
  }

  private def ecmAnswers(s: EcmSketch, rows: Seq[Row], ranges: Seq[Long], depth: Int, absentKey: Any): Seq[Answer] = {
    val last = rows.map(_.ts).max
    val meta = Seq(
      Answer("merge depth", s.mergeDepth, depth, 0),
      Answer("total weight", s.count.toDouble, rows.map(_.w).sum.toDouble, 0),
      Answer("first ts", s.firstTs.toDouble, rows.map(_.ts).min.toDouble, 0),
      Answer("last ts", s.lastTs.toDouble, last.toDouble, 0),
      Answer("key type", s.keyType, keyTypeOf(rows.head.key), 0))
    val keys = rows.map(_.key).distinct :+ absentKey
    meta ++ ranges.flatMap { r =>
      val in = rows.filter(x => x.ts > last - r)
      val a = in.map(_.w).sum.toDouble
      val freqs = in.groupBy(_.key).map { case (k, xs) => k -> xs.map(_.w).sum.toDouble }
      val points = keys.map { k =>
        val v = k match {
          case x: String => s.point(x, r, null)
          case x: Long => s.point(x, r, null)
          case other => throw new IllegalArgumentException(s"unexpected key $other")
        }
        Answer(s"point($k, r=$r)", v, freqs.getOrElse(k, 0.0), s.pointErrorBound * a)
      }
      val sums =
        if (!s.plan.deterministicCells) Nil
        else Seq(
          Answer(s"total(r=$r)", s.total(r, null), a, s.totalErrorBound * a),
          Answer(s"self-join(r=$r)", s.selfJoin(r, null), freqs.values.map(f => f * f).sum, s.innerProductErrorBound(s) * a * a))
      points ++ sums
    }
  }

  private def distinctAnswers(s: DistinctSketch, rows: Seq[Row], ranges: Seq[Long]): Seq[Answer] = {
    val last = rows.map(_.ts).max
    val latest = rows.groupBy(_.key).map { case (_, xs) => xs.map(_.ts).max }
    Seq(
      Answer("total weight", s.count.toDouble, rows.size.toDouble, 0),
      Answer("first ts", s.firstTs.toDouble, rows.map(_.ts).min.toDouble, 0),
      Answer("last ts", s.lastTs.toDouble, last.toDouble, 0),
      Answer("key type", s.keyType, keyTypeOf(rows.head.key), 0)) ++
      ranges.map { r =>
        val truth = latest.count(_ > last - r).toDouble
        Answer(s"distinct(r=$r)", s.count(r, null), truth, s.errorBound * truth)
      }
  }

  /** Decodes the stored checksum-less bytes of `name` and returns the sketch, after checking that it
    * re-encodes to the stored version-4 bytes, whose body is the same, and that those decode and
    * re-encode identically (so the answers pinned on the older bytes are the version-4 bytes' too).
    */
  private def decodeStored(name: String): WindowSketch = {
    val b = load(name)
    val s = SketchCodec.decode(b)
    sameBytes(s"$name (re-encoded)", SketchCodec.encodeAny(s), loadV4(name))
    sameBytes(s"$name (re-encoded, without the checksum)", withoutChecksum(SketchCodec.encodeAny(s)), b)
    sameBytes(s"v4/$name (re-encoded)", SketchCodec.encodeAny(SketchCodec.decode(loadV4(name))), loadV4(name))
    s
  }

  // ------------------------------------------------------------------ encodings

  for ((name, build) <- GoldenInputs.all)
    test(s"golden $name: the fixed input encodes to the stored bytes (version 4, and without the checksum the older file)") {
      sameBytes(s"v4/$name", build(), loadV4(name))
      sameBytes(name, withoutChecksum(build()), load(name))
    }

  // ------------------------------------------------------------------ decoded answers

  test("golden eh: decoded answers") {
    val s = decodeStored("eh").asInstanceOf[EhSketch]
    checkAnswers("eh", counterAnswers(s, ehRows, Seq(1L, 2L, 5L, 8L, 12L, 100L), 0, Some(50L)), Seq(
      "merge depth" -> 0.0, "total weight" -> 16.0, "first ts" -> 1.0, "last ts" -> 12.0,
      "count(r=1)" -> 1.0, "count(r=2)" -> 2.0, "count(r=5)" -> 7.5, "count(r=8)" -> 10.5, "count(r=12)" -> 16.0, "count(r=100)" -> 16.0,
      "count(r=1, now=50)" -> 0.0, "count(r=2, now=50)" -> 0.0, "count(r=5, now=50)" -> 0.0, "count(r=8, now=50)" -> 0.0, "count(r=12, now=50)" -> 0.0, "count(r=100, now=50)" -> 16.0))
    checkAllRanges("eh", s, ehRows)
  }

  test("golden eh-count (count-based window): decoded answers") {
    val s = decodeStored("eh-count").asInstanceOf[EhSketch]
    assert(s.spec == ehCountSpec)
    checkAnswers("eh-count", counterAnswers(s, ehCountRows, Seq(1L, 3L, 5L, 8L), 0), Seq(
      "merge depth" -> 0.0, "total weight" -> 20.0, "first ts" -> 1.0, "last ts" -> 20.0,
      "count(r=1)" -> 1.0, "count(r=3)" -> 3.0, "count(r=5)" -> 5.5, "count(r=8)" -> 7.5))
    checkAllRanges("eh-count", s, ehCountRows)
  }

  test("golden eh-merged (merge depth 1): decoded answers") {
    val s = decodeStored("eh-merged").asInstanceOf[EhSketch]
    val rows = (ehMergedA ++ ehMergedB).sortBy(_._1)
    checkAnswers("eh-merged", counterAnswers(s, rows, Seq(1L, 4L, 10L, 25L, 50L), 1), Seq(
      "merge depth" -> 1.0, "total weight" -> 40.0, "first ts" -> 1.0, "last ts" -> 39.0,
      "count(r=1)" -> 1.0, "count(r=4)" -> 4.0, "count(r=10)" -> 11.5, "count(r=25)" -> 26.5, "count(r=50)" -> 40.0))
    checkAllRanges("eh-merged", s, rows)
  }

  test("golden dwave: decoded answers") {
    val s = decodeStored("dwave").asInstanceOf[DwSketch]
    assert(s.maxArrivals == 100L)
    checkAnswers("dwave", counterAnswers(s, dwRows, Seq(1L, 3L, 7L, 15L, 30L, 40L), 0, Some(35L)), Seq(
      "merge depth" -> 0.0, "total weight" -> 90.0, "first ts" -> -30.0, "last ts" -> 29.0,
      "count(r=1)" -> 3.0, "count(r=3)" -> 6.0, "count(r=7)" -> 12.0, "count(r=15)" -> 23.5, "count(r=30)" -> 51.0, "count(r=40)" -> 65.5,
      "count(r=1, now=35)" -> 0.0, "count(r=3, now=35)" -> 0.0, "count(r=7, now=35)" -> 3.0, "count(r=15, now=35)" -> 15.0, "count(r=30, now=35)" -> 38.5, "count(r=40, now=35)" -> 51.0))
    checkAllRanges("dwave", s, dwRows)
  }

  test("golden dwave-overflow: decoded answers; ranges reaching the overflow are refused") {
    val s = decodeStored("dwave-overflow").asInstanceOf[DwSketch]
    assert(s.maxArrivals == 8L)
    // the stream does put more than max_arrivals into one window
    assert(dwOverflowRows.map(_._1).exists(t => weightIn(dwOverflowRows, t, dwSpec.window) > 8))
    val answers = counterAnswers(s, dwOverflowRows, Seq(1L, 2L, 4L, 8L, 16L, 40L), 0)
    checkAnswers("dwave-overflow", answers, Seq(
      "merge depth" -> 0.0, "total weight" -> 40.0, "first ts" -> 1.0, "last ts" -> 40.0,
      "count(r=1)" -> 1.0, "count(r=2)" -> 2.0, "count(r=4)" -> 4.0, "count(r=8)" -> 7.5, "count(r=16)" -> 14.5, "count(r=40)" -> Double.NaN))
    // refusals form a suffix of the ranges (a range is refused iff it reaches the overflow record)
    val refused = (1L to 40L).map(r => try { s.count(r, null); false } catch { case e: SketchException =>
      assert(e.getMessage.contains("max_arrivals"), e.getMessage); true })
    assert(refused.contains(true) && refused.dropWhile(!_).forall(identity), refused)
  }

  test("golden distinct-small: decoded answers (exact: level 0 holds every value)") {
    val s = decodeStored("distinct-small").asInstanceOf[DistinctSketch]
    assert(s.seed == 7L && s.delta == 0.1)
    val answers = distinctAnswers(s, distinctSmallRows, Seq(1L, 2L, 4L, 6L, 100L))
    checkAnswers("distinct-small", answers, Seq(
      "total weight" -> 10.0, "first ts" -> 1.0, "last ts" -> 10.0, "key type" -> 2.0,
      "distinct(r=1)" -> 1.0, "distinct(r=2)" -> 2.0, "distinct(r=4)" -> 4.0, "distinct(r=6)" -> 5.0, "distinct(r=100)" -> 5.0))
    answers.foreach(a => assert(a.value == a.truth, a))
  }

  test("golden distinct-full: decoded answers (level 0 full, older values from the instances' levels)") {
    val s = decodeStored("distinct-full").asInstanceOf[DistinctSketch]
    assert(s.config.capacity == 37 && s.config.instances == 1)
    checkAnswers("distinct-full", distinctAnswers(s, distinctFullRows, Seq(1L, 10L, 30L, 40L, 50L, 60L, 70L, 1000L)), Seq(
      "total weight" -> 70.0, "first ts" -> 0.0, "last ts" -> 69.0, "key type" -> 1.0,
      "distinct(r=1)" -> 1.0, "distinct(r=10)" -> 10.0, "distinct(r=30)" -> 30.0, "distinct(r=40)" -> 34.0, "distinct(r=50)" -> 42.0, "distinct(r=60)" -> 52.0,
      "distinct(r=70)" -> 52.0, "distinct(r=1000)" -> 52.0))
  }

  test("golden legacy (version 0.1.0, more instances): decoded, the current plan's first instances kept; re-encoded to the current bytes") {
    // distinct-small: 15 -> 3 instances; distinct-full: 3 -> 1; ecm-rwave: 11 -> 3 per cell
    for ((name, planned) <- Seq("distinct-small" -> 3, "distinct-full" -> 1, "ecm-rwave" -> 3)) {
      val old = load(s"legacy/$name-v0.1.0")
      val s = SketchCodec.decode(old)
      val cfg = s match {
        case d: DistinctSketch => d.config
        case e: EcmSketch => e.cellOps.asInstanceOf[ecmsketch.rwave.RwCells].config
        case other => fail(s"unexpected $other")
      }
      assert(cfg.instances == planned && cfg.legacyInstances > planned, s"$name: ${cfg.instances} / ${cfg.legacyInstances}")
      sameBytes(s"legacy $name (re-encoded)", SketchCodec.encodeAny(s), loadV4(name))
      // and it merges with a sketch of the current plan as that sketch merges with itself
      def merged(a: WindowSketch, b: WindowSketch): Array[Byte] = (a, b) match {
        case (x: DistinctSketch, y: DistinctSketch) => SketchCodec.encode(DistinctSketch.merge(Seq(x, y)))
        case (x: EcmSketch, y: EcmSketch) => SketchCodec.encode(EcmSketch.merge(Seq(x, y)))
        case other => fail(s"unexpected $other")
      }
      val now = SketchCodec.decode(load(name))
      sameBytes(s"legacy $name merged with the current", merged(s, now), merged(now, SketchCodec.decode(load(name))))
    }
  }

  test("golden legacy: the instances the reader leaves out are still checked (an item in no level is refused)") {
    // distinct-full-v0.1.0 holds 3 instance lists and the current plan keeps 1; the last 8 bytes are
    // the id of the last item of instance 2's list. An id with level 0 under instance 2's hash
    // belongs to no level of it: version 0.1.0 refused such bytes, and so must this reader.
    val old = load("legacy/distinct-full-v0.1.0")
    val cfg = SketchCodec.decode(old).asInstanceOf[DistinctSketch].config
    val coeffs = ecmsketch.hash.Hashing.rowCoefficients(cfg.seed ^ RwConfig.LevelSeedSalt, 3)
    def level2(id: Long): Int = { // docs/design/rwave.md "Level hash": min(60, nlz((a x + b) mod p) - 3)
      val t = (BigInt(coeffs(4)) * BigInt(Hashing.modP(id)) + BigInt(coeffs(5))).mod(BigInt(Hashing.MersenneP)).toLong
      math.min(60, java.lang.Long.numberOfLeadingZeros(t) - 3)
    }
    val prevId = java.nio.ByteBuffer.wrap(old, old.length - 8, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong
    val ids = Iterator.iterate(prevId + 1)(_ + 1).filter(level2(_) == 0).take(3).toSeq
    for (id <- ids) {
      val bad = old.clone()
      java.nio.ByteBuffer.wrap(bad, bad.length - 8, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(id)
      val e = intercept[SketchException](SketchCodec.decode(bad))
      assert(e.getMessage.contains("instance 2 item") && e.getMessage.contains("belongs to no level"), e.getMessage)
    }
    // a legacy count the old plan could not have had (instances x capacity above 2^24) is refused
    assert(RwConfig(0.01, 0.01, 10, 0).legacyInstances == -1 && RwConfig(0.1, 0.05, 10, 0).legacyInstances == 23)
  }

  test("golden ecm-eh: decoded answers") {
    val s = decodeStored("ecm-eh").asInstanceOf[EcmSketch]
    checkAnswers("ecm-eh", ecmAnswers(s, ecmRows, Seq(1L, 6L, 7L, 100L), 0, "zz"), Seq(
      "merge depth" -> 0.0, "total weight" -> 4.0, "first ts" -> 1.0, "last ts" -> 7.0, "key type" -> 2.0,
      "point(a, r=1)" -> 0.0, "point(b, r=1)" -> 0.0, "point(c, r=1)" -> 1.0, "point(zz, r=1)" -> 0.0, "total(r=1)" -> 1.0, "self-join(r=1)" -> 1.0,
      "point(a, r=6)" -> 1.0, "point(b, r=6)" -> 1.0, "point(c, r=6)" -> 1.0, "point(zz, r=6)" -> 0.0, "total(r=6)" -> 3.0, "self-join(r=6)" -> 3.0,
      "point(a, r=7)" -> 2.0, "point(b, r=7)" -> 1.0, "point(c, r=7)" -> 1.0, "point(zz, r=7)" -> 0.0, "total(r=7)" -> 4.0, "self-join(r=7)" -> 6.0,
      "point(a, r=100)" -> 2.0, "point(b, r=100)" -> 1.0, "point(c, r=100)" -> 1.0, "point(zz, r=100)" -> 0.0, "total(r=100)" -> 4.0, "self-join(r=100)" -> 6.0))
  }

  test("golden ecm-eh-micros (TIMESTAMP ticks): decoded answers") {
    val s = decodeStored("ecm-eh-micros").asInstanceOf[EcmSketch]
    assert(s.spec == ecmMicrosSpec)
    checkAnswers("ecm-eh-micros", ecmAnswers(s, ecmMicrosRows, Seq(1L, 600000000L, 1800000000L, 3600000000L), 0, 99L), Seq(
      "merge depth" -> 0.0, "total weight" -> 30.0, "first ts" -> 1.7E15, "last ts" -> 1.70000475E15, "key type" -> 1.0,
      "point(1, r=1)" -> 0.0, "point(2, r=1)" -> 2.5, "point(3, r=1)" -> 0.0, "point(99, r=1)" -> 0.0, "total(r=1)" -> 2.5, "self-join(r=1)" -> 6.25,
      "point(1, r=600000000)" -> 1.0, "point(2, r=600000000)" -> 2.5, "point(3, r=600000000)" -> 2.5, "point(99, r=600000000)" -> 0.0, "total(r=600000000)" -> 6.0, "self-join(r=600000000)" -> 13.5,
      "point(1, r=1800000000)" -> 3.5, "point(2, r=1800000000)" -> 5.5, "point(3, r=1800000000)" -> 2.5, "point(99, r=1800000000)" -> 0.0, "total(r=1800000000)" -> 11.5, "self-join(r=1800000000)" -> 48.75,
      "point(1, r=3600000000)" -> 8.5, "point(2, r=3600000000)" -> 9.5, "point(3, r=3600000000)" -> 7.5, "point(99, r=3600000000)" -> 0.0, "total(r=3600000000)" -> 25.5, "self-join(r=3600000000)" -> 218.75))
  }

  test("golden ecm-eh-merged (merge depth 1): decoded answers") {
    val s = decodeStored("ecm-eh-merged").asInstanceOf[EcmSketch]
    val rows = (ecmMergedA ++ ecmMergedB).sortBy(_.ts)
    checkAnswers("ecm-eh-merged", ecmAnswers(s, rows, Seq(1L, 3L, 6L, 100L), 1, "zz"), Seq(
      "merge depth" -> 1.0, "total weight" -> 25.0, "first ts" -> 1.0, "last ts" -> 12.0, "key type" -> 2.0,
      "point(x, r=1)" -> 0.0, "point(y, r=1)" -> 1.0, "point(z, r=1)" -> 0.0, "point(zz, r=1)" -> 0.0, "total(r=1)" -> 1.0, "self-join(r=1)" -> 1.0,
      "point(x, r=3)" -> 3.0, "point(y, r=3)" -> 2.0, "point(z, r=3)" -> 3.0, "point(zz, r=3)" -> 0.0, "total(r=3)" -> 5.0, "self-join(r=3)" -> 13.0,
      "point(x, r=6)" -> 8.5, "point(y, r=6)" -> 4.0, "point(z, r=6)" -> 8.5, "point(zz, r=6)" -> 0.0, "total(r=6)" -> 12.5, "self-join(r=6)" -> 88.25,
      "point(x, r=100)" -> 17.0, "point(y, r=100)" -> 8.0, "point(z, r=100)" -> 17.0, "point(zz, r=100)" -> 0.0, "total(r=100)" -> 25.0, "self-join(r=100)" -> 353.0))
  }

  test("golden ecm-dwave (unbounded max_arrivals): decoded answers") {
    val s = decodeStored("ecm-dwave").asInstanceOf[EcmSketch]
    assert(s.cellName == "dwave" && s.maxArrivals == Long.MaxValue)
    checkAnswers("ecm-dwave", ecmAnswers(s, ecmDwRows, Seq(1L, 3L, 6L, 10L), 0, 99L), Seq(
      "merge depth" -> 0.0, "total weight" -> 30.0, "first ts" -> 1.0, "last ts" -> 15.0, "key type" -> 1.0,
      "point(2, r=1)" -> 0.0, "point(3, r=1)" -> 0.0, "point(1, r=1)" -> 1.0, "point(99, r=1)" -> 0.0, "total(r=1)" -> 1.0, "self-join(r=1)" -> 1.0,
      "point(2, r=3)" -> 2.0, "point(3, r=3)" -> 3.0, "point(1, r=3)" -> 1.0, "point(99, r=3)" -> 0.0, "total(r=3)" -> 6.0, "self-join(r=3)" -> 14.0,
      "point(2, r=6)" -> 4.0, "point(3, r=6)" -> 6.0, "point(1, r=6)" -> 2.0, "point(99, r=6)" -> 0.0, "total(r=6)" -> 12.0, "self-join(r=6)" -> 56.0,
      "point(2, r=10)" -> 6.0, "point(3, r=10)" -> 9.0, "point(1, r=10)" -> 4.0, "point(99, r=10)" -> 0.0, "total(r=10)" -> 19.0, "self-join(r=10)" -> 133.0))
  }

  test("golden ecm-dwave-u30 (max_arrivals 30): decoded answers") {
    val s = decodeStored("ecm-dwave-u30").asInstanceOf[EcmSketch]
    assert(s.cellName == "dwave" && s.maxArrivals == 30L)
    checkAnswers("ecm-dwave-u30", ecmAnswers(s, ecmDwRows, Seq(1L, 3L, 6L, 10L), 0, 99L), Seq(
      "merge depth" -> 0.0, "total weight" -> 30.0, "first ts" -> 1.0, "last ts" -> 15.0, "key type" -> 1.0,
      "point(2, r=1)" -> 0.0, "point(3, r=1)" -> 0.0, "point(1, r=1)" -> 1.0, "point(99, r=1)" -> 0.0, "total(r=1)" -> 1.0, "self-join(r=1)" -> 1.0,
      "point(2, r=3)" -> 2.0, "point(3, r=3)" -> 3.0, "point(1, r=3)" -> 1.0, "point(99, r=3)" -> 0.0, "total(r=3)" -> 6.0, "self-join(r=3)" -> 14.0,
      "point(2, r=6)" -> 4.0, "point(3, r=6)" -> 6.0, "point(1, r=6)" -> 2.0, "point(99, r=6)" -> 0.0, "total(r=6)" -> 12.0, "self-join(r=6)" -> 56.0,
      "point(2, r=10)" -> 6.0, "point(3, r=10)" -> 9.0, "point(1, r=10)" -> 4.0, "point(99, r=10)" -> 0.0, "total(r=10)" -> 19.0, "self-join(r=10)" -> 133.0))
  }

  test("golden ecm-rwave: decoded answers; sums over cells are refused") {
    val s = decodeStored("ecm-rwave").asInstanceOf[EcmSketch]
    assert(s.cellName == "rwave" && s.plan.cellDelta == 0.125 && s.depth == 2)
    checkAnswers("ecm-rwave", ecmAnswers(s, ecmRwRows, Seq(1L, 3L, 6L, 10L), 0, 99L), Seq(
      "merge depth" -> 0.0, "total weight" -> 18.0, "first ts" -> 1.0, "last ts" -> 12.0, "key type" -> 1.0,
      "point(2, r=1)" -> 0.0, "point(3, r=1)" -> 0.0, "point(1, r=1)" -> 1.0, "point(99, r=1)" -> 0.0,
      "point(2, r=3)" -> 1.0, "point(3, r=3)" -> 2.0, "point(1, r=3)" -> 1.0, "point(99, r=3)" -> 0.0,
      "point(2, r=6)" -> 3.0, "point(3, r=6)" -> 3.0, "point(1, r=6)" -> 3.0, "point(99, r=6)" -> 0.0,
      "point(2, r=10)" -> 4.0, "point(3, r=10)" -> 5.0, "point(1, r=10)" -> 6.0, "point(99, r=10)" -> 0.0))
    assert(intercept[SketchException](s.total(null, null)).getMessage.contains("needs deterministic cells"))
  }

  test("golden bundle-ecmb (partial aggregate): decoded runs, counters and answers") {
    val b = load("bundle-ecmb")
    val ing = Ingest.deserialize(bundleOps, bundleSpec.window, b)
    sameBytes("bundle-ecmb (re-encoded)", withoutChecksum(ing.serialize()), b)
    val again = Ingest.deserialize(bundleOps, bundleSpec.window, b)
    assert(again.dropped == 1 && again.late == 0)
    val s = again.result()
    val kept = (bundleRowsA ++ bundleRowsB.filter(_._1 != 5L)).sortBy(_._1)
    val answers = counterAnswers(s, kept, Seq(1L, 3L, 9L, 11L, 100L), 1)
    // the dropped row (ts 5, weight 5) counts in total weight and first ts, not in any range
    val fixed = answers.map {
      case a if a.label == "total weight" => a.copy(truth = a.truth + 5)
      case a if a.label == "first ts" => a.copy(truth = 5)
      case a => a
    }
    checkAnswers("bundle-ecmb", fixed, Seq(
      "merge depth" -> 1.0, "total weight" -> 35.0, "first ts" -> 5.0, "last ts" -> 150.0,
      "count(r=1)" -> 1.0, "count(r=3)" -> 1.0, "count(r=9)" -> 2.0, "count(r=11)" -> 4.0, "count(r=100)" -> 4.0))
  }

  test("golden bundle-ecmb-empty: an empty partial aggregate") {
    val b = load("bundle-ecmb-empty")
    val ing = Ingest.deserialize(bundleOps, bundleSpec.window, b)
    sameBytes("bundle-ecmb-empty (re-encoded)", withoutChecksum(ing.serialize()), b)
    val s = Ingest.deserialize(bundleOps, bundleSpec.window, b).result()
    assert(s.isEmpty && s.count == 0 && s.firstTs == Long.MaxValue && s.lastTs == Long.MinValue)
  }

  test("golden bundle-ecmm (merge aggregate): decoded parts and the answers of their merge") {
    val b = load("bundle-ecmm")
    val buf = MergeBuffer.deserialize(b)
    sameBytes("bundle-ecmm (re-encoded)", MergeBuffer.serialize(buf), b)
    assert(buf.parts.size == 2)
    val parts = buf.parts.toSeq.map(SketchCodec.decodeEh)
    parts.zip(buf.parts).foreach { case (p, bytes) => sameBytes("bundle-ecmm part (re-encoded)", withoutChecksum(SketchCodec.encode(p)), bytes) }
    parts.zip(Seq(ehMergedA, ehMergedB)).foreach { case (p, rows) => checkAllRanges("bundle-ecmm part", p, rows) }
    val s = EhSketch.merge(parts)
    val rows = (ehMergedA ++ ehMergedB).sortBy(_._1)
    checkAnswers("bundle-ecmm", counterAnswers(s, rows, Seq(1L, 4L, 10L, 25L, 50L), 1), Seq(
      "merge depth" -> 1.0, "total weight" -> 40.0, "first ts" -> 1.0, "last ts" -> 39.0,
      "count(r=1)" -> 1.0, "count(r=4)" -> 4.0, "count(r=10)" -> 11.5, "count(r=25)" -> 26.5, "count(r=50)" -> 40.0))
  }

  for ((name, build) <- GoldenInputs.v4Only)
    test(s"golden v4/$name: the fixed input encodes to the stored bytes, and without the checksum to release 0.2.0's") {
      val stored = loadV4(name)
      sameBytes(s"v4/$name", build(), stored)
      sameBytes(s"v4/$name (re-encoded)", SketchCodec.encodeAny(SketchCodec.decode(stored)), stored)
      // the bytes release 0.2.0 wrote for the same input: the same body, and they read to the same sketch
      val older = load(name)
      assert(older(4) == 1 && older.length == stored.length - 4)
      sameBytes(s"$name (without the checksum)", withoutChecksum(build()), older)
      sameBytes(s"$name (read, re-encoded)", SketchCodec.encodeAny(SketchCodec.decode(older)), stored)
    }

  for ((name, build) <- GoldenInputs.v4New)
    test(s"golden v4/$name: the fixed input encodes to the stored bytes, which re-encode unchanged") {
      val stored = loadV4(name)
      sameBytes(s"v4/$name", build(), stored)
      sameBytes(s"v4/$name (re-encoded)", SketchCodec.encodeAny(SketchCodec.decode(stored)), stored)
    }

  private val QuantilePinned = "r=10 q=0.1 25.5 n~20, r=10 q=0.5 81.0 n~20, r=10 q=0.9 121.5 n~20, " +
    "r=100 q=0.1 15.0 n~200, r=100 q=0.5 76.5 n~200, r=100 q=0.9 133.5 n~200, " +
    "r=300 q=0.1 13.5 n~595, r=300 q=0.5 75.0 n~595, r=300 q=0.9 133.5 n~595"
  // with no fold planned, a run spends the whole budget as body version 1's did: the same answers
  private val QuantileV2Pinned = QuantilePinned
  private val QuantileFoldedPinned = "r=10 q=0.1 24.0 n~60, r=10 q=0.5 55.0 n~60, r=10 q=0.9 103.0 n~60, " +
    "r=100 q=0.1 20.0 n~595, r=100 q=0.5 59.0 n~595, r=100 q=0.9 100.0 n~595, " +
    "r=300 q=0.1 19.0 n~1796, r=300 q=0.5 60.0 n~1796, r=300 q=0.9 101.0 n~1796"
  private val FrequentFoldedPinned = "r=20 k0 9.5 [8, 11], r=20 k1 7.5 [4, 11], r=20 k4 9.5 [8, 11], r=20 k16 9.5 [8, 11], " +
    "r=20 once-0-295 1.5 [0, 3], r=200 k0 76.0 [32, 120], r=200 k1 92.0 [64, 120], r=200 k4 60.0 [32, 88], " +
    "r=200 k16 60.0 [32, 88], r=200 once-0-295 28.0 [0, 56]"
  private val FrequentPinned = "r=20 k0 2.0 [2, 2], r=20 k1 2.0 [2, 2], r=20 k4 4.0 [4, 4], r=20 k16 4.0 [4, 4], " +
    "r=200 k0 18.0 [18, 18], r=200 k1 36.0 [34, 38], r=200 k4 36.0 [34, 38], r=200 k16 35.0 [35, 35], top2 k1/k13"

  /** Quantiles of ranges 10, 100 and 300 back from ts 400 within `eps` n of the exact ranks of
    * `rows` (ts, value, weight), rendered for pinning.
    */
  private def quantileAnswers(s: ecmsketch.quantile.QuantileSketch, rows: Seq[(Long, Double, Long)], eps: Double): String =
    (for (r <- Seq(10L, 100L, 300L); q <- Seq(0.1, 0.5, 0.9)) yield {
      val in = rows.filter(_._1 > 400L - r)
      val n = in.map(_._3).sum.toDouble
      val v = s.quantile(q, r, null).doubleValue
      val below = in.filter(_._2 < v).map(_._3).sum
      val atOrBelow = in.filter(_._2 <= v).map(_._3).sum
      // q n lies within eps n of the value's exact rank interval [below, atOrBelow]
      assert(q * n >= below - eps * n - 1e-9 && q * n <= atOrBelow + eps * n + 1e-9, s"r=$r q=$q: $v")
      assert(math.abs(s.count(r, null) - n) <= eps * n, s"count r=$r")
      f"r=$r q=$q $v%.1f n~${s.count(r, null)}%.0f"
    }).mkString(", ")

  private val quantileRows = (1 to 400).map(i => (i.toLong, 1.5 * ((i * 37) % 101), 1L + i % 3))

  test("golden v4/quantile (body version 1): read as runs of the whole budget, answers pinned") {
    val s = SketchCodec.decode(loadV4("quantile")).asInstanceOf[ecmsketch.quantile.QuantileSketch]
    assert(s.generations.forall(_ == ecmsketch.quantile.FoldPlan.Legacy))
    val got = quantileAnswers(s, quantileRows, 0.2)
    assert(got == QuantilePinned, got)
    // written again in body version 3, the runs keep their generation and answers
    val again = SketchCodec.decode(SketchCodec.encodeAny(s)).asInstanceOf[ecmsketch.quantile.QuantileSketch]
    assert(again.generations.forall(_ == ecmsketch.quantile.FoldPlan.Legacy) && quantileAnswers(again, quantileRows, 0.2) == got)
  }

  test("golden v4/quantile-v2 and quantile-folded (f64 values): rewritten as the body version 3 golden bytes") {
    // the same sketches: version 3 changes how values are written, not the sketch
    sameBytes("quantile-v2 re-encoded", SketchCodec.encodeAny(SketchCodec.decode(loadV4("quantile-v2"))), loadV4("quantile-v3"))
    sameBytes("quantile-folded re-encoded", SketchCodec.encodeAny(SketchCodec.decode(loadV4("quantile-folded"))), loadV4("quantile-v3-folded"))
  }

  test("golden v4/quantile-v2 and quantile-folded answers: within the certified rank error, and pinned") {
    val s = SketchCodec.decode(loadV4("quantile-v2")).asInstanceOf[ecmsketch.quantile.QuantileSketch]
    assert(s.generations.forall(_ == 0))
    val got = quantileAnswers(s, quantileRows, 0.2)
    assert(got == QuantileV2Pinned, got)
    val f = SketchCodec.decode(loadV4("quantile-folded")).asInstanceOf[ecmsketch.quantile.QuantileSketch]
    assert(f.generations == Seq(1))
    val rows = (0 until 3).flatMap(k => (1 to 400).map(i => (i.toLong, 10.0 * k + ((i * 37 + k) % 101), 1L + (i + k) % 3)))
    val folded = quantileAnswers(f, rows, 0.2)
    assert(folded == QuantileFoldedPinned, folded)
  }

  /** GoldenInputs.frequent's answers for ranges 20 and 200, checked against its rows, rendered for pinning. */
  private def frequentAnswers(s: ecmsketch.frequent.FrequentSketch): String = {
    val rows = (1 to 300).map(i => (s"k${(i * i) % 17}", i.toLong, 1L + i % 2))
    val got = for (r <- Seq(20L, 200L); key <- Seq("k0", "k1", "k4", "k16")) yield {
      val exact = rows.filter(x => x._1 == key && x._2 > 300L - r).map(_._3).sum
      val e = s.estimate(key, r, null)
      assert(e.lower <= exact && exact <= e.upper, s"r=$r $key: $exact outside [${e.lower}, ${e.upper}]")
      s"r=$r $key ${e.estimate} [${e.lower}, ${e.upper}]"
    }
    (got :+ s"top2 ${s.topK(2, 200L, null).map(_.key).mkString("/")}").mkString(", ")
  }

  test("golden v4/frequent-string answers: exact counts inside the certified intervals, and pinned") {
    val got = frequentAnswers(SketchCodec.decode(loadV4("frequent-string")).asInstanceOf[ecmsketch.frequent.FrequentSketch])
    assert(got == FrequentPinned, got)
  }

  test("golden v4/frequent-string (body version 1): read with its plan, written again unchanged, merged only with its own") {
    val stored = loadV4("frequent-string")
    val s = SketchCodec.decode(stored).asInstanceOf[ecmsketch.frequent.FrequentSketch]
    assert(!s.plan.folds && s.plan == ecmsketch.frequent.FreqPlan.legacy(0.1, 0))
    sameBytes("v4/frequent-string (re-encoded)", SketchCodec.encodeAny(s), stored)
    // merged with itself by the merge body version 1 had (no fold); refused beside a sketch of the current plan
    val again = SketchCodec.decode(stored).asInstanceOf[ecmsketch.frequent.FrequentSketch]
    val m = ecmsketch.frequent.FrequentSketch.merge(Seq(s, again))
    assert(!m.plan.folds && m.mergeDepth == 1 && m.estimate("k1", 200L, null).lower == 68L)
    val now = SketchCodec.decode(loadV4("frequent-v2")).asInstanceOf[ecmsketch.frequent.FrequentSketch]
    val e = intercept[SketchException](ecmsketch.frequent.FrequentSketch.merge(Seq(s, now)))
    assert(e.getMessage.contains("body version 1 vs 2 or 3") && e.getMessage.contains("older release"), e.getMessage)
  }

  test("golden v4/frequent-v2 and frequent-folded: rewritten as the body version 3 golden bytes, a quarter smaller") {
    // the same sketches: version 3 changes how entries and keys are written, not the sketch
    for ((v2, v3) <- Seq("frequent-v2" -> "frequent-v3", "frequent-folded" -> "frequent-v3-folded")) {
      val old = loadV4(v2)
      val now = SketchCodec.encodeAny(SketchCodec.decode(old))
      sameBytes(s"$v2 re-encoded", now, loadV4(v3))
      assert(now.length * 4 <= old.length * 3, s"$v3: ${now.length} bytes, $v2: ${old.length}")
    }
  }

  test("golden v4/frequent-v2 and frequent-folded answers: exact counts inside the certified intervals, and pinned") {
    val s = SketchCodec.decode(loadV4("frequent-v2")).asInstanceOf[ecmsketch.frequent.FrequentSketch]
    assert(s.plan.folds)
    // one sketch without merges: its plan at merge_levels 0 is body version 1's, and so are its answers
    val got = frequentAnswers(s)
    assert(got == FrequentPinned, got)
    val f = SketchCodec.decode(loadV4("frequent-folded")).asInstanceOf[ecmsketch.frequent.FrequentSketch]
    assert(f.mergeDepth == 1)
    val frows = (0 until 3).flatMap(k => (1 to 300).flatMap { i =>
      Seq((s"k${(i * i + k) % 17}", i.toLong, 1L + (i + k) % 2)) ++ (if (i % 5 == k) Seq((s"once-$k-$i", i.toLong, 1L)) else Nil)
    })
    val folded = for (r <- Seq(20L, 200L); key <- Seq("k0", "k1", "k4", "k16", "once-0-295")) yield {
      val in = frows.filter(_._2 > 300L - r)
      val exact = in.filter(_._1 == key).map(_._3).sum
      val e = f.estimate(key, r, null)
      assert(e.lower <= exact && exact <= e.upper, s"r=$r $key: $exact outside [${e.lower}, ${e.upper}]")
      assert(math.abs(e.estimate - exact) <= f.errorBound * in.map(_._3).sum, s"r=$r $key")
      s"r=$r $key ${e.estimate} [${e.lower}, ${e.upper}]"
    }
    assert(folded.mkString(", ") == FrequentFoldedPinned, folded.mkString(", "))
  }

  test("golden v4 bundles decode to the merges of their older files") {
    def ecmb(b: Array[Byte]): Array[Byte] = SketchCodec.encodeAny(Ingest.deserialize(bundleOps, bundleSpec.window, b).result())
    for (name <- Seq("bundle-ecmb", "bundle-ecmb-empty")) {
      sameBytes(s"v4/$name (re-encoded)", Ingest.deserialize(bundleOps, bundleSpec.window, loadV4(name)).serialize(), loadV4(name))
      sameBytes(s"v4/$name (result)", ecmb(loadV4(name)), ecmb(load(name)))
    }
    def ecmm(b: Array[Byte]): Array[Byte] = SketchCodec.encode(EhSketch.merge(MergeBuffer.deserialize(b).parts.toSeq.map(SketchCodec.decodeEh)))
    sameBytes("v4/bundle-ecmm (result)", ecmm(loadV4("bundle-ecmm")), ecmm(load("bundle-ecmm")))
  }

  // ------------------------------------------------------------------ level hash

  /** Reference implementation of docs/design/rwave.md "Level hash", in BigInt arithmetic. */
  private object LevelOracle {
    val p = (BigInt(1) << 61) - 1
    private val two64 = BigInt(1) << 64
    private def unsigned(x: Long) = if (x < 0) BigInt(x) + two64 else BigInt(x)
    private def mix(v: Long): Long = {
      var z = v
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL
      z ^ (z >>> 31)
    }
    /** (a_i, b_i) from SplitMix64 seeded with seed ^ "RWAVELEV". */
    def coefficients(seed: Long, r: Int): Seq[Long] = {
      var state = seed ^ 0x52574156454C4556L
      def next(): BigInt = { state += 0x9E3779B97F4A7C15L; unsigned(mix(state)) }
      (0 until r).flatMap { _ => val a = next() % (p - 1) + 1; val b = next() % p; Seq(a.toLong, b.toLong) }
    }
    def hash(a: Long, b: Long, id: Long): BigInt = (BigInt(a) * (unsigned(id) % p) + BigInt(b)) % p
    def level(a: Long, b: Long, id: Long): Int = math.min(60, 61 - hash(a, b, id).bitLength)
    /** The id whose hash under (a, b) is t. */
    def idFor(a: Long, b: Long, t: BigInt): Long = (((t - b) % p + p) * BigInt(a).modInverse(p) % p).toLong
  }

  private val hashSeeds = Seq(0L, 3L, 7L, 11L, EcmSketch.DefaultSeed, -1L)
  private val hashIds = Seq(0L, 1L, 2L, 42L, -1L, Long.MaxValue, Long.MinValue, Hashing.MersenneP, Hashing.MersenneP + 1,
    Hashing.fingerprintLong(1L), Hashing.fingerprintString("a"), 0x0123456789ABCDEFL)

  test("golden level hash of randomized waves: coefficients and levels for fixed seeds and ids") {
    // seed -> ((a_0, b_0, a_1, b_1, a_2, b_2), levels of hashIds in instances 0, 1, 2)
    val pinned: Map[Long, (Seq[Long], Seq[Seq[Int]])] = Map(
      0L -> (Seq(0x399d419063ca9a0L, 0x1e3f8bdaf3ef8df1L, 0x8242a797a690410L, 0x1247ac552be3b837L, 0x1f9527827ac9cb08L, 0xf106cfe0145e409L),
        Seq(Seq(0, 4, 2, 0, 0, 1, 1, 0, 4, 0, 0, 2), Seq(0, 0, 3, 1, 1, 1, 0, 0, 0, 2, 3, 0), Seq(1, 1, 1, 0, 1, 1, 1, 1, 1, 3, 0, 1))),
      3L -> (Seq(0x1495d71049bf2c49L, 0x88efcefe5f2ca62L, 0xfdfd068a4b8a74L, 0x5f7df8068fedcf1L, 0xea5c12a4fd1aa4cL, 0x19fb26c8317d3844L),
        Seq(Seq(1, 0, 0, 1, 0, 2, 0, 1, 0, 1, 1, 2), Seq(2, 2, 2, 1, 1, 1, 1, 2, 2, 6, 0, 0), Seq(0, 1, 0, 4, 5, 2, 0, 0, 1, 4, 0, 3))),
      7L -> (Seq(0x959e4b9ddea3462L, 0x3a8883ab4a0fbe8L, 0x1d6182005baef063L, 0x340359606b53aceL, 0x1a04233e9d7efeddL, 0x47a372622e25c3L),
        Seq(Seq(3, 1, 0, 1, 2, 0, 1, 3, 1, 0, 0, 1), Seq(3, 5, 0, 0, 0, 0, 0, 3, 5, 2, 2, 0), Seq(6, 0, 0, 2, 0, 1, 1, 6, 0, 2, 0, 0))),
      11L -> (Seq(0x21a2ff48561afc2L, 0x13552f6cdb18965eL, 0x9b498babc00f0dbL, 0x14751dea97eea97cL, 0x1fe3bef75c4ad0e5L, 0xb013946056905bdL),
        Seq(Seq(0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 1), Seq(0, 0, 2, 1, 0, 0, 0, 0, 0, 1, 1, 2), Seq(1, 1, 1, 2, 1, 1, 1, 1, 1, 0, 0, 3))),
      0x5EED5EEDL -> (Seq(0x1d7440140255a687L, 0x102eec5b86de48L, 0x111552c5002f106eL, 0x613882920417d48L, 0x359a99b7c18c771L, 0x1eab208e191d1c44L),
        Seq(Seq(8, 0, 0, 0, 1, 0, 0, 8, 0, 4, 1, 1), Seq(2, 0, 1, 0, 0, 0, 1, 2, 0, 1, 0, 0), Seq(0, 3, 2, 1, 0, 1, 1, 0, 3, 1, 0, 0))),
      -1L -> (Seq(0x94fa6f5ce581345L, 0x16d97af289f0009cL, 0x244c2ab91254a76L, 0x7648748ec868827L, 0x1bca978e4a3ab5a6L, 0x336c668b822a4e0L),
        Seq(Seq(0, 7, 1, 0, 0, 0, 0, 0, 7, 0, 0, 1), Seq(2, 1, 1, 2, 0, 1, 0, 2, 1, 2, 0, 2), Seq(3, 0, 0, 0, 2, 0, 0, 3, 0, 0, 0, 0))))
    for (seed <- hashSeeds) {
      val cfg = RwConfig(0.5, 0.1, 100L, seed)
      val (co, levels) = pinned(seed)
      assert(RwTestUtil.levelCoefficients(cfg).take(6) == co, s"seed $seed: level-hash coefficients changed")
      assert(co == LevelOracle.coefficients(seed, 3), s"seed $seed: pinned coefficients disagree with the reference")
      for (i <- 0 until 3; (id, k) <- hashIds.zipWithIndex) {
        val l = RwTestUtil.levelOf(cfg, i, id)
        assert(l == levels(i)(k), s"seed $seed instance $i id $id: level $l, pinned ${levels(i)(k)}")
        assert(l == LevelOracle.level(co(2 * i), co(2 * i + 1), id), s"seed $seed instance $i id $id: level $l disagrees with the reference")
      }
    }
    // ids with a chosen hash t pin the level map min(60, nlz(t) - 3) at its edges
    val cfg = RwConfig(0.5, 0.1, 100L, 7L)
    val co = pinned(7L)._1
    for ((t, level) <- Seq(BigInt(0) -> 60, BigInt(1) -> 60, BigInt(2) -> 59, BigInt(3) -> 59, (BigInt(1) << 30) -> 30,
                           (BigInt(1) << 59) -> 1, (BigInt(1) << 60) -> 0, (LevelOracle.p - 1) -> 0); i <- 0 until 3) {
      val id = LevelOracle.idFor(co(2 * i), co(2 * i + 1), t)
      assert(LevelOracle.hash(co(2 * i), co(2 * i + 1), id) == t)
      assert(RwTestUtil.levelOf(cfg, i, id) == level, s"instance $i t $t id $id")
    }
  }
}

object GoldenSuite {
  /** One answer of a decoded sketch: |value - truth| <= bound is required. A refused query
    * (SketchException naming max_arrivals) has value NaN.
    */
  final case class Answer(label: String, value: Double, truth: Double, bound: Double)
}
