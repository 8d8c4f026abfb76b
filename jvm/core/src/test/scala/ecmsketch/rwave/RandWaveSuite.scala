package ecmsketch.rwave

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.core.{ByteWriter, SketchException}

import scala.util.Random

class RandWaveSuite extends AnyFunSuite {
  import RwTestUtil._

  def bytes(w: RandWave, base: Long = 0L): Array[Byte] = {
    val out = new ByteWriter(); new RwCells(w.config).write(w, out, base); out.toByteArray
  }

  test("instancesFor: odd, monotone in delta, exact binomial tail boundary; capacity") {
    for (p <- Seq(1.0 / 3, RwConfig.instanceFailure(0.1), RwConfig.instanceFailure(0.9))) {
      var prev = 0
      for (d <- Seq(0.9, 0.5, 1.0 / 3, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 1e-3, 1e-4, 1e-5, 1e-6)) {
        val r = RwConfig.instancesFor(d, p)
        assert(r % 2 == 1 && r >= prev, s"p $p delta $d: r = $r")
        assert(RwConfig.failureProbability(r, p) <= d)
        if (r > 1) assert(RwConfig.failureProbability(r - 2, p) > d)
        prev = r
      }
      // brute force against a direct double sum
      for (r <- 1 to 101 by 2) {
        var s = 0.0
        for (k <- (r + 1) / 2 to r) {
          var c = 1.0; for (j <- 1 to k) c = c * (r - k + j) / j
          s += c * math.pow(p, k) * math.pow(1 - p, r - k)
        }
        assert(math.abs(s - RwConfig.failureProbability(r, p)) <= 1e-12 * math.max(s, 1e-300) + 1e-300, s"p $p r = $r")
      }
    }
    // a config plans with its epsilon's bound; sketches of the previous plan (p = 1/3) keep theirs
    val cfg = RwConfig(0.1, 0.05, 10, 0)
    assert(cfg.instances == RwConfig.instancesFor(0.05, RwConfig.instanceFailure(0.1)) && cfg.instances == 3)
    assert(cfg.legacyInstances == RwConfig.instancesFor(0.05, 1.0 / 3) && cfg.legacyInstances == 23)
    assert(RwConfig.instancesFor(0.5, 1.0 / 3) == 1)
    val e = intercept[SketchException](RwConfig.instancesFor(1e-9, 1.0 / 3))
    assert(e.getMessage.contains("delta 1.0E-9 is too small for a randomized wave") && e.getMessage.contains("more than 255 instances"), e.getMessage)
    assert(RwConfig(0.1, 1e-9, 10, 0).legacyInstances == -1) // no sketch of the previous plan has it
    val p99 = RwConfig.instanceFailure(0.99)
    info(f"smallest supported delta: ${RwConfig.failureProbability(RwConfig.MaxInstances, p99)}%.3g at epsilon 0.99 (r = 255)")
    // each message names the parameter, its legal range and the bad value
    def refusal(f: => Any): String = intercept[SketchException](f).getMessage
    assert(refusal(RwConfig(0.009, 0.1, 10, 0)) == "epsilon must be in [0.01, 1), got 0.009")
    assert(refusal(RwConfig(1.0, 0.1, 10, 0)) == "epsilon must be in [0.01, 1), got 1.0")
    assert(refusal(RwConfig(0.1, 0.0, 10, 0)) == "delta must be in (0, 1), got 0.0")
    assert(refusal(RwConfig(0.1, 0.1, 0, 0)) == "window must be positive, got 0")
    info(Seq(0.1, 0.05, 0.01).map(d => s"delta $d -> r ${RwConfig(0.1, d, 10, 0).instances} at epsilon 0.1").mkString(", "))
    info(Seq(0.1, 0.2, 0.3).map(e => s"eps $e -> capacity ${RwConfig(e, 0.1, 10, 0).capacity}").mkString(", "))
    assert(RwConfig(0.1, 0.1, 10, 0).capacity == 3600)
    assert(RwConfig(0.2, 0.1, 10, 0).capacity == 900)
    assert(RwConfig(0.3, 0.1, 10, 0).capacity == 400)
    assert(RwConfig(0.01, 0.1, 10, 0).capacity == 360000)
  }

  test("level hash: P[h >= l] ~ 2^-l, levels in [0, 60], deterministic per seed") {
    val w = new RandWave(RwConfig(0.3, 0.001, 10, 42)) // 11 instances
    val n = 1 << 18
    val cnt = new Array[Int](61)
    for (x <- 0 until n) cnt(w.levelOf(0, ecmsketch.hash.Hashing.modP(x.toLong))) += 1
    var atLeast = n
    for (l <- 0 to 8) {
      val expect = n.toDouble / (1 << l)
      assert(math.abs(atLeast - expect) < 5 * math.sqrt(expect) + 1, s"level $l: $atLeast vs $expect")
      atLeast -= cnt(l)
    }
    val w2 = new RandWave(RwConfig(0.3, 0.001, 10, 42))
    assert((0 until 1000).forall(x => w.levelOf(3, x.toLong) == w2.levelOf(3, x.toLong)))
  }

  test("small streams are exact (level 0 covers) and expire by the window") {
    val w = new RandWave(RwConfig(0.3, 0.1, 100, 1))
    for (t <- 0L until 50L) { w.addItem(t % 20, t); w.addItem(1000 + t, t) }
    val o = new DistinctOracle((0L until 50L).flatMap(t => Seq((t % 20, t), (1000 + t, t))))
    for (lo <- -10L to 50L) assert(w.estimateFrom(lo) == o.from(lo).toDouble)
    w.advanceTo(148) // window (48, 148]: only the items at ts 49 remain
    assert(w.estimateFrom(50) == 0.0 && !w.isEmpty)
    assert(w.estimateFrom(49) == 2.0 && w.entryCount >= 2)
    w.advanceTo(149)
    assert(w.isEmpty && w.entryCount == 0)
    checkInvariants(w)
    val back = intercept[SketchException](w.advanceTo(148)).getMessage
    assert(back.contains("timestamps must be non-decreasing: got 148 after 149"), back)
    val back2 = intercept[SketchException](w.addItem(1, 10)).getMessage
    assert(back2.contains("timestamps must be non-decreasing: got 10 after 149"), back2)
  }

  /** Query statistics. Failures (beyond eps) are about 0 where delta allows 5-10%, so the rate
    * checks catch only gross regressions; the mean error of the inexact answers (those level 0
    * does not cover) as a fraction of eps, and their mean signed relative error, catch drift.
    */
  final class Acc {
    var q = 0; var f = 0; var qi = 0; var fi = 0; var worst = 0.0
    var inexact = 0; var sumAbs = 0.0; var sumSigned = 0.0
    def add(o: Acc): Unit = {
      q += o.q; f += o.f; qi += o.qi; fi += o.fi; worst = math.max(worst, o.worst)
      inexact += o.inexact; sumAbs += o.sumAbs; sumSigned += o.sumSigned
    }
    /** Mean |err| / (eps * truth) over the inexact answers. */
    def meanAbs: Double = sumAbs / inexact
    /** Mean (est - truth) / truth over the inexact answers. */
    def meanSigned: Double = sumSigned / inexact
    def summary: String = f"$f of $q beyond eps, worst |err|/(eps*truth) $worst%.3f; over $inexact inexact answers " +
      f"mean |err|/(eps*truth) $meanAbs%.4f, mean signed err/truth $meanSigned%+.5f"
  }

  /** Checks every boundary at `now` into `acc`. */
  def evaluate(w: RandWave, s: Stream, now: Long, acc: Acc): Unit = {
    val o = new DistinctOracle(s)
    val eps = w.config.epsilon
    for (lo <- boundaries(s, now, w.config.window)) {
      val truth = o.from(lo).toDouble
      val est = w.estimateFrom(lo)
      acc.q += 1
      if (math.abs(est - truth) > eps * truth) acc.f += 1
      if (truth > 0) acc.worst = math.max(acc.worst, math.abs(est - truth) / truth / eps)
      else assert(est == 0.0)
      if (RwTestUtil.coveringLevel(w, 0, lo) > 0) {
        acc.inexact += 1; acc.sumAbs += math.abs(est - truth) / truth / eps; acc.sumSigned += (est - truth) / truth
        var i = 0
        while (i < w.config.instances) {
          val e = RwTestUtil.instanceEstimateFrom(w, i, lo)
          acc.qi += 1; if (math.abs(e - truth) > eps * truth) acc.fi += 1
          i += 1
        }
      }
    }
  }

  test("(eps, delta) guarantee on random, bursty, run, all-distinct, near-expiry and mostly-expired streams") {
    val all = new Acc
    val perKind = scala.collection.mutable.LinkedHashMap[String, Acc]()
    for (eps <- Seq(0.3, 0.2); delta <- Seq(0.1, 0.05); kind <- 0 until 6; seed <- 0 until 2) {
      val rnd = new Random(1000 * kind + 10 * seed + (eps * 10).toInt + (delta * 1000).toInt)
      val n = if (eps == 0.3) 12000 else 20000
      val window = if (kind == 4) 3000L else if (kind == 5) 5000L else Seq(Long.MaxValue, 8000L)(seed % 2)
      val s: Stream = kind match {
        case 0 => random(rnd, n, n / 2)
        case 1 => bursty(rnd, n)
        case 2 => runs(rnd, n * 3)
        case 3 => allDistinct(n, rnd.nextInt(1000))
        case 4 => nearExpiry(rnd, n, window)
        case 5 => random(rnd, n * 2, 1 << 30)
      }
      val cfg = RwConfig(eps, delta, window, rnd.nextLong())
      val w = new RandWave(cfg)
      val checkpoints = Set(s.length / 3, 2 * s.length / 3, s.length)
      var i = 0
      val stats = new Acc
      while (i < s.length) {
        w.addItem(s(i)._1, s(i)._2); i += 1
        if (checkpoints(i)) {
          val prefix = s.take(i)
          val now = if (kind == 5 && i == s.length) { w.advanceTo(s.last._2 + window - 800); w.lastTs } else s(i - 1)._2
          evaluate(w, prefix, now, stats)
        }
      }
      checkInvariants(w)
      all.add(stats)
      val name = Seq("random", "bursty", "runs", "all-distinct", "near-expiry", "mostly-expired")(kind)
      perKind.getOrElseUpdate(name, new Acc).add(stats)
      assert(stats.f.toDouble <= delta * stats.q, s"$name eps=$eps delta=$delta seed=$seed: ${stats.f} of ${stats.q} queries fail")
    }
    perKind.foreach { case (k, a) => info(s"$k: ${a.summary}") }
    info(f"all: ${all.summary}; single instances: ${all.fi} of ${all.qi} (${all.fi.toDouble / math.max(1, all.qi)}%.5f)")
    assert(all.f.toDouble / all.q <= 0.05)
    assert(all.fi.toDouble / all.qi < 1.0 / 3)
    // Drift checks (fixed seeds, so these numbers are reproducible): measured mean |err|/(eps*truth)
    // 0.0548 and mean signed err/truth -0.0010 over 662k inexact answers (medians of 1 to 5
    // instances), single instances failing 4 times in 2.0 M. With the capacity constant c = 36
    // halved (and the instances planned for it) the mean error is 0.0662 and single instances fail
    // 0.109 % of the time, while every rate check above still passes.
    assert(all.meanAbs < 0.062, all.summary)
    assert(math.abs(all.meanSigned) < 0.004, all.summary)
    assert(all.fi.toDouble / all.qi < 1e-4, all.summary)
  }

  test("single instances at small capacity (eps = 0.9) fail < 1/3 of the time and the median helps") {
    val acc = new Acc
    for (seed <- 0 until 20) {
      val rnd = new Random(seed)
      val s = random(rnd, 20000, 15000)
      val w = build(RwConfig(0.9, 0.05, Long.MaxValue, rnd.nextLong()), s)
      evaluate(w, s, s.last._2, acc)
    }
    info(f"eps 0.9 (capacity ${RwConfig(0.9, 0.05, 1, 0).capacity}): single instances fail ${acc.fi.toDouble / acc.qi}%.5f; medians: ${acc.summary}")
    assert(acc.fi.toDouble / acc.qi < 1.0 / 3)
    assert(acc.f.toDouble / acc.q <= 0.05)
    // Drift checks: measured mean |err|/(eps*truth) 0.0539 and mean signed err/truth -0.0012 over
    // 20 seeds (medians of 7 instances); no single instance failed. With c = 36 halved, 1.04 % of
    // single instances fail (the planner then gives more instances, so the median's error is smaller).
    assert(acc.meanAbs < 0.065, acc.summary)
    assert(math.abs(acc.meanSigned) < 0.015, acc.summary)
    assert(acc.fi.toDouble / acc.qi < 0.002, s"single instances fail ${acc.fi} of ${acc.qi}")
  }

  test("median of r = 3 instances: high and low misses follow the binomial law of independent instances; no bias") {
    // Capacity 45 (eps 0.9), delta 0.15, so r = 3. Each trial is a fresh wave (seed) over a fresh
    // stream of distinct ids with one query whose truth is in [200, 3000], so the trials are
    // independent. An instance misses high when its estimate exceeds (1 + tau) truth, low when
    // below (1 - tau) truth; tau = 0.1 makes both common (about 11% each). The instances use
    // independent hashes, so the median of 3 misses high iff at least 2 instances do, with
    // probability P[Bin(3, pHigh) >= 2], likewise low. pHigh and pLow are measured on the same
    // trials' single-instance estimates.
    assert(RwConfig(0.9, 0.15, 10, 0).instances == 3)
    val tau = 0.1
    val trials = 800
    var hi = 0; var lo = 0; var singles = 0; var medHi = 0; var medLo = 0; var signed = 0.0
    for (trial <- 0 until trials) {
      val rnd = new Random(70000 + trial)
      val n = 200 + rnd.nextInt(2801)
      val cfg = RwConfig(0.9, 0.15, Long.MaxValue, rnd.nextLong())
      val w = new RandWave(cfg)
      var id = rnd.nextLong()
      for (t <- 0 until n) { w.addItem(id, t.toLong); id += 0x9E3779B97F4A7C15L }
      val truth = n.toDouble // lo = 0: every id, each once
      assert(RwTestUtil.coveringLevel(w, 0, 0L) > 0)
      for (i <- 0 until cfg.instances) {
        val e = RwTestUtil.instanceEstimateFrom(w, i, 0L)
        singles += 1
        if (e > (1 + tau) * truth) hi += 1
        if (e < (1 - tau) * truth) lo += 1
      }
      val m = w.estimateFrom(0L)
      if (m > (1 + tau) * truth) medHi += 1
      if (m < (1 - tau) * truth) medLo += 1
      signed += (m - truth) / truth
    }
    def atLeast2of3(p: Double): Double = 3 * p * p * (1 - p) + p * p * p
    val pHi = hi.toDouble / singles; val pLo = lo.toDouble / singles
    val expected = atLeast2of3(pHi) + atLeast2of3(pLo)
    val observed = (medHi + medLo).toDouble / trials
    val sd = math.sqrt(expected * (1 - expected) / trials)
    info(f"singles miss high $pHi%.4f, low $pLo%.4f; median misses: observed $observed%.4f (high ${medHi.toDouble / trials}%.4f, " +
      f"low ${medLo.toDouble / trials}%.4f), binomial prediction $expected%.4f +- $sd%.4f; mean signed err/truth of the median ${signed / trials}%+.4f")
    // The observed and predicted rates share their trials; under the binomial law their difference
    // has sd below sqrt(var(observed) + var(predicted)), var(predicted) by the delta method from the
    // 3 * trials single estimates. Measured: observed 0.076, predicted 0.070 +- 0.009, mean signed
    // err/truth -0.0003. With one instance fewer (r = 2, the median becomes the larger estimate):
    // observed 0.23 against 0.07 and bias +0.07; with the median index one too high: 0.30 and +0.10.
    def dF(p: Double): Double = 6 * p * (1 - p) // d/dp of atLeast2of3
    val sdPred = math.sqrt(dF(pHi) * dF(pHi) * pHi * (1 - pHi) / singles + dF(pLo) * dF(pLo) * pLo * (1 - pLo) / singles)
    val sdDiff = math.sqrt(sd * sd + sdPred * sdPred)
    assert(pHi > 0.05 && pLo > 0.05, "tau must make single-instance misses common for the test to have power")
    assert(math.abs(observed - expected) <= 4 * sdDiff, f"median misses $observed%.4f vs binomial $expected%.4f (4 sd = ${4 * sdDiff}%.4f)")
    // the median of instances that are unbiased within about 0.3% (see the single-instance test) is
    // unbiased too: |mean signed err/truth| below 0.015 (sd of this mean is about 0.003)
    assert(math.abs(signed / trials) < 0.015, s"mean signed err/truth of the median ${signed / trials}")
  }

  test("coverage is exact: the covering level holds exactly the ids with h >= l and latest ts >= s") {
    var checked = 0
    for (kind <- 0 until 5; seed <- 0 until 3) {
      val rnd = new Random(kind * 10 + seed)
      val window = Seq(Long.MaxValue, 700L, 2500L)(seed)
      val s: Stream = kind match {
        case 0 => random(rnd, 6000, 3000)
        case 1 => bursty(rnd, 6000)
        case 2 => runs(rnd, 12000)
        case 3 => nearExpiry(rnd, 6000, if (window == Long.MaxValue) 500 else window)
        case 4 => allDistinct(6000, 0)
      }
      val cfg = RwConfig(0.6, 0.2, window, rnd.nextLong())
      val w = build(cfg, s)
      checkInvariants(w)
      val latest = new java.util.HashMap[Long, Long]()
      s.foreach { case (id, t) => latest.put(id, t) }
      val ids = latest.keySet().toArray.map(_.asInstanceOf[Long])
      val lts = ids.map(latest.get(_))
      for (lo <- boundaries(s, s.last._2, window) if rnd.nextInt(4) == 0; i <- 0 until cfg.instances) {
        val l = RwTestUtil.coveringLevel(w, i, lo)
        var truth = 0
        var k = 0
        while (k < ids.length) {
          if (lts(k) >= lo && w.levelOf(i, ecmsketch.hash.Hashing.modP(ids(k))) >= l) truth += 1
          k += 1
        }
        val got = if (l == 0) w.estimateFrom(lo) else RwTestUtil.instanceEstimateFrom(w, i, lo) / math.pow(2, l)
        assert(got == truth.toDouble, s"kind $kind seed $seed lo $lo instance $i level $l")
        checked += 1
      }
    }
    info(s"$checked (instance, boundary) pairs checked exactly")
  }

  test("single-instance estimates are nearly unbiased (mean relative error)") {
    var sum = 0.0; var n = 0
    for (seed <- 0 until 30) {
      val rnd = new Random(500 + seed)
      val s = random(rnd, 8000, 1 << 30)
      val w = build(RwConfig(0.9, 0.05, Long.MaxValue, rnd.nextLong()), s)
      val o = new DistinctOracle(s)
      for (lo <- boundaries(s, s.last._2, Long.MaxValue) if rnd.nextInt(20) == 0) {
        val truth = o.from(lo).toDouble
        if (truth > 2 * w.config.capacity) {
          for (i <- 0 until w.config.instances) { sum += RwTestUtil.instanceEstimateFrom(w, i, lo) / truth - 1; n += 1 }
        }
      }
    }
    info(f"mean relative error of single instances (capacity 45): ${sum / n}%.4f over $n estimates")
    assert(math.abs(sum / n) < 0.02)
  }

  test("union counting (GT §4): parties see overlapping subsets of positions; merged wave counts the OR") {
    var worst = 0.0; var q = 0; var f = 0
    var inexact = 0; var sumAbs = 0.0; var sumSigned = 0.0
    for (seed <- 0 until 4; t <- Seq(2, 5, 17)) {
      val rnd = new Random(seed * 100 + t)
      val n = 30000
      val window = 12000L
      val cfg = RwConfig(0.3, 0.05, window, rnd.nextLong())
      val parties = Array.fill(t)(new RandWave(cfg))
      val or = scala.collection.mutable.ArrayBuffer[(Long, Long)]()
      for (p <- 0L until n) {
        if (rnd.nextInt(3) > 0) { // the OR bit is 1: some parties see it
          var any = false
          for (j <- 0 until t) if (rnd.nextInt(t) < 2) { parties(j).addItem(p, p); any = true }
          if (any) or += ((p, p))
        }
      }
      parties.foreach(_.advanceTo(n - 1))
      val m = RandWave.merge(parties.toSeq, cfg)
      checkInvariants(m)
      val o = new DistinctOracle(or)
      for (lo <- (n - window) until n.toLong by 97) {
        val truth = o.from(lo).toDouble
        val est = m.estimateFrom(lo)
        val err = math.abs(est - truth)
        q += 1; if (err > 0.3 * truth) f += 1
        if (truth > 0) worst = math.max(worst, err / truth / 0.3)
        if (RwTestUtil.coveringLevel(m, 0, lo) > 0) { inexact += 1; sumAbs += err / truth / 0.3; sumSigned += (est - truth) / truth }
      }
    }
    info(f"union counting: $f of $q beyond eps, worst |err|/(eps*truth) = $worst%.3f; over $inexact inexact answers mean " +
      f"|err|/(eps*truth) ${sumAbs / inexact}%.4f, mean signed err/truth ${sumSigned / inexact}%+.5f")
    assert(f.toDouble / q <= 0.05)
    // Drift checks, gross only: measured mean |err|/(eps*truth) 0.0606 and mean signed err/truth
    // -0.0028 (medians of few instances; with c = 36 halved and more instances planned, 0.0529).
    assert(sumAbs / inexact < 0.075 && math.abs(sumSigned / inexact) < 0.006, s"${sumAbs / inexact} ${sumSigned / inexact}")
  }

  def checkSame(a: RandWave, b: RandWave, s: Stream): Unit = {
    assert(a.lastTs == b.lastTs)
    assert(java.util.Arrays.equals(bytes(a), bytes(b)))
    for (lo <- boundaries(s, a.lastTs, a.config.window)) assert(a.estimateFrom(lo) == b.estimateFrom(lo), s"lo = $lo")
    assert(a.entryCount == b.entryCount)
  }

  test("merge equals one wave over the union, exactly (2..256 sites; overlap, disjoint, equal timestamps)") {
    for (sites <- Seq(2, 3, 8, 33, 256); mode <- Seq("disjoint", "overlap-positions", "overlap-values", "equal-ts"); seed <- 0 until 2) {
      val rnd = new Random(sites * 1000 + seed + mode.hashCode)
      val window = Seq(Long.MaxValue, 4000L)(seed)
      val cfg = RwConfig(0.3, 0.1, window, rnd.nextLong())
      val n = 15000
      val union = mode match {
        case "equal-ts" => bursty(rnd, n)
        case "overlap-values" => random(rnd, n, 3000)
        case _ => allDistinct(n, 0)
      }
      val parts = Array.fill(sites)(scala.collection.mutable.ArrayBuffer[(Long, Long)]())
      union.foreach { it =>
        parts(rnd.nextInt(sites)) += it
        if (mode == "overlap-positions" && rnd.nextBoolean()) parts(rnd.nextInt(sites)) += it
      }
      // plus an empty site whose clock is the union's last timestamp
      val idle = new RandWave(cfg); idle.advanceTo(union.last._2)
      val waves = parts.map(p => build(cfg, p)) :+ idle
      val merged = RandWave.merge(waves.toSeq, cfg)
      val single = build(cfg, union)
      single.advanceTo(merged.lastTs)
      checkInvariants(merged)
      checkSame(merged, single, union)
      // merging in a tree gives the same
      val (l, r) = waves.splitAt(sites / 2)
      val tree = RandWave.merge(Seq(RandWave.merge(l.toSeq, cfg), RandWave.merge(r.toSeq, cfg)), cfg)
      checkSame(tree, single, union)
    }
  }

  test("merge of one input is a copy; merge refuses different configs; empty inputs") {
    val rnd = new Random(7)
    val cfg = RwConfig(0.3, 0.1, 5000, 11)
    val s = random(rnd, 20000, 10000)
    val w = build(cfg, s)
    val m = RandWave.merge(Seq(w), cfg)
    checkSame(m, w, s)
    val c = w.copy(); checkSame(c, w, s)
    val e = intercept[SketchException](RandWave.merge(Seq(w, new RandWave(RwConfig(0.3, 0.1, 5000, 12))), cfg))
    assert(e.getMessage.contains("seed 11 vs 12"))
    val e2 = intercept[SketchException](RandWave.merge(Seq(w, new RandWave(RwConfig(0.3, 0.05, 4000, 11))), cfg))
    assert(e2.getMessage.contains("delta 0.1 vs 0.05") && e2.getMessage.contains("window 5000 vs 4000"), e2.getMessage)
    val empty = RandWave.merge(Seq(new RandWave(cfg), new RandWave(cfg)), cfg)
    assert(empty.isEmpty && empty.lastTs == Long.MinValue)
    val m2 = RandWave.merge(Seq(w, new RandWave(cfg)), cfg)
    checkSame(m2, w, s)
    assert(new RwCells(cfg).merge(Seq(new RandWave(cfg))) == null)
  }

  test("ECM cell usage: add(ts) and add(ts, v) count events with equal timestamps; merged cells count both streams") {
    var q = 0; var f = 0; var worst = 0.0
    var inexact = 0; var sumAbs = 0.0; var sumSigned = 0.0
    for (seed <- 0 until 24) {
      val rnd = new Random(seed)
      val cfg = RwConfig(0.3, 0.05, 2000, rnd.nextLong())
      // seeded event-id salts: a new wave draws a random one, which made this test's means vary
      // between runs (0.077 to 0.127 over six seeds) and fail at random
      val a = RandWave.salted(cfg, rnd.nextLong()); val b = RandWave.salted(cfg, rnd.nextLong())
      val oa = new ecmsketch.Oracle; val ob = new ecmsketch.Oracle
      var t = 0L
      for (_ <- 0 until 3000) {
        t += rnd.nextInt(3)
        val v = if (rnd.nextInt(20) == 0) rnd.nextInt(200).toLong else 1L
        if (rnd.nextBoolean()) { if (v == 1) a.add(t) else a.add(t, v); oa.add(0, t, v) }
        else { b.add(t, v); ob.add(0, t, v) }
      }
      a.advanceTo(t); b.advanceTo(t)
      val m = RandWave.merge(Seq(a, b), cfg)
      val ou = ecmsketch.Oracle.union(Seq(oa, ob))
      for ((w, o) <- Seq((a, oa), (b, ob), (m, ou)); lo <- (t - 1999) to t by 7) {
        val truth = o.after(lo - 1).toDouble
        val est = w.estimateFrom(lo)
        val err = math.abs(est - truth)
        q += 1; if (err > 0.3 * truth) f += 1
        if (truth > 0) worst = math.max(worst, err / truth / 0.3)
        if (RwTestUtil.coveringLevel(w, 0, lo) > 0) { inexact += 1; sumAbs += err / truth / 0.3; sumSigned += (est - truth) / truth }
      }
    }
    info(f"ECM cells: $f of $q beyond eps, worst |err|/(eps*truth) = $worst%.3f; over $inexact inexact answers mean " +
      f"|err|/(eps*truth) ${sumAbs / inexact}%.4f, mean signed err/truth ${sumSigned / inexact}%+.5f")
    assert(f.toDouble / q <= 0.05)
    // Drift checks (seeded salts, so reproducible): measured mean |err|/(eps*truth) 0.0880 and mean
    // signed err/truth +0.0008 over the 24 seeds. With c = 36 halved they read 0.0873 and +0.0017
    // (the plan then gives each wave more instances), so these catch a broken or biased estimator;
    // the single-instance failure checks above catch a smaller constant.
    assert(sumAbs / inexact < 0.11 && math.abs(sumSigned / inexact) < 0.02, s"${sumAbs / inexact} ${sumSigned / inexact}")
    val w = new RandWave(RwConfig(0.3, 0.05, 10, 1))
    w.add(5, 100)
    assert(w.estimateFrom(5) == 100.0)
    w.add(7, 0)
    assert(w.lastTs == 7 && w.estimateFrom(5) == 100.0)
    val e = intercept[SketchException](w.add(8, RandWave.MaxWeight + 1))
    assert(e.getMessage.contains(s"weight ${RandWave.MaxWeight + 1} is too large for a randomized-wave cell") &&
      e.getMessage.contains(s"at most ${RandWave.MaxWeight}"), e.getMessage)
    val neg = intercept[SketchException](w.add(8, -1)).getMessage
    assert(neg == "weight must be non-negative, got -1", neg)
    val back = intercept[SketchException](w.add(6)).getMessage
    assert(back.contains("timestamps must be non-decreasing: got 6 after 7"), back)
    // the same event stream in two cells: the merge counts both (distinct salts)
    val c1 = new RandWave(RwConfig(0.3, 0.05, 10, 1)); val c2 = new RandWave(RwConfig(0.3, 0.05, 10, 1))
    (0 until 50).foreach { _ => c1.add(3); c2.add(3) }
    assert(RandWave.merge(Seq(c1, c2), c1.config).estimateFrom(0) == 100.0)
  }

  test("addSortedBatch equals one-by-one adds (identical bytes)") {
    // capacity 400: batches of 800 and more items over 3000 values leave the batch whole (few
    // repeats), over 450 values deduplicate it first (the newest 800 items hold fewer than 400 ids)
    for (seed <- 0 until 6) {
      val rnd = new Random(seed)
      val cfg = RwConfig(0.3, 0.1, Seq(Long.MaxValue, 3000L)(seed % 2), rnd.nextLong())
      val s = if (seed < 2) random(rnd, 20000, 3000) else if (seed < 4) runs(rnd, 20000) else random(rnd, 20000, 450)
      val a = build(cfg, s)
      val b = new RandWave(cfg)
      val ids = s.map(_._1); val ts = s.map(_._2)
      var i = 0
      while (i < s.length) { val j = math.min(s.length, i + 1 + rnd.nextInt(3000)); b.addSortedBatch(ids, ts, i, j); i = j }
      checkSame(a, b, s)
    }
  }

  /** Level l of instance i computed from scratch: the `capacity` largest (ts, id) among the ids
    * with h_i >= l, each at its latest ts, minus the expired ones.
    */
  def bruteLevel(w: RandWave, s: Stream, i: Int, l: Int): Seq[(Long, Long)] = {
    val latest = scala.collection.mutable.HashMap[Long, Long]()
    s.foreach { case (id, t) => latest(id) = math.max(t, latest.getOrElse(id, Long.MinValue)) }
    val top = latest.toSeq.map { case (id, t) => (t, id) }
      .filter { case (_, id) => l == 0 || w.levelOf(i, ecmsketch.hash.Hashing.modP(id)) >= l }
      .sorted.takeRight(w.config.capacity)
    val win = w.config.window
    top.filter { case (t, _) => win == Long.MaxValue || t > w.lastTs - win }
  }

  test("buffered, batched and interleaved insertion give the brute-force canonical state (identical bytes)") {
    for (seed <- 0 until 6) {
      val rnd = new Random(100 + seed)
      val cfg = RwConfig(Seq(0.3, 0.5)(seed % 2), 0.1, Seq(Long.MaxValue, 800L, 5000L)(seed % 3), rnd.nextLong())
      // repeats (small universe), runs and long tie runs (bursty)
      val s = seed / 2 match {
        case 0 => random(rnd, 12000, 1500)
        case 1 => runs(rnd, 12000)
        case _ => bursty(rnd, 12000).map { case (id, t) => (id % 700, t) }
      }
      val a = build(cfg, s)
      val b = new RandWave(cfg)
      val c = new RandWave(cfg)
      val ids = s.map(_._1); val ts = s.map(_._2)
      var i = 0
      while (i < s.length) {
        val j = math.min(s.length, i + 1 + rnd.nextInt(1500))
        b.addSortedBatch(ids, ts, i, j)
        // c: one by one, with reads (which flush the buffer) and clock moves at random points
        (i until j).foreach { k => c.addItem(ids(k), ts(k)); if (rnd.nextInt(700) == 0) c.estimateFrom(ts(k)) }
        if (rnd.nextInt(4) == 0) c.advanceTo(ts(j - 1))
        i = j
      }
      checkSame(a, b, s)
      checkSame(a, c, s)
      for (w <- Seq(a, b)) {
        checkInvariants(w)
        for (inst <- 0 until cfg.instances; l <- 0 to 20) {
          val lv = w.levelAt(inst, l)
          val got = if (lv == null) Seq.empty else (0 until lv.n).map(k => (lv.ts(k), lv.ids(k)))
          assert(got == bruteLevel(w, s, inst, l), s"seed $seed instance $inst level $l")
        }
      }
    }
  }

  test("large sorted batches (more than one insertion buffer, tie runs across its boundary) give the brute-force state") {
    for (seed <- 0 until 3) {
      val rnd = new Random(300 + seed)
      val cfg = RwConfig(0.5, 0.1, Seq(Long.MaxValue, 4000L, 20000L)(seed), rnd.nextLong())
      // about 10 rows per tick, values repeating over a universe of 30000, and a tie run of 600
      // rows across the end of the first insertion buffer
      val n = RandWave.MaxBatchPending + 30000
      val s: Stream = {
        var t = 0L
        (0 until n).map { k =>
          if (rnd.nextInt(10) == 0 && math.abs(k - RandWave.MaxBatchPending) > 300) t += 1
          (rnd.nextInt(30000).toLong, t)
        }.toArray
      }
      val ids = s.map(_._1).toArray; val ts = s.map(_._2).toArray
      val b = new RandWave(cfg)
      var i = 0
      while (i < n) { val j = math.min(n, i + 1 + rnd.nextInt(20000)); b.addSortedBatch(ids, ts, i, j); i = j }
      val a = build(cfg, s)
      checkSame(a, b, s)
      checkInvariants(b)
      for (inst <- 0 until 3; l <- 0 to 12) {
        val lv = b.levelAt(inst, l)
        val got = if (lv == null) Seq.empty else (0 until lv.n).map(k => (lv.ts(k), lv.ids(k)))
        assert(got == bruteLevel(b, s, inst, l), s"seed $seed instance $inst level $l")
      }
    }
  }

  test("cells: weighted rows and reads between buffered events keep the canonical state") {
    for (seed <- 0 until 3) {
      val rnd = new Random(200 + seed)
      val cfg = RwConfig(0.3, 0.1, Seq(Long.MaxValue, 300L, 2000L)(seed), rnd.nextLong())
      val a = new RandWave(cfg)
      var t = 0L
      for (_ <- 0 until 4000) {
        t += rnd.nextInt(3)
        val v = 1 + rnd.nextInt(if (rnd.nextInt(20) == 0) 400 else 3)
        a.add(t, v)
        if (rnd.nextInt(300) == 0) a.estimateFrom(t)
      }
      checkInvariants(a) // canonical against the union of its stored items
      assert(java.util.Arrays.equals(bytes(RandWave.merge(Seq(a, a.copy()), cfg)), bytes(a)))
    }
  }

  test("memory: entries stay bounded and lazily allocated") {
    val cfg = RwConfig(0.3, 0.1, 1000, 3)
    val w = new RandWave(cfg)
    for (t <- 0L until 200000L) w.addItem(t, t)
    val bound = cfg.capacity * (1 + cfg.instances * 12)
    assert(w.entryCount < bound)
    val tiny = new RandWave(cfg); tiny.add(1)
    assert(tiny.entryCount <= 1 + 61 * cfg.instances)
    info(s"entries after 200000 distinct items (window 1000): ${w.entryCount}")
  }
}
