package ecmsketch.ecm.dyadic

import java.nio.{ByteBuffer, ByteOrder}

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.Families
import ecmsketch.eh.EhCellKind
import ecmsketch.dwave.DwCellKind
import ecmsketch.rwave.RwCellKind
import ecmsketch.core.{Codec, SketchException, WindowSpec}

import scala.util.Random

/** Binary format of the dyadic ECM-sketch (kind 5, docs/FORMAT.md): round trips give the same bytes
  * and answers; every tampered field is refused with a `corrupt sketch:` message; random damage
  * never escapes as anything but a SketchException.
  */
class DyadicCodecSuite extends AnyFunSuite {
  val spec = WindowSpec(countWindow = false, tsMicros = false, window = 1000)

  def sample(seed: Int, bits: Int = 12, cell: Int = EhCellKind.id, eps: Double = 0.1): DyadicSketch = {
    val s = DyadicSketch.create(spec, eps, 0.1, universeBits = bits, cellKind = cell)
    val rnd = new Random(seed)
    val (lo, hi) = DyadicUniverse.keyRange(bits)
    var t = 0L
    (0 until 800).foreach { _ => t += rnd.nextInt(3); s.add(((rnd.nextGaussian() * 40).toLong).max(lo).min(hi), t, 1 + rnd.nextInt(2)) }
    s
  }

  def answers(s: DyadicSketch): Seq[Any] =
    Seq(s.total(null, null), s.rangeCount(-100, 100, null, null), s.quantile(0.5, null, null), s.heavyHitters(0.05, null, null).map(k => (k.key, k.estimate, k.lower, k.upper)),
      s.topK(3, 200L, null).map(k => (k.key, k.estimate, k.lower, k.upper)), s.point(0L, null, null), s.count, s.firstTs, s.lastTs, s.mergeDepth, s.keyDomain)

  test("round trip: same bytes, same answers, for EH and deterministic-wave cells, empty, merged and double-keyed sketches") {
    val dbl = DyadicSketch.create(spec, 0.1, 0.1, universeBits = 20); (0 until 100).foreach(i => dbl.add(i * 0.37 - 5, i.toLong, 1))
    val cases = Seq(sample(1), sample(2, cell = DwCellKind.id), DyadicSketch.create(spec, 0.1, 0.1, universeBits = 3),
      DyadicSketch.merge(Seq(sample(3), sample(4), sample(5))), sample(6, bits = 64), dbl)
    cases.foreach { s =>
      val b = Codec.encode(DyadicKind, s)
      val d = Families.decodeAs(DyadicKind, b)
      assert(java.util.Arrays.equals(Codec.encode(DyadicKind, d), b))
      if (s.keyDomain != DyadicSketch.DoubleKeys && !s.isEmpty) assert(answers(d) == answers(s))
      if (s.keyDomain == DyadicSketch.DoubleKeys) assert(d.quantileDouble(0.5, null, null) == s.quantileDouble(0.5, null, null))
      // merging decoded sketches equals decoding merged ones
    }
    val (a, c) = (sample(7), sample(8))
    val viaBytes = DyadicSketch.merge(Seq(a, c).map(x => Families.decodeAs(DyadicKind, Codec.encode(DyadicKind, x))))
    assert(java.util.Arrays.equals(Codec.encode(DyadicKind, viaBytes), Codec.encode(DyadicKind, DyadicSketch.merge(Seq(a, c)))))
    // rows dropped before the sketch (Ingest) move every level's clock along
    val s = sample(9); s.withDroppedRows(5, -50)
    val d = Families.decodeAs(DyadicKind, Codec.encode(DyadicKind, s))
    assert(d.count == s.count && d.firstTs == -50 && d.level(3).firstTs == -50)
  }

  test("sketch_info: the bounds each query certifies") {
    val s = sample(1)
    val m = Families.info(s)
    assert(m("kind") == "dyadic" && m("universe_bits") == 12 && m("key_type") == "bigint")
    assert(m("error_bound") == s.heavyHitterErrorBound && s.heavyHitterErrorBound <= 0.1)
    assert(m("range_error_bound") == s.rangeCountErrorBound && m("quantile_rank_error_bound") == s.quantileRankErrorBound)
    assert(Families.infoFields.forall(m.contains))
    assert(Families.info(Families.decode(Codec.encode(ecmsketch.ecm.EcmKind, s.level(0))))("universe_bits") == null)
  }

  private def refused(b: Array[Byte], parts: String*): Unit = {
    val m = intercept[SketchException](Families.decode(b)).getMessage
    assert(m.startsWith("corrupt sketch: "), m)
    parts.foreach(p => assert(m.contains(p), s"'$m' does not say '$p'"))
  }

  private def patch(b: Array[Byte])(f: ByteBuffer => Unit): Array[Byte] = {
    val c = b.clone(); f(ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN)); c
  }

  test("tampered fields are refused, naming the field") {
    val b = ecmsketch.format.GoldenInputs.withoutChecksum(Codec.encode(DyadicKind, sample(1))) // field checks: no checksum
    assert(b(5) == 5)
    refused(patch(b)(_.putDouble(60, 0.0)), "delta")
    refused(patch(b)(_.putDouble(60, 0.2)), "plan") // another delta gives another plan (depth)
    refused(patch(b)(_.put(68, 0.toByte)), "universe_bits 0")
    refused(patch(b)(_.put(68, 65.toByte)), "universe_bits 65")
    refused(patch(b)(_.put(68, 11.toByte)), "plan") // the Count-Min delta delta / (2 bits) differs
    refused(patch(b)(_.put(68, 13.toByte)), "plan")
    refused(patch(b)(_.put(69, 7.toByte)), "key type 7")
    refused(patch(b)(_.put(69, 2.toByte)), "candidates") // string keys need their candidate table
    refused(patch(b)(_.put(69, 0.toByte)), "key type")
    refused(patch(b)(_.putDouble(16, 0.2)), "cell epsilon")
    refused(patch(b)(_.putShort(32, 3)), "cell epsilon")
    refused(patch(b)(_.putInt(70, Int.MaxValue)), "level 0 claims")
    refused(patch(b)(_.putInt(70, -1)), "level 0 claims")
    refused(b.take(b.length - 1))
    refused(b ++ Array[Byte](0), "trailing")
    // a level of another plan (epsilon 0.2) spliced in for level 0
    val other = Codec.encode(DyadicKind, sample(1, eps = 0.2))
    val len0 = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt(70)
    val len0o = ByteBuffer.wrap(other).order(ByteOrder.LITTLE_ENDIAN).getInt(70)
    val spliced = b.take(70) ++ other.slice(70, 74 + len0o) ++ b.drop(74 + len0)
    refused(spliced)
    // randomized-wave cells are not a dyadic cell kind
    refused(patch(b)(_.put(6, RwCellKind.id.toByte)), "cannot hold cells")
  }

  test("random damage: only SketchException, never another error") {
    val b = Codec.encode(DyadicKind, sample(2, bits = 6))
    val rnd = new Random(42)
    var accepted = 0
    (0 until 3000).foreach { _ =>
      val c = b.clone()
      (0 until 1 + rnd.nextInt(3)).foreach(_ => c(rnd.nextInt(c.length)) = rnd.nextInt(256).toByte)
      val cut = if (rnd.nextInt(10) == 0) c.take(rnd.nextInt(c.length)) else c
      try { Families.decode(cut); accepted += 1 } catch { case _: SketchException => () }
    }
    info(s"$accepted of 3000 damaged inputs decoded (damage inside timestamps can be valid)")
  }
}
