package ecmsketch.rwave

import ecmsketch.core.SketchException
import ecmsketch.hash.Hashing

/** Parameters of a randomized wave (Gibbons & Tirthapura §4-5, ECM §5.2; docs/design/rwave.md).
  *
  * @param epsilon relative error, in [0.01, 1)
  * @param delta   failure probability of one query, in (0, 1)
  * @param window  N in ticks or arrivals; Long.MaxValue = unbounded
  * @param seed    seed of the level hashes: waves merge only with an equal seed
  */
final case class RwConfig(epsilon: Double, delta: Double, window: Long, seed: Long) {
  SketchException.require(!epsilon.isNaN && epsilon >= RwConfig.MinEpsilon && epsilon < 1.0,
    s"epsilon must be in [${RwConfig.MinEpsilon}, 1), got $epsilon")
  SketchException.require(!delta.isNaN && delta > 0.0 && delta < 1.0, s"delta must be in (0, 1), got $delta")
  SketchException.require(window > 0, s"window must be positive, got $window")
  /** Queue capacity per level: ceil(c / epsilon^2), c = 36. */
  val capacity: Int = RwConfig.capacityFor(epsilon)
  /** Upper bound on the probability that one instance's estimate misses by more than epsilon
    * ([[RwConfig.instanceFailureBound]], docs/design/rwave.md "Instances"): about 0.09 at epsilon 0.1.
    */
  def instanceFailure: Double = RwConfig.instanceFailure(epsilon)
  /** Number of independent instances (odd); the estimate is their median. */
  val instances: Int = RwConfig.instancesFor(delta, instanceFailure)
  SketchException.require(instances.toLong * capacity <= RwConfig.MaxItems,
    s"randomized waves with epsilon $epsilon and delta $delta need $instances instances of $capacity items per level " +
      s"(${instances.toLong * capacity} in all), more than the supported ${RwConfig.MaxItems}: raise epsilon or delta")
  /** The number of instances that sketches written by version 0.1.0 have for this delta (each
    * instance bounded by GT's 1/3 alone), or -1 if there is none (more than [[RwConfig.MaxInstances]]).
    * Decoders read those sketches and keep their first [[instances]] instances. Computed once per
    * config (encoding asks it for every cell of an ECM-sketch: [[RwCellKind.versionFor]]).
    */
  lazy val legacyInstances: Int = RwConfig.legacyInstances(delta, capacity)
  def unbounded: Boolean = window == Long.MaxValue

  /** Level-hash coefficients (a_0, b_0, a_1, b_1, ...) of the instances: one pairwise-independent
    * hash per instance, drawn from `seed` by a SplitMix64 stream distinct from the Count-Min rows.
    * Shared by every wave with this config (an ECM-sketch has thousands of cells).
    */
  private[rwave] lazy val coefficients: Array[Long] = RwConfig.levelCoefficients(seed, instances)

  /** Names the parameters that differ from `o` (empty if none). */
  def diffs(o: RwConfig): Seq[String] = {
    val b = Seq.newBuilder[String]
    if (epsilon != o.epsilon) b += s"epsilon $epsilon vs ${o.epsilon}"
    if (delta != o.delta) b += s"delta $delta vs ${o.delta}"
    if (window != o.window) b += s"window $window vs ${o.window}"
    if (seed != o.seed) b += s"seed $seed vs ${o.seed}"
    b.result()
  }
}

object RwConfig {
  final val C = 36
  final val MinEpsilon = 0.01
  /** Bound on instances * capacity. A wave keeps about this many items per level layer in memory
    * (its instances' levels hold copies of level-0 items), decoded or built, so the bound caps the
    * memory of one wave (about 16 bytes an item) whatever its bytes claim.
    */
  final val MaxItems = 1L << 24
  /** Levels are 0..MaxLevel (the level hash has a 61-bit range). */
  final val MaxLevel = 60
  /** Largest number of instances (the smallest supported delta is [[failureProbability]](255, p): 1.5e-23 at epsilon 0.99, less at smaller epsilon). */
  final val MaxInstances = 255
  /** XORed into the seed so the level hashes do not reuse the Count-Min row coefficients. */
  final val LevelSeedSalt = 0x52574156454C4556L // "RWAVELEV"

  /** Level-hash coefficients of the first `r` instances for `seed` (a prefix of one stream, so
    * instance i has the same hash whatever r is).
    */
  private[rwave] def levelCoefficients(seed: Long, r: Int): Array[Long] = Hashing.rowCoefficients(seed ^ LevelSeedSalt, r)

  /** P[Binomial(r, p) >= (r+1)/2]: the probability that the median of r instances, each wrong
    * with probability at most p independently, is wrong. Summed exactly in log space.
    */
  def failureProbability(r: Int, p: Double): Double = {
    require(p > 0.0 && p < 1.0, s"p must be in (0, 1), got $p")
    binomialTail(r, math.log(p), math.log1p(-p))
  }

  /** The tail with log p and log (1 - p) given (version 0.1.0's constants for p = 1/3 are kept bit for bit). */
  private def binomialTail(r: Int, lp: Double, lq: Double): Double = {
    require(r >= 1 && r % 2 == 1, s"r must be odd and positive, got $r")
    // log C(r, k) for k = 0..r
    val logs = new Array[Double](r + 1)
    var lc = 0.0
    var k = 0
    val from = (r + 1) / 2
    var max = Double.NegativeInfinity
    while (k <= r) {
      if (k > 0) lc += math.log((r - k + 1).toDouble / k)
      val t = lc + k * lp + (r - k) * lq
      logs(k) = t
      if (k >= from && t > max) max = t
      k += 1
    }
    var s = 0.0
    k = from
    while (k <= r) { s += math.exp(logs(k) - max); k += 1 }
    math.exp(max + math.log(s))
  }

  /** Smallest odd r with P[Binomial(r, p) >= (r+1)/2] <= delta, for instances that each err with
    * probability at most p.
    */
  def instancesFor(delta: Double, p: Double): Int = {
    SketchException.require(!delta.isNaN && delta > 0.0 && delta < 1.0, s"delta must be in (0, 1), got $delta")
    var r = 1
    while (r <= MaxInstances) {
      if (failureProbability(r, p) <= delta) return r
      r += 2
    }
    throw new SketchException(
      s"delta $delta is too small for a randomized wave: it would need more than $MaxInstances instances " +
        f"(the smallest supported delta is ${failureProbability(MaxInstances, p)}%.3g)")
  }

  /** The instances of sketches written by version 0.1.0 for `delta`
    * and `capacity`, which planned with GT Lemma 2's per-instance 1/3 (its tail sum with the same
    * constants, and its limits), or -1 if it had none.
    */
  def legacyInstances(delta: Double, capacity: Int): Int = {
    val lp = math.log(1.0 / 3.0); val lq = math.log(2.0 / 3.0)
    var r = 1
    while (r <= MaxInstances && binomialTail(r, lp, lq) > delta) r += 2
    if (r > MaxInstances || r.toLong * capacity > MaxItems) -1 else r
  }

  private val failureMemo = new java.util.concurrent.ConcurrentHashMap[java.lang.Double, java.lang.Double]()

  /** Queue capacity per level for `epsilon`: ceil(c / epsilon^2), c = 36 (the factor keeps 36/0.01
    * at 3600 against rounding).
    */
  def capacityFor(epsilon: Double): Int = math.ceil(C / (epsilon * epsilon) * (1.0 - 1e-12)).toInt

  /** [[instanceFailureBound]] for the level hash of this library (p = 2^61 - 1, levels 0..60) and the
    * capacity of `epsilon`, computed once per epsilon.
    */
  def instanceFailure(epsilon: Double): Double = {
    if (failureMemo.size > 4096) failureMemo.clear() // callers choosing ever new epsilons keep it bounded
    failureMemo.computeIfAbsent(epsilon, _ => {
      val cap = capacityFor(epsilon)
      // at most 2^63 distinct items: their mean count at level 60 (probability 2/p each) is below 8.000000001
      Double.box(instanceFailureBound(epsilon, cap, 1.0 / Hashing.MersenneP.toDouble, 8.000000001))
    }).doubleValue
  }

  /** An upper bound, for every number D of distinct items in the queried range, on the probability
    * that one instance's estimate `2^l X_l` misses D by more than `epsilon * D`, where X_l is the
    * number of the items with level >= l and l is the lowest level with X_l < `capacity` (the
    * covering level). It uses only that the level hash is pairwise independent (or negatively
    * correlated), so that Var X_l <= E X_l; docs/design/rwave.md "Instances" gives the derivation:
    *
    *  - P[level >= l] = 2^-l (1 + eta) for l >= 1 (eta = 1/(2^61 - 1) here); level 0 holds every
    *    item, so X_0 = D and an answer from level 0 is exact.
    *  - The instance errs at level l >= 1 only if X_{l-1} >= C, X_l < C and |X_l - D 2^-l| > eps D 2^-l.
    *    With nu = D 2^-l and mu = nu (1 + eta) = E X_l, the term of level l is bounded by
    *    T(nu) = min(A, B): A bounds P[X_l < C and |X_l - nu| > eps nu] (Chebyshev and Cantelli),
    *    B bounds P[X_{l-1} >= C] (Cantelli, mean 2 mu).
    *  - Summed over all levels, the bound for D is at most S(x) = sum over all integers j of
    *    T(x 2^j) for the x in [C, 2C) with D = x 2^k; the result is the supremum of S over [C, 2C),
    *    taken rigorously over 2048 sub-intervals (each term at its worst ends: Var grows with nu,
    *    every deviation in A grows with nu, B's shrinks), plus the tails beyond j = +-64 and the chance
    *    `topMean`/(topMean + (C - topMean)^2) that even the top level (60) holds C items.
    *
    * `eta` and `topMean` are parameters so that tests can check the bound against exact failure
    * probabilities of the same hash family over a small field.
    */
  def instanceFailureBound(epsilon: Double, capacity: Int, eta: Double, topMean: Double): Double = {
    require(epsilon > 0 && epsilon < 1 && capacity >= 1 && eta >= 0 && eta < 0.5 && topMean >= 0,
      s"instanceFailureBound needs epsilon in (0, 1), capacity >= 1, eta in [0, 0.5) and topMean >= 0; " +
        s"got $epsilon, $capacity, $eta, $topMean")
    val c = capacity.toDouble
    val steps = 2048
    val span = 64
    var sup = 0.0
    var k = 0
    while (k < steps) {
      val xa = c * math.pow(2.0, k.toDouble / steps)
      val xb = c * math.pow(2.0, (k + 1).toDouble / steps) * (1 + 1e-12)
      var s = 0.0
      var j = -span
      while (j <= span) {
        s += levelTerm(java.lang.Math.scalb(xa, j), java.lang.Math.scalb(xb, j), c, epsilon, eta)
        j += 1
      }
      if (s > sup) sup = s
      k += 1
    }
    // beyond |j| = 64: T(nu) <= 2 nu (1 + eta) / (C - 2 nu)^2 below and <= 1 / (nu - C) above, both
    // summing to far less than 1e-12
    val top = if (c > topMean) topMean / (topMean + (c - topMean) * (c - topMean)) else 1.0
    math.min(1.0, (sup + 1e-12 + top) * (1 + 1e-9))
  }

  /** Chebyshev: P[|X - E X| >= t] <= v / t^2. */
  private def chebyshev(v: Double, t: Double): Double = if (t <= 0) 1.0 else math.min(1.0, v / (t * t))
  /** Cantelli (one-sided): P[X - E X >= t] <= v / (v + t^2), and the same for the lower tail. */
  private def cantelli(v: Double, t: Double): Double = if (t <= 0) 1.0 else v / (v + t * t)

  /** Upper bound of T(nu) over nu in [na, nb] (see [[instanceFailureBound]]). */
  private def levelTerm(na: Double, nb: Double, c: Double, eps: Double, eta: Double): Double = {
    val varB = nb * (1 + eta) // Var X_l <= E X_l, largest at nb
    // A: X_l < min(C, (1 - eps) nu), or (1 + eps) nu < X_l < C; both deviations grow with nu
    val muA = na * (1 + eta)
    val tLo = muA - math.min(c, (1 - eps) * na)
    val a =
      if ((1 + eps) * na < c) {
        val tHi = (1 + eps) * na - muA
        math.min(chebyshev(varB, math.min(tLo, tHi)), cantelli(varB, tLo) + cantelli(varB, tHi))
      } else cantelli(varB, tLo)
    // B: X_{l-1} >= C with E X_{l-1} = 2 mu, at most 2 nb (1 + eta)
    val b = cantelli(2 * varB, c - 2 * varB)
    math.min(a, b)
  }
}
