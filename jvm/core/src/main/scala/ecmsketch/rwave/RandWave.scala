package ecmsketch.rwave

import ecmsketch.core.{SketchException, WindowCounter}
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

/** One level of one instance: (ts, id) entries in non-decreasing ts order (usually also by id, see `sorted`). Between compactions the
  * log may hold stale occurrences of re-occurring ids, expired entries and more than `capacity`
  * entries; a compacted ("clean") level holds the canonical set sorted by (ts, id), without
  * duplicate ids, at most `capacity` entries, none expired.
  */
private[rwave] final class Level(initial: Int) {
  var ts: Array[Long] = new Array[Long](initial)
  var ids: Array[Long] = new Array[Long](initial)
  var n: Int = 0
  var dirty: Boolean = false
  /** True when the log is sorted by (ts, id) (ids signed), so a compaction need not sort tie runs. */
  var sorted: Boolean = true
  def copy(): Level = {
    val l = new Level(0)
    l.ts = java.util.Arrays.copyOf(ts, math.max(4, n)); l.ids = java.util.Arrays.copyOf(ids, math.max(4, n))
    l.n = n; l.dirty = dirty; l.sorted = sorted
    l
  }
}

/** Scratch space (per thread): an open-addressing set of ids with generation stamps, so it is
  * never cleared, and buffers for merges and encoding.
  */
private[rwave] final class IdSet {
  private var keys = new Array[Long](64)
  private var stamps = new Array[Int](64)
  private var stamp = 1
  private var shift = 64 - 6
  private var mask = 63
  /** Ids in the current generation (the table grows past half full). */
  private var count = 0

  /** Empties the set and makes room for `n` ids (more may be added: the table then grows). A table
    * far larger than `n` needs is replaced by a smaller one, so that few ids stay within the cache.
    */
  def reset(n: Int): Unit = {
    if (2L * n > keys.length || (keys.length > 4096 && keys.length > 32L * n)) allocate(n)
    stamp += 1
    if (stamp == Int.MaxValue) { java.util.Arrays.fill(stamps, 0); stamp = 1 }
    count = 0
  }

  private def allocate(n: Int): Unit = {
    var size = 64
    while (size < 2L * n) size *= 2
    keys = new Array[Long](size); stamps = new Array[Int](size)
    mask = size - 1; shift = 64 - Integer.numberOfTrailingZeros(size); stamp = 0
  }

  /** Adds `id`; false if it was present. */
  def add(id: Long): Boolean = {
    var i = ((id * 0x9E3779B97F4A7C15L) >>> shift).toInt
    while (stamps(i) == stamp) {
      if (keys(i) == id) return false
      i = (i + 1) & mask
    }
    stamps(i) = stamp; keys(i) = id
    count += 1
    if (2 * count > keys.length) grow()
    true
  }

  /** Doubles the table, keeping the current generation's ids. */
  private def grow(): Unit = {
    val oldKeys = keys; val oldStamps = stamps; val live = stamp
    allocate(keys.length)
    stamp = 1
    var j = 0
    while (j < oldKeys.length) {
      if (oldStamps(j) == live) {
        val id = oldKeys(j)
        var i = ((id * 0x9E3779B97F4A7C15L) >>> shift).toInt
        while (stamps(i) == stamp) i = (i + 1) & mask
        stamps(i) = stamp; keys(i) = id
      }
      j += 1
    }
  }

  def contains(id: Long): Boolean = {
    var i = ((id * 0x9E3779B97F4A7C15L) >>> shift).toInt
    while (stamps(i) == stamp) {
      if (keys(i) == id) return true
      i = (i + 1) & mask
    }
    false
  }
}

private[rwave] final class Scratch {
  val set = new IdSet
  val set2 = new IdSet
  var est: Array[Double] = new Array[Double](16)
  /** Batch insertion: ids reduced mod p; level hashes and the items with h >= l (small batches);
    * the items a big batch keeps (newest first) with their first and last level, per-level counts,
    * the item at which each level filled up, write positions (big batches).
    */
  var xs: Array[Long] = new Array[Long](RandWave.MaxPending)
  var hs: Array[Int] = new Array[Int](RandWave.MaxPending)
  var idx: Array[Int] = new Array[Int](RandWave.MaxPending)
  var need: Array[Int] = new Array[Int](RandWave.MaxPending)
  var fh: Array[Int] = new Array[Int](RandWave.MaxPending)
  val cnt: Array[Int] = new Array[Int](RwConfig.MaxLevel + 2)
  val bnd: Array[Int] = new Array[Int](RwConfig.MaxLevel + 2)
  val wpos: Array[Int] = new Array[Int](RwConfig.MaxLevel + 2)
  val wts: Array[Array[Long]] = new Array[Array[Long]](RwConfig.MaxLevel + 2)
  val wids: Array[Array[Long]] = new Array[Array[Long]](RwConfig.MaxLevel + 2)

  /** Makes the batch arrays hold at least m items. */
  def ensure(m: Int): Unit = if (xs.length < m) {
    val c = math.max(m, 2 * xs.length)
    xs = new Array[Long](c); hs = new Array[Int](c); idx = new Array[Int](c); need = new Array[Int](c); fh = new Array[Int](c)
  }
}

/** r independent randomized waves over items (id, ts). Level l of instance i holds the
  * `capacity` most recent items (by their latest ts) whose level hash h_i(id) >= l; an id that
  * re-occurs moves to its newer ts (distinct values, GT §5). Queries take the median over the
  * instances of 2^l * |{items of level l with ts >= lo}| at the lowest level l that covers lo.
  *
  * As an ECM cell, [[add]] assigns every arrival a fresh event id (`mix64(salt + counter)`, the salt
  * given by the creator or derived deterministically, docs/design/rwave.md "Event ids"), so arrivals
  * sharing a timestamp stay distinct.
  *
  * Implementation (docs/design/rwave.md):
  *  - Level hash: t = (a_i x + b_i) mod (2^61 - 1), x = id mod (2^61 - 1), h_i = min(60, nlz(t) - 3),
  *    so P[h_i >= l] = 2^-l. Every wave has all 61 levels, so merges never need ECM's
  *    "extra levels"/rehash step (ECM §5.2).
  *  - "Most recent" is the order (ts, id) (signed), so ties at the capacity boundary are broken
  *    the same way on every site: level l = the `capacity` largest (ts, id) among the ids ever seen
  *    with h >= l (each at its latest ts), minus the expired ones (ts <= lastTs - N). This state is
  *    independent of arrival order and of where the stream was split, so a merge equals one wave
  *    built over the union.
  *  - Coverage without overflow markers (docs/design/rwave.md, coverage): level l covers a
  *    query start s iff it holds fewer than `capacity` items or its oldest ts is < s. A covering
  *    level then holds exactly the ids with h >= l whose latest ts is >= s.
  *  - Level 0 receives every item in every instance, so its contents are identical across
  *    instances: one level-0 structure is shared. If it covers s, the answer is exact.
  *  - Storage: per level, an append-only log of (ts, id), compacted (dedupe to the latest ts,
  *    expire, keep the top `capacity`) when its buffer (at most 2 * capacity) fills, and before
  *    queries, merges, copies and encoding. Levels and their buffers are allocated lazily.
  * Not thread-safe.
  */
final class RandWave(val config: RwConfig) extends WindowCounter {
  import RandWave._

  private[this] val cap = config.capacity
  private[this] val r = config.instances
  private[this] val coeffs = config.coefficients
  private[this] val window = config.window
  private[this] val unbounded = config.unbounded

  private[rwave] var level0: Level = new Level(4)
  /** levels(i)(l) for instance i and level l >= 1; null arrays and null levels are empty. */
  private[rwave] var levels: Array[Array[Level]] = null
  /** The compact ("frozen") form of levels 1..60 (docs/design/rwave.md, "Storage and cost"): when not
    * null, `levels` is null and instance i's level l is the `capacity` largest (ts, id) with
    * h_i >= l among level 0 and the items frozenTs(i)/frozenIds(i) (null: none), which are sorted
    * by (ts, id), older than level 0's first item and each in some level, as the encoding stores
    * them. A wave is frozen by encoding and by decoding, and thawed (its levels rebuilt) by the
    * first operation that needs them: an insertion, a clock move, a query level 0 does not cover,
    * a merge. The inner arrays are never written, so copies share them.
    */
  private[rwave] var frozenTs: Array[Array[Long]] = null
  private[rwave] var frozenIds: Array[Array[Long]] = null
  private[rwave] var _lastTs: Long = Long.MinValue
  /** True when every level is compacted for the current clock. */
  private[rwave] var canonical: Boolean = true
  /** True when an id may occur twice in a level's log: set by [[addItem]], cleared when every level
    * is compacted. Event ids of [[add]] are fresh, so cells skip the duplicate search.
    */
  private[rwave] var mayRepeat: Boolean = false
  /** Event ids of [[add]] are `mix64(salt + counter)` (docs/design/rwave.md, "Event ids"). A new wave draws
    * a random salt unless its creator gives one ([[RandWave.salted]]); copies, merge results and
    * decoded waves derive theirs from their inputs, so that the same operations on the same inputs
    * give the same ids.
    */
  private[rwave] var salt: Long = java.util.concurrent.ThreadLocalRandom.current().nextLong()
  private[rwave] var counter: Long = 0L
  /** Copies made of this wave: each copy derives a different salt. */
  private[this] var copies: Long = 0L
  /** Items added but not yet inserted into the levels (ts non-decreasing, all <= lastTs); inserted
    * instance by instance when the buffer is full and before any read ([[normalize]]). Allocated
    * lazily, grows up to [[RandWave.MaxPending]] ([[RandWave.MaxBatchPending]] for
    * [[addSortedBatch]], released at the next read).
    */
  private[this] var pIds: Array[Long] = null
  private[this] var pTs: Array[Long] = null
  private[this] var pN: Int = 0

  // ---------------------------------------------------------------- hashing

  /** Level of `id` in instance i: min(60, nlz((a_i x + b_i) mod p) - 3). */
  @inline private[rwave] def levelOf(i: Int, x: Long): Int = levelFor(coeffs(2 * i), coeffs(2 * i + 1), x)

  // ---------------------------------------------------------------- updates

  private def failOrder(ts: Long): Nothing =
    throw new SketchException(
      s"timestamps must be non-decreasing: got $ts after ${_lastTs} (the Spark and Python layers reorder input; the core does not)")

  /** Records item `id` at `ts` (non-decreasing). */
  def addItem(id: Long, ts: Long): Unit = {
    if (ts < _lastTs) failOrder(ts)
    mayRepeat = true
    push(id, ts)
  }

  /** Buffers one item; the clock moves now, the levels change at the next [[flush]]. Inserting
    * later (and compacting at a later clock) gives the same state: it is canonical.
    */
  @inline private def push(id: Long, ts: Long): Unit = {
    _lastTs = ts
    canonical = false
    if (pIds == null || pN == pIds.length) growOrFlush()
    pIds(pN) = id; pTs(pN) = ts
    pN += 1
  }

  private def growOrFlush(): Unit =
    if (pIds == null) { pIds = new Array[Long](16); pTs = new Array[Long](16) }
    else if (pIds.length < MaxPending) {
      val m = 2 * pIds.length
      pIds = java.util.Arrays.copyOf(pIds, m); pTs = java.util.Arrays.copyOf(pTs, m)
    } else flush()

  /** Inserts the buffered items into the levels. */
  private def flush(): Unit = if (pN > 0) { val n = pN; pN = 0; insertBatch(pIds, pTs, n) }

  /** Inserts items [0, m) (ts non-decreasing, not before any stored item). Sorts tie runs by id
    * and, if ids may repeat, keeps only the last occurrence of each id. A level then needs only the
    * `capacity` newest batch items with h >= l: older ones have `capacity` newer distinct items
    * above them at that level for good (they stay newer when they re-occur, and expire later).
    * Level 0 gets the newest `capacity` items. Instance by instance: a batch smaller than
    * `capacity` (no level can fill) is hashed in one loop and each level takes the items with
    * h >= l, filtered from the previous level's list; a bigger batch is walked from the newest
    * item, hashing and counting per level, keeping the items that still fit in some level (levels
    * 1..F are full, so an item with h <= F is skipped), which are then written into their levels,
    * oldest first.
    */
  private def insertBatch(ids: Array[Long], ts: Array[Long], m0: Int): Unit = {
    thaw()
    val sc = scratch.get()
    // sorted by (ts, id), every level's items are appended in (ts, id) order
    sortTieRuns(ts, ids, 0, m0)
    sc.ensure(m0)
    // A big batch with few repeats ([[newestDistinct]]) is not deduplicated as a whole: level 0
    // takes its newest `cap` distinct ids, and each instance skips the older occurrences among the
    // items it keeps (an id has one level, so its older occurrences are kept only where its newest
    // is). Smaller batches, and big ones with many repeats, are deduplicated first.
    val lazyDedupe = mayRepeat && m0 >= 2 * cap && newestDistinct(sc, ids, m0)
    val m = if (mayRepeat && !lazyDedupe) dedupeBatch(sc, ids, ts, m0) else m0
    val xs = sc.xs; val need = sc.need; val fh = sc.fh
    val ex = sc.cnt; val bnd = sc.bnd; val wpos = sc.wpos; val wts = sc.wts; val wids = sc.wids
    val set = if (lazyDedupe) sc.set else null
    if (lazyDedupe) {
      // sc.idx(0 until cap): positions of the newest cap distinct ids, newest first
      val idx = sc.idx
      val oldest = idx(cap - 1)
      if (level0.n > 0 && olderThan(level0, ts(oldest), ids(oldest))) { level0.n = 0; level0.sorted = true }
      var lo = 0; var hi = cap - 1
      while (lo < hi) { val x = idx(lo); idx(lo) = idx(hi); idx(hi) = x; lo += 1; hi -= 1 }
      appendIdx(level0, ids, ts, idx, cap)
    } else {
      val c0 = math.min(m, cap)
      if (c0 == cap && level0.n > 0 && olderThan(level0, ts(m - c0), ids(m - c0))) { level0.n = 0; level0.sorted = true }
      appendAll(level0, ids, ts, m - c0, m)
    }
    var j = 0
    while (j < m) { xs(j) = Hashing.modP(ids(j)); j += 1 }
    var i = 0
    while (i < r) {
      val a = coeffs(2 * i); val b = coeffs(2 * i + 1)
      // need(0 until nn): kept items, newest first; fh: (first level) | (h << 8). Level l > f has
      // received every item so far with h >= l; `above` counts those for l = f + 1.
      var nn = 0; var top = 0; var f = 0
      if (m < cap) {
        // no level can fill up: every item with h >= 1 is kept; level l gets those with h >= l,
        // filtered from level l - 1's list (branch-free)
        val hs = sc.hs; val idx = sc.idx
        var k = 0
        j = 0
        while (j < m) {
          val h = levelFor(a, b, xs(j))
          hs(j) = h; idx(k) = j
          k += (-h) >>> 31 // h > 0
          top = math.max(top, h)
          j += 1
        }
        if (k > 0) {
          val ls = levelsOf(i, top)
          var l = 1
          while (k > 0) {
            var lv = ls(l)
            if (lv == null) { lv = new Level(4); ls(l) = lv }
            appendIdx(lv, ids, ts, idx, k)
            var q = 0; var k2 = 0
            while (q < k) { val jj = idx(q); idx(k2) = jj; k2 += (l - hs(jj)) >>> 31; q += 1 }
            k = k2
            l += 1
          }
        }
      } else {
        java.util.Arrays.fill(ex, 0, RwConfig.MaxLevel + 1, 0)
        var above = 0
        if (lazyDedupe) set.reset(math.min(m, 4 * cap)) // about cap candidates per level: the set grows past that
        j = m - 1
        while (j >= 0) {
          val h = levelFor(a, b, xs(j))
          if (h > f && (!lazyDedupe || set.add(ids(j)))) {
            need(nn) = j; fh(nn) = (f + 1) | (h << 8); nn += 1
            ex(h) += 1
            if (h > top) top = h
            above += 1
            while (above >= cap && f < RwConfig.MaxLevel) { above -= ex(f + 1); f += 1; bnd(f) = j }
          }
          j -= 1
        }
      }
      if (nn > 0) {
        // per-level counts: cap for the full levels 1..f, suffix sums of ex above
        val ls = levelsOf(i, top)
        var sum = 0
        var l = top
        while (l >= 1) {
          sum += ex(l)
          val c = if (l <= f) cap else sum
          if (c > 0) {
            var lv = ls(l)
            if (lv == null) { lv = new Level(math.max(4, c)); ls(l) = lv }
            // cap newer distinct items than every stored one: the stored ones are out
            if (l <= f && lv.n > 0 && olderThan(lv, ts(bnd(l)), ids(bnd(l)))) { lv.n = 0; lv.sorted = true }
            ensureRoom(lv, c)
            wts(l) = lv.ts; wids(l) = lv.ids; wpos(l) = lv.n; ex(l) = lv.n
          } else ex(l) = -1
          l -= 1
        }
        // oldest first, each kept item into its levels
        var q = nn - 1
        while (q >= 0) {
          val jj = need(q)
          val t = ts(jj); val id = ids(jj)
          val v = fh(q)
          var l2 = v & 0xFF
          val h = v >>> 8
          while (l2 <= h) {
            val p = wpos(l2)
            wts(l2)(p) = t; wids(l2)(p) = id; wpos(l2) = p + 1
            l2 += 1
          }
          q -= 1
        }
        l = 1
        while (l <= top) {
          if (ex(l) >= 0) {
            val lv = ls(l)
            lv.n = wpos(l)
            joinTies(lv, ex(l))
            lv.dirty = true
            wts(l) = null; wids(l) = null
          }
          l += 1
        }
      }
      i += 1
    }
  }

  /** True when every entry of a log is smaller in (ts, id) than (t, id). */
  @inline private def olderThan(lv: Level, t: Long, id: Long): Boolean = {
    val lt = lv.ts(lv.n - 1)
    lt < t || (lt == t && lv.sorted && lv.ids(lv.n - 1) < id)
  }

  /** Whether the batch [0, m) is worth leaving whole: its newest `cap` distinct ids lie within its
    * newest 2 `cap` items (few repeats: deduplicating the whole batch would not shrink it much,
    * while each instance would hash every item of it). If so, sc.idx(0 until cap) are their
    * positions (the last occurrence of each), newest first.
    */
  private def newestDistinct(sc: Scratch, ids: Array[Long], m: Int): Boolean = {
    val set = sc.set
    set.reset(cap)
    val idx = sc.idx
    var k = 0
    var j = m - 1
    val stop = m - 2 * cap
    while (j >= stop && k < cap) {
      if (set.add(ids(j))) { idx(k) = j; k += 1 }
      j -= 1
    }
    k == cap
  }

  /** Keeps the last occurrence of every id in [0, m) (order preserved); returns the new count. */
  private def dedupeBatch(sc: Scratch, ids: Array[Long], ts: Array[Long], m: Int): Int = {
    val set = sc.set
    set.reset(m)
    var w = m
    var j = m - 1
    while (j >= 0) {
      val id = ids(j)
      if (set.add(id)) { w -= 1; ids(w) = id; ts(w) = ts(j) }
      j -= 1
    }
    val n = m - w
    if (w > 0) { System.arraycopy(ids, w, ids, 0, n); System.arraycopy(ts, w, ts, 0, n) }
    n
  }

  /** Makes room in `lv` for k more entries (k <= capacity): compacts a log that cannot take them,
    * then grows it if needed (a log holds at most 2 * capacity entries).
    */
  private def ensureRoom(lv: Level, k: Int): Unit = if (lv.n + k > lv.ts.length) {
    if (lv.n > 0) compact(lv)
    val len = lv.ts.length
    if (lv.n + k > len) {
      val m = math.max(lv.n + k, math.min(2 * cap, math.max(4, 2 * len)))
      lv.ts = java.util.Arrays.copyOf(lv.ts, m); lv.ids = java.util.Arrays.copyOf(lv.ids, m)
    }
  }

  private def appendAll(lv: Level, ids: Array[Long], ts: Array[Long], from: Int, until: Int): Unit = {
    var q = from
    while (q < until) {
      if (lv.n == lv.ts.length) makeRoom(lv)
      val n = lv.n
      val c = math.min(until - q, lv.ts.length - n)
      System.arraycopy(ts, q, lv.ts, n, c); System.arraycopy(ids, q, lv.ids, n, c)
      lv.n = n + c
      joinTies(lv, n)
      q += c
    }
    lv.dirty = true
  }

  private def appendIdx(lv: Level, ids: Array[Long], ts: Array[Long], idx: Array[Int], k: Int): Unit = {
    var q = 0
    while (q < k) {
      if (lv.n == lv.ts.length) makeRoom(lv)
      val n = lv.n
      val c = math.min(k - q, lv.ts.length - n)
      val lts = lv.ts; val lids = lv.ids
      var e = 0
      while (e < c) { val j = idx(q + e); lts(n + e) = ts(j); lids(n + e) = ids(j); e += 1 }
      lv.n = n + c
      joinTies(lv, n)
      q += c
    }
    lv.dirty = true
  }

  /** Entries [0, n) and [n, lv.n) of a log are each sorted by (ts, id). Where a tie run spans the
    * two, sorts it if it is short; otherwise marks the log unsorted (the next compaction sorts it).
    */
  private def joinTies(lv: Level, n: Int): Unit = if (n > 0 && lv.sorted) {
    val ts = lv.ts; val ids = lv.ids
    val t = ts(n)
    if (ts(n - 1) == t && ids(n) < ids(n - 1)) {
      var a = n - 1
      while (a > 0 && ts(a - 1) == t) a -= 1
      var b = n + 1
      while (b < lv.n && ts(b) == t) b += 1
      if (b - a > 32) lv.sorted = false else sortTieRuns(ts, ids, a, b)
    }
  }

  /** One arrival with a fresh event id. */
  def add(ts: Long): Unit = {
    if (ts < _lastTs) failOrder(ts)
    val id = Hashing.mix64(salt + counter)
    counter += 1
    push(id, ts) // a fresh id: compactions need not look for repeated ids
  }

  /** v arrivals with fresh ids; v > [[RandWave.MaxWeight]] is refused with a SketchException. */
  def add(ts: Long, v: Long): Unit = {
    if (v < 0) throw new SketchException(s"weight must be non-negative, got $v")
    if (v > MaxWeight)
      throw new SketchException(
        s"weight $v is too large for a randomized-wave cell: each unit of weight is stored as a separate sampled event, " +
          s"so one row may carry at most $MaxWeight (use exponential-histogram or deterministic-wave cells for large weights)")
    if (ts < _lastTs) failOrder(ts)
    if (v == 0) advanceTo(ts)
    else { var k = 0L; while (k < v) { add(ts); k += 1 } }
  }

  /** Moves the clock to `now` (>= lastTs); expired items are dropped before the next query. */
  def advanceTo(now: Long): Unit = {
    if (now < _lastTs) failOrder(now)
    if (now != _lastTs) { _lastTs = now; canonical = false }
  }

  /** Adds items `[from, until)` of parallel arrays whose timestamps are sorted (non-decreasing, not
    * before [[lastTs]]). Only the last occurrence of each id in the batch is processed: by the
    * canonical-state rule the result is identical to adding them one by one.
    */
  def addSortedBatch(ids: Array[Long], ts: Array[Long], from: Int, until: Int): Unit = {
    if (until <= from) return
    var i = from
    var prev = _lastTs
    while (i < until) { if (ts(i) < prev) failOrder(ts(i)); prev = ts(i); i += 1 }
    mayRepeat = true
    canonical = false
    _lastTs = ts(until - 1)
    // large batches: the insertion keeps only what each level can hold (see insertBatch)
    i = from
    while (i < until) {
      if (pIds == null || pN == pIds.length) {
        if (pIds != null && pIds.length >= MaxBatchPending) flush()
        else {
          val c = math.min(MaxBatchPending, math.max(math.max(16, pN + (until - i)), if (pIds == null) 0 else 2 * pIds.length))
          pIds = if (pIds == null) new Array[Long](c) else java.util.Arrays.copyOf(pIds, c)
          pTs = if (pTs == null) new Array[Long](c) else java.util.Arrays.copyOf(pTs, c)
        }
      }
      val c = math.min(until - i, pIds.length - pN)
      System.arraycopy(ids, i, pIds, pN, c); System.arraycopy(ts, i, pTs, pN, c)
      pN += c
      i += c
    }
  }

  private def levelsOf(i: Int, h: Int): Array[Level] = {
    thaw()
    if (levels == null) levels = new Array[Array[Level]](r)
    var ls = levels(i)
    if (ls == null || ls.length <= h) {
      val n = math.max(h + 1, if (ls == null) 0 else math.min(RwConfig.MaxLevel + 1, 2 * ls.length))
      ls = if (ls == null) new Array[Level](n) else java.util.Arrays.copyOf(ls, n)
      levels(i) = ls
    }
    ls
  }

  /** Compacts a full buffer; grows it (up to 2 * capacity) if it is still more than half full. */
  private def makeRoom(lv: Level): Unit = {
    compact(lv)
    val len = lv.ts.length
    if (lv.n > len / 2 && len < 2 * cap) {
      val m = math.min(2 * cap, math.max(4, 2 * len))
      lv.ts = java.util.Arrays.copyOf(lv.ts, m); lv.ids = java.util.Arrays.copyOf(lv.ids, m)
    }
  }

  @inline private def hasBound: Boolean = !unbounded && _lastTs != Long.MinValue && _lastTs >= Long.MinValue + window
  @inline private def bound: Long = _lastTs - window

  /** Canonicalizes `lv` for the current clock: keeps the latest occurrence of every id, drops
    * expired entries and keeps the `capacity` largest (ts, id), sorted by (ts, id).
    */
  private[rwave] def compact(lv: Level): Unit = compact(lv, mayRepeat)

  private[rwave] def compact(lv: Level, dedupe: Boolean): Unit = {
    val n = lv.n
    if (n == 0) { lv.dirty = false; lv.sorted = true; return }
    val hb = hasBound; val b = bound
    val ts = lv.ts; val ids = lv.ids
    val set = if (dedupe) scratch.get().set else null
    if (dedupe) set.reset(n)
    var w = n
    var k = 0
    var boundaryTs = 0L
    var i = n - 1
    var stop = false
    while (i >= 0 && !stop) {
      val t = ts(i)
      if ((hb && t <= b) || (k >= cap && t < boundaryTs)) stop = true
      else {
        val id = ids(i)
        if (!dedupe || set.add(id)) {
          w -= 1; ts(w) = t; ids(w) = id; k += 1
          if (k == cap) boundaryTs = t
        }
        i -= 1
      }
    }
    if (!lv.sorted) sortTieRuns(ts, ids, w, n)
    val from = if (k > cap) w + (k - cap) else w
    val m = n - from
    if (from > 0 && m > 0) { System.arraycopy(ts, from, ts, 0, m); System.arraycopy(ids, from, ids, 0, m) }
    lv.n = m
    lv.dirty = false
    lv.sorted = true
  }

  /** Drops the expired prefix of a compacted level and releases memory of mostly empty buffers. */
  private def expireClean(lv: Level): Unit = {
    if (hasBound && lv.n > 0 && lv.ts(0) <= bound) {
      val k = firstAbove(lv, bound)
      val m = lv.n - k
      System.arraycopy(lv.ts, k, lv.ts, 0, m); System.arraycopy(lv.ids, k, lv.ids, 0, m)
      lv.n = m
    }
    if (lv.ts.length > 16 && lv.n < lv.ts.length / 4) {
      val m = math.max(8, 2 * lv.n)
      lv.ts = java.util.Arrays.copyOf(lv.ts, m); lv.ids = java.util.Arrays.copyOf(lv.ids, m)
    }
  }

  /** Brings every level into canonical form for the current clock. */
  private[rwave] def normalize(): Unit = if (!canonical) {
    thaw()
    flush()
    if (pIds != null && pIds.length > MaxPending) { pIds = null; pTs = null }
    normalizeLevel(level0)
    if (levels != null) {
      var i = 0
      while (i < r) {
        val ls = levels(i)
        if (ls != null) { var l = 1; while (l < ls.length) { val lv = ls(l); if (lv != null) normalizeLevel(lv); l += 1 } }
        i += 1
      }
    }
    canonical = true
    mayRepeat = false
  }

  private def normalizeLevel(lv: Level): Unit = { if (lv.dirty) compact(lv); expireClean(lv) }

  /** Rebuilds the levels of a frozen wave (see [[frozenTs]]). */
  @inline private[rwave] def thaw(): Unit = if (frozenTs != null) thawNow()

  private def thawNow(): Unit = {
    val fts = frozenTs; val fids = frozenIds
    frozenTs = null; frozenIds = null
    levels = null
    var i = 0
    while (i < r) {
      val m = if (fts(i) == null) 0 else fts(i).length
      RwCells.rebuild(this, i, fts(i), fids(i), m, level0)
      i += 1
    }
  }

  /** Replaces levels 1..60 by the compact form: instance i's items not in level 0 (`ts(i)`,
    * `ids(i)`: exact length, sorted by (ts, id), no duplicates; null for none). The wave must be
    * canonical with nothing buffered.
    */
  private[rwave] def freeze(ts: Array[Array[Long]], ids: Array[Array[Long]]): Unit = {
    levels = null
    frozenTs = ts; frozenIds = ids
  }

  /** Estimated heap bytes of this wave (benchmarks; RwHeapBench): array payloads with 16-byte
    * array headers, 4-byte references, and the wave and level objects; shared scratch space excluded.
    */
  private[rwave] def heapEstimate: Long = {
    def arr(a: Array[Long]): Long = if (a == null) 0L else 16L + 8L * a.length
    def lvl(lv: Level): Long = if (lv == null) 0L else 32L + arr(lv.ts) + arr(lv.ids)
    var s = 96L + lvl(level0) + arr(pIds) + arr(pTs)
    if (levels != null) {
      s += 16L + 4L * levels.length
      levels.foreach(ls => if (ls != null) { s += 16L + 4L * ls.length; ls.foreach(l => s += lvl(l)) })
    }
    if (frozenTs != null) { s += 2 * (16L + 4L * r); frozenTs.foreach(a => s += arr(a)); frozenIds.foreach(a => s += arr(a)) }
    s
  }

  /** Stored items: level 0 plus every instance's other items when frozen, else every level's
    * entries (an allocation hint for encoding).
    */
  private[rwave] def storedItems: Int =
    if (frozenTs != null) { var s = level0.n; frozenTs.foreach(a => if (a != null) s += a.length); s } else entryCount

  /** Normalizes, then shrinks every level's arrays to its live entries and drops the empty
    * insertion buffer, so a finished wave holds no spare capacity (logs grow up to 2 * capacity
    * between compactions). Called before encoding; the next insertion regrows what it needs.
    */
  private[rwave] def trimToSize(): Unit = {
    normalize()
    if (pN == 0) { pIds = null; pTs = null }
    trimLevel(level0)
    if (frozenTs == null) foreachLevel((_, _, lv) => trimLevel(lv)) // a frozen wave is trimmed
  }

  private def trimLevel(lv: Level): Unit = {
    val m = math.max(4, lv.n)
    if (lv.ts.length > m) { lv.ts = java.util.Arrays.copyOf(lv.ts, m); lv.ids = java.util.Arrays.copyOf(lv.ids, m) }
  }

  // ---------------------------------------------------------------- queries

  /** Number of entries of a clean level with ts >= lo. */
  @inline private def countFrom(lv: Level, lo: Long): Int = lv.n - firstAtLeast(lv, lo)

  @inline private def covers(lv: Level, lo: Long): Boolean = lv == null || lv.n < cap || lv.ts(0) < lo

  /** Estimate of one instance (tests): 2^l * |{items of level l with ts >= lo}| at the lowest
    * level l that covers lo (level 60 if none does).
    */
  def instanceEstimateFrom(i: Int, lo: Long): Double = {
    normalize()
    if (covers(level0, lo)) countFrom(level0, lo).toDouble else upperEstimate(i, lo)
  }

  private def upperEstimate(i: Int, lo: Long): Double = {
    thaw()
    val ls = if (levels == null) null else levels(i)
    var l = 1
    while (l <= RwConfig.MaxLevel) {
      val lv = if (ls == null || l >= ls.length) null else ls(l)
      if (lv == null || lv.n == 0) return 0.0
      if (l == RwConfig.MaxLevel || covers(lv, lo)) return StrictMath.scalb(countFrom(lv, lo).toDouble, l)
      l += 1
    }
    0.0
  }

  /** Median over the instances; exact when the shared level 0 covers lo. */
  def estimateFrom(lo: Long): Double = {
    normalize()
    if (covers(level0, lo)) return countFrom(level0, lo).toDouble
    val s = scratch.get()
    if (s.est.length < r) s.est = new Array[Double](r)
    val e = s.est
    var i = 0
    while (i < r) { e(i) = upperEstimate(i, lo); i += 1 }
    java.util.Arrays.sort(e, 0, r)
    e(r / 2)
  }

  /** The level an instance's query for `lo` uses (tests and diagnostics). */
  def coveringLevel(i: Int, lo: Long): Int = {
    normalize()
    thaw()
    if (covers(level0, lo)) return 0
    val ls = if (levels == null) null else levels(i)
    var l = 1
    while (l < RwConfig.MaxLevel) {
      val lv = if (ls == null || l >= ls.length) null else ls(l)
      if (covers(lv, lo)) return l
      l += 1
    }
    RwConfig.MaxLevel
  }

  def isEmpty: Boolean = { normalize(); level0.n == 0 }
  def lastTs: Long = _lastTs

  /** Items of the shared level 0: each stands for at least one row added (the decoder checks them
    * against the sketch's total weight).
    */
  private[ecmsketch] def level0Count: Int = { normalize(); level0.n }
  def heldWeight: Long = level0Count.toLong

  /** Stored entries over all instances and levels (the shared level 0 counted once). */
  def entryCount: Int = {
    normalize()
    thaw()
    var s = level0.n
    foreachLevel((_, _, lv) => s += lv.n)
    s
  }

  private[rwave] def foreachLevel(f: (Int, Int, Level) => Unit): Unit = { thaw(); if (levels != null) foreachLevelNow(f) }

  private def foreachLevelNow(f: (Int, Int, Level) => Unit): Unit = {
    var i = 0
    while (i < r) {
      val ls = levels(i)
      if (ls != null) { var l = 1; while (l < ls.length) { val lv = ls(l); if (lv != null && lv.n > 0) f(i, l, lv); l += 1 } }
      i += 1
    }
  }

  /** Entries of level l of instance i (level 0 is shared), after normalization, oldest first. */
  def levelSize(i: Int, l: Int): Int = { normalize(); val lv = levelAt(i, l); if (lv == null) 0 else lv.n }

  private[rwave] def levelAt(i: Int, l: Int): Level =
    if (l == 0) level0
    else {
      thaw()
      if (levels == null || levels(i) == null || l >= levels(i).length) null else levels(i)(l)
    }

  /** A deep copy with a salt derived from this wave's salt, counter and number of copies, so that
    * the copy, the original and other copies give their future events different ids.
    */
  def copy(): RandWave = {
    normalize()
    val w = new RandWave(config)
    copies += 1
    w.salt = Hashing.mix64(Hashing.mix64(salt ^ CopyTag) + Hashing.mix64(counter) * 31 + copies)
    w.level0 = level0.copy()
    if (frozenTs != null) { w.frozenTs = frozenTs.clone(); w.frozenIds = frozenIds.clone() }
    if (levels != null) {
      w.levels = new Array[Array[Level]](r)
      var i = 0
      while (i < r) {
        val ls = levels(i)
        if (ls != null) w.levels(i) = ls.map(lv => if (lv == null || lv.n == 0) null else lv.copy())
        i += 1
      }
    }
    w._lastTs = _lastTs
    w.canonical = true
    w
  }

  /** Checks the canonical-state invariants (tests); throws AssertionError on a violation. */
  def checkInvariants(): Unit = {
    normalize()
    thaw()
    def fail(msg: String): Nothing = throw new AssertionError(msg)
    def checkLevel(i: Int, l: Int, lv: Level): Unit = {
      if (lv.n > cap) fail(s"level $l of instance $i holds ${lv.n} > $cap items")
      val seen = new java.util.HashSet[java.lang.Long]()
      var j = 0
      while (j < lv.n) {
        val t = lv.ts(j); val id = lv.ids(j)
        if (j > 0 && !(t > lv.ts(j - 1) || (t == lv.ts(j - 1) && id > lv.ids(j - 1)))) fail(s"level $l of instance $i is not sorted by (ts, id) at $j")
        if (t > _lastTs) fail(s"item ts $t after lastTs ${_lastTs}")
        if (hasBound && t <= bound) fail(s"expired item at level $l of instance $i")
        if (!seen.add(id)) fail(s"duplicate id $id at level $l of instance $i")
        if (l > 0 && levelOf(i, Hashing.modP(id)) < l) fail(s"item $id at level $l of instance $i has a lower level hash")
        j += 1
      }
    }
    checkLevel(-1, 0, level0)
    foreachLevel(checkLevel)
    // canonical: every item of any level of instance i with h_i >= l that is not in level l is
    // smaller than all of level l, which is then full
    var i = 0
    while (i < r) {
      val all = new java.util.HashMap[java.lang.Long, java.lang.Long]()
      def collect(lv: Level): Unit = if (lv != null) {
        var j = 0
        while (j < lv.n) {
          val prev = all.put(lv.ids(j), lv.ts(j))
          if (prev != null && prev.longValue != lv.ts(j)) fail(s"id ${lv.ids(j)} has two timestamps in instance $i")
          j += 1
        }
      }
      collect(level0)
      var l = 1
      while (l <= RwConfig.MaxLevel) { collect(levelAt(i, l)); l += 1 }
      l = 1
      while (l <= RwConfig.MaxLevel) {
        val lv = levelAt(i, l)
        val in = new java.util.HashSet[java.lang.Long]()
        if (lv != null) { var j = 0; while (j < lv.n) { in.add(lv.ids(j)); j += 1 } }
        val it = all.entrySet().iterator()
        while (it.hasNext) {
          val e = it.next(); val id: Long = e.getKey; val t: Long = e.getValue
          if (levelOf(i, Hashing.modP(id)) >= l && !in.contains(id)) {
            if (lv == null || lv.n < cap) fail(s"level $l of instance $i is not full but misses item $id")
            if (!(t < lv.ts(0) || (t == lv.ts(0) && id < lv.ids(0)))) fail(s"level $l of instance $i misses the newer item $id")
          }
        }
        l += 1
      }
      i += 1
    }
  }

  override def toString: String = s"RandWave(eps=${config.epsilon}, delta=${config.delta}, N=${config.window}, lastTs=${_lastTs}, entries=$entryCount)"
}

object RandWave {
  final val MaxWeight = 1L << 20
  /** Largest number of buffered items of a wave (see [[RandWave.addItem]]). */
  private[rwave] final val MaxPending = 512
  /** Largest number of items buffered by [[RandWave.addSortedBatch]]: big batches let each level
    * skip the items it could not keep (the buffer is released at the next read).
    */
  private[rwave] final val MaxBatchPending = 1 << 18

  private[rwave] val scratch: ThreadLocal[Scratch] = ThreadLocal.withInitial(() => new Scratch)

  private final val CopyTag = 0x636F7079L // "copy"
  private final val SaltTag = 0x73616C74L // "salt"
  private final val MergeTag = 0x6D65726765L // "merge"
  private final val DecodeTag = 0x6465636F6465L // "decode"

  /** A new wave whose event ids ([[RandWave.add]]) derive from `salt`: `mix64(s + counter)` with
    * s = mix64(salt), so that near salts (5 and 6) give unrelated ids.
    */
  def salted(config: RwConfig, salt: Long): RandWave = { val w = new RandWave(config); w.salt = Hashing.mix64(salt ^ SaltTag); w }

  /** Salt of a merge result: a symmetric function of the inputs' salts and counters (so the input
    * order does not matter), distinct from each input's salt.
    */
  private[rwave] def mergedSalt(inputs: Seq[RandWave]): Long = {
    var sum = 0L
    inputs.foreach { w => sum += Hashing.mix64(Hashing.mix64(w.salt) + w.counter) }
    Hashing.mix64(Hashing.mix64(sum ^ MergeTag) + inputs.size)
  }

  /** Salt of a decoded wave, from its clock and its newest and oldest level-0 items (event ids of
    * the stream that built it), so that waves decoded from different bytes get different salts.
    */
  private[rwave] def decodedSalt(w: RandWave): Long = {
    val l0 = w.level0
    var h = Hashing.mix64(w.lastTs ^ DecodeTag) + l0.n
    if (l0.n > 0) {
      h = Hashing.mix64(h ^ l0.ids(l0.n - 1)) + l0.ts(l0.n - 1)
      h = Hashing.mix64(h ^ l0.ids(0)) + l0.ts(0)
    }
    Hashing.mix64(h)
  }

  /** Level of a value x (already reduced mod p) for coefficients (a, b): min(60, nlz(t) - 3). */
  @inline private[rwave] def levelFor(a: Long, b: Long, x: Long): Int = {
    var t = Hashing.mulModP(a, x) + b
    if (t >= Hashing.MersenneP) t -= Hashing.MersenneP
    math.min(RwConfig.MaxLevel, java.lang.Long.numberOfLeadingZeros(t) - 3)
  }


  /** Sorts the ids of every run of equal timestamps in [from, until) ascending. */
  private[rwave] def sortTieRuns(ts: Array[Long], ids: Array[Long], from: Int, until: Int): Unit = {
    var a = from
    while (a < until) {
      var b = a + 1
      val t = ts(a)
      while (b < until && ts(b) == t) b += 1
      if (b - a > 24) java.util.Arrays.sort(ids, a, b)
      else {
        // short runs (the usual case): insertion sort, linear when already sorted
        var j = a + 1
        while (j < b) {
          val v = ids(j)
          var p = j - 1
          while (p >= a && ids(p) > v) { ids(p + 1) = ids(p); p -= 1 }
          ids(p + 1) = v
          j += 1
        }
      }
      a = b
    }
  }

  /** First index of a clean level with ts > x. */
  private[rwave] def firstAbove(lv: Level, x: Long): Int = {
    var a = 0; var b = lv.n
    while (a < b) { val m = (a + b) >>> 1; if (lv.ts(m) > x) b = m else a = m + 1 }
    a
  }

  /** First index of a clean level with ts >= x. */
  private[rwave] def firstAtLeast(lv: Level, x: Long): Int = {
    var a = 0; var b = lv.n
    while (a < b) { val m = (a + b) >>> 1; if (lv.ts(m) >= x) b = m else a = m + 1 }
    a
  }

  /** Lossless merge (ECM §5.2): per instance and level, the union (an id keeps its latest ts)
    * truncated to the `capacity` most recent. All inputs must have this config's seed, epsilon
    * and delta. The result equals one wave built over the union of the input streams.
    *
    * Inputs are not modified (beyond compaction, which does not change their answers). The result's
    * clock is the latest input clock, and items expired at that clock are dropped. The result's
    * event-id salt is derived from the inputs' salts and counters ([[mergedSalt]]).
    */
  def merge(inputs: Seq[RandWave], config: RwConfig): RandWave = {
    SketchException.require(inputs.nonEmpty, "randomized-wave merge needs at least one wave")
    inputs.foreach { w =>
      SketchException.require(w != null, "randomized-wave merge: null input")
      val d = config.diffs(w.config)
      if (d.nonEmpty) throw new SketchException(s"cannot merge randomized waves with different parameters: ${d.mkString(", ")}")
    }
    val out = new RandWave(config)
    out.salt = mergedSalt(inputs)
    out._lastTs = inputs.iterator.map(_.lastTs).max
    inputs.foreach { w => w.normalize(); w.thaw() }
    val srcs = inputs.filter(_.level0.n > 0).toArray
    if (srcs.isEmpty) return out
    val buf = new Array[Level](srcs.length)
    val cap = config.capacity
    val hb = out.hasBound; val b = out.bound
    val pos = new Array[Int](srcs.length)
    val heap = new Array[Int](srcs.length)
    val set = scratch.get().set
    // max-heap of runs by their current (ts, id)
    @inline def greater(x: Int, y: Int): Boolean = {
      val tx = buf(x).ts(pos(x)); val ty = buf(y).ts(pos(y))
      tx > ty || (tx == ty && buf(x).ids(pos(x)) > buf(y).ids(pos(y)))
    }
    def siftDown(start: Int, size: Int): Unit = {
      var i = start
      var done = false
      while (!done) {
        val l = 2 * i + 1
        if (l >= size) done = true
        else {
          var c = l
          if (l + 1 < size && greater(heap(l + 1), heap(l))) c = l + 1
          if (greater(heap(c), heap(i))) { val t = heap(c); heap(c) = heap(i); heap(i) = t; i = c } else done = true
        }
      }
    }
    /** k-way merge from the newest end: pops (ts, id) in decreasing order, keeps the first (latest)
      * sighting of each id, stops at expired items or after `capacity` ids. Work O(C log k).
      */
    def mergeLevel(get: RandWave => Level): Level = {
      var k = 0
      var total = 0L
      var j = 0
      while (j < srcs.length) {
        val lv = get(srcs(j))
        if (lv != null && lv.n > 0) { buf(k) = lv; pos(k) = lv.n - 1; heap(k) = k; k += 1; total += lv.n }
        j += 1
      }
      if (k == 0) return null
      val outN = math.min(cap.toLong, total).toInt
      val rts = new Array[Long](math.max(4, outN)); val rids = new Array[Long](math.max(4, outN))
      var size = k
      var h = size / 2 - 1
      while (h >= 0) { siftDown(h, size); h -= 1 }
      set.reset(outN)
      var w = outN
      var stop = false
      while (!stop && size > 0 && w > 0) {
        val top = heap(0)
        val t = buf(top).ts(pos(top)); val id = buf(top).ids(pos(top))
        if (hb && t <= b) stop = true
        else {
          if (set.add(id)) { w -= 1; rts(w) = t; rids(w) = id }
          pos(top) -= 1
          if (pos(top) < 0) { size -= 1; heap(0) = heap(size) }
          if (size > 0) siftDown(0, size)
        }
      }
      val n = outN - w
      if (n == 0) return null
      if (w > 0) { System.arraycopy(rts, w, rts, 0, n); System.arraycopy(rids, w, rids, 0, n) }
      val res = new Level(0)
      res.ts = rts; res.ids = rids; res.n = n
      res
    }
    val l0 = mergeLevel(_.level0)
    out.level0 = if (l0 == null) new Level(4) else l0
    var i = 0
    val r = config.instances
    while (i < r) {
      var top = 0
      srcs.foreach { w => if (w.levels != null && w.levels(i) != null) top = math.max(top, w.levels(i).length - 1) }
      var l = 1
      while (l <= top) {
        val li = l; val ii = i
        val m = mergeLevel(_.levelAt(ii, li))
        if (m != null) out.levelsOf(i, l)(l) = m
        l += 1
      }
      i += 1
    }
    out.canonical = true
    out
  }
}
