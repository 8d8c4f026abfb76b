package ecmsketch.dwave

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.core.{ByteReader, ByteWriter, SketchException}
import DwKit._

import scala.util.Random

class DwCellsSuite extends AnyFunSuite {

  def encode(f: DwCells, w: DetWave, base: Long): Array[Byte] = { val o = new ByteWriter(); f.write(w, o, base); o.toByteArray }
  def decode(f: DwCells, b: Array[Byte], base: Long, last: Long): DetWave = {
    val in = new ByteReader(b); val w = f.read(in, base, last).asInstanceOf[DetWave]; in.expectEnd(); w
  }

  def waves(): Seq[(DwCells, DetWave, Stream)] =
    for (eps <- Seq(0.5, 0.2, 0.05); kind <- 0 to 3; window <- Seq(50L, Long.MaxValue); u <- Seq(40L, Long.MaxValue)) yield {
      val f = new DwCells(DwConfig(eps, window, u))
      val s = stream(new Random(kind * 7 + (eps * 100).toInt), 400, kind, weighted = kind != 3, start = -1000)
      (f, build(f.config, s), s)
    }

  test("round trip: identical answers and identical re-encoding; empty cells are one byte") {
    var bytes = 0
    waves().foreach { case (f, w, s) =>
      val base = s.ts.head
      val b = encode(f, w, base)
      bytes += b.length
      val r = decode(f, b, base, w.lastTs)
      if (r == null) assert(w.isEmpty && b.length == 1)
      else {
      DwKit.checkInvariants(r)
      assert(java.util.Arrays.equals(encode(f, r, base), b))
      starts(s, w.lastTs, f.config.window).foreach { lo =>
        if (w.overflowTs == Long.MinValue || lo > w.overflowTs) {
          assert(r.estimateFrom(lo) == w.estimateFrom(lo) && r.boundsFrom(lo) == w.boundsFrom(lo))
        } else {
          refused(w.estimateFrom(lo))
          if (r.overflowTs != Long.MinValue) refused(r.estimateFrom(lo))
        }
      }
      // a decoded wave keeps working: more adds and merges
      r.add(w.lastTs + 1, 3); DwKit.checkInvariants(r)
      DwKit.checkInvariants(DetWave.merge(Seq(r, w), f.config))
      }
    }
    info(s"${waves().size} cells, $bytes bytes")
    val f = new DwCells(DwConfig(0.1, 10, 100))
    assert(encode(f, null, 0).length == 1 && encode(f, new DetWave(f.config), 0).length == 1)
    assert(f.read(new ByteReader(Array[Byte](0)), 0, 0) == null)
    val gone = new DetWave(f.config); gone.add(5, 2); gone.advanceTo(100)
    assert(encode(f, gone, 0).length == 1)
    assert(f.merge(Seq(null, gone)) == null)
  }

  /** Either a SketchException starting "corrupt sketch: " or a wave that passes every invariant. */
  def tryRead(f: DwCells, b: Array[Byte], base: Long, last: Long): Boolean =
    try { val w = decode(f, b, base, last); if (w != null) DwKit.checkInvariants(w); true }
    catch {
      case e: SketchException => assert(e.getMessage.startsWith("corrupt sketch: "), e.getMessage); false
    }

  test("fuzzed and truncated bytes fail with 'corrupt sketch: ' or decode to a valid wave") {
    val rnd = new Random(42)
    var rejected = 0; var accepted = 0
    waves().foreach { case (f, w, s) =>
      val base = s.ts.head
      val b = encode(f, w, base)
      for (_ <- 0 until 150) {
        val t = b.clone()
        rnd.nextInt(4) match {
          case 0 => t(rnd.nextInt(t.length)) = rnd.nextInt(256).toByte
          case 1 => val i = rnd.nextInt(t.length); t(i) = (t(i) ^ (1 << rnd.nextInt(8))).toByte
          case 2 => for (_ <- 0 until 3) t(rnd.nextInt(t.length)) = rnd.nextInt(256).toByte
          case _ => ()
        }
        val cut = if (rnd.nextInt(5) == 0) java.util.Arrays.copyOf(t, rnd.nextInt(t.length)) else t
        if (tryRead(f, cut, base, w.lastTs)) accepted += 1 else rejected += 1
      }
    }
    for (_ <- 0 until 3000) {
      val f = new DwCells(DwConfig(0.2, 100, Long.MaxValue))
      val t = Array.fill(1 + rnd.nextInt(40))(rnd.nextInt(256).toByte)
      if (tryRead(f, t, 0, rnd.nextInt(1000))) accepted += 1 else rejected += 1
    }
    info(s"rejected $rejected, accepted $accepted (each accepted one passed every invariant)")
  }

  test("tampered gaps, dropped overflow markers and hostile counts are refused") {
    val f = new DwCells(DwConfig(0.1, Long.MaxValue, Long.MaxValue))
    val s = stream(new Random(5), 3000, 0, weighted = false)
    val w = build(f.config, s)
    // re-encode with one item's gap widened: the certification check must catch it
    def reencode(gapExtra: Long, at: Int): Array[Byte] = {
      val o = new ByteWriter()
      o.putVarLong(w.itemCount); o.putVarLong(0); o.putVarLong(w.expPos - s.ts.head); o.putVarLong(w.expZ)
      var pp = w.expPos; var pz = w.expZ; var i = 0
      if (!w.hasRh) o.putVarLong(0)
      var first = w.hasRh
      w.foreachItem { (p, zb, z) =>
        if (first) { o.putVarLong(1 + p - pp); first = false } else o.putVarLong(p - pp)
        o.putVarLong(zb - pz + (if (i == at) gapExtra else 0)); o.putVarLong(z - zb); pp = p; pz = z; i += 1
      }
      o.toByteArray
    }
    assert(tryRead(f, reencode(0, 0), s.ts.head, w.lastTs))
    val ps = scala.collection.mutable.ArrayBuffer[Long](); w.foreachItem((p, _, _) => ps += p)
    // items whose gap can straddle a query start (a gap between equal timestamps is exact)
    val strict = ps.indices.filter(i => i > 0 && ps(i) > ps(i - 1))
    var caught = 0
    for (at <- Seq(strict(strict.size / 2), strict(strict.size - 2), strict.last)) {
      val e = intercept[SketchException](decode(f, reencode(1L << 20, at), s.ts.head, w.lastTs))
      assert(e.getMessage.startsWith("corrupt sketch: "), e.getMessage); caught += 1
    }
    // an overflowed wave written without its overflow marker claims a bound it does not have
    val g = new DwCells(DwConfig(0.25, 1000, 10))
    val os = Stream(((0 until 200).map(i => (i / 20).toLong) ++ (0 until 8).map(i => 20L + i)).toArray, Array.fill(208)(1L))
    val ow = build(g.config, os)
    assert(ow.overflowTs != Long.MinValue)
    val ob = encode(g, ow, 0)
    val o2 = new ByteWriter(); o2.putVarLong(ow.itemCount); o2.putVarLong(0)
    val in = new ByteReader(ob); in.getVarLong("n"); in.getVarLong("o")
    o2.putBytes(in.getBytes(in.remaining, "rest"))
    val e2 = intercept[SketchException](decode(g, o2.toByteArray, 0, ow.lastTs))
    assert(e2.getMessage.startsWith("corrupt sketch: "), e2.getMessage)
    // hostile counts: no huge allocation, a clear error
    for (cnt <- Seq(Int.MaxValue.toLong, Long.MaxValue, f.config.maxItems.toLong, 1000000L)) {
      val o = new ByteWriter(); o.putVarLong(cnt); o.putVarLong(0); o.putVarLong(0)
      val e = intercept[SketchException](decode(f, o.toByteArray, 0, 10))
      assert(e.getMessage.startsWith("corrupt sketch: "))
    }
  }
}
