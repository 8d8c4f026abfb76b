package ecmsketch.decayed

import java.nio.charset.StandardCharsets

import ecmsketch.core.{Bounds, SketchException, WindowSketch, WindowSpec}
import ecmsketch.hash.Hashing

/** The Cormode-Tirthapura-Xu duplicate-insensitive, time-decayed, mergeable sketch (CTX §3-4;
  * docs/design/decayed.md). `copies` independent copies (hash coefficients from the seed),
  * each levels 0..M of at most tau entries.
  *  - fixed decay (`decay` set, CTX §3): entry keys are expiry times; queries at time c read the
  *    lowest level with t_i <= c and RangeSample the decayed ranges r_e^c;
  *  - general (`decay` None, CTX §4): undecayed ranges, keys are timestamps (the tau most recent
  *    per level); a window W or any decomposable decay is chosen at query time.
  * Each answer is the median of the copies' (or, for decomposable decays, of every probe's) estimates.
  */
final class DecayedSketch(val params: DecayedParams) extends WindowSketch {
  def kind: DecayedKind.type = DecayedKind
  import DecayedSketch._

  val spec: WindowSpec = WindowSpec(countWindow = false, tsMicros = params.tsMicros, window = WindowSpec.Unbounded)
  def epsilon: Double = params.epsilon
  def cellEpsilon: Double = params.epsilon
  def plannedLevels: Int = 0
  def decay: Option[Decay] = params.decay
  def general: Boolean = params.decay.isEmpty

  /** Whether a level may hold uncompacted offers ([[compactAll]]), or, in the general sketch, entries
    * without their RangeSample ([[settle]]). Set by every update; a merge and a decode start a new sketch.
    */
  @volatile private var uncompacted = true
  @volatile private var unresolved = general

  private[decayed] val levels: Array[Array[Level]] = Array.fill(params.copies)(new Array[Level](params.topLevel + 1))

  /** Per copy, each level's refusal threshold (Level.attach): t_i, or Long.MinValue while the level
    * discarded nothing or does not exist.
    */
  private val thresholds: Array[Array[Long]] = Array.fill(params.copies)(Array.fill(params.topLevel + 1)(Long.MinValue))

  private def level(j: Int, i: Int): Level = {
    var l = levels(j)(i)
    if (l == null) { l = new Level(params.tau); install(j, i, l) }
    l
  }

  /** Makes `l` level i of copy j (a new level, a merge's, a decoded one). */
  private[decayed] def install(j: Int, i: Int, l: Level): Unit = { levels(j)(i) = l; l.attach(thresholds(j), i) }

  /** Stored entries over all copies and levels. */
  def storedEntries: Int = { compactAll(); levels.map(_.iterator.filter(_ != null).map(_.size).sum).sum }

  // ------------------------------------------------------------------ updates

  /** Adds observation (id hash, weight, value, ts): each distinct id counts once, at one site or
    * many. Weight 0 contributes nothing (it still counts in total_weight, first_ts and last_ts).
    * The observation waits in a buffer of pending ones (see [[flush]]); anything that reads the
    * levels inserts them first.
    */
  def add(idHash: Long, weight: Long, value: Double, ts: Long): Unit = {
    if (weight < 0 || weight > params.maxWeight)
      throw new SketchException(s"weight $weight is outside [0, max_weight = ${params.maxWeight}]; " +
        "weights are integers (build the sketch with a larger max_weight)")
    if (value.isNaN) throw new SketchException("value must not be NaN")
    if (Long.MaxValue - _count < weight) throw new SketchException("total weight overflows 2^63 - 1")
    _hasRows = true
    if (ts < _firstTs) _firstTs = ts
    if (ts > _lastTs) _lastTs = ts
    _count += weight
    if (weight > 0) {
      if (!uncompacted) uncompacted = true
      if (general && !unresolved) unresolved = true
      if (4 * pN == pending.length) {
        if (pN >= pendingCap) flush()
        else grow()
      }
      val o = 4 * pN
      val p = pending
      p(o) = idOf(idHash); p(o + 1) = weight; p(o + 2) = java.lang.Double.doubleToRawLongBits(value); p(o + 3) = ts
      pN += 1
    }
  }

  private[decayed] def idOf(idHash: Long): Long = java.lang.Long.remainderUnsigned(idHash, params.idSpace)

  // ---- pending observations. A level keeps the tau largest keys it is offered, and a newer
  // observation has the larger keys, so in time order every observation enters every level it is
  // selected at, to be evicted soon after. Inserted newest first instead, the first ones raise each
  // level's t_i and the older ones are refused by it before MinHit and the expiry are computed. What
  // a level holds does not depend on the order of its offers (Level's set rule), so the sketch, and
  // its bytes, are the same either way.
  private val pendingCap: Int = math.min(MaxPending, math.max(MinPending, PendingPerTau * params.tau))
  /** Pending row k is pending(4 k until 4 k + 4): id, weight, value (its bits), ts (one array, so a
    * row read out of order costs one cache miss, not four).
    */
  private var pending: Array[Long] = Array.emptyLongArray
  private var pN = 0

  private def grow(): Unit = {
    val c = math.min(pendingCap, math.max(64, pending.length / 2))
    pending = java.util.Arrays.copyOf(pending, 4 * c)
  }

  /** Inserts the pending observations, largest key bound first. */
  private def flush(): Unit = if (pN > 0) {
    val p = pending
    val f = params.integral.orNull
    // every key of an observation is at most its key at offset 0 (the expiry falls with the offset):
    // a level whose t_i covers this bound refuses the observation in every copy, unseen
    val ubs = new Array[Long](pN)
    var ascending = true
    var k = 0
    while (k < pN) {
      val ts = p(4 * k + 3)
      val ub = if (f == null) ts else Bounds.satAdd(ts, f.minAge(p(4 * k + 1) * params.resolution, 0L))
      ubs(k) = ub
      if (k > 0 && ub < ubs(k - 1)) ascending = false
      k += 1
    }
    val order = if (ascending) null else descending(ubs)
    var r = 0
    while (r < pN) {
      val k = if (order == null) pN - 1 - r else order(r)
      val o = 4 * k
      val id = p(o); val w = p(o + 1); val v = java.lang.Double.longBitsToDouble(p(o + 2)); val ts = p(o + 3)
      val ub = ubs(k)
      var j = 0
      while (j < params.copies) { insert(j, id, w, v, ts, ub); j += 1 }
      r += 1
    }
    pN = 0
  }

  /** The indices of `x` by value, largest first. */
  private def descending(x: Array[Long]): Array[Int] = {
    val n = x.length
    var lo = Long.MaxValue; var hi = Long.MinValue
    var k = 0
    while (k < n) { val t = x(k); if (t < lo) lo = t; if (t > hi) hi = t; k += 1 }
    val bits = 32 - Integer.numberOfLeadingZeros(n)
    val out = new Array[Int](n)
    if (hi - lo >= 0 && hi - lo < (1L << (62 - bits))) {
      // one primitive sort of (distance below the largest, index) packed in a long
      val packed = new Array[Long](n)
      k = 0
      while (k < n) { packed(k) = ((hi - x(k)) << bits) | k; k += 1 }
      java.util.Arrays.sort(packed)
      val mask = (1L << bits) - 1
      k = 0
      while (k < n) { out(k) = (packed(k) & mask).toInt; k += 1 }
    } else {
      val boxed = Array.tabulate[Integer](n)(Integer.valueOf)
      java.util.Arrays.sort(boxed, (a: Integer, b: Integer) => java.lang.Long.compare(x(b), x(a)))
      k = 0
      while (k < n) { out(k) = boxed(k).intValue; k += 1 }
    }
    out
  }

  /** Offers one observation to the levels of copy j where it is selected and could be kept. */
  private def insert(j: Int, id: Long, weight: Long, value: Double, ts: Long, ub0: Long): Unit = {
    val w = weight * params.resolution
    val base = params.wMax * id
    val f = params.integral.orNull
    val a = params.coefficients(2 * j); val b = params.coefficients(2 * j + 1)
    val u = Arith.hash(a, b, base)
    val ls = levels(j)
    val thr = thresholds(j)
    val top = params.topLevel
    var i = 0
    var go = true
    // ub: an upper bound on this level's key (keys do not increase with the level: the first
    // selected offset d_i does not decrease, and the expiry falls with d), so a level whose t_i
    // already covers it refuses the entry and needs neither MinHit nor the key. A repeated id is
    // offered again: the level keeps one version of it (Level's set rule).
    var ub = ub0
    var lastD = -1L; var lastH = 0L; var lastKey = Long.MinValue
    while (go && i <= top) {
      // levels whose t_i covers ub refuse the entry: a scan of one primitive array
      while (i <= top && ub <= thr(i) && thr(i) != Long.MinValue) i += 1
      if (i > top) go = false
      else if (ub == Long.MinValue && ls(i) != null && !ls(i).admits(ub)) i += 1 // t_i = Long.MinValue
      else {
        // the selected sets nest (L_i falls with i), so d_i >= d_k for k < i: the last offset found
        // is d_i whenever it is still selected here, and the key it gave is reused
        val bound = Arith.levelBound(i)
        val d =
          if (lastD < 0) Arith.firstHit(a, u, 0L, w - 1, bound)
          else if (lastH <= bound) lastD
          else Arith.firstHit(a, Arith.addModP(lastH, a), lastD + 1, w - 1, bound) // d_i > d_k, k < i
        if (d < 0) go = false // no selected integer here, nor at any higher level
        else {
          if (d != lastD) { lastD = d; lastH = Arith.hash(a, b, base + d); lastKey = Long.MinValue }
          if (f != null) {
            if (lastKey == Long.MinValue) lastKey = Bounds.satAdd(ts, f.minAge(w, d))
            ub = lastKey
            level(j, i).offer(id, weight, value, ts, lastKey, 0L)
          } else level(j, i).offer(id, weight, value, ts, ts, Level.Unresolved) // RangeSample when queried
          i += 1
        }
      }
    }
  }

  /** Brings every level to its compacted state (what the encoder and `storedEntries` read).
    * Idempotent; synchronized, so threads sharing a sketch may encode and query it.
    */
  private[decayed] def compactAll(): Unit = if (uncompacted) synchronized {
    if (uncompacted) {
      flush()
      levels.foreach(_.foreach(l => if (l != null) l.compact()))
      uncompacted = false
    }
  }

  /** [[compactAll]], then, in the general sketch, the RangeSample of every entry (queries read them;
    * entries evicted before any query never pay for one, and decoding does not compute them).
    */
  private[decayed] def settle(): Unit = {
    compactAll()
    if (unresolved) synchronized {
      if (unresolved) {
        var j = 0
        while (j < params.copies) {
          val a = params.coefficients(2 * j); val b = params.coefficients(2 * j + 1)
          var i = 0
          while (i <= params.topLevel) {
            val l = levels(j)(i)
            if (l != null) { val lv = i; l.resolve((id, w) => Arith.rangeSample(a, b, params.wMax * id, w * params.resolution - 1, lv)) }
            i += 1
          }
          j += 1
        }
        unresolved = false
      }
    }
  }

  // ------------------------------------------------------------------ merge

  def diffs(o: DecayedSketch): Seq[String] = {
    val a = params; val b = o.params
    val out = Seq.newBuilder[String]
    if (a.decay.map(_.describe) != b.decay.map(_.describe))
      out += s"decay ${a.decay.map(_.describe).getOrElse("general")} vs ${b.decay.map(_.describe).getOrElse("general")}"
    if (a.epsilon != b.epsilon) out += s"epsilon ${a.epsilon} vs ${b.epsilon}"
    if (a.delta != b.delta) out += s"delta ${a.delta} vs ${b.delta}"
    if (a.constant != b.constant) out += s"constant ${a.constant} vs ${b.constant}"
    if (a.maxWeight != b.maxWeight) out += s"max_weight ${a.maxWeight} vs ${b.maxWeight}"
    if (a.resolution != b.resolution) out += s"resolution ${a.resolution} vs ${b.resolution}"
    if (a.seed != b.seed) out += s"seed ${a.seed} vs ${b.seed}"
    if (a.tsMicros != b.tsMicros) out += s"timestamp unit ${unit(a)} vs ${unit(b)}"
    out.result()
  }

  private def unit(p: DecayedParams) = if (p.tsMicros) "TIMESTAMP" else "integer ticks"

  // ------------------------------------------------------------------ queries

  private def checkNow(now: java.lang.Long): Long = {
    settle()
    checkNowTs(now)
  }

  private def checkNowTs(now: java.lang.Long): Long =
    if (now != null) now.longValue
    else if (isEmpty) 0L
    else _lastTs

  /** The decay a query uses: on a fixed-decay sketch the arguments must match it or be omitted (null). */
  def queryDecay(name: String, param: java.lang.Double): Decay = params.decay match {
    case Some(d) =>
      if (name != null) {
        val q = Decay(name, if (param == null) d.param else param.doubleValue)
        if (q != d) throw new SketchException(
          s"this decayed sketch was built with ${d.describe}; query it with that decay or omit the decay arguments " +
            s"(got ${q.describe}); only a sketch built without a decay takes any decay at query time")
      } else if (param != null)
        throw new SketchException("decay_param given without decay")
      d
    case None =>
      if (name == null) throw new SketchException(
        "this decayed sketch was built without a decay (the general sketch): name one at query time, " +
          s"decay ${Decay.Names} with its decay_param")
      if (param == null) throw new SketchException(s"decay '${name.trim.toLowerCase}' needs a decay_param")
      Decay(name, param.doubleValue)
  }

  /** Estimated decayed sum at `now` (default: the last timestamp) of the distinct elements with ts <= now. */
  def sum(d: Decay, now: java.lang.Long): Double = {
    val c = checkNow(now)
    if (isEmpty) 0.0 else if (general) GeneralQueries.generalEstimate(this, d, c, AllValues) else median(fixedSamples(c).map(_.total))
  }

  /** Estimated decayed fraction of the weight whose value lies in [lo, hi] (0 for an empty sketch). */
  def selectivity(lo: Double, hi: Double, d: Decay, now: java.lang.Long): Double = {
    SketchException.require(!lo.isNaN && !hi.isNaN, "selectivity bounds must not be NaN")
    val c = checkNow(now)
    if (isEmpty || lo > hi) return 0.0
    val p: Double => Boolean = v => v >= lo && v <= hi
    if (general) {
      val b = GeneralQueries.generalEstimate(this, d, c, AllValues)
      if (b <= 0) 0.0 else math.min(1.0, GeneralQueries.generalEstimate(this, d, c, p) / b)
    } else median(fixedSamples(c).map(s => s.fraction(p)))
  }

  /** Estimated decayed q-quantile of the values (None when nothing has a decayed weight at `now`). */
  def quantile(q: Double, d: Decay, now: java.lang.Long): Option[Double] = {
    SketchException.require(!q.isNaN && q >= 0.0 && q <= 1.0, s"quantile q must be in [0, 1], got $q")
    val c = checkNow(now)
    if (isEmpty) return None
    if (general) {
      val b = GeneralQueries.generalEstimate(this, d, c, AllValues)
      if (b <= 0) return None
      val cands = GeneralQueries.candidateValues(this, c)
      // smallest candidate whose estimated rank reaches q (ranks are monotone in the candidate)
      var lo = 0; var hi = cands.length - 1
      while (lo < hi) {
        val mid = (lo + hi) >>> 1
        val x = cands(mid)
        if (GeneralQueries.generalEstimate(this, d, c, (v: Double) => v <= x) / b >= q) hi = mid else lo = mid + 1
      }
      Some(cands(lo))
    } else {
      val qs = fixedSamples(c).flatMap(_.quantile(q))
      if (qs.isEmpty) None else Some(lowerMedian(qs))
    }
  }

  /** Values whose estimated decayed share exceeds phi - epsilon / 2, with the share, largest first. */
  def frequent(phi: Double, d: Decay, now: java.lang.Long): Seq[(Double, Double)] = {
    SketchException.require(!phi.isNaN && phi > 0.0 && phi <= 1.0, s"phi must be in (0, 1], got $phi")
    val c = checkNow(now)
    if (isEmpty) return Nil
    val threshold = phi - epsilon / 2
    val shares: Seq[(Double, Double)] =
      if (general) {
        val b = GeneralQueries.generalEstimate(this, d, c, AllValues)
        if (b <= 0) Nil
        else GeneralQueries.shortlist(this, c, d, math.max(phi - epsilon, 1e-9))
          .map(x => x -> GeneralQueries.generalEstimate(this, d, c, (v: Double) => v == x) / b)
      } else {
        val ss = fixedSamples(c)
        val vals = ss.flatMap(_.values).distinct
        vals.map(x => x -> median(ss.map(_.fraction(v => v == x))))
      }
    shares.filter(_._2 > threshold).sortBy { case (v, s) => (-s, v) }
  }

  // ---- fixed decay: per copy, the level with t_i <= c and the decayed RangeSample weights

  private def fixedSamples(c: Long): Seq[Samples] = {
    val f = params.integral.get
    (0 until params.copies).map { j =>
      val a = params.coefficients(2 * j); val b = params.coefficients(2 * j + 1)
      val lv = queryLevel(j, l => !l.discarded || l.tI <= c)
      val l = levels(j)(lv)
      val es = if (l == null) Array.empty[Entry] else l.entries
      val vs = new Array[Double](es.length); val ws = new Array[Double](es.length)
      val scale = 1.0 / Arith.levelProbability(lv) / params.resolution
      var k = 0
      while (k < es.length) {
        val e = es(k)
        vs(k) = e.v
        if (e.t <= c) {
          val len = f.f(e.w * params.resolution, satSub(c, e.t))
          if (len > 0) ws(k) = Arith.rangeSample(a, b, params.wMax * e.id, len - 1, lv) * scale
        }
        k += 1
      }
      new Samples(vs, ws)
    }
  }

  /** The lowest level that qualifies (a level never created never discarded anything). */
  private[decayed] def queryLevel(j: Int, ok: Level => Boolean): Int = {
    var i = 0
    while (i <= params.topLevel) {
      val l = levels(j)(i)
      if (l == null || ok(l)) return i
      i += 1
    }
    throw new SketchException("every level of the decayed sketch discarded an element the query needs; " +
      "the sketch cannot answer it (Cormode-Tirthapura-Xu §3.4)")
  }

}

object DecayedSketch {
  final val MinEpsilon = 0.005
  final val MinDelta = 1e-9
  final val MinConstant = 0.05
  final val MaxConstant = 10000.0
  final val MaxTau = 1 << 20
  final val MaxWeightLimit: Long = 1L << 40
  final val MaxResolution: Long = 1L << 20
  final val MaxScaledWeight: Long = 1L << 40
  final val DefaultEpsilon = 0.1
  final val DefaultDelta = 0.05
  /** The constant C of tau = C / epsilon^2 when none is given (docs/design/decayed.md, "The constant C": measured). */
  final val DefaultConstant = 4.0
  final val DefaultMaxWeight = 1024L
  /** Fixed-point resolution of the 'exp' and 'poly' decays' integral weights: W = weight * resolution. */
  final val DefaultResolution = 1024L
  final val DefaultSeed: Long = Hashing.DefaultSeed
  private[decayed] final val CoefficientSalt = 0x0DECA7EDL
  /** Pending observations a sketch buffers before inserting them newest first: PendingPerTau tau,
    * within [MinPending, MaxPending] (32 bytes each). A level then takes about 2 tau of each batch,
    * not all of it (DecayedSketch.flush).
    */
  private final val PendingPerTau = 64
  private final val MinPending = 1024
  private final val MaxPending = 1 << 20

  /** Copies b for failure probability delta: the odd number 2 ceil(ln(1/delta) / 2) + 1 (5 at delta 0.05). */
  def copiesFor(delta: Double): Int = 2 * math.ceil(math.log(1.0 / delta) / 2).toInt + 1

  def create(decay: Option[Decay], epsilon: Double = DefaultEpsilon, delta: Double = DefaultDelta,
             constant: Double = DefaultConstant, maxWeight: Long = DefaultMaxWeight, resolution: java.lang.Long = null,
             seed: Long = DefaultSeed, tsMicros: Boolean = false): DecayedSketch = {
    val res: Long = if (resolution != null) resolution.longValue
      else decay match { case Some(Decay.Exp(_)) | Some(Decay.Poly(_)) => DefaultResolution; case _ => 1L }
    new DecayedSketch(DecayedParams(decay, epsilon, delta, constant, maxWeight, res, seed, tsMicros))
  }

  // ---- identities: a 64-bit hash of the id (fixed, seed-independent: the same id hashes alike everywhere)
  def idOfLong(x: Long): Long = Hashing.mix64(x ^ 0x1D1D1D1DL)
  def idOfDouble(x: Double): Long = idOfLong(java.lang.Double.doubleToLongBits(if (x == 0.0) 0.0 else x) ^ 0x7E57L)
  def idOfString(s: String): Long = Hashing.xxh64(s.getBytes(StandardCharsets.UTF_8), 0, s.getBytes(StandardCharsets.UTF_8).length, 0x57L)
  def idOfBytes(b: Array[Byte]): Long = Hashing.xxh64(b, 0, b.length, 0xB1L)
  /** The default identity: the triple (weight, value, ts). */
  def defaultId(weight: Long, value: Double, ts: Long): Long =
    Hashing.mix64(Hashing.mix64(Hashing.mix64(weight) ^ java.lang.Double.doubleToLongBits(if (value == 0.0) 0.0 else value)) ^ ts)

  private[decayed] final val AllValues: Double => Boolean = _ => true

  /** a - b for a >= b, saturating at Long.MaxValue. */
  def satSub(a: Long, b: Long): Long = { val r = a - b; if (r < 0) Long.MaxValue else r }

  def median(xs: Seq[Double]): Double = medianOf(xs.toArray)
  /** The median of an odd number of values (the lower median otherwise). Sorts `xs` in place. */
  def medianOf(xs: Array[Double]): Double = { java.util.Arrays.sort(xs); xs((xs.length - 1) / 2) }
  private def lowerMedian(xs: Seq[Double]): Double = { val s = xs.sorted; s((s.length - 1) / 2) }

  /** n-way merge (Algorithm 3): per copy and level, t_i = max, the union by id, then the overflow
    * rule; equal to one sketch over the union of the inputs' streams (Lemmas 3.2, 3.3).
    */
  def merge(xs: Seq[DecayedSketch]): DecayedSketch = DecayedMerge.merge(xs)
}
