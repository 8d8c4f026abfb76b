package ecmsketch.dwave

import org.scalatest.funsuite.AnyFunSuite
import DwKit._

import scala.util.Random

/** Order-preserving merge of waves (ECM §5.1; docs/design/dwave.md, merge): within (1+eps)^(h+1) - 1 after h levels. */
class DwMergeSuite extends AnyFunSuite {

  /** Checks the merged wave at its clock and at later clocks (most data expired). */
  def check(m: DetWave, u: Stream, bound: Double, window: Long, what: String): Double = {
    DwKit.checkInvariants(m)
    var r = worst(m, u, bound, m.lastTs, window, what, sound = false)
    if (window != Long.MaxValue) for (d <- Seq(window / 3, window - 2)) {
      val c = m.copy(); c.advanceTo(m.lastTs + d); DwKit.checkInvariants(c)
      r = math.max(r, worst(c, u, bound, c.lastTs, window, s"$what +$d", sound = false))
    }
    r
  }

  test("one level: n-way merges of 2, 3, 8, 33, 256 streams within (1+eps)^2 - 1") {
    var worstR = 0.0; var cases = 0
    for (eps <- Seq(0.5, 0.25, 0.125, 0.05); n <- Seq(2, 3, 8, 33, 256); window <- Seq(60L, 3000L, Long.MaxValue);
         weighted <- Seq(false, true); seed <- 0 until (if (n == 256) 1 else 2)) {
      val rnd = new Random(seed * 7919 + n * 31 + (eps * 1000).toInt + window.hashCode)
      val cfg = DwConfig(eps, window, Long.MaxValue)
      val len = if (n >= 33) 40 + rnd.nextInt(60) else 150 + rnd.nextInt(200)
      val ss = (0 until n).map(_ => stream(rnd, len, rnd.nextInt(4), weighted, rnd.nextInt(300)))
      val ws = ss.map(s => build(cfg, s))
      val m = DetWave.merge(ws, cfg)
      worstR = math.max(worstR, check(m, union(ss), math.pow(1 + eps, 2) - 1, window, s"eps=$eps n=$n N=$window w=$weighted"))
      cases += 1
    }
    info(f"$cases merges: worst error / ((1+eps)^2 - 1) = $worstR%.3f")
  }

  test("merge trees of depth h = 1..4 within (1+eps)^(h+1) - 1; finite max_arrivals never overflow") {
    var worstR = 0.0
    for (eps <- Seq(0.5, 0.2, 0.1); h <- 1 to 4; window <- Seq(200L, Long.MaxValue); finiteU <- Seq(false, true); seed <- 0 until 2) {
      val rnd = new Random(seed + 100 * h + (eps * 100).toInt)
      val leaves = scala.collection.mutable.ArrayBuffer[Stream]()
      def windowMax(s: Stream): Long = {
        if (window == Long.MaxValue) return math.max(1L, s.ws.sum)
        var best = 0L; var j = 0; var acc = 0L
        for (i <- 0 until s.n) { acc += s.ws(i); while (s.ts(j) <= s.ts(i) - window) { acc -= s.ws(j); j += 1 }; best = math.max(best, acc) }
        math.max(1L, best)
      }
      def tree(d: Int): DetWave =
        if (d == 0) {
          val s = stream(rnd, 60 + rnd.nextInt(120), rnd.nextInt(4), weighted = rnd.nextBoolean(), rnd.nextInt(100))
          leaves += s
          build(DwConfig(eps, window, if (finiteU) windowMax(s) else Long.MaxValue), s)
        } else {
          val kids = (0 until 2 + rnd.nextInt(2)).map(_ => tree(d - 1))
          val u = DwConfig.mergedArrivals(kids.map(_.config.maxArrivals))
          val m = DetWave.merge(kids, DwConfig(eps, window, u))
          DwKit.checkInvariants(m)
          assert(m.overflowTs == Long.MinValue, s"merged wave overflowed: U=$u")
          m
        }
      val m = tree(h)
      worstR = math.max(worstR, check(m, union(leaves.toSeq), math.pow(1 + eps, h + 1.0) - 1, window, s"eps=$eps h=$h U=$finiteU"))
    }
    info(f"worst error / ((1+eps)^(h+1) - 1) = $worstR%.3f")
  }

  test("merges of overflowed waves: ranges after the newest overflow stay within (1+eps)^2 - 1") {
    var worstR = 0.0; var overflowed = 0
    for (eps <- Seq(0.5, 0.25, 0.1); n <- Seq(2, 3, 8); window <- Seq(300L, Long.MaxValue); seed <- 0 until 3) {
      val rnd = new Random(seed * 31 + n + (eps * 100).toInt)
      val cfg = DwConfig(eps, window, 40)
      val ss = (0 until n).map(_ => stream(rnd, 200 + rnd.nextInt(200), rnd.nextInt(4), weighted = rnd.nextBoolean(), rnd.nextInt(300)))
      val ws = ss.map(s => build(cfg, s, check = true))
      val m = DetWave.merge(ws, DwConfig(eps, window, DwConfig.mergedArrivals(ws.map(_.config.maxArrivals))))
      if (m.overflowTs != Long.MinValue) overflowed += 1
      worstR = math.max(worstR, check(m, union(ss), math.pow(1 + eps, 2) - 1, window, s"overflowed eps=$eps n=$n"))
    }
    info(f"$overflowed overflowed merges: worst error / bound = $worstR%.3f")
    assert(overflowed > 0)
  }

  test("merge edge cases: empty inputs, single input copied, clocks differ, overflow carried") {
    val cfg = DwConfig(0.25, 100, Long.MaxValue)
    val a = new DetWave(cfg); val b = new DetWave(cfg)
    b.advanceTo(500)
    val e = DetWave.merge(Seq(a, b), cfg)
    assert(e.isEmpty && e.lastTs == 500)
    val s = stream(new Random(1), 300, 0, weighted = true)
    val w = build(cfg, s)
    val c = DetWave.merge(Seq(w, a, null), cfg)
    assert(!(c eq w) && c.toString == w.toString)
    val later = new DetWave(cfg); later.advanceTo(s.ts.last + 50)
    val m = DetWave.merge(Seq(w, later), cfg)
    assert(m.lastTs == s.ts.last + 50); DwKit.checkInvariants(m)
    worst(m, s, 0.25, m.lastTs, 100, "clock moved", sound = false)
    val o = build(DwConfig(0.25, 1000, 5), Stream(Array.fill(50)(7L), Array.fill(50)(1L)))
    assert(o.overflowTs == 7L)
    val mo = DetWave.merge(Seq(o, w), DwConfig(0.25, 1000, DwConfig.mergedArrivals(Seq(5L, Long.MaxValue))))
    assert(mo.overflowTs == 7L)
    assert(refused(mo.estimateFrom(0)).getMessage.contains("max_arrivals"))
  }
}
