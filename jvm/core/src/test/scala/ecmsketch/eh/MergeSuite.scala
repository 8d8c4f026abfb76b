package ecmsketch.eh

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.Oracle
import ecmsketch.core.{SketchException, WindowSpec}
import ecmsketch.eh.{EhConfig, EhSketch, ExpHistogram}

import scala.util.Random

/** Order-preserving aggregation (ECM §5.1): after h levels the error is at most (1+eps)^(h+1) - 1. */
class MergeSuite extends AnyFunSuite {

  def stream(rnd: Random, n: Int, start: Long, weighted: Boolean): Seq[(Long, Long)] = {
    var t = start
    (0 until n).map { _ =>
      t += (rnd.nextInt(8) match { case 0 | 1 | 2 => 0; case 3 => rnd.nextInt(200); case _ => rnd.nextInt(5) })
      (t, if (weighted) (if (rnd.nextInt(10) == 0) rnd.nextInt(400).toLong else 1L + rnd.nextInt(3)) else 1L)
    }
  }

  def build(cfg: EhConfig, s: Seq[(Long, Long)], o: Oracle): ExpHistogram = {
    val h = new ExpHistogram(cfg)
    s.foreach { case (t, w) => h.add(t, w); o.add(0, t, w) }
    h
  }

  def worstRatio(h: ExpHistogram, o: Oracle, bound: Double, window: Long): Double = {
    val now = o.ts.max
    val lowest = if (window == Long.MaxValue) Long.MinValue else now - window
    var worst = 0.0
    (o.ts.distinct.flatMap(t => Seq(t - 1, t)) :+ lowest).filter(x => x >= lowest && x <= now).foreach { x =>
      val truth = o.after(x)
      val err = math.abs(EhTestUtil.estimateAfter(h, x) - truth)
      assert(err <= bound * truth + 1e-9, s"x=$x est=${EhTestUtil.estimateAfter(h, x)} truth=$truth bound=$bound")
      if (truth > 0) worst = math.max(worst, err / (bound * truth))
    }
    worst
  }

  test("one level: n-way merge of 2..33 streams within (1+eps)^2 - 1 = 2 eps + eps^2 (Theorem 4)") {
    var worst = 0.0
    for (eps <- Seq(0.5, 0.25, 0.1, 0.05); n <- Seq(2, 3, 8, 33); window <- Seq(100L, 5000L, Long.MaxValue);
         weighted <- Seq(false, true); seed <- 0 until 2) {
      val rnd = new Random(seed * 7919 + n * 31 + (eps * 1000).toInt)
      val cfg = EhConfig(eps, window)
      val oracles = (0 until n).map(_ => new Oracle)
      val hs = (0 until n).map(i => build(cfg, stream(rnd, 150 + rnd.nextInt(150), rnd.nextInt(300), weighted), oracles(i)))
      val m = ExpHistogram.merge(hs, cfg)
      m.checkInvariants()
      worst = math.max(worst, worstRatio(m, Oracle.union(oracles), math.pow(1 + eps, 2) - 1, window))
    }
    info(f"worst observed error / certified bound: $worst%.3f")
  }

  test("h levels of merges in a tree within (1+eps)^(h+1) - 1, and the sketch reports it") {
    for (eps <- Seq(0.25, 0.1); levels <- 1 to 4; seed <- 0 until 3) {
      val rnd = new Random(seed + 100 * levels)
      val oracles = scala.collection.mutable.ArrayBuffer[Oracle]()
      def leaf(): EhSketch = {
        val s = EhSketch.create(WindowSpec(countWindow = false, tsMicros = false, window = 10000), eps, 0)
        val o = new Oracle; oracles += o
        stream(rnd, 100 + rnd.nextInt(100), rnd.nextInt(100), weighted = true).foreach { case (t, w) => s.add(t, w); o.add(0, t, w) }
        s
      }
      def tree(h: Int): EhSketch = if (h == 0) leaf() else EhSketch.merge(Seq.fill(2 + rnd.nextInt(2))(tree(h - 1)))
      val root = tree(levels)
      assert(root.mergeDepth == levels)
      val cellEps = root.cellEpsilon
      val bound = math.pow(1 + cellEps, levels + 1.0) - 1
      assert(math.abs(root.errorBound - bound) < 1e-12)
      worstRatio(root.histogram, Oracle.union(oracles.toSeq), bound, 10000)
    }
  }

  test("planned levels: asking eps with merge_levels h gives a bound of exactly eps at depth h") {
    for (eps <- Seq(0.05, 0.1, 0.2); h <- 0 to 6) {
      val s = EhSketch.create(WindowSpec(false, false, 100), eps, h)
      val bound = math.pow(1 + s.cellEpsilon, h + 1.0) - 1
      assert(math.abs(bound - eps) < 1e-12 && bound <= eps, s"bound $bound")
      if (h == 1) assert(math.abs(s.cellEpsilon - (math.sqrt(1 + eps) - 1)) < 1e-12) // the paper's h = 1 formula
    }
  }

  test("merging with empty inputs or a single input adds no depth; count-based sketches refuse") {
    val spec = WindowSpec(false, false, 100)
    val a = EhSketch.create(spec, 0.1, 1)
    (1L to 50L).foreach(t => a.add(t))
    val e = EhSketch.create(spec, 0.1, 1)
    val m = EhSketch.merge(Seq(a, e, e))
    assert(m.mergeDepth == 0)
    assert(m.count(null, null) == a.count(null, null))
    val c = EhSketch.create(WindowSpec(true, false, 100), 0.1, 1)
    val ex = intercept[SketchException](EhSketch.merge(Seq(c, c.copy())))
    assert(ex.getMessage.contains("count-based sketches cannot be merged"))
    val other = EhSketch.create(WindowSpec(false, false, 200), 0.1, 1)
    assert(intercept[SketchException](EhSketch.merge(Seq(a, other))).getMessage.contains("window 100 vs 200"))
  }

  test("merge is commutative (same bytes in any input order)") {
    val rnd = new Random(3)
    val spec = WindowSpec(false, false, 1000)
    val ins = (0 until 5).map { _ =>
      val s = EhSketch.create(spec, 0.1, 1)
      stream(rnd, 200, 0, weighted = true).foreach { case (t, w) => s.add(t, w) }
      s
    }
    val a = ecmsketch.format.SketchCodec.encode(EhSketch.merge(ins))
    val b = ecmsketch.format.SketchCodec.encode(EhSketch.merge(rnd.shuffle(ins)))
    assert(java.util.Arrays.equals(a, b))
  }
}
