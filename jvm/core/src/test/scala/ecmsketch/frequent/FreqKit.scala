package ecmsketch.frequent

import scala.util.Random

import org.scalatest.Assertions._

import ecmsketch.Oracle
import ecmsketch.core.{Codec, WindowSpec, Windows}

/** Streams and oracle checks of the frequent-items suites. */
object FreqKit {
  final case class Row(key: Long, ts: Long, w: Long)

  def spec(window: Long): WindowSpec = WindowSpec(countWindow = false, tsMicros = false, window = window)

  /** Zipf(s) keys over `universe`, `n` rows, timestamps rising by 0..maxGap (0: bursts at one ts). */
  def zipf(n: Int, universe: Int, s: Double, maxGap: Int, seed: Long, weights: Boolean = false): Seq[Row] = {
    val r = new Random(seed)
    val cdf = { val p = (1 to universe).map(i => 1.0 / math.pow(i, s)); val z = p.sum; p.scanLeft(0.0)(_ + _ / z).tail.toArray }
    var t = 1000L
    (0 until n).map { _ =>
      t += r.nextInt(maxGap + 1)
      val u = r.nextDouble()
      var k = java.util.Arrays.binarySearch(cdf, u); if (k < 0) k = -k - 1
      Row(math.min(k, universe - 1).toLong, t, if (weights) 1L + r.nextInt(5) else 1L)
    }
  }

  /** Many distinct keys (each once) interleaved with a few heavy ones, and a burst at one timestamp. */
  def adversarial(n: Int, seed: Long): Seq[Row] = {
    val r = new Random(seed)
    var t = 0L
    (0 until n).map { i =>
      if (r.nextInt(50) == 0) t += 1
      val key = if (i % 7 == 0) (i % 5).toLong else 1000000L + i
      Row(key, t, 1L)
    }
  }

  def build(rows: Seq[Row], window: Long, eps: Double, levels: Int = 0): FrequentSketch = {
    val s = FrequentSketch.create(spec(window), eps, levels)
    rows.foreach(x => s.addKey(x.key, x.ts, x.w))
    s
  }

  /** The sketch of `rows` (in time order) given as sorted batches of `batch` rows through
    * [[FrequentOps.addSorted]], as the ingest layer gives them: the first goes into the empty sketch
    * scale by scale, the others row by row.
    */
  def buildSorted(rows: Seq[Row], window: Long, eps: Double, levels: Int = 0, batch: Int = Int.MaxValue): FrequentSketch = {
    val ops = new FrequentOps(() => FrequentSketch.create(spec(window), eps, levels), FreqKeys.BigInt, null)
    val s = ops.create()
    val keys = rows.map(_.key).toArray; val ts = rows.map(_.ts).toArray; val ws = rows.map(_.w).toArray
    var from = 0
    while (from < ts.length) {
      val until = math.min(ts.length, from + batch)
      ops.addSorted(s, keys, ts, ws, from, until)
      from = until
    }
    s
  }

  /** Lemma 3 of docs/design/windowed-top-k.md: below the coarsest scale, a scale `l` with a drop mark
    * B has more than H_l - lambda_l units after B (the horizon rule drops while its total entries
    * after B hold H_l, of which fewer than lambda_l arrived before; a sorted batch starts a scale
    * where H_l units follow), so a start the next scale serves has n(t0) > (q - 1) lambda_(l+1) / 2.
    */
  def checkHorizons(s: FrequentSketch, rows: Seq[Row], what: String): Unit =
    s.scales.indices.init.foreach { l =>
      val b = s.scales(l).dropped
      if (b != Long.MinValue) {
        val after = rows.iterator.filter(_.ts > b).map(_.w).sum
        assert(after > s.horizon(l) - s.scales(l).lambda,
          s"$what: scale $l drops at $b with $after units after it, H_l - lambda_l = ${s.horizon(l) - s.scales(l).lambda}")
      }
    }

  def oracle(rows: Seq[Row]): Oracle = { val o = new Oracle; rows.foreach(x => o.add(x.key, x.ts, x.w)); o }

  /** Ranges to query: the window, 1, and ranges starting on and around each timestamp boundary. */
  def ranges(rows: Seq[Row], window: Long, now: Long, count: Int, seed: Long): Seq[Long] = {
    val r = new Random(seed)
    val ts = rows.map(_.ts).distinct
    val fromData = (0 until count).map { _ =>
      val t = ts(r.nextInt(ts.size)) + (r.nextInt(3) - 1) // on a timestamp, just before, just after
      now - t + 1
    }
    (Seq(window, 1L, 2L) ++ fromData).filter(x => x >= 1 && x <= window).distinct
  }

  /** Asserts the certified intervals and the a priori bound of every key (and some absent keys),
    * the range count, heavy hitters and top-10 recall; returns the largest measured error / n.
    */
  def check(s: FrequentSketch, o: Oracle, window: Long, now: Long, ranges: Seq[Long], absent: Seq[Long] = Seq(-1L, -2L)): Double = {
    checkSums(s)
    val e = s.errorBound
    var worst = 0.0
    ranges.foreach { r =>
      val t0 = Windows.lowerBound(now, r)
      val exact = o.freqsAfter(if (t0 == Long.MinValue) Long.MinValue else t0 - 1) // (the rows' ts are > Long.MinValue)
      val n = exact.values.sum
      val c = s.rangeCount(r, now)
      assert(c.lower <= n && n <= c.upper, s"range $r: count $n outside [${c.lower}, ${c.upper}]")
      assert(math.abs(c.estimate - n) <= e * n + 1e-9, s"range $r: count estimate ${c.estimate} vs $n, bound $e")
      assert((c.upper.toDouble - c.lower.toDouble) / 2 <= e * n + 1e-9, s"range $r: count interval [${c.lower}, ${c.upper}] wider than 2 * $e * $n")
      (exact.keys ++ absent).foreach { k =>
        val f = exact.getOrElse(k, 0L)
        val x = s.estimate(java.lang.Long.valueOf(k), r, now)
        assert(x.lower <= f && f <= x.upper, s"range $r key $k: $f outside [${x.lower}, ${x.upper}]")
        val err = math.abs(x.estimate - f)
        assert(err <= e * n + 1e-9, s"range $r key $k: estimate ${x.estimate} vs $f, bound $e * $n")
        // the interval itself, not only this estimate, within the certified bound (what the proof bounds)
        assert((x.upper.toDouble - x.lower.toDouble) / 2 <= e * n + 1e-9, s"range $r key $k: interval [${x.lower}, ${x.upper}] wider than 2 * $e * $n")
        if (n > 0) worst = math.max(worst, err / n)
      }
      if (n > 0) Seq(0.01, 0.05, 0.2).foreach { phi =>
        val hh = s.heavyHitters(phi, r, now).map(_.key.asInstanceOf[Long]).toSet
        exact.foreach { case (k, f) =>
          if (f >= (phi + e) * n) assert(hh(k), s"range $r phi $phi: key $k of weight $f / $n missing")
          if (f < (phi - e) * n) assert(!hh(k), s"range $r phi $phi: key $k of weight $f / $n reported")
        }
        hh.foreach(k => assert(exact.getOrElse(k, 0L) >= (phi - e) * n, s"range $r phi $phi: key $k reported"))
      }
      if (n > 0) {
        val sorted = exact.values.toSeq.sorted(Ordering.Long.reverse)
        if (sorted.size > 10) {
          val tenth = sorted(9)
          val clear = exact.filter(_._2 > sorted(10) + 2 * e * n).keySet
          val top = s.topK(10, r, now).map(_.key.asInstanceOf[Long]).toSet
          clear.foreach(k => assert(top(k), s"range $r: key $k clearly in the top 10 (tenth $tenth) is missing"))
        }
      }
    }
    worst
  }

  /** What a merge's sum check (FrequentMerge.checkSums) relies on: on every scale of a sketch built
    * from rows, its key weights plus its decrements, and its totals, add up to at most its total
    * weight (a decrement takes at least as many units from the keys), so that check refuses no
    * merge of such sketches whose total weights fit.
    */
  def checkSums(s: FrequentSketch): Unit =
    s.scales.zipWithIndex.foreach { case (sc, l) =>
      val m = sc.largestSum
      assert(m >= 0L && m <= s.count, s"scale $l: key weights plus decrements, or totals, add up to $m, above the total weight ${s.count}")
    }

  /** The scale of `s` a merged scale with drop mark `cut` reads: the finest, up to `upTo`, that
    * holds every start after `cut` (as FrequentFold and FrequentMerge choose it).
    */
  def scaleRead(s: FrequentSketch, cut: Long, upTo: Int = Int.MaxValue): Int = {
    var i = 0
    while (i < math.min(upTo, s.scales.size - 1) && s.scales(i).dropped > cut) i += 1
    i
  }

  def roundTrip(s: FrequentSketch): FrequentSketch = {
    val b = Codec.encode(FrequentKind, s)
    val d = Codec.decodeAs(FrequentKind, b)
    assert(java.util.Arrays.equals(Codec.encode(FrequentKind, d), b), "re-encoding a decoded sketch changes its bytes")
    d
  }
}
