package ecmsketch.ecm

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.eh.EhCellKind
import ecmsketch.dwave.DwCellKind
import ecmsketch.Oracle
import ecmsketch.ecm.{EcmSketch, Planner, QueryKind}
import ecmsketch.core.WindowSpec

import scala.util.Random

/** Inner products and self-joins of sketches of different merge depths, with exponential-histogram
  * and deterministic-wave cells, planned for inner products and for point queries, over many seeds:
  *  - the lower side is deterministic: est >= (1 - e_a)(1 - e_b) a.b on every query;
  *  - |est - a.b| <= bound * ||a||_1 ||b||_1 with probability >= 1 - delta (violation rate <= delta
  *    plus a binomial tolerance);
  *  - the bound the sketch reports is the formula at the actual depths of a and b.
  */
class InnerProductSuite extends AnyFunSuite {
  val eps = 0.1
  val delta = 0.1
  val window = 20000L
  val spec = WindowSpec(countWindow = false, tsMicros = false, window = window)
  val seeds = 0 until 50
  val ranges = Seq(30L, 300L, 3000L, window)

  /** A Zipf-like stream over 120 keys with bursty timestamps. */
  def stream(rnd: Random, n: Int, start: Long): Seq[(Long, Long, Long)] = {
    var t = start
    (0 until n).map { _ =>
      t += (if (rnd.nextInt(4) == 0) rnd.nextInt(40) else 0)
      val k = math.min(119, (math.exp(rnd.nextDouble() * math.log(121.0)) - 1).toLong)
      (k, t, if (rnd.nextInt(8) == 0) 1L + rnd.nextInt(4) else 1L)
    }
  }

  def build(plan: ecmsketch.ecm.EcmPlan, seed: Long, data: Seq[(Long, Long, Long)], o: Oracle): EcmSketch = {
    val s = EcmSketch.create(spec, plan, seed)
    data.foreach { case (k, t, w) => s.add(k, t, w); o.add(k, t, w) }
    s
  }

  /** The inner-product bound at depths ha and hb: e_x = (1 + cellEps)^(h_x + 1) - 1,
    * P = (1 + e_a)(1 + e_b) - 1, bound = max(P, (1 + P) eps_cm).
    */
  def boundAt(plan: ecmsketch.ecm.EcmPlan, ha: Int, hb: Int): Double = {
    val ea = StrictMath.pow(1 + plan.cellEpsilon, ha + 1.0) - 1
    val eb = StrictMath.pow(1 + plan.cellEpsilon, hb + 1.0) - 1
    val p = (1 + ea) * (1 + eb) - 1
    math.max(p, (1 + p) * plan.cmEpsilon)
  }

  def dot(x: Map[Long, Long], y: Map[Long, Long]): Double = x.map { case (k, c) => c.toDouble * y.getOrElse(k, 0L) }.sum

  for (cell <- Seq(EhCellKind.id, DwCellKind.id); kind <- QueryKind.all) {
    val cellName = CellKinds.nameOf(cell)
    test(s"$cellName cells, optimize_for ${kind.name}: a merged (depth 1 or 2) against b unmerged, ${seeds.size} seeds") {
      val plan = Planner.plan(eps, delta, kind, 1, cell)
      var v = 0; var q = 0
      var worst = 0.0
      for (seed <- seeds) {
        val rnd = new Random(1000L * cell + 100L * kind.id + seed)
        // a: four sites merged once (depth 1) or as a merge of two merges (depth 2); b: one site, depth 0
        val siteOracles = Seq.fill(4)(new Oracle)
        val sites = siteOracles.map(o => build(plan, seed, stream(rnd, 400 + rnd.nextInt(400), rnd.nextInt(500)), o))
        val depthA = 1 + seed % 2
        val a = if (depthA == 1) EcmSketch.merge(sites) else EcmSketch.merge(Seq(EcmSketch.merge(sites.take(2)), EcmSketch.merge(sites.drop(2))))
        val oa = Oracle.union(siteOracles)
        val ob = new Oracle
        val b = build(plan, seed, stream(rnd, 1500, rnd.nextInt(500)), ob)
        assert(a.mergeDepth == depthA && b.mergeDepth == 0)
        assert(a.cellName == cellName && b.cellName == cellName)
        // the reported bounds are the formula at the actual depths
        val bab = a.innerProductErrorBound(b)
        assert(math.abs(bab - boundAt(plan, depthA, 0)) <= 1e-12, s"seed $seed: bound $bab at depths $depthA, 0")
        assert(b.innerProductErrorBound(a) == bab)
        assert(math.abs(a.innerProductErrorBound(a) - boundAt(plan, depthA, depthA)) <= 1e-12)
        assert(math.abs(b.innerProductErrorBound(b) - boundAt(plan, 0, 0)) <= 1e-12)
        // planned for one merge level: at depth 1 an inner-product plan meets epsilon for a.a
        if (kind == QueryKind.InnerProduct && depthA == 1) assert(a.innerProductErrorBound(a) <= eps + 1e-12)
        val ea = a.cellBound; val eb = b.cellBound
        val now = math.max(a.lastTs, b.lastTs)
        for (r <- ranges) {
          val fa = oa.freqsAfter(now - r); val fb = ob.freqsAfter(now - r)
          val na = fa.values.sum.toDouble; val nb = fb.values.sum.toDouble
          val exact = dot(fa, fb); val fa2 = dot(fa, fa); val fb2 = dot(fb, fb)
          val est = a.innerProduct(b, r, now)
          assert(b.innerProduct(a, r, now) == est, "the inner product is symmetric")
          val sja = a.selfJoin(r, now); val sjb = b.selfJoin(r, now)
          // deterministic lower sides: every cell estimate is >= (1 - e) of its true weight
          assert(est >= (1 - ea) * (1 - eb) * exact - 1e-9 * exact, s"seed $seed r=$r: a.b est=$est exact=$exact")
          assert(sja >= (1 - ea) * (1 - ea) * fa2 - 1e-9 * fa2, s"seed $seed r=$r: F2(a) est=$sja exact=$fa2")
          assert(sjb >= (1 - eb) * (1 - eb) * fb2 - 1e-9 * fb2, s"seed $seed r=$r: F2(b) est=$sjb exact=$fb2")
          for ((e, x, scale, bound) <- Seq((est, exact, na * nb, bab), (sja, fa2, na * na, a.innerProductErrorBound(a)),
                                           (sjb, fb2, nb * nb, b.innerProductErrorBound(b)))) {
            if (math.abs(e - x) > bound * scale + 1e-9 * scale) v += 1
            q += 1
            if (scale > 0) worst = math.max(worst, math.abs(e - x) / (bound * scale))
          }
        }
      }
      val tolerance = 3 * math.sqrt(q * delta * (1 - delta))
      info(f"$v of $q queries outside the bound (allowed ${delta * q + tolerance}%.1f); worst error / bound $worst%.3f")
      assert(v <= delta * q + tolerance, s"$v of $q")
    }
  }
}
