package ecmsketch.format

import java.nio.{ByteBuffer, ByteOrder}

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.format.GoldenInputs.load
import ecmsketch.core.{ByteWriter, SketchException, WindowSketch}
import ecmsketch.format.SketchCodec

/** Targeted tampering: one field of a valid sketch changed on purpose must be refused with a
  * SketchException whose message names the problem (docs/FORMAT.md "Validation", docs/design/dwave.md,
  * docs/design/rwave.md). Each tampered input differs from an accepted control in exactly one field: a
  * header field written at its documented offset, or one varint of a cell body encoded by hand.
  */
class TamperSuite extends AnyFunSuite {

  /** The decoder's message for `b`, which it must refuse as corrupt. */
  private def refusal(b: Array[Byte]): String = {
    val m = intercept[SketchException](SketchCodec.decode(b)).getMessage
    assert(m.startsWith("corrupt sketch: "), m)
    m
  }

  private def assertRefused(b: Array[Byte], parts: String*): Unit = {
    val m = refusal(b)
    parts.foreach(p => assert(m.contains(p), s"message '$m' does not say '$p'"))
  }

  /** The control: accepted, and re-encoded to the same bytes (so the hand-made encoding is canonical). */
  private def assertAccepted(b: Array[Byte]): WindowSketch = {
    val s = SketchCodec.decode(b)
    assert(java.util.Arrays.equals(GoldenInputs.withoutChecksum(SketchCodec.encodeAny(s)), b), "the control does not re-encode to itself")
    s
  }

  private def patch(b: Array[Byte])(f: ByteBuffer => Unit): Array[Byte] = {
    val c = b.clone()
    f(ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN))
    c
  }

  private def varints(xs: Long*): Array[Byte] = { val w = new ByteWriter(); xs.foreach(w.putVarLong); w.toByteArray }

  // ------------------------------------------------------------------ exponential-histogram cells

  /** An EH cell (docs/FORMAT.md): L, lower - base, then per level from the top (oldest) down:
    * the bucket count and the end deltas. `levels` lists the levels from the top down.
    */
  private def ehCell(lower: Long, levels: Seq[Seq[Long]]): Array[Byte] =
    varints(Seq(levels.size.toLong, lower) ++ levels.flatMap(l => l.size.toLong +: l): _*)

  // golden eh: cell epsilon 0.25, so k_0 = 3 (levels 0 hold 3..4 buckets) and k = 2 (2..3 buckets);
  // first timestamp 1, last 12
  private val ehHeader = load("eh").take(SketchCodec.HeaderSize)
  private def eh(levels: Seq[Long]*): Array[Byte] = ehHeader ++ ehCell(0, levels)

  test("EH cell: a level with more than k_i + 1 buckets is refused") {
    assertAccepted(eh(Seq(1, 1), Seq(1, 1, 1)))
    assertAccepted(eh(Seq(1, 1), Seq(1, 1, 1, 1)))
    assertRefused(eh(Seq(1, 1), Seq(1, 1, 1, 1, 1)), "bucket count of level 0 = 5", "outside [3, 4]")
    assertAccepted(eh(Seq(1), Seq(1, 1, 1), Seq(1, 1, 1)))
    assertRefused(eh(Seq(1), Seq(1, 1, 1, 1), Seq(1, 1, 1)), "bucket count of level 1 = 4", "outside [2, 3]")
    assertRefused(eh(Seq(1, 1, 1, 1), Seq(1, 1, 1)), "bucket count of level 1 = 4", "outside [1, 3]")
  }

  test("EH cell: a level below the top with fewer than k_i buckets is refused") {
    assertAccepted(eh(Seq(1), Seq(1, 1), Seq(1, 1, 1)))
    assertRefused(eh(Seq(1), Seq(1), Seq(1, 1, 1)), "bucket count of level 1 = 1", "outside [2, 3]")
    assertRefused(eh(Seq(1), Seq(1, 1), Seq(1, 1)), "bucket count of level 0 = 2", "outside [3, 4]")
    // the top level itself may hold a single bucket, and a lone level 0 any count from 1
    assertAccepted(eh(Seq(1)))
    assertAccepted(eh(Seq(1, 1), Seq(1, 1, 1)))
  }

  test("EH cell: a top level with zero buckets is refused") {
    assertRefused(eh(Seq(), Seq(1, 1, 1)), "bucket count of level 1 = 0", "outside [1, 3]")
    assertRefused(eh(Seq()), "bucket count of level 0 = 0", "outside [1, 4]")
  }

  test("EH cell of an ECM-sketch: the same bucket-count checks apply to every cell") {
    // golden ecm-eh: 9 x 1 cells, cell epsilon 0.5 (k_0 = 1: 1..2 buckets; k = 1: 1..2), last timestamp 7
    val header = load("ecm-eh").take(SketchCodec.EcmHeaderSize)
    def ecm(cell: Array[Byte]): Array[Byte] = header ++ Array.fill[Byte](8)(0) ++ cell
    assertAccepted(ecm(ehCell(0, Seq(Seq(1), Seq(1, 1)))))
    assertRefused(ecm(ehCell(0, Seq(Seq(1), Seq(1, 1, 1)))), "bucket count of level 0 = 3", "outside [1, 2]")
    assertRefused(ecm(ehCell(0, Seq(Seq(1), Seq(), Seq(1)))), "bucket count of level 1 = 0", "outside [1, 2]")
    assertRefused(ecm(ehCell(0, Seq(Seq(), Seq(1)))), "bucket count of level 1 = 0", "outside [1, 2]")
  }

  // ------------------------------------------------------------------ total weight

  test("a header total weight below the weight the cells hold is refused (every kind)") {
    // golden sketches whose cells hold all the weight ever added: one unit less is refused
    for ((name, held) <- Seq("eh" -> 16L, "dwave" -> 90L, "ecm-eh" -> 4L, "ecm-dwave" -> 30L)) {
      val b = load(name)
      assert(ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(52) == held)
      assertAccepted(b)
      val what = if (name.startsWith("ecm")) "the cells of row 0 hold" else "the cell holds"
      assertRefused(patch(b)(_.putLong(52, held - 1)), s"$what weight $held, more than the total weight ${held - 1}")
    }
    // a distinct-count sketch: 10 rows of 5 values, so 5 level-0 items; 5 rows are enough
    val d = load("distinct-small")
    assertAccepted(patch(d)(_.putLong(52, 5)))
    assertRefused(patch(d)(_.putLong(52, 4)), "the cell holds weight 5, more than the total weight 4")
    // randomized ECM cells: the events of a row within the window are at most the rows added
    assertRefused(patch(load("ecm-rwave"))(_.putLong(52, 0)), "the cells of row 0 hold weight", "more than the total weight 0")
  }

  // ------------------------------------------------------------------ randomized-wave parameters

  // golden ecm-rwave: delta 0.5, depth 2 (ceil(ln(2/delta))), cell delta 0.125 = delta/(2 depth),
  // capacity 144 = ceil(36/0.5^2), 3 instances (11 in version 0.1.0, which the decoder also accepts)
  private val rw = load("ecm-rwave")

  test("ECM-sketch with randomized-wave cells: the control header is what the docs say") {
    val s = assertAccepted(rw)
    val bb = ByteBuffer.wrap(rw).order(ByteOrder.LITTLE_ENDIAN)
    assert(bb.getDouble(60) == 0.5 && bb.getInt(80) == 2 && bb.get(93) == 0 && bb.getDouble(94) == 0.125 &&
      bb.getInt(102) == 144 && bb.getShort(106) == 3, "offsets of docs/FORMAT.md")
    assert(s.isInstanceOf[ecmsketch.ecm.EcmSketch])
  }

  test("randomized-wave cells: a changed cell delta is refused") {
    assertRefused(patch(rw)(_.putDouble(94, 0.25)), "cell delta 0.25 outside (0, delta/(2 depth)]")
    assertRefused(patch(rw)(_.putDouble(94, 0.0)), "cell delta 0.0 outside (0, delta/(2 depth)]")
    assertRefused(patch(rw)(_.putDouble(94, Double.NaN)), "cell delta NaN outside")
    // a smaller, legal cell delta needs more instances than the header holds
    assertRefused(patch(rw)(_.putDouble(94, 0.01)), "capacity 144 and instances 3 do not match", "delta 0.01 (expected 144 and ")
  }

  test("randomized-wave cells: optimize_for other than point is refused") {
    assertRefused(patch(rw)(_.put(93, 1.toByte)), "randomized-wave cells with optimize_for inner_product")
    assertRefused(patch(rw)(_.put(93, 7.toByte)), "unknown query kind 7")
  }

  test("randomized-wave cells: a depth d below ceil(ln(2/delta)) is refused") {
    // depth 1 still satisfies the Count-Min rule ceil(ln(1/delta)) = 1, not the randomized-cell rule
    assertRefused(patch(rw)(_.putInt(80, 1)), "depth 1 is too small for delta 0.5 with randomized cells (needs 2)")
    // a larger depth makes the stored cell delta exceed delta/(2d)
    assertRefused(patch(rw)(_.putInt(80, 3)), "cell delta 0.125 outside (0, delta/(2 depth)]")
  }

  test("randomized-wave cells: a queue capacity other than ceil(36/eps^2) is refused") {
    for (cap <- Seq(143, 145, 0, -1))
      assertRefused(patch(rw)(_.putInt(102, cap)), s"capacity $cap and instances 3 do not match", "(expected 144 and 3, or 11 as written by version 0.1.0)")
  }

  test("randomized-wave cells: an instance count other than the one delta derives is refused") {
    for (r <- Seq(9, 13, 5, 1, 0))
      assertRefused(patch(rw)(_.putShort(106, r.toShort)), s"capacity 144 and instances $r do not match",
        "(expected 144 and 3, or 11 as written by version 0.1.0)")
    // 11, version 0.1.0's count, is read as version 0.1.0 wrote it, as format version 1: these cells
    // have no instance lists (level 0 is not full), so it is the same sketch, written as version 3
    assertRefused(patch(rw)(_.putShort(106, 11.toShort)), "format version 3 with 11 randomized-wave instances", "expected version 1")
    assert(GoldenInputs.withoutChecksum(SketchCodec.encodeAny(SketchCodec.decode(patch(rw) { b => b.putShort(106, 11.toShort); b.put(4, 1.toByte) }))).sameElements(rw))
    assertRefused(patch(rw)(_.put(4, 1.toByte)), "format version 1 with 3 randomized-wave instances", "expected version 3")
  }

  // ------------------------------------------------------------------ deterministic-wave cells

  test("deterministic waves: max_arrivals <= 0 is refused (stand-alone and ECM cells)") {
    val dw = load("dwave")
    assert(ByteBuffer.wrap(dw).order(ByteOrder.LITTLE_ENDIAN).getLong(60) == 100L)
    for (u <- Seq(0L, -1L, Long.MinValue))
      assertRefused(patch(dw)(_.putLong(60, u)), s"max_arrivals $u is not positive")
    val ecmDw = load("ecm-dwave-u30")
    assert(ByteBuffer.wrap(ecmDw).order(ByteOrder.LITTLE_ENDIAN).getLong(94) == 30L)
    for (u <- Seq(0L, -30L))
      assertRefused(patch(ecmDw)(_.putLong(94, u)), s"max_arrivals $u is not positive")
  }

  test("deterministic-wave cell: a gap the certification invariant does not cover is refused") {
    // golden dwave header: cell epsilon 0.25 (k = 4), first timestamp -30, last 29, window 40
    val header = load("dwave").take(SketchCodec.HeaderSize + 8)
    // one item of weight 10 at ts 20 after u unknown units: (zb = u, z = u + 10], expiry record (-30, 0).
    // The invariant (u + 1) k <= 2 (total - zb) = 20 allows u <= 4.
    def wave(u: Long): Array[Byte] = header ++ varints(1, 0, 0, 0, 0, 50, u, 10)
    for (u <- 0L to 4L) assertAccepted(wave(u))
    assertRefused(wave(5), "gap of 5 unknown units before ts 20 exceeds what eps = 0.25 certifies for 10 units after it")
    assertRefused(wave(1000), "gap of 1000 unknown units")
  }
}
