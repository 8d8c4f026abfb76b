package ecmsketch.ecm

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.eh.EhCellKind
import ecmsketch.dwave.DwCellKind
import ecmsketch.Oracle
import ecmsketch.core.{Codec, SketchException, WindowSpec}

/** max_bytes (Planner.planWithin): the plan of smallest certified bound whose sketch can never
  * serialize to more than the budget. The bytes stay within the budget on adversarial streams (and
  * after merges), the certified bound holds against brute force, the choice is the smallest epsilon
  * that fits, and budgets too small or cells without a worst case are refused with clear messages.
  */
class MaxBytesSuite extends AnyFunSuite {
  val eh: Int = EhCellKind.id

  def enc(s: EcmSketch): Int = Codec.encode(EcmKind, s).length

  /** Adversarial streams: every column of every row touched, weights up to 2^`maxPow` (many levels),
    * timestamps spread over the window with large irregular gaps (long varints).
    */
  def adversarial(s: EcmSketch, n: Int, seed: Long, maxPow: Int, gap: Long): Unit = {
    val rnd = new scala.util.Random(seed)
    val strict = s.spec.countWindow
    var t = 0L
    var i = 0
    while (i < n) {
      t += (if (!strict && rnd.nextInt(3) == 0) 0L else 1L + (rnd.nextLong() & Long.MaxValue) % gap)
      val w = 1L << rnd.nextInt(maxPow + 1)
      s.add(rnd.nextInt(1 << 20).toLong, t, w)
      i += 1
    }
  }

  test("one EH cell: the worst-case size is never exceeded and is nearly reached (so the formula is tight both ways)") {
    // the adversary: (k+1) arrivals of weight 2^i for every level i from L down to 1 and (k0+1) of weight 1,
    // spread evenly over the window (long timestamp gaps), for every L whose total fits in 2^63 - 1
    for ((eps, window) <- Seq((0.1427, 1000L), (0.0295, 1000L), (0.1573, 1L << 40), (0.0898, Long.MaxValue), (0.3, 1000000L))) {
      val c = ecmsketch.eh.EhConfig(eps, window)
      val worst = ecmsketch.eh.EhCellKind.worstCellBytes(
        ecmsketch.core.CellParams(eps, window, 0L, 0.0, Long.MaxValue)).get
      val span = math.min(window, 1L << 62)
      var best = 0
      for (top <- 40 to 62) {
        val weights = (top to 0 by -1).flatMap(i => Seq.fill(if (i > 0) c.k + 1 else c.k0 + 1)(1L << i))
        val total = weights.foldLeft(BigInt(0))(_ + _)
        if (total <= BigInt(Long.MaxValue)) {
          val h = new ecmsketch.eh.ExpHistogram(c)
          weights.zipWithIndex.foreach { case (w, j) => h.add((BigInt(j) * (span - 1) / weights.length).toLong, w) }
          val out = new ecmsketch.core.ByteWriter(256)
          new ecmsketch.eh.EhCells(c).write(h, out, 0L)
          val bytes = out.toByteArray.length
          assert(bytes <= worst, s"eps $eps window $window top level $top: $bytes bytes > worst case $worst")
          best = math.max(best, bytes)
        }
      }
      assert(best >= 0.7 * worst, s"eps $eps window $window: the adversary reaches only $best of the worst case $worst")
    }
  }

  test("the sketch never exceeds max_bytes: adversarial weights, gaps, windows and merges") {
    for ((window, count) <- Seq((1000L, false), (1L << 40, false), (Long.MaxValue, false), (5000L, true));
         budget <- Seq(65536L, 262144L, 1L << 20)) {
      val spec = WindowSpec(count, tsMicros = false, window)
      val plan = Planner.planWithin(budget, 0.05, QueryKind.Point, 1, eh, spec)
      val worst = Planner.worstCaseBytes(spec, plan).get
      assert(worst <= budget)
      val parts = (0 until 3).map { site =>
        val s = EcmSketch.create(spec, plan, 7L)
        val gap = if (count) 1L else math.max(1L, math.min(window, 1L << 50) / 50)
        adversarial(s, 20000, 31L * site + budget, if (count) 0 else 40, gap)
        assert(enc(s) <= budget, s"window $window count $count budget $budget: ${enc(s)} bytes")
        s
      }
      if (!count) {
        val m = EcmSketch.merge(parts)
        assert(enc(m) <= worst, s"merged: ${enc(m)} > $worst")
      }
    }
  }

  test("the choice is the smallest epsilon that fits, and more bytes never give a larger bound") {
    val spec = WindowSpec(countWindow = false, tsMicros = false, 100000L)
    var prev = Double.MaxValue
    for (budget <- Seq(24576L, 65536L, 1L << 20, 4L << 20)) {
      val p = Planner.planWithin(budget, 0.01, QueryKind.Point, 1, eh, spec)
      assert(Planner.worstCaseBytes(spec, p).get <= budget)
      val tighter = Planner.plan(p.epsilon * 0.99, 0.01, QueryKind.Point, 1, eh)
      assert(Planner.worstCaseBytes(spec, tighter).get > budget, s"budget $budget: epsilon ${p.epsilon} is not the smallest")
      assert(p.epsilon <= prev)
      prev = p.epsilon
    }
  }

  test("the certified point bound holds against brute force for a budgeted sketch") {
    val spec = WindowSpec(countWindow = false, tsMicros = false, 3000L)
    val plan = Planner.planWithin(32768L, 0.05, QueryKind.Point, 1, eh, spec)
    val s = EcmSketch.create(spec, plan, 3L)
    val o = new Oracle
    val rnd = new scala.util.Random(5)
    var t = 0L
    (0 until 40000).foreach { _ =>
      t += rnd.nextInt(3)
      val k = (math.abs(rnd.nextGaussian()) * 40).toLong
      s.add(k, t, 1L); o.add(k, t, 1L)
    }
    assert(enc(s) <= 32768)
    val bound = s.pointErrorBound
    assert(bound <= plan.epsilon + 1e-12)
    var bad = 0; var n = 0
    for (r <- Seq(100L, 1000L, 3000L)) {
      val f = o.freqsAfter(t - r)
      val l1 = f.values.sum
      (0L until 200L).foreach { k =>
        val est = s.point(k, java.lang.Long.valueOf(r), null)
        val ex = f.getOrElse(k, 0L)
        assert(est >= (1 - s.cellBound) * ex - 1e-9) // the cells never under-count by more than their bound
        if (est - ex > bound * l1 + 1e-9) bad += 1
        n += 1
      }
    }
    assert(bad.toDouble / n <= 0.05, s"$bad of $n point answers beyond the bound")
  }

  test("clear errors: a budget too small, waves, epsilon and max_bytes together") {
    val spec = WindowSpec(countWindow = false, tsMicros = false, 1000L)
    val e = intercept[SketchException](Planner.planWithin(500L, 0.01, QueryKind.Point, 1, eh, spec))
    assert(e.getMessage.contains("max_bytes 500 is too small") && e.getMessage.contains("give max_bytes >="))
    val need = "give max_bytes >= (\\d+)".r.findFirstMatchIn(e.getMessage).get.group(1).toLong
    assert(Planner.planWithin(need, 0.01, QueryKind.Point, 1, eh, spec).epsilon <= Planner.MaxBudgetEpsilon)
    val w = intercept[SketchException](Planner.planWithin(1L << 20, 0.01, QueryKind.Point, 1, DwCellKind.id, spec))
    assert(w.getMessage.contains("max_bytes needs 'eh' cells"))
    assert(intercept[SketchException](Planner.planWithin(0L, 0.01, QueryKind.Point, 1, eh, spec)).getMessage
      .contains("max_bytes must be a positive integer"))
    assert(intercept[SketchException](Planner.planWithin(1L << 20, 2.0, QueryKind.Point, 1, eh, spec)).getMessage
      .contains("delta must be in (0, 1)"))
  }
}
