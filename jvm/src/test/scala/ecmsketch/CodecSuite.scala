package ecmsketch

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.ecm.{EcmSketch, QueryKind}
import ecmsketch.format.SketchCodec
import ecmsketch.ingest.{Ingest, SketchOps}
import ecmsketch.window.EhSketch

import scala.util.Random

class CodecSuite extends AnyFunSuite {
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

  /** Decoding must succeed with a valid sketch or fail with a SketchException, nothing else. */
  def decodeSafely(b: Array[Byte]): Boolean =
    try { SketchCodec.decode(b); true }
    catch {
      case _: SketchException => false
      case t: Throwable => fail(s"decode threw ${t.getClass.getName}: ${t.getMessage} for ${hex(b.take(100))}")
    }

  test("fuzzed decode: truncations, bit flips, garbage and hostile headers fail cleanly") {
    val rnd = new Random(99)
    val valid = Seq(SketchCodec.encode(randomEcm(rnd, specs.head, 400)), SketchCodec.encode(randomEh(rnd, specs(1), 400)),
      SketchCodec.encode(randomEcm(rnd, specs(2), 50)))
    for (b <- valid) {
      for (len <- 0 until b.length) assert(!decodeSafely(b.take(len)), s"truncation to $len decoded")
      assert(!decodeSafely(b ++ Array[Byte](0)), "trailing byte accepted")
      for (_ <- 0 until 3000) {
        val c = b.clone()
        val i = rnd.nextInt(c.length)
        c(i) = (c(i) ^ (1 << rnd.nextInt(8))).toByte
        decodeSafely(c)
      }
    }
    for (_ <- 0 until 2000) decodeSafely(Array.fill(rnd.nextInt(200))(rnd.nextInt(256).toByte))
    // a header claiming a 1M x 32 array in a few bytes must fail fast, without allocating it
    val hostile = valid.head.clone()
    val bb = java.nio.ByteBuffer.wrap(hostile).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    bb.putInt(76, 1 << 20); bb.putInt(80, 4)
    val msg = intercept[SketchException](SketchCodec.decode(hostile)).getMessage
    assert(msg.contains("corrupt sketch"), msg)
    // wrong magic / version
    assert(intercept[SketchException](SketchCodec.decode("NOPE....".getBytes)).getMessage.contains("not an ecmsketch sketch"))
    val v2 = valid.head.clone(); v2(4) = 2
    assert(intercept[SketchException](SketchCodec.decode(v2)).getMessage.contains("unsupported sketch format version 2"))
  }

  test("partial-aggregate bundles round trip and reject garbage") {
    val spec = specs.head
    val ops = SketchOps.eh(() => EhSketch.create(spec, 0.1, 1))
    val ing = new Ingest(ops, spec.window)
    (0L until 1000L).foreach(t => ing.add(0, t, 1))
    val b = ing.serialize()
    val back = Ingest.deserialize(ops, spec.window, b)
    assert(back.result().count(null, null) == ing.result().count(null, null))
    for (len <- 0 until b.length by 7)
      try Ingest.deserialize(ops, spec.window, b.take(len)).result()
      catch { case _: SketchException => () }
  }
}
