package ecmsketch.format

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.Families
import ecmsketch.core.{Codec, SketchException, WindowSpec}
import ecmsketch.ecm.{EcmSketch, QueryKind}
import ecmsketch.format.GoldenInputs._
import ecmsketch.rwave.DistinctSketch

/** Format version 4's checksum (docs/FORMAT.md, "Header"): every sketch is written with it, and no
  * change to the bytes of a written sketch decodes to an answer.
  *
  * The tamper campaign mutates one sketch of every kind (and of every cell kind, window type and
  * layout) at every region of its bytes: the common header, the checksum, the start, middle and end
  * of the body, with bit flips, byte overwrites, truncations, extensions, insertions and deletions.
  * Every mutant must be refused with the library's SketchException and one of its three messages,
  * never decoded, and never with another exception.
  */
class ChecksumSuite extends AnyFunSuite {

  /** One sketch of every kind, cell kind, window type and layout, each with rows. */
  private lazy val sketches: Seq[(String, Array[Byte])] = {
    val rnd = new Random(11)
    val bigEcm = EcmSketch.create(WindowSpec(countWindow = false, tsMicros = false, window = 500), 0.1, 0.1, QueryKind.Point, 1, 3L)
    (0 until 3000).foreach(i => bigEcm.add(rnd.nextInt(200).toLong, i.toLong / 3, 1L + rnd.nextInt(3)))
    val bigDistinct = DistinctSketch.create(WindowSpec(countWindow = false, tsMicros = false, window = 1000), 0.2, 0.1, 5L)
    (0 until 3000).foreach(i => bigDistinct.add(s"v${rnd.nextInt(900)}", i.toLong))
    (GoldenInputs.all.filterNot(_._1.startsWith("bundle")) ++ GoldenInputs.v4Only ++ FormatVersionsSuite.v2Sketches)
      .map { case (n, b) => n -> b() } ++
      Seq("ecm-random" -> Codec.encodeAny(bigEcm), "distinct-random" -> Codec.encodeAny(bigDistinct))
  }

  private val CleanPrefixes = Seq("corrupt sketch: ", "not an ecmsketch sketch", "unsupported sketch format version")

  /** The message of the SketchException `b` is refused with; fails on acceptance or any other exception. */
  private def refusal(name: String, what: String, b: Array[Byte]): String = {
    val m = try {
      val s = Families.decode(b)
      fail(s"$name: mutant ($what) decoded to ${Families.describe(s)}")
    } catch {
      case e: SketchException => e.getMessage
    }
    assert(CleanPrefixes.exists(m.startsWith), s"$name ($what): $m")
    m
  }

  test("every writer writes format version 4 with flag bit 3 and the CRC32C of the other bytes") {
    for ((name, b) <- sketches) {
      assert(b(4) == Codec.ChecksumVersion && (b(7) & Codec.ChecksumFlag) != 0, name)
      val crc = new java.util.zip.CRC32C()
      crc.update(b, 0, 60)
      crc.update(b, 64, b.length - 64)
      val stored = java.nio.ByteBuffer.wrap(b, 60, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt
      assert(stored == crc.getValue.toInt, name)
      val d = Families.info(Families.decode(b), b)
      assert(d("format_version") == 4 && d("checksum") == true && d("size_bytes") == b.length, name)
    }
  }

  test("a checksum mismatch is refused before any other field is read, naming both checksums") {
    val b = loadV4("eh").clone()
    b(b.length - 1) = (b(b.length - 1) ^ 1).toByte
    val m = refusal("eh", "last byte", b)
    assert(m.startsWith("corrupt sketch: checksum mismatch (stored 0x") && m.contains(", computed 0x"), m)
    // a header field outside its range is a checksum mismatch too: nothing is read before the check
    val w = loadV4("eh").clone(); w(15) = 0x80.toByte // window < 0
    assert(refusal("eh", "window", w).startsWith("corrupt sketch: checksum mismatch"))
    val short = loadV4("eh").take(63)
    assert(refusal("eh", "63 bytes", short).contains("63 bytes is too short for a version-4 sketch"))
  }

  test("a version byte changed to 1, 2 or 3 is refused by the checksum flag, whatever the body") {
    for ((name, b) <- sketches; v <- 1 to 3) {
      val c = b.clone(); c(4) = v.toByte
      assert(refusal(name, s"version $v", c).contains("unknown flag bits 8"), name)
    }
    // and a version-4 header without the flag is refused even with a matching checksum
    val c = loadV4("eh").clone()
    c(7) = (c(7) & ~Codec.ChecksumFlag).toByte
    assert(refusal("eh", "no flag", resealed(c)).contains("without its checksum flag"))
  }

  test("tamper campaign: 3,000+ mutants of every kind, at every region of the bytes, are all refused") {
    val rnd = new Random(20261127L)
    var mutants = 0
    val byKind = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
    for ((name, b) <- sketches) {
      val n = b.length
      // regions: header, checksum, body start, body middle, body end (every sketch has a body)
      val mid = (64 + n) / 2
      val regions = Seq((0, 60), (60, 64), (64, math.min(n, 96)), (math.max(64, mid - 16), math.min(n, mid + 16)), (math.max(64, n - 16), n))
      assert(regions.forall { case (lo, hi) => hi > lo }, s"$name: $n bytes")
      def at(r: (Int, Int)): Int = r._1 + rnd.nextInt(r._2 - r._1)
      for (r <- regions; k <- 0 until 6) {
        val i = at(r)
        val flip = b.clone(); flip(i) = (flip(i) ^ (1 << rnd.nextInt(8))).toByte
        val over = b.clone(); over(i) = (over(i) ^ (1 + rnd.nextInt(255))).toByte
        val trunc = b.take(i)
        val ins = b.take(i) ++ Array(rnd.nextInt(256).toByte) ++ b.drop(i)
        val del = b.take(i) ++ b.drop(i + 1)
        val ext = b ++ Array.fill(1 + rnd.nextInt(8))(rnd.nextInt(256).toByte)
        for ((what, m) <- Seq("bit flip" -> flip, "overwrite" -> over, "truncation" -> trunc, "insertion" -> ins,
                              "deletion" -> del, "extension" -> ext)) {
          refusal(name, s"$what at byte $i of $n", m)
          mutants += 1
          byKind(name) += 1
        }
      }
    }
    info(s"$mutants mutants of ${sketches.size} sketches (${sketches.map(_._2.length).min} to ${sketches.map(_._2.length).max} bytes), all refused")
    assert(mutants == sketches.size * 180 && mutants >= 3000, s"$mutants mutants")
    assert(byKind.size == sketches.size && byKind.values.forall(_ == 180), byKind)
  }

  /** `b` with its checksum computed again: a version-4 sketch whose fields were changed on purpose. */
  private def resealed(b: Array[Byte]): Array[Byte] = {
    val c = b.clone()
    val crc = Codec.checksum(c)
    (0 until 4).foreach(i => c(Codec.ChecksumOffset + i) = (crc >>> (8 * i)).toByte)
    c
  }

  test("behind a matching checksum, version 4 still checks every field, and its own rules") {
    // a field out of range is refused by its own check
    val w = loadV4("eh").clone(); java.util.Arrays.fill(w, 8, 16, 0.toByte)
    assert(refusal("eh", "window 0, resealed", resealed(w)).contains("window 0 is not positive"))
    // randomized-wave instances of version 0.1.0's plan are read from versions 1 and 3 only: a
    // version-4 writer plans the current instances
    for ((name, planned) <- Seq("distinct-small" -> 3, "ecm-rwave" -> 3)) {
      val old = load(s"legacy/$name-v0.1.0")
      val asV4 = old.take(Codec.HeaderSize) ++ Array.fill[Byte](4)(0) ++ old.drop(Codec.HeaderSize)
      asV4(4) = Codec.ChecksumVersion.toByte
      asV4(7) = (asV4(7) | Codec.ChecksumFlag).toByte
      val m = refusal(name, "0.1.0 instances in version 4", resealed(asV4))
      assert(m.contains("format version 4 with") && m.contains(s"expected $planned"), m)
    }
    // segmented cells need no version of their own in version 4
    assert(Codec.layoutVersion(Families.decode(loadV4("ecm-eh-segmented"))) == 2)
  }

  test("a version byte changed to an unknown version is called corrupt, not a newer release's") {
    for ((name, b) <- sketches; v <- Seq(0, 5, 12, 132)) {
      val c = b.clone(); c(4) = v.toByte
      val m = refusal(name, s"version $v", c)
      assert(m.startsWith(s"corrupt sketch: checksum mismatch: the format version byte reads $v"), m)
    }
    // bytes that a newer release wrote (their checksum covers version byte 5) are refused as its
    val newer = loadV4("eh").clone(); newer(4) = 5
    val m = intercept[SketchException](Families.decode(resealed(newer))).getMessage
    assert(m.startsWith("unsupported sketch format version 5 (this library reads versions 1 to 4") && m.contains("newer release"), m)
  }

  test("partial bundles end with a checksum: every mutant is refused as a corrupt partial aggregate") {
    val rnd = new Random(7)
    val bundles = Seq(GoldenInputs.bundle(), GoldenInputs.bundleEmpty(), FormatVersionsSuite.bundleV2())
    assert(bundles.map(_(4).toInt) == Seq(3, 3, 4))
    var mutants = 0
    for ((b, k) <- bundles.zipWithIndex; _ <- 0 until 200) {
      val i = rnd.nextInt(b.length)
      val m = rnd.nextInt(4) match {
        case 0 => val c = b.clone(); c(i) = (c(i) ^ (1 << rnd.nextInt(8))).toByte; c
        case 1 => val c = b.clone(); c(i) = (c(i) ^ (1 + rnd.nextInt(255))).toByte; c
        case 2 => b.take(i)
        case _ => b ++ Array.fill(1 + rnd.nextInt(8))(rnd.nextInt(256).toByte)
      }
      val (ops, window) = if (k < 2) (GoldenInputs.bundleOps, GoldenInputs.bundleSpec.window) else (FormatVersionsSuite.ops, FormatVersionsSuite.spec.window)
      val e = intercept[SketchException](ecmsketch.ingest.Ingest.deserialize(ops, window, m).result())
      assert(e.getMessage.startsWith("corrupt partial aggregate: ") || e.getMessage.startsWith("corrupt sketch: "), e.getMessage)
      mutants += 1
    }
    assert(mutants == 600)
  }
}

/** Writes the missing golden/v4 files: `core/Test/runMain ecmsketch.format.WriteGolden <golden dir>/v4`. */
object WriteGolden {
  def main(args: Array[String]): Unit = {
    val cases = GoldenInputs.all ++ GoldenInputs.v4Only ++ GoldenInputs.v4New ++ FormatVersionsSuite.v2Sketches :+
      ("bundle-ecmb-v2" -> (() => FormatVersionsSuite.bundleV2()))
    val written = GoldenInputs.writeMissingV4(new java.io.File(args.headOption.getOrElse("jvm/core/src/test/resources/golden/v4")), cases)
    println(if (written.isEmpty) "every golden v4 file exists" else s"wrote ${written.mkString(", ")}")
  }
}
