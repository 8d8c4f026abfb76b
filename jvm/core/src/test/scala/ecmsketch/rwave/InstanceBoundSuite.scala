package ecmsketch.rwave

import org.scalatest.funsuite.AnyFunSuite

import scala.util.Random

/** The per-instance failure bound that plans the number of instances
  * ([[RwConfig.instanceFailureBound]], docs/design/rwave.md "Instances"), checked against exact failure
  * probabilities of the same estimator and hash family, t = (a x + b) mod p with a in [1, p) and
  * b in [0, p), over small Mersenne fields p = 2^k - 1 (level = min(k - 1, k - bitLength(t)), so
  * P[level >= l] = 2^-l (1 + 1/p) as for p = 2^61 - 1). The bound uses only pairwise independence,
  * so it must hold in every field, for every set of distinct items.
  */
class InstanceBoundSuite extends AnyFunSuite {

  /** One instance over field 2^k - 1 for the items `xs`: the covering level (lowest with fewer than
    * `cap` items at or above it; the top level otherwise, as RandWave answers) and its estimate.
    */
  private def misses(k: Int, a: Long, b: Long, xs: Array[Long], cap: Int, eps: Double, counts: Array[Int]): Boolean = {
    val p = (1L << k) - 1
    java.util.Arrays.fill(counts, 0)
    var i = 0
    while (i < xs.length) {
      val t = (a * xs(i) + b) % p
      val level = math.min(k - 1, k - (64 - java.lang.Long.numberOfLeadingZeros(t)))
      counts(level) += 1
      i += 1
    }
    // X_l = number of items with level >= l
    var l = k - 1
    while (l > 0) { counts(l - 1) += counts(l); l -= 1 }
    var sel = 0
    while (sel < k - 1 && counts(sel) >= cap) sel += 1
    val est = java.lang.Math.scalb(counts(sel).toDouble, sel)
    val d = xs.length.toDouble
    math.abs(est - d) > eps * d
  }

  /** Exact probabilities, over every hash (a, b) of the field 2^k - 1, that one instance misses,
    * for each (capacity, epsilon) of `cases`. For a fixed a, t_i = (y_i + b) mod p with
    * y_i = a x_i mod p, so X_l = #{i : t_i < 2^(k-l)} is the number of y_i in a circular interval of
    * length 2^(k-l) starting at -b: prefix counts over y give every b in O(k).
    */
  private def exactFailures(k: Int, xs: Array[Long], cases: Seq[(Int, Double)]): Seq[Double] = {
    val p = (1L << k) - 1
    val pi = p.toInt
    val prefix = new Array[Int](pi + 1)
    val x = new Array[Int](k) // X_l
    val bad = new Array[Long](cases.size)
    val caps = cases.map(_._1).toArray; val epss = cases.map(_._2).toArray
    val d = xs.length.toDouble
    var a = 1L
    while (a < p) {
      java.util.Arrays.fill(prefix, 0)
      xs.foreach(v => prefix(((a * v) % p).toInt + 1) += 1)
      var v = 0
      while (v < pi) { prefix(v + 1) += prefix(v); v += 1 }
      var b = 0
      while (b < pi) {
        val s = (pi - b) % pi
        x(0) = xs.length
        var l = 1
        while (l < k) {
          val len = 1 << (k - l)
          x(l) = if (s + len <= pi) prefix(s + len) - prefix(s) else prefix(pi) - prefix(s) + prefix(s + len - pi)
          l += 1
        }
        var c = 0
        while (c < caps.length) {
          var sel = 0
          while (sel < k - 1 && x(sel) >= caps(c)) sel += 1
          if (math.abs(java.lang.Math.scalb(x(sel).toDouble, sel) - d) > epss(c) * d) bad(c) += 1
          c += 1
        }
        b += 1
      }
      a += 1
    }
    bad.toSeq.map(_.toDouble / ((p - 1) * p))
  }

  private def bound(k: Int, cap: Int, eps: Double, maxItems: Int): Double = {
    val p = (1L << k) - 1
    RwConfig.instanceFailureBound(eps, cap, 1.0 / p, maxItems * 2.0 / p)
  }

  test("exact failure probability over every hash of the field 2^11 - 1 is within the bound, for item counts up to 2046") {
    val k = 11
    val p = (1L << k) - 1
    // capacities C with C eps^2 from 13 to 36 (the library's C = 36 / eps^2), items up to 20 C
    val cases = Seq((37, 0.99), (37, 0.6), (64, 0.75), (100, 0.6), (144, 0.5))
    val bounds = cases.map { case (cap, eps) => bound(k, cap, eps, (p - 1).toInt) }
    // the oracle agrees with a direct evaluation of every hash on a small case
    locally {
      val xs = Array.tabulate(40)(i => (i * 97L + 5) % p)
      val counts = new Array[Int](k)
      var bad = 0L
      for (a <- 1L until p; b <- 0L until p by 7) if (misses(k, a, b, xs, 16, 0.3, counts)) bad += 1
      val direct = exactFailures(k, xs, Seq((16, 0.3))).head
      val sampled = bad.toDouble / ((p - 1) * ((p + 6) / 7))
      assert(math.abs(direct - sampled) < 0.02, s"$direct vs $sampled")
    }
    val rnd = new Random(11)
    val ds = (Seq(1, 36, 37, 38, 63, 64, 99, 100, 143, 144) ++ (0 to 20).map(i => math.round(40 * math.pow(2.0, i / 3.6)).toInt)).distinct.filter(_ < p).sorted
    var worst = 0.0; var closest = ""
    for (d <- ds) {
      val sets = Seq(Array.tabulate(d)(_.toLong), rnd.shuffle((0L until p).toVector).take(d).toArray)
      for (xs <- sets) {
        val fs = exactFailures(k, xs, cases)
        for (((cap, eps), (f, b)) <- cases.zip(fs.zip(bounds))) {
          assert(f <= b, s"capacity $cap epsilon $eps D $d: exact failure $f above the bound $b")
          if (d < cap) assert(f == 0.0, s"D $d < capacity $cap: level 0 answers exactly")
          if (f / b > worst) { worst = f / b; closest = f"capacity $cap epsilon $eps D $d: exact $f%.4f, bound $b%.4f" }
        }
      }
    }
    info(cases.zip(bounds).map { case ((c, e), b) => f"capacity $c epsilon $e: bound $b%.3f" }.mkString("; "))
    info(f"largest exact failure / bound: $worst%.3f ($closest)")
    assert(bounds.forall(_ < 0.5), bounds)
    // the oracle does see failures: the largest exact failure probability is 0.0198 against the
    // bound 0.209 (capacity 37, epsilon 0.99, 871 items); Chebyshev's inequality is that conservative
    assert(worst > 0.05, worst)
  }

  test("failure probability over 4,000 random hashes of the field 2^13 - 1 is within the bound (statistical, 5 sigma)") {
    val k = 13
    val p = (1L << k) - 1
    val rnd = new Random(12)
    val hashes = Array.fill(4000)((1 + (rnd.nextLong() & Long.MaxValue) % (p - 1), (rnd.nextLong() & Long.MaxValue) % p))
    val counts = new Array[Int](k)
    for (cap <- Seq(16, 37); eps <- Seq(0.2, 0.5)) {
      val b = bound(k, cap, eps, (p - 1).toInt)
      for (d <- Seq(cap, cap + 1, 2 * cap - 1, 3 * cap, 7 * cap, 29 * cap, 101 * cap).filter(_ < p)) {
        val xs = rnd.shuffle((0L until p).toVector).take(d).toArray
        val f = hashes.count { case (a, c) => misses(k, a, c, xs, cap, eps, counts) }.toDouble / hashes.length
        val sigma = math.sqrt(b * (1 - b) / hashes.length)
        assert(f <= b + 5 * sigma, s"cap $cap eps $eps D $d: failure rate $f above the bound $b + 5 sigma")
      }
    }
  }

  test("the bound of this library's field: a supremum over item counts, above every pointwise sum and close to it") {
    // S(x) = sum over j of T(x 2^j) at single points (the bound takes the worst over sub-intervals)
    def pointwise(eps: Double, cap: Int, x: Double): Double = {
      val eta = 1.0 / ecmsketch.hash.Hashing.MersenneP.toDouble
      def cheb(v: Double, t: Double) = if (t <= 0) 1.0 else math.min(1.0, v / (t * t))
      def cant(v: Double, t: Double) = if (t <= 0) 1.0 else v / (v + t * t)
      (-64 to 64).map { j =>
        val nu = java.lang.Math.scalb(x, j); val mu = nu * (1 + eta)
        val tLo = mu - math.min(cap.toDouble, (1 - eps) * nu)
        val a = if ((1 + eps) * nu < cap) { val tHi = (1 + eps) * nu - mu; math.min(cheb(mu, math.min(tLo, tHi)), cant(mu, tLo) + cant(mu, tHi)) }
                else cant(mu, tLo)
        math.min(a, cant(2 * mu, cap - 2 * mu))
      }.sum + cant(8.000000001, cap - 8.000000001) // the top level holding C items
    }
    for (eps <- Seq(0.01, 0.05, 0.1, 0.2, 0.5, 0.9, 0.99)) {
      val cap = RwConfig(eps, 0.1, 10, 0).capacity
      val b = RwConfig.instanceFailure(eps)
      val worst = (0 until 997).map(i => pointwise(eps, cap, cap * math.pow(2.0, i / 997.0))).max
      assert(b >= worst && b <= worst * 1.02 + 1e-6, s"eps $eps: bound $b, largest pointwise sum $worst")
      assert(b < 0.25, s"eps $eps: bound $b")
      info(f"epsilon $eps%.2f capacity $cap: one instance fails with probability <= $b%.4f; " +
        Seq(0.1, 0.05, 0.01, 0.001).map(d => s"delta $d -> ${RwConfig(eps, d, 10, 0).instances}").mkString(", ") +
        s" instances (GT's 1/3: ${Seq(0.1, 0.05, 0.01, 0.001).map(d => RwConfig.instancesFor(d, 1.0 / 3)).mkString(", ")})")
    }
  }
}
