package ecmsketch.frequent

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.Oracle

/** Roll-ups (time-disjoint merges) of folded sketches against exact counts and the bound e(d):
  * hours folded from 2 to 8 sites (uneven shares, so the sites' drop marks are staggered), some
  * hours folds of folds, adversarial streams (floods of distinct keys: Misra-Gries decrements),
  * rolled up into days and the days rolled up again. The starts probed sit around every input's
  * first and last timestamps and every drop mark, merged or not, plus random ones: at each, every
  * interval holds the exact count (keys held, keys not held against the decrement bound, and the
  * range count), and the widest half width is within errorBound * n.
  */
class FrequentRollupProbeSuite extends AnyFunSuite {
  import FreqKit._

  /** Rows of one hour: `n` unit rows in [t0, t0 + len), heavy keys among a flood of distinct ones. */
  private def hour(h: Int, n: Int, len: Long, distinct: Double, seed: Long): Seq[Row] = {
    val r = new Random(seed)
    val t0 = h * len
    (0 until n).map { i =>
      val ts = t0 + (i.toLong * len) / n
      val key = if (r.nextDouble() < distinct) 10000000L + h * 100000L + i else r.nextInt(8 + r.nextInt(40)).toLong
      Row(key, ts, 1L)
    }
  }

  /** Uneven split: site j of m gets weight proportional to (j + 1)^2. */
  private def unevenSplit(rows: Seq[Row], m: Int, seed: Long): Seq[Seq[Row]] = {
    val r = new Random(seed)
    val w = (1 to m).map(j => (j * j).toDouble); val z = w.sum
    val cdf = w.scanLeft(0.0)(_ + _ / z).tail.toArray
    val parts = Array.fill(m)(Vector.newBuilder[Row])
    rows.foreach { x => val u = r.nextDouble(); var j = 0; while (j < m - 1 && cdf(j) < u) j += 1; parts(j) += x }
    parts.map(_.result()).toSeq.filter(_.nonEmpty)
  }

  /** Largest key half width / (e n) and count half width / (e n) over `starts`; asserts every interval
    * holds its exact count (keys held and absent, and the total).
    */
  private def probe(s: FrequentSketch, o: Oracle, window: Long, now: Long, starts: Seq[Long], what: String): (Double, String) = {
    val e = s.errorBound
    var worst = 0.0; var at = ""
    starts.distinct.foreach { t0 =>
      val range = now - t0 + 1
      if (range >= 1 && range <= window) {
        val exact = o.freqsAfter(t0 - 1)
        val n = exact.values.sum
        if (n > 0) {
          val c = s.rangeCount(range, now)
          assert(c.lower <= n && n <= c.upper, s"$what start $t0: count $n outside [${c.lower}, ${c.upper}]")
          val items = s.topK(Int.MaxValue, range, now)
          val held = items.map(x => x.key.asInstanceOf[Long] -> x).toMap
          val dec = s.estimate(java.lang.Long.valueOf(-1L), range, now).upper // an absent key: [0, D]
          exact.foreach { case (k, f) =>
            held.get(k) match {
              case Some(x) => assert(x.lower <= f && f <= x.upper, s"$what start $t0 key $k: $f outside [${x.lower}, ${x.upper}]")
              case None => assert(f <= dec, s"$what start $t0 key $k (not held): $f above D = $dec")
            }
          }
          val widest = (items.map(x => x.upper - x.lower) :+ dec).max
          val rk = widest / 2.0 / (e * n)
          val rc = (c.upper - c.lower) / 2.0 / (e * n)
          if (rk > worst) { worst = rk; at = f"key: start $t0, n $n, half width ${widest / 2.0}%.1f, e n ${e * n}%.1f" }
          if (rc > worst) { worst = rc; at = f"count: start $t0, n $n, half width ${(c.upper - c.lower) / 2.0}%.1f" }
        }
      }
    }
    (worst, at)
  }

  /** Starts to probe: around every input's first and last timestamp, every merged cut, and random ones. */
  private def starts(s: FrequentSketch, inputs: Seq[FrequentSketch], rows: Seq[Row], r: Random, count: Int): Seq[Long] = {
    val ts = rows.map(_.ts).distinct.toIndexedSeq
    val around = inputs.flatMap(x => Seq(x.firstTs, x.firstTs + 1, x.lastTs, x.lastTs + 1, x.lastTs - 1)) ++
      s.scales.map(_.dropped).filter(_ != Long.MinValue).flatMap(b => Seq(b + 1, b + 2, b)) ++
      inputs.flatMap(_.scales.map(_.dropped)).filter(_ != Long.MinValue).flatMap(b => Seq(b + 1, b))
    around ++ (0 until count).map(_ => ts(r.nextInt(ts.size)) + (r.nextInt(3) - 1))
  }

  /** [[probe]] of `s` at `starts`, reported, and asserted within e(d) n; returns the worst ratio. */
  private def within(s: FrequentSketch, o: Oracle, window: Long, now: Long, starts: Seq[Long], what: String): Double = {
    val (w, at) = probe(s, o, window, now, starts, what)
    info(f"$what: depth ${s.mergeDepth}, bound ${s.errorBound}%.5f (q ${s.plan.q}, k ${s.plan.k}), worst half width / (e n) $w%.3f ($at)")
    assert(w <= 1.0 + 1e-9, s"$what: half width $w times e(d) n ($at)")
    w
  }

  /** The fold of `rows` split unevenly over `m` sites (a fold of pairs of sites when `nested`, one
    * stream when the split leaves a single site).
    */
  private def foldOf(rows: Seq[Row], m: Int, seed: Long, window: Long, eps: Double, levels: Int, nested: Boolean): FrequentSketch = {
    val sites = unevenSplit(rows, m, seed).map(p => build(p, window, eps, levels))
    if (nested && sites.size >= 4) FrequentSketch.merge(sites.grouped(2).map(g => FrequentSketch.merge(g)).toSeq)
    else if (sites.size >= 2) FrequentSketch.merge(sites) else build(rows, window, eps, levels)
  }

  test("roll-ups of folded hours into days, and of days: exact counts inside, half widths within e(d) n") {
    val r = new Random(90L)
    var overall = 0.0
    for (trial <- 0 until 6) {
      val eps = Seq(0.2, 0.1, 0.05)(trial % 3)
      val levels = if (trial % 3 == 2) 2 else 1
      val len = 3600L
      val hours = 24 + r.nextInt(12)
      val window = if (trial % 2 == 0) Long.MaxValue / 4 else len * (18 + r.nextInt(12))
      val perHour = (0 until hours).map { h =>
        val n = 200 + r.nextInt(if (r.nextInt(4) == 0) 6000 else 1500) // staggered sizes: different scales per hour
        hour(h, n, len, 0.3 + 0.6 * r.nextDouble(), 1000L * trial + h)
      }
      val hourly = perHour.zipWithIndex.map { case (rows, h) =>
        val m = 2 + r.nextInt(7)
        if (h % 5 == 4) build(rows, window, eps, levels) // some hours of one stream
        else foldOf(rows, m, 7L * trial + h, window, eps, levels, nested = levels == 2 && h % 2 == 0)
      }
      val all = perHour.flatten
      val o = oracle(all)
      val now = all.last.ts
      val rolled = FrequentSketch.merge(hourly)
      val days = hourly.grouped(12 + r.nextInt(13)).map(g => FrequentSketch.merge(g)).toSeq
      val rolled2 = FrequentSketch.merge(days)
      assert(rolled.mergeDepth == hourly.map(_.mergeDepth).max)
      Seq("hours" -> (rolled, hourly), "days" -> (rolled2, days)).foreach { case (name, (s, ins)) =>
        overall = math.max(overall, within(s, o, window, now, starts(s, ins, all, r, 120), s"trial $trial eps $eps $name"))
      }
    }
    info(f"largest half width / (e(d) n) over all trials: $overall%.3f")
  }

  test("roll-ups with a large older fold under small newer folds: probed near its end and at every cut") {
    // the merged scales may read the older fold coarser than its own finest scale, and the newer
    // folds bring the leftover units of their blocks
    val r = new Random(91L)
    var overall = 0.0
    for (trial <- 0 until 4) {
      val eps = Seq(0.2, 0.1)(trial % 2)
      val levels = 1 + (trial / 2)
      val window = Long.MaxValue / 4
      val len = 100000L
      val big = hour(0, 8000 + r.nextInt(8000), len, 0.7, 500L + trial)
      val small = (1 to 3 + r.nextInt(8)).map(h => hour(h, 60 + r.nextInt(400), len, 0.5, 600L + 10 * trial + h))
      def fold(rows: Seq[Row], m: Int, seed: Long): FrequentSketch = foldOf(rows, m, seed, window, eps, levels, nested = levels >= 2)
      val ins = fold(big, 8, 700L + trial) +: small.zipWithIndex.map { case (x, i) => fold(x, 2 + r.nextInt(7), 800L + i) }
      val all = big ++ small.flatten
      val now = all.last.ts
      val s = FrequentSketch.merge(ins)
      val near = big.map(_.ts).distinct.takeRight(2000).filter(_ => r.nextInt(40) == 0)
      overall = math.max(overall, within(s, oracle(all), window, now, near ++ starts(s, ins, all, r, 40), s"trial $trial eps $eps, ${ins.size} clusters"))
    }
    info(f"largest half width / (e(d) n): $overall%.3f")
  }

  test("folds of roll-ups: each site rolls its hours (one stream or folds) into a day, the days fold") {
    val r = new Random(92L)
    var overall = 0.0
    for (trial <- 0 until 4) {
      val eps = Seq(0.2, 0.1, 0.05)(trial % 3)
      val levels = 2 + trial / 2
      val window = Long.MaxValue / 4
      val len = 3600L
      val hours = 12 + r.nextInt(12)
      val m = 2 + r.nextInt(4)
      val perHour = (0 until hours).map(h => hour(h, 300 + r.nextInt(3000), len, 0.3 + 0.6 * r.nextDouble(), 2000L * trial + h))
      // site j's hour h: its share of the hour, itself a fold of 2 to 4 partitions in odd trials
      val siteHours = perHour.zipWithIndex.map { case (rows, h) => unevenSplit(rows, m, 31L * trial + h) }
      val sites = (0 until m).map { j =>
        val hs = siteHours.flatMap(_.lift(j)).filter(_.nonEmpty).map { rows =>
          if (trial % 2 == 1 && rows.size > 50) foldOf(rows, 2 + r.nextInt(3), r.nextLong(), window, eps, levels, nested = false)
          else build(rows, window, eps, levels)
        }
        FrequentSketch.merge(hs)
      }
      val f = FrequentSketch.merge(sites)
      val all = perHour.flatten
      val o = oracle(all)
      val now = all.last.ts
      overall = math.max(overall, within(f, o, window, now, starts(f, sites, all, r, 120), s"trial $trial eps $eps, site depths ${sites.map(_.mergeDepth).mkString(",")}"))
    }
    info(f"largest half width / (e(d) n): $overall%.3f")
  }
}
