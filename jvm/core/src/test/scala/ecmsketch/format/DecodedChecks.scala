package ecmsketch.format

import org.scalatest.Assertions

import ecmsketch.Families
import ecmsketch.core.{CounterSketch, SketchException, WindowSketch}
import ecmsketch.ecm.EcmSketch
import ecmsketch.format.SketchCodec
import ecmsketch.hash.Hashing
import ecmsketch.rwave.DistinctSketch

/** What every sketch the decoder accepts must satisfy, whatever bytes it came from (fuzz tests):
  *  - decoding either succeeds or throws a SketchException, nothing else;
  *  - clock and total weight are consistent: an empty sketch has no timestamps and no weight, a
  *    non-empty one has first <= last and a non-negative total weight;
  *  - re-encoding gives bytes that decode again, to a sketch that re-encodes to the same bytes,
  *    describes itself identically and gives the same answers;
  *  - every query either answers or throws a SketchException, nothing else; answers are finite
  *    and non-negative, 0 for an empty sketch, and the answers of deterministic sketches do not
  *    exceed the total weight ever added by more than their certified error.
  */
trait DecodedChecks extends Assertions {
  private def hex(b: Array[Byte]): String = b.map(x => f"${x & 0xFF}%02x").mkString

  /** The decoded sketch after checking its invariants, or None if the decoder refused `b` with a
    * SketchException whose message starts as docs/FORMAT.md promises.
    */
  def decodeChecked(b: Array[Byte]): Option[WindowSketch] = {
    val s = try SketchCodec.decode(b) catch {
      case e: SketchException =>
        val m = e.getMessage
        assert(m.startsWith("corrupt sketch: ") || m.startsWith("not an ecmsketch sketch") ||
          m.startsWith("unsupported sketch format version"), s"unexpected refusal message: $m")
        return None
      case t: Throwable => fail(s"decode threw ${t.getClass.getName}: ${t.getMessage} for ${hex(b.take(100))}", t)
    }
    checkInvariants(s, s"${s.getClass.getSimpleName} decoded from ${hex(b.take(100))}")
    Some(s)
  }

  def checkInvariants(s: WindowSketch, ctx: String): Unit = {
    if (s.isEmpty) assert(s.firstTs == Long.MaxValue && s.lastTs == Long.MinValue && s.count == 0L, s"empty sketch with a clock or weight: $ctx")
    else assert(s.firstTs <= s.lastTs && s.count >= 0L, s"first ${s.firstTs}, last ${s.lastTs}, weight ${s.count}: $ctx")
    val a1 = answers(s, ctx)
    val e1 = guarded(ctx, "re-encoding")(SketchCodec.encodeAny(s))
    val s2 = guarded(ctx, "decoding the re-encoding")(SketchCodec.decode(e1))
    val e2 = guarded(ctx, "re-encoding again")(SketchCodec.encodeAny(s2))
    assert(java.util.Arrays.equals(e1, e2), s"re-encoding is not stable: ${hex(e1.take(100))} vs ${hex(e2.take(100))}: $ctx")
    assert(Families.info(s2, e1) == Families.info(s, e1), s"description changed: $ctx")
    assert(answers(s2, ctx) == a1, s"the re-decoded sketch answers differently: $ctx")
  }

  private def guarded[T](ctx: String, what: String)(body: => T): T =
    try body catch { case t: Throwable => fail(s"$what threw ${t.getClass.getName}: ${t.getMessage}: $ctx", t) }

  /** Query ranges: 0, 1, half the window and the window itself. */
  private def ranges(s: WindowSketch): Seq[Long] = {
    val n = s.spec.window
    Seq(0L, 1L, n / 2, n).distinct
  }

  /** Every answer of a battery of queries (None = refused with a SketchException), each checked. */
  def answers(s: WindowSketch, ctx: String): Seq[Option[Double]] = {
    val nows: Seq[java.lang.Long] = Seq(null) ++ (if (!s.isEmpty && s.lastTs < Long.MaxValue - 3) Seq(java.lang.Long.valueOf(s.lastTs + 3)) else Nil)
    def q(what: String, bound: Double, limit: Double)(f: => Double): Option[Double] = {
      val v = try f catch {
        case _: SketchException => return None
        case t: Throwable => fail(s"$what threw ${t.getClass.getName}: ${t.getMessage}: $ctx", t)
      }
      assert(!v.isNaN && !v.isInfinite && v >= 0.0, s"$what = $v: $ctx")
      if (s.isEmpty) assert(v == 0.0, s"$what = $v on an empty sketch: $ctx")
      if (!bound.isNaN) assert(v <= (1.0 + bound) * limit + 1e-9, s"$what = $v exceeds the total weight ${s.count} (bound $bound): $ctx")
      Some(v)
    }
    val w = s.count.toDouble
    for (now <- nows; r <- ranges(s); v <- s match {
      case c: CounterSketch => Seq(q(s"count($r, $now)", c.errorBound, w)(c.count(r, now)))
      case d: DistinctSketch => Seq(q(s"distinct($r, $now)", Double.NaN, w)(d.count(r, now)))
      case e: EcmSketch =>
        val fps = Seq(Hashing.fingerprintLong(0L), Hashing.fingerprintLong(1L), Hashing.fingerprintString("a"))
        val det = e.plan.deterministicCells
        val pointBound = if (det) e.pointErrorBound else Double.NaN
        val points = fps.map(fp => q(s"point($fp, $r, $now)", pointBound, w)(e.pointFingerprint(fp, r, now)))
        val sums =
          if (det) Seq(q(s"total($r, $now)", e.totalErrorBound, w)(e.total(r, now)),
            q(s"self-join($r, $now)", e.innerProductErrorBound(e), w * w)(e.selfJoin(r, now)))
          else {
            assert(scala.util.Try(e.total(r, now)).failed.toOption.exists(_.isInstanceOf[SketchException]),
              s"a randomized-cell total must be refused: $ctx")
            Nil
          }
        points ++ sums
      case other => fail(s"unexpected sketch ${other.getClass.getName}: $ctx")
    }) yield v
  }
}
