package ecmsketch.format

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.core.{SketchException, WindowSpec}
import ecmsketch.ecm.{EcmSketch, QueryKind}
import ecmsketch.format.SketchCodec
import ecmsketch.ingest.{Ingest, SketchOps}
import ecmsketch.eh.EhSketch

import scala.util.Random

class CodecSuite extends AnyFunSuite with DecodedChecks {
  def hex(b: Array[Byte]): String = b.map(x => f"${x & 0xFF}%02x").mkString

  def randomEcm(rnd: Random, spec: WindowSpec, n: Int): EcmSketch = {
    val s = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, rnd.nextLong())
    var t = rnd.nextInt(1000).toLong - 500
    for (_ <- 0 until n) { t += (if (spec.countWindow) 1 + rnd.nextInt(2) else rnd.nextInt(3)); s.add(rnd.nextInt(50).toLong, t, 1L + rnd.nextInt(3)) }
    s
  }

  def randomEh(rnd: Random, spec: WindowSpec, n: Int): EhSketch = {
    val s = EhSketch.create(spec, 0.05, 1)
    var t = 0L
    for (_ <- 0 until n) { t += (if (spec.countWindow) 1 + rnd.nextInt(3) else rnd.nextInt(4)); s.add(t, rnd.nextInt(100).toLong) }
    s
  }

  val specs = Seq(WindowSpec(false, false, 1000), WindowSpec(false, true, 3600L * 1000000), WindowSpec(true, false, 500),
    WindowSpec(false, false, Long.MaxValue))

  test("round trip: decode(encode(s)) re-encodes to the same bytes and answers the same") {
    val rnd = new Random(11)
    for (spec <- specs; n <- Seq(0, 1, 10, 3000)) {
      val e = randomEcm(rnd, spec, n)
      val b = SketchCodec.encode(e)
      val d = SketchCodec.decodeEcm(b)
      assert(java.util.Arrays.equals(SketchCodec.encode(d), b))
      for (k <- 0L until 50L) assert(d.point(k, null, null) == e.point(k, null, null))
      assert(d.selfJoin(null, null) == e.selfJoin(null, null))
      assert(d.mergeDepth == e.mergeDepth && d.keyType == e.keyType && d.count == e.count)
      val h = randomEh(rnd, spec, n)
      val hb = SketchCodec.encode(h)
      val hd = SketchCodec.decodeEh(hb)
      assert(java.util.Arrays.equals(SketchCodec.encode(hd), hb))
      assert(hd.count(null, null) == h.count(null, null))
    }
    val m = EcmSketch.merge(Seq.fill(3)(randomEcm(new Random(5), specs.head, 500)))
    assert(SketchCodec.decodeEcm(SketchCodec.encode(m)).mergeDepth == 1)
  }

  private def refusal(b: Array[Byte]): String = intercept[SketchException](SketchCodec.decode(b)).getMessage

  /** Flips every bit of the first `exhaustive` bytes, then `random` random bits of the rest; every
    * result must be refused or decode to a sketch that passes [[DecodedChecks]]. Flips of the magic
    * and version bytes must be refused with the documented message. Returns the number of refused
    * flips among the exhaustive ones and among the random ones.
    */
  def flipAll(b: Array[Byte], exhaustive: Int, random: Int, rnd: Random): (Int, Int) = {
    def refused(i: Int, bit: Int): Boolean = {
      val c = b.clone(); c(i) = (c(i) ^ (1 << bit)).toByte
      if (i < 5 || (i == 7 && bit >= 3)) {
        val m = refusal(c)
        val expected = if (i < 4) "not an ecmsketch sketch: bad magic bytes" else if (i == 4) "unsupported sketch format version"
          else "corrupt sketch: unknown flag bits"
        // a flip into another version this library reads (1 to 3) names the mismatch instead
        assert(m.startsWith(expected) || (i == 4 && m.startsWith("corrupt sketch: format version")), s"flip of bit $bit of byte $i: $m")
      }
      decodeChecked(c).isEmpty
    }
    val h = (for (i <- 0 until exhaustive; bit <- 0 until 8) yield refused(i, bit)).count(identity)
    val r = (0 until random).count(_ => refused(exhaustive + rnd.nextInt(b.length - exhaustive), rnd.nextInt(8)))
    (h, r)
  }

  test("fuzzed decode: truncations, bit flips, garbage and hostile headers fail cleanly; whatever decodes is a valid sketch") {
    val rnd = new Random(99)
    // segmented sketches (format version 2): time-disjoint merges of consecutive pieces
    def later(e: EcmSketch, by: Long): EcmSketch = {
      val s = EcmSketch.create(specs.head, 0.1, 0.1, QueryKind.Point, 1, e.seed)
      (0 until 200).foreach(i => s.add(rnd.nextInt(50).toLong, e.lastTs + by + i / 3, 1L + rnd.nextInt(3)))
      s
    }
    val e0 = randomEcm(rnd, specs.head, 300)
    val segEcm = EcmSketch.merge(Seq(e0, later(e0, 1)))
    val h0 = randomEh(rnd, specs(1), 300)
    val h1 = EhSketch.create(specs(1), 0.05, 1); (0 until 300).foreach(i => h1.add(h0.lastTs + 1 + i, 1L + rnd.nextInt(9)))
    val segEh = EhSketch.merge(Seq(h0, h1))
    assert(segEcm.mergeDepth == 0 && segEh.mergeDepth == 0 && segEh.histogram.segmented)
    val written = Seq(SketchCodec.encode(randomEcm(rnd, specs.head, 400)), SketchCodec.encode(randomEh(rnd, specs(1), 400)),
      SketchCodec.encode(randomEcm(rnd, specs(2), 50)), SketchCodec.encode(segEcm), SketchCodec.encode(segEh))
    assert(written.forall(_(4) == 4) && Seq(segEcm, segEh).forall(ecmsketch.core.Codec.layoutVersion(_) == 2))
    // the field checks, on the checksum-less bytes of versions 1 and 2 (version 4's checksum refuses
    // every mutant below before they run)
    val valid = written.map(GoldenInputs.withoutChecksum)
    assert(valid.takeRight(2).forall(_(4) == 2))
    for (b <- written) {
      assert(decodeChecked(b).isDefined)
      for (len <- 0 until b.length) assert(decodeChecked(b.take(len)).isEmpty, s"truncation to $len decoded")
      assert(decodeChecked(b ++ Array[Byte](0)).isEmpty, "trailing byte accepted")
    }
    for (b <- valid) {
      val kind = if (b(5) == SketchCodec.KindEcm) "ECM" else "EH"
      assert(decodeChecked(b).isDefined)
      for (len <- 0 until b.length) assert(decodeChecked(b.take(len)).isEmpty, s"truncation to $len decoded")
      assert(decodeChecked(b ++ Array[Byte](0)).isEmpty, "trailing byte accepted")
      // every bit of the header, 500 random bits of the body
      val header = if (kind == "ECM") SketchCodec.EcmHeaderSize else SketchCodec.HeaderSize
      val (h, r) = flipAll(b, header, 500, rnd)
      info(s"$kind sketch of ${b.length} bytes: $h of ${8 * header} header flips and $r of 500 body flips refused")
      // measured: 29-36% of the header flips (most bits of the seed, the timestamps and the
      // parameters give another valid header) and 44-94% of the body flips; far fewer means that
      // validation was lost
      assert(h >= 2 * header, s"only $h of ${8 * header} header flips refused")
      assert(r >= 150, s"only $r of 500 body flips refused")
    }
    // garbage: refused unless it starts like a sketch; then refused or valid
    for (_ <- 0 until 1000) {
      val g = Array.fill(rnd.nextInt(200))(rnd.nextInt(256).toByte)
      assert(decodeChecked(g).isEmpty)
    }
    for (_ <- 0 until 1000) {
      val g = SketchCodec.Magic ++ Array[Byte](1, (1 + rnd.nextInt(4)).toByte, (1 + rnd.nextInt(3)).toByte, rnd.nextInt(8).toByte) ++
        Array.fill(rnd.nextInt(200))(rnd.nextInt(256).toByte)
      decodeChecked(g)
    }
    // a header claiming a 1M x 32 array in a few bytes must fail fast, without allocating it
    val hostile = valid.head.clone()
    val bb = java.nio.ByteBuffer.wrap(hostile).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    bb.putInt(76, 1 << 20); bb.putInt(80, 4)
    val msg = refusal(hostile)
    assert(msg.contains("corrupt sketch"), msg)
    // wrong magic / version
    assert(refusal("NOPE....".getBytes).contains("not an ecmsketch sketch"))
    val v5 = valid.head.clone(); v5(4) = 5
    assert(refusal(v5).contains("unsupported sketch format version 5"))
    // in version 4 a changed version byte is found out by the checksum
    val damaged = written.head.clone(); damaged(4) = 5
    assert(refusal(damaged).contains("checksum mismatch: the format version byte reads 5"))
  }

  /** A partial aggregate of eh_agg with two runs and a dropped row, as Spark's partial merge writes it. */
  private def bundleOf(ops: SketchOps[EhSketch], window: Long): Ingest[EhSketch] = {
    val a = new Ingest(ops, window)
    (10L until 1010L).foreach(t => a.add(0, t, 1))
    val b = new Ingest(ops, window)
    Seq(500L, 700L, 1990L, 3L).foreach(t => b.add(0, t, 2)) // ts 3 lies a window behind 1990: dropped
    a.absorb(b)
    a
  }

  test("partial-aggregate bundles: round trip; truncations and magic/version flips refused naming the bundle; what decodes is valid") {
    val spec = specs.head
    val ops = SketchOps.eh(() => EhSketch.create(spec, 0.1, 1))
    val original = bundleOf(ops, spec.window)
    val b = original.serialize()
    val back = Ingest.deserialize(ops, spec.window, b)
    assert(back.dropped == 1 && back.late == 0)
    assert(java.util.Arrays.equals(Ingest.deserialize(ops, spec.window, b).serialize(), b))
    val whole = back.result()
    checkInvariants(whole, "bundle result")
    assert(whole.count == 1008 && whole.firstTs == 3 && whole.lastTs == 1990 && whole.mergeDepth == 1)
    assert(java.util.Arrays.equals(SketchCodec.encode(whole), SketchCodec.encode(original.result())))
    def deserializeRefusal(c: Array[Byte]): String = {
      val m = intercept[SketchException](Ingest.deserialize(ops, spec.window, c)).getMessage
      assert(m.startsWith("corrupt partial aggregate: "), m)
      m
    }
    // a proper truncation can never decode: every field is needed
    for (len <- 0 until b.length) deserializeRefusal(b.take(len))
    assert(b(4) == 3 && deserializeRefusal(b ++ Array[Byte](0)).contains("checksum mismatch"))
    // with the checksum (bundle version 3) every single-bit flip is refused when read
    for (i <- b.indices; bit <- 0 until 8) {
      val c = b.clone(); c(i) = (c(i) ^ (1 << bit)).toByte
      deserializeRefusal(c)
    }
    // without it (version 1, as older releases wrote it), the fields are checked one by one
    val plain = GoldenInputs.withoutChecksum(b)
    assert(plain(4) == 1 && deserializeRefusal(plain ++ Array[Byte](0)).contains("trailing"))
    // every single-bit flip: refused when read (naming the bundle), refused when its runs are
    // decoded (naming the sketch), or a valid partial aggregate
    var refusedRead = 0; var refusedRuns = 0; var accepted = 0
    for (i <- plain.indices; bit <- 0 until 8) {
      val b = plain
      val c = b.clone(); c(i) = (c(i) ^ (1 << bit)).toByte
      val ing = try Some(Ingest.deserialize(ops, spec.window, c)) catch {
        case e: SketchException =>
          assert(e.getMessage.startsWith("corrupt partial aggregate: "), e.getMessage); None
      }
      if (i < 5) assert(ing.isEmpty, s"flip of bit $bit of byte $i (magic/version) accepted")
      ing match {
        case None => refusedRead += 1
        case Some(x) =>
          assert(java.util.Arrays.equals(GoldenInputs.withoutChecksum(Ingest.deserialize(ops, spec.window, c).serialize()), c),
            s"flip $i/$bit does not re-serialize")
          try { checkInvariants(x.result(), s"bundle with bit $bit of byte $i flipped"); accepted += 1 }
          catch {
            case e: SketchException =>
              val m = e.getMessage
              // a corrupt run, or runs that no longer agree on their parameters or total weight
              assert(m.startsWith("corrupt sketch: ") || m.startsWith("not an ecmsketch sketch") ||
                m.startsWith("unsupported sketch format version") || m.startsWith("cannot merge") ||
                m.startsWith("total weight overflows"), m)
              refusedRuns += 1
          }
      }
    }
    info(s"bundle of ${plain.length} bytes without its checksum: $refusedRead flips refused when read, $refusedRuns when its runs were decoded, $accepted accepted")
    assert(refusedRead >= 40 && refusedRead + refusedRuns >= plain.length * 8 / 2, s"$refusedRead + $refusedRuns of ${plain.length * 8} refused")
  }

  test("merge-aggregate buffers: round trip; truncations and magic/version flips refused naming the buffer") {
    val buf = new MergeBuffer()
    buf.parts += SketchCodec.encode(randomEh(new Random(3), specs.head, 50))
    buf.parts += SketchCodec.encode(randomEh(new Random(4), specs.head, 20))
    val b = MergeBuffer.serialize(buf)
    val back = MergeBuffer.deserialize(b)
    assert(back.parts.map(_.toSeq) == buf.parts.map(_.toSeq))
    def refusal(c: Array[Byte]): String = {
      val m = intercept[SketchException](MergeBuffer.deserialize(c)).getMessage
      assert(m.startsWith("corrupt merge buffer: "), m)
      m
    }
    for (len <- 0 until b.length) refusal(b.take(len))
    refusal(b ++ Array[Byte](0))
    for (i <- 0 until 5; bit <- 0 until 8) { val c = b.clone(); c(i) = (c(i) ^ (1 << bit)).toByte; refusal(c) }
  }
}
