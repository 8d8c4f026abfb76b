package ecmsketch.format

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.Families
import ecmsketch.core.{Codec, SketchException, WindowSpec}
import ecmsketch.format.GoldenInputs.{hex, load, loadV4, withoutChecksum}
import ecmsketch.ingest.{Ingest, SketchOps}
import ecmsketch.window.EhSketch

/** Stored bytes of every format version stay readable, and newer versions are refused clearly:
  *  - every golden sketch file (formats 1, 3 and 4, GoldenSuite) decodes and `sketch_info` describes it;
  *  - the partial-aggregate bundle exists in versions 1 (golden bundle-ecmb) and 2 (a bundle that
  *    holds a fine side run, golden bundle-ecmb-v2 here); both are read, and their merged results
  *    are described and answer within their bound;
  *  - format version 2 (a segmented EH cell, from a time-disjoint merge): golden eh-segmented and
  *    ecm-eh-segmented are read, described as version 2, and answer within the bound of depth 0;
  *  - a sketch, bundle or merge buffer with a version byte newer than this build reads is refused
  *    with a message that names the version and says a newer release wrote it.
  */
class FormatVersionsSuite extends AnyFunSuite {
  import FormatVersionsSuite._

  private val sketchFiles = Seq("eh", "eh-count", "eh-merged", "dwave", "dwave-overflow", "distinct-small",
    "distinct-full", "ecm-eh", "ecm-eh-micros", "ecm-eh-merged", "ecm-dwave", "ecm-dwave-u30", "ecm-rwave")

  test("sketch_info describes every golden sketch of formats 1, 3 (randomized waves planned by version 0.2.0) and 4") {
    sketchFiles.foreach { name =>
      val b = load(name)
      val version = if (Set("distinct-small", "distinct-full", "ecm-rwave")(name)) 3 else 1
      assert(b(4) == version, s"$name: format version byte")
      val s = SketchCodec.decode(b)
      val d = Families.info(s, b)
      assert(d("format_version") == version && d("checksum") == false && d("size_bytes") == b.length && d("merge_depth") == s.mergeDepth, name)
      val d4 = Families.info(s, loadV4(name))
      assert(d4("format_version") == 4 && d4("checksum") == true && d4("size_bytes") == b.length + 4, name)
      assert(Families.info(s) == d4, name)
      assert(d("kind") != null && d("total_weight") == s.count && d("error_bound").asInstanceOf[Double] >= 0.0, name)
      assert(Families.infoFields.forall(d.contains), s"$name: missing fields")
    }
  }

  test("golden eh-segmented and ecm-eh-segmented (format version 2): stored bytes, described, answers within the bound of depth 0") {
    for ((name, build) <- v2Sketches) {
      val b = load(name)
      assert(java.util.Arrays.equals(withoutChecksum(build()), b), s"$name: bytes changed; now ${hex(build())}")
      assert(java.util.Arrays.equals(build(), loadV4(name)), s"v4/$name: bytes changed; now ${hex(build())}")
      assert(b(4) == 2, s"$name: format version byte")
      val s = SketchCodec.decode(b)
      assert(java.util.Arrays.equals(SketchCodec.encodeAny(s), loadV4(name)), s"$name: re-encoded")
      assert(Codec.layoutVersion(SketchCodec.decode(loadV4(name))) == 2, s"v4/$name: segmented")
      val d = Families.info(s, b)
      assert(d("format_version") == 2 && d("merge_depth") == 0 && d("size_bytes") == b.length, name)
      val last = segRows.flatten.map(_._1).max
      val all = segRows.flatten
      for (r <- 1L to 50L) {
        val truth = all.filter(_._1 > last - r).map(_._2).sum.toDouble
        val (est, bound) = s match {
          case e: EhSketch => (e.count(r, null), e.errorBound)
          case e: ecmsketch.ecm.EcmSketch => (e.total(r, null), e.totalErrorBound)
          case other => fail(s"unexpected ${other.getClass}")
        }
        assert(math.abs(est - truth) <= bound * truth + 1e-9, s"$name r=$r est=$est truth=$truth")
      }
    }
  }

  test("golden bundle-ecmb-v2 (a partial aggregate holding a fine side run): stored bytes, version 2, answers within the bound") {
    assert(java.util.Arrays.equals(withoutChecksum(bundleV2()), load("bundle-ecmb-v2")), s"bytes changed; now ${hex(bundleV2())}")
    assert(java.util.Arrays.equals(bundleV2(), loadV4("bundle-ecmb-v2")), s"v4 bytes changed; now ${hex(bundleV2())}")
    val b = load("bundle-ecmb-v2")
    assert(b(4) == 2, "bundle version byte")
    val s = Ingest.deserialize(ops, spec.window, b).result()
    assert(s.mergeDepth == 1 && s.errorBound <= 0.25 + 1e-12)
    val d = Families.info(s)
    assert(d("format_version") == 4 && d("checksum") == true && d("merge_depth") == 1)
    val rows = v2Rows.sortBy(_._1)
    val last = rows.last._1
    assert(s.count == rows.map(_._2).sum && s.lastTs == last && s.firstTs == rows.head._1)
    for (r <- 1L to last + 1 by 37) {
      val truth = rows.filter(_._1 > last - r).map(_._2).sum.toDouble
      assert(math.abs(s.count(r, null) - truth) <= s.errorBound * truth + 1e-9, s"r=$r")
    }
    // the version-1 golden bundle is still read beside it
    assert(load("bundle-ecmb")(4) == 1 && Ingest.deserialize(GoldenInputs.bundleOps, GoldenInputs.bundleSpec.window, load("bundle-ecmb")).result().mergeDepth == 1)
  }

  test("a newer version than this build reads is refused, naming the version and the newer writer") {
    def refusal(f: => Any): String = intercept[SketchException](f).getMessage
    val sk = load("ecm-eh").clone(); sk(4) = 5
    val m1 = refusal(SketchCodec.decode(sk))
    assert(m1.startsWith("unsupported sketch format version 5 (this library reads versions 1 to 4") && m1.contains("newer release"), m1)
    val old = load("ecm-eh").clone(); old(4) = 0
    assert(!refusal(SketchCodec.decode(old)).contains("newer"))
    val bu = load("bundle-ecmb-v2").clone(); bu(4) = 5
    val m2 = refusal(Ingest.deserialize(ops, spec.window, bu))
    assert(m2.contains("unknown bundle version 5 (this build reads 1 to 4") && m2.contains("newer release"), m2)
    val mb = load("bundle-ecmm").clone(); mb(4) = 2
    val m3 = refusal(MergeBuffer.deserialize(mb))
    assert(m3.contains("unknown merge buffer version 2") && m3.contains("newer release"), m3)
  }
}

object FormatVersionsSuite {
  /** eh_agg, time window 1,000,000, epsilon 0.25 after 1 merge level. */
  val spec = WindowSpec(countWindow = false, tsMicros = false, window = 1000000L)
  def ops: SketchOps[EhSketch] = SketchOps.eh(() => EhSketch.create(spec, 0.25, 1))
  /** 20,000 rows in time order (ts 0..19,999, weight 1 or 2), then 300 rows back at ts 100..399
    * (weight 3): the reorder buffer has moved the main run past them, so they are late rows and go
    * into a fine side run, and the bundle is written as version 2.
    */
  val v2Rows: Seq[(Long, Long)] = (0L until 20000L).map(t => (t, 1L + t % 2)) ++ (100L until 400L).map(t => (t, 3L))
  def bundleV2(): Array[Byte] = {
    val ing = new Ingest(ops, spec.window)
    v2Rows.foreach { case (t, v) => ing.add(0L, t, v) }
    val b = ing.serialize()
    assert(ing.late == 300 && ing.fineSideRuns && ing.sideRunCount == 1)
    b
  }

  /** Three consecutive days (window 50, ts 1..16, 16..32 with a seam at 16, 33..48; weight 1, or 3 at
    * multiples of 7), merged as a roll-up: time-disjoint, so laid side by side (format version 2).
    */
  val segSpec = WindowSpec(countWindow = false, tsMicros = false, window = 50L)
  val segRows: Seq[Seq[(Long, Long)]] = Seq(1L to 16L, 16L to 32L, 33L to 48L).map(_.map(t => (t, if (t % 7 == 0) 3L else 1L)))
  def ehSegmented(): Array[Byte] = SketchCodec.encode(EhSketch.merge(segRows.map { rows =>
    val s = EhSketch.create(segSpec, 0.3, 1); rows.foreach { case (t, w) => s.add(t, w) }; s
  }))
  def ecmSegmented(): Array[Byte] = SketchCodec.encode(ecmsketch.ecm.EcmSketch.merge(segRows.map { rows =>
    val s = ecmsketch.ecm.EcmSketch.create(segSpec, 0.3, 0.3, ecmsketch.ecm.QueryKind.Point, 1, 42L)
    rows.foreach { case (t, w) => s.add(t % 3, t, w) }; s
  }))
  val v2Sketches: Seq[(String, () => Array[Byte])] = Seq("eh-segmented" -> (() => ehSegmented()), "ecm-eh-segmented" -> (() => ecmSegmented()))

  /** Writes the golden files of this suite (run once with core/Test/runMain ecmsketch.format.FormatVersionsSuite). */
  def main(args: Array[String]): Unit = {
    val files = Seq(("bundle-ecmb-v2", "partial-aggregate bundle version 2 (FormatVersionsSuite.bundleV2)", () => bundleV2()),
      ("eh-segmented", "sketch format version 2: EH roll-up of three days (FormatVersionsSuite.ehSegmented)", () => ehSegmented()),
      ("ecm-eh-segmented", "sketch format version 2: ECM (EH cells) roll-up of three days (FormatVersionsSuite.ecmSegmented)", () => ecmSegmented()))
    for ((name, title, build) <- files; if args.isEmpty || args.contains(name)) {
      val path = java.nio.file.Paths.get(s"jvm/core/src/test/resources/golden/$name.hex")
      val text = s"# $title\n" + hex(build()).grouped(64).mkString("\n") + "\n"
      java.nio.file.Files.write(path, text.getBytes("US-ASCII"))
      println(s"wrote $path")
    }
  }
}
