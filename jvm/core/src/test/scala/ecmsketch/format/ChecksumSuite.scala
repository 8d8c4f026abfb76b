package ecmsketch.format

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.core.{Codec, SketchDescription, SketchException, WindowSpec}
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
      val s = Codec.decode(b)
      fail(s"$name: mutant ($what) decoded to ${ecmsketch.core.Registry.describe(s)}")
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
      val d = SketchDescription.describe(Codec.decode(b), b)
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
    val crc = Codec.checksum(c)
    (0 until 4).foreach(i => c(60 + i) = (crc >>> (8 * i)).toByte)
    assert(refusal("eh", "no flag", c).contains("without its checksum flag"))
  }

  test("tamper campaign: 3,000+ mutants of every kind, at every region of the bytes, are all refused") {
    val rnd = new Random(20261127L)
    var mutants = 0
    val byKind = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
    for ((name, b) <- sketches) {
      val n = b.length
      // regions: header, checksum, body start, body middle, body end
      val regions = Seq((0, 60), (60, 64), (64, math.min(n, 96)), (math.max(64, n / 2 - 16), math.min(n, n / 2 + 16)), (math.max(64, n - 16), n))
        .filter { case (lo, hi) => hi > lo }
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
    assert(mutants >= 3000, s"only $mutants mutants")
    assert(byKind.size == sketches.size && byKind.values.forall(_ >= 72), byKind)
  }
}
