package ecmsketch.ecm.dyadic

import scala.collection.mutable.ArrayBuffer

import ecmsketch.core.{CellParams, KeyType, SketchException, WindowSketch, WindowSpec}
import ecmsketch.ecm.{EcmPlan, EcmSketch}
import ecmsketch.hash.Hashing

/** Dyadic ECM-sketch (ECM-sketch §6.1, Theorem 5; docs/design/dyadic.md): universe_bits + 1 ECM-sketches
  * over dyadic ranges of an integer universe [0, 2^bits). Level i (0 <= i <= bits) counts
  * floor(u / 2^i) of the universe index u of every row; level `bits` holds the single range of the
  * whole universe, so it counts the total with no hash collision. Keys map to u order-preservingly:
  *  - BIGINT keys k (bits < 64): u = k + 2^(bits-1), defined for k in [-2^(bits-1), 2^(bits-1)); a key
  *    outside is refused (never wrapped); bits = 64: u = k with the sign bit flipped (every BIGINT);
  *  - DOUBLE keys: the order-preserving 64-bit map (sign bit flipped for positive values, all bits
  *    flipped for negative ones), then its top `bits` bits: keys are counted in buckets of
  *    2^(64-bits) consecutive doubles (relative width 2^-(bits-12) for normal values, 2^-20 at 32
  *    bits). -0.0 counts as 0.0; NaN is refused.
  *  - STRING / BINARY keys: u = the top `bits` bits of the key bytes' 64-bit fingerprint (UTF-8 for
  *    strings); the original bytes of the frequent keys are kept in a [[KeyTable]] of candidates, so
  *    heavy hitters and top-k return keys. Ranges, ranks and quantiles are refused (fingerprint order
  *    means nothing).
  * Every level shares one plan: epsilon, merge levels and cell kind as asked, and the Count-Min delta
  * divided by 2 * bits (a range query reads at most 2 * bits pieces). The cells must be
  * deterministic (EH or deterministic wave): range sums and the heavy-hitter recall rely on
  * estimates that never under-count by more than the cell error.
  */
final class DyadicSketch private[dyadic] (val universeBits: Int, val epsilon: Double, val requestedDelta: Double,
                                          private[dyadic] val levels: Array[EcmSketch]) extends WindowSketch {
  def kind: DyadicKind.type = DyadicKind
  import DyadicSketch._
  import DyadicUniverse._
  import DyadicPlanner.worstGap

  private[dyadic] var _keyDomain: Int = KeyType.Unset
  /** Capacity of the candidate-key table of string / binary keys. */
  private[dyadic] var _candidates: Int = KeyTable.DefaultCapacity
  /** The candidate keys (string / binary key domains only, else null). */
  private[dyadic] var keyTable: KeyTable = null

  private def base: EcmSketch = levels(0)
  def spec: WindowSpec = base.spec
  def plan: EcmPlan = base.plan
  /** The level sketches' own epsilon (about epsilon / 5, see [[DyadicPlanner.plan]]). */
  def innerEpsilon: Double = base.epsilon
  def cellEpsilon: Double = base.cellEpsilon
  def plannedLevels: Int = base.plannedLevels
  def seed: Long = base.seed
  def cellKind: Int = base.cellKind
  def width: Int = base.width
  def depth: Int = base.depth
  /** The key domain: KeyType.Unset, KeyType.Long (integer keys), [[DoubleKeys]], KeyType.String or KeyType.Binary. */
  def keyDomain: Int = _keyDomain
  /** Whether the keys are strings or binaries (counted by fingerprint, kept in a [[KeyTable]]). */
  def bytesKeys: Boolean = isBytesDomain(_keyDomain)
  def candidates: Int = _candidates
  /** The candidate-key table (string / binary keys), None otherwise. */
  def keys: Option[KeyTable] = Option(keyTable)
  /** Epoch length of the candidate table: one window (0 for an unbounded window). */
  def epochLength: Long = if (spec.unbounded) 0L else spec.window
  def level(i: Int): EcmSketch = levels(i)

  /** The cell error at the current merge depth (e in docs/docs/design/dyadic.md). */
  override def cellBound: Double = base.cellBound

  // ------------------------------------------------------------------ keys

  /** Universe index of a BIGINT key (refused outside the universe). */
  def indexOf(key: Long): Long = {
    if (_keyDomain == DoubleKeys) throw new SketchException(
      "key type mismatch: this dyadic sketch holds double keys and the query key is bigint; cast the key to double")
    notBytes("bigint")
    longIndex(key, universeBits)
  }

  /** Universe index of a string / binary key (its fingerprint's top bits). */
  def indexOf(key: Array[Byte]): Long = {
    if (_keyDomain != KeyType.Unset && !bytesKeys) throw new SketchException(
      s"key type mismatch: this dyadic sketch holds ${domainName(_keyDomain)} keys and the query key is a string or binary")
    bytesIndex(Hashing.fingerprintBytes(key), universeBits)
  }

  private def notBytes(what: String): Unit = if (bytesKeys) throw new SketchException(
    s"key type mismatch: this dyadic sketch holds ${domainName(_keyDomain)} keys and the query key is $what")

  /** Refuses ranges, ranks and quantiles on string / binary keys. */
  private def requireOrdered(what: String): Unit = if (bytesKeys) throw new SketchException(
    s"$what: this dyadic sketch holds ${domainName(_keyDomain)} keys, which it counts by fingerprint: ranges, ranks and " +
      "quantiles of them have no meaningful order (heavy hitters, top-k, point and total queries work)")

  /** Universe index of a DOUBLE key (its bucket). */
  def indexOf(key: Double): Long = {
    if (_keyDomain == KeyType.Long) throw new SketchException(
      "key type mismatch: this dyadic sketch holds bigint keys and the query key is double; cast the key to bigint")
    notBytes("double")
    doubleIndex(key, universeBits)
  }

  private def setDomain(d: Int): Unit = if (_keyDomain != d) {
    if (_keyDomain != KeyType.Unset) throw new SketchException(
      s"this dyadic sketch holds ${domainName(_keyDomain)} keys; cannot add a ${domainName(d)} key")
    _keyDomain = d
    if (isBytesDomain(d) && keyTable == null) keyTable = new KeyTable(_candidates, epochLength)
  }

  // ------------------------------------------------------------------ updates

  def add(key: Long, ts: Long, v: Long): Unit = {
    val u = longIndex(key, universeBits)
    checkAdd(ts, v)
    setDomain(KeyType.Long)
    addChecked(u, ts, v)
  }

  def add(key: Double, ts: Long, v: Long): Unit = {
    val u = doubleIndex(key, universeBits)
    checkAdd(ts, v)
    setDomain(DoubleKeys)
    addChecked(u, ts, v)
  }

  /** Adds a string (`domain` KeyType.String, UTF-8 bytes) or binary key (KeyType.Binary). */
  def add(key: Array[Byte], domain: Int, ts: Long, v: Long): Unit = {
    SketchException.require(isBytesDomain(domain), s"unknown key domain $domain of a byte key")
    KeyTable.checkKey(key)
    val fp = Hashing.fingerprintBytes(key)
    val u = bytesIndex(fp, universeBits)
    checkAdd(ts, v)
    setDomain(domain)
    addChecked(u, ts, v)
    keyTable.add(fp, key, ts, v)
  }

  /** Records the key domain (KeyType.Long, [[DyadicSketch.DoubleKeys]], KeyType.String or
    * KeyType.Binary) before any row; a different one is refused.
    */
  def setKeyDomain(d: Int): Unit = {
    SketchException.require(d == KeyType.Long || d == DoubleKeys || isBytesDomain(d), s"unknown key domain $d")
    setDomain(d)
  }

  /** Replaces the candidate-key table (the table an ingest kept beside its runs, see ingest.Ingest). */
  def attachKeys(t: KeyTable): Unit = {
    SketchException.require(bytesKeys, "only a dyadic sketch of string or binary keys has candidate keys")
    SketchException.require(t.capacity == _candidates && t.epochLength == epochLength,
      s"candidate table of capacity ${t.capacity} / epoch ${t.epochLength} does not fit a sketch of ${_candidates} / $epochLength")
    keyTable = t
  }

  /** Adds a row by its universe index (from [[indexOf]] or [[DyadicUniverse.longIndex]] / [[DyadicUniverse.doubleIndex]]). */
  def addIndex(u: Long, ts: Long, v: Long): Unit = {
    if (universeBits < 64 && (u >>> universeBits) != 0L)
      throw new SketchException(s"universe index ${java.lang.Long.toUnsignedString(u)} is outside [0, 2^$universeBits)")
    checkAdd(ts, v)
    addChecked(u, ts, v)
  }

  // scratch space of addSortedBatch: one level's fingerprints (a sketch is not thread-safe)
  private[this] var batchFps: Array[Long] = null

  /** Adds rows `[from, until)` of parallel arrays of universe indexes, time-sorted timestamps and
    * weights. The result (and any error, after the rows before the bad one) is identical to
    * [[addIndex]] row by row, but each level takes the whole batch at once
    * ([[EcmSketch.addSortedBatch]]: its cells are updated one sorted run at a time).
    */
  def addSortedBatch(us: Array[Long], ts: Array[Long], vs: Array[Long], from: Int, until: Int): Unit = {
    val n = until - from
    if (n <= 0) return
    var sum = 0L
    var prev = _lastTs
    var seen = _hasRows
    val strict = spec.countWindow
    var i = from
    while (i < until) {
      val u = us(i); val t = ts(i); val v = vs(i)
      if ((universeBits < 64 && (u >>> universeBits) != 0L) || t < prev || (strict && seen && t == prev) || v < 0 ||
          sum > Long.MaxValue - v || _count > Long.MaxValue - sum - v) {
        // the row-by-row path adds the rows before the bad one and throws its exact error
        var k = from; while (k < until) { addIndex(us(k), ts(k), vs(k)); k += 1 }; return
      }
      sum += v; prev = t; seen = true; i += 1
    }
    // the scratch array is indexed like ts and vs ([from, until))
    if (batchFps == null || batchFps.length < until) batchFps = new Array[Long](math.max(until, 256))
    val fps = batchFps
    var l = 0
    while (l <= universeBits) {
      var k = from
      while (k < until) { fps(k) = Hashing.fingerprintLong(prefix(us(k), l)); k += 1 }
      val lv = levels(l)
      lv.setKeyType(KeyType.Long) // what lv.add(prefix, ts, v) records
      lv.addSortedBatch(fps, ts, vs, from, until)
      l += 1
    }
    _hasRows = true
    if (ts(from) < _firstTs) _firstTs = ts(from)
    _lastTs = ts(until - 1)
    _count += sum
  }

  private def addChecked(u: Long, ts: Long, v: Long): Unit = {
    var i = 0
    while (i <= universeBits) { levels(i).add(prefix(u, i), ts, v); i += 1 }
    noteAdd(ts, v)
  }

  // ------------------------------------------------------------------ bounds

  /** Count-Min epsilon of every level. */
  def cmEpsilon: Double = plan.cmEpsilon
  /** Count-Min delta of one piece (one point query of one level): requested delta / (2 bits). */
  def pieceDelta: Double = plan.delta

  /** Relative bound of [[total]]: the top level holds one key, so only the cell error remains (deterministic). */
  def totalErrorBound: Double = cellBound

  /** Bound on |est - F| / ||a_r||_1 of a range count read from `pieces` dyadic pieces (docs/design/dyadic.md):
    * under-count <= e F (deterministic), over-count <= e F + pieces (1 + e) eps_cm A.
    */
  def rangeErrorBound(pieces: Int): Double = { val e = cellBound; e + pieces * (1 + e) * cmEpsilon }

  /** The worst range bound: 2 * bits pieces. */
  def rangeCountErrorBound: Double = rangeErrorBound(2 * universeBits)

  /** Bound on the rank error of [[quantile]] as a fraction of ||a_r||_1 (docs/design/dyadic.md). */
  def quantileRankErrorBound: Double = {
    val e = cellBound
    math.max(2 * e / (1 - e), 2 * e / (1 + e) + (universeBits + 1) * cmEpsilon)
  }

  /** For heavy hitters with ratio phi: every key with f >= (phi + gap) ||a_r||_1 is reported
    * (deterministically), where gap = (1+e)^2 (phi + eps_cm) / (1-e)^2 - phi.
    */
  def heavyHitterGap(phi: Double): Double = {
    val e = cellBound
    (1 + e) * (1 + e) * (phi + cmEpsilon) / ((1 - e) * (1 - e)) - phi
  }

  /** The gap for every ratio phi in (0, 1) at the current merge depth (<= epsilon up to the planned depth). */
  def heavyHitterErrorBound: Double = worstGap(cellBound, cmEpsilon)

  /** Probability bound that a heavy-hitter query with ratio phi reports a key below phi ||a_r||_1:
    * under the good event only the children of ranges with F >= phi A are tested, at most 2/phi per
    * level below the top, each failing w.p. <= pieceDelta: (2 bits / phi) pieceDelta = delta / phi.
    */
  def heavyHitterFailureProbability(phi: Double): Double = math.min(1.0, 2.0 * universeBits / phi * pieceDelta)

  /** Top-k: no key left out has a count above a returned key's by more than this times ||a_r||_1. */
  def topKErrorBound: Double = { val e = cellBound; 2 * e * (1 + cmEpsilon) / (1 - e) + cmEpsilon }

  private def requireUsable(): Unit =
    SketchException.require(cellBound < 1.0, s"the cell error ${cellBound} after $mergeDepth merge levels leaves no guarantee")

  // ------------------------------------------------------------------ queries

  /** Estimated count of dyadic range `p` of level `i` (0 for a range not in the universe). */
  private def piece(i: Int, p: Long, range: java.lang.Long, now: java.lang.Long): Double = levels(i).point(p, range, now)

  /** Estimated ||a_r||_1 (the top level's single cell). */
  def total(range: java.lang.Long, now: java.lang.Long): Double = piece(universeBits, 0L, range, now)

  def totalEstimate(range: java.lang.Long, now: java.lang.Long): Estimate = {
    requireUsable()
    val t = total(range, now); val e = cellBound
    Estimate(t, t / (1 + e), t / (1 - e))
  }

  /** Point query of an integer key (level 0). */
  def point(key: Long, range: java.lang.Long, now: java.lang.Long): Double = piece(0, indexOf(key), range, now)
  /** Point query of a double key's bucket (level 0). */
  def point(key: Double, range: java.lang.Long, now: java.lang.Long): Double = piece(0, indexOf(key), range, now)
  /** Point query of a string / binary key (its fingerprint bucket, level 0). */
  def point(key: Array[Byte], range: java.lang.Long, now: java.lang.Long): Double = piece(0, indexOf(key), range, now)

  /** Interval of a single piece's true count from its estimate (aUp: upper bound of ||a_r||_1). */
  private def pieceInterval(est: Double, pieces: Int, aUp: Double): Estimate = {
    val e = cellBound
    val lo = math.max(0.0, est / (1 + e) - pieces * cmEpsilon * aUp)
    val hi = math.min(aUp, est / (1 - e))
    Estimate(est, math.min(lo, hi), hi)
  }

  def pointEstimate(key: Long, range: java.lang.Long, now: java.lang.Long): Estimate = {
    requireUsable()
    pieceInterval(point(key, range, now), 1, total(range, now) / (1 - cellBound))
  }

  /** Estimated count of universe indexes in [lo, hi] (unsigned, inclusive) and the number of pieces read. */
  def rangeIndexes(lo: Long, hi: Long, range: java.lang.Long, now: java.lang.Long): (Double, Int) = {
    if (java.lang.Long.compareUnsigned(lo, hi) > 0) return (0.0, 0)
    val ps = decompose(lo, hi, universeBits)
    var s = 0.0
    ps.foreach { case (i, p) => s += piece(i, p, range, now) }
    (s, ps.size)
  }

  /** Range count over integer keys lo..hi inclusive; keys beyond the universe are clipped (none can be there). */
  def rangeCount(lo: Long, hi: Long, range: java.lang.Long, now: java.lang.Long): Estimate = {
    requireOrdered("range count")
    requireUsable()
    if (lo > hi) return Estimate(0.0, 0.0, 0.0)
    if (_keyDomain == DoubleKeys) throw new SketchException(
      "key type mismatch: this dyadic sketch holds double keys and the range bounds are bigint; cast them to double")
    val (minK, maxK) = keyRange(universeBits)
    if (hi < minK || lo > maxK) return Estimate(0.0, 0.0, 0.0)
    val (s, k) = rangeIndexes(longIndex(math.max(lo, minK), universeBits), longIndex(math.min(hi, maxK), universeBits), range, now)
    pieceInterval(s, k, total(range, now) / (1 - cellBound))
  }

  /** Range count over double keys lo..hi: the buckets of lo through hi (whole buckets, docs/design/dyadic.md). */
  def rangeCount(lo: Double, hi: Double, range: java.lang.Long, now: java.lang.Long): Estimate = {
    requireOrdered("range count")
    requireUsable()
    SketchException.require(!lo.isNaN && !hi.isNaN, "range bounds must not be NaN")
    if (lo > hi) return Estimate(0.0, 0.0, 0.0)
    val (s, k) = rangeIndexes(indexOf(lo), indexOf(hi), range, now)
    pieceInterval(s, k, total(range, now) / (1 - cellBound))
  }

  /** Estimated number of rows with key <= x (a prefix: at most bits pieces). */
  def rank(x: Long, range: java.lang.Long, now: java.lang.Long): Estimate = {
    requireOrdered("rank")
    val (minK, _) = keyRange(universeBits)
    if (x < minK) { requireUsable(); Estimate(0.0, 0.0, 0.0) } else rangeCount(minK, x, range, now)
  }

  def rank(x: Double, range: java.lang.Long, now: java.lang.Long): Estimate =
    rangeCount(Double.NegativeInfinity, x, range, now)

  /** Universe index of the q-quantile: the top-down walk of docs/design/dyadic.md (left-sibling sums against q T^). */
  def quantileIndex(q: Double, range: java.lang.Long, now: java.lang.Long): Option[Long] = {
    requireOrdered("quantile")
    requireUsable()
    SketchException.require(!q.isNaN && q >= 0.0 && q <= 1.0, s"quantile q must be in [0, 1], got $q")
    val t = total(range, now)
    if (t <= 0.0) return None
    val target = math.max(q * t, Double.MinPositiveValue)
    var left = 0.0
    var p = 0L
    var i = universeBits - 1
    while (i >= 0) {
      val l = 2 * p // left child at level i (p is the node at level i + 1)
      val c = piece(i, l, range, now)
      if (left + c >= target) p = l else { left += c; p = l + 1 }
      i -= 1
    }
    Some(p)
  }

  /** The q-quantile of integer keys (None for an empty range). */
  def quantile(q: Double, range: java.lang.Long, now: java.lang.Long): Option[Long] = {
    if (_keyDomain == DoubleKeys) throw new SketchException("this dyadic sketch holds double keys: use quantileDouble")
    quantileIndex(q, range, now).map(longKey(_, universeBits))
  }

  /** The q-quantile of double keys: the smallest double of the quantile's bucket. */
  def quantileDouble(q: Double, range: java.lang.Long, now: java.lang.Long): Option[Double] = {
    if (_keyDomain == KeyType.Long) throw new SketchException("this dyadic sketch holds bigint keys: use quantile")
    quantileIndex(q, range, now).map(doubleKey(_, universeBits))
  }

  private def keyEstimate(u: Long, est: Double, aUp: Double, bytes: Array[Byte] = null): KeyEstimate = {
    val iv = pieceInterval(est, 1, aUp)
    if (bytes != null) KeyEstimate(u, Double.NaN, est, iv.lower, iv.upper, bytes)
    else if (_keyDomain == DoubleKeys) KeyEstimate(u, doubleKey(u, universeBits), est, iv.lower, iv.upper)
    else KeyEstimate(longKey(u, universeBits), Double.NaN, est, iv.lower, iv.upper)
  }

  /** The reporting (and pruning) threshold of a heavy-hitter query: (1+e)(phi + eps_cm) A_up for a
    * ratio phi in (0, 1), (1+e)(phi + eps_cm A_up) for an absolute count phi >= 1 (docs/design/dyadic.md).
    */
  def heavyHitterThreshold(phi: Double, range: java.lang.Long, now: java.lang.Long): Double = {
    requireUsable()
    SketchException.require(!phi.isNaN && phi > 0.0 && !phi.isInfinite,
      s"phi must be in (0, 1) (a ratio of the range's total) or >= 1 (an absolute count), got $phi")
    val e = cellBound
    val aUp = total(range, now) / (1 - e)
    if (phi < 1.0) (1 + e) * (phi + cmEpsilon) * aUp else (1 + e) * (phi + cmEpsilon * aUp)
  }

  /** Heavy hitters by the top-down search of Theorem 5: ranges with estimate below the threshold are
    * pruned, leaves at or above it reported, ordered by estimate (largest first).
    */
  def heavyHitters(phi: Double, range: java.lang.Long, now: java.lang.Long): Seq[KeyEstimate] = {
    val tau = heavyHitterThreshold(phi, range, now)
    val aUp = total(range, now) / (1 - cellBound)
    if (aUp <= 0.0) return Nil
    var frontier = ArrayBuffer(0L) // nodes of level i + 1
    var ests = ArrayBuffer(Double.NaN)
    var i = universeBits - 1
    while (i >= 0) {
      val next = ArrayBuffer[Long](); val nextEst = ArrayBuffer[Double]()
      frontier.foreach { p =>
        var c = 0
        while (c < 2) {
          val child = 2 * p + c
          val est = piece(i, child, range, now)
          if (est >= tau) { next += child; nextEst += est }
          c += 1
        }
      }
      if (next.size > MaxFrontier) throw new SketchException(
        s"heavy hitters: more than $MaxFrontier ranges of one level pass the threshold $tau; use a larger phi")
      frontier = next; ests = nextEst
      i -= 1
    }
    if (!bytesKeys) frontier.indices.map(j => keyEstimate(frontier(j), ests(j), aUp)).sortBy(k => (-k.estimate, k.key))
    else {
      // fingerprint buckets back to keys: the candidate of each reported bucket (docs/design/dyadic.md)
      val byBucket = candidatesByBucket
      frontier.indices.flatMap(j => byBucket.get(frontier(j)).map(b => keyEstimate(frontier(j), ests(j), aUp, b)))
        .sortBy(k => (-k.estimate, k.key))
    }
  }

  /** The candidate keys by fingerprint bucket: where keys share a bucket, the one with the larger counter. */
  private def candidatesByBucket: Map[Long, Array[Byte]] =
    if (keyTable == null) Map.empty
    else keyTable.candidates.toSeq.map { case (fp, (b, c)) => (bytesIndex(fp, universeBits), b, c) }
      .groupBy(_._1).map { case (u, xs) => u -> xs.maxBy(x => (x._3, -Hashing.fingerprintBytes(x._2)))._2 }

  /** Weight bound of the candidate table: every string / binary key with more weight than this in a
    * range r <= window ending at or after the newest row is a candidate (0 for other key domains).
    */
  def keyRecallFloor: Double = if (keyTable == null) 0.0 else keyTable.recallFloor

  /** The k keys with the largest estimates: best-first search over dyadic ranges by estimate (a
    * range's estimate / (1 - e) bounds every key below it), stopping after k leaves.
    */
  def topK(k: Int, range: java.lang.Long, now: java.lang.Long): Seq[KeyEstimate] = {
    requireUsable()
    SketchException.require(k >= 1 && k <= MaxTopK, s"k must be in [1, $MaxTopK], got $k")
    val aUp = total(range, now) / (1 - cellBound)
    if (aUp <= 0.0) return Nil
    if (bytesKeys) {
      // the candidates, each by its bucket's level-0 estimate (docs/design/string-keys.md)
      return candidatesByBucket.toSeq.map { case (u, b) => (u, b, piece(0, u, range, now)) }.filter(_._3 > 0.0)
        .sortBy(x => (-x._3, x._1)).take(k).map { case (u, b, e) => keyEstimate(u, e, aUp, b) }
    }
    // (estimate, level, prefix); highest estimate first, then the lower level, then the smaller prefix
    val ord = Ordering.by[(Double, Int, Long), (Double, Int, Long)] { case (e, l, p) => (e, -l, -p) }
    val pq = scala.collection.mutable.PriorityQueue[(Double, Int, Long)]()(ord)
    pq += ((Double.PositiveInfinity, universeBits, 0L))
    val out = ArrayBuffer[KeyEstimate]()
    var popped = 0L
    while (pq.nonEmpty && out.size < k) {
      val (est, l, p) = pq.dequeue()
      popped += 1
      if (popped > MaxTopKSteps) throw new SketchException(s"top-k: the search read more than $MaxTopKSteps ranges; use a smaller k")
      if (l == 0) { if (est > 0.0) out += keyEstimate(p, est, aUp) }
      else {
        var c = 0
        while (c < 2) {
          val child = 2 * p + c
          val e = piece(l - 1, child, range, now)
          if (e > 0.0) pq += ((e, l - 1, child))
          c += 1
        }
      }
    }
    out.toSeq
  }

  // ------------------------------------------------------------------ merge

  def diffs(o: DyadicSketch): Seq[String] = {
    val b = Seq.newBuilder[String]
    if (universeBits != o.universeBits) b += s"universe_bits $universeBits vs ${o.universeBits}"
    if (epsilon != o.epsilon) b += s"epsilon $epsilon vs ${o.epsilon}"
    if (requestedDelta != o.requestedDelta) b += s"delta $requestedDelta vs ${o.requestedDelta}"
    if (_keyDomain != KeyType.Unset && o._keyDomain != KeyType.Unset && _keyDomain != o._keyDomain)
      b += s"key type ${domainName(_keyDomain)} vs ${domainName(o._keyDomain)}"
    if (bytesKeys && o.bytesKeys && _candidates != o._candidates) b += s"candidates ${_candidates} vs ${o._candidates}"
    b ++= base.diffs(o.base)
    b.result().distinct
  }

  private[dyadic] def restoreLevelsState(): Unit = copyStateFrom(base)

  // the levels share the sketch's clock and totals (their cells are encoded relative to it)
  override def restoreState(mergeDepth: Int, firstTs: Long, lastTs: Long, count: Long, hasRows: Boolean): Unit = {
    super.restoreState(mergeDepth, firstTs, lastTs, count, hasRows)
    levels.foreach(_.restoreState(mergeDepth, firstTs, lastTs, count, hasRows))
  }

  override def withDroppedRows(weight: Long, minTs: Long): Unit = {
    super.withDroppedRows(weight, minTs)
    levels.foreach(_.withDroppedRows(weight, minTs))
  }
}

object DyadicSketch {
  final val DefaultUniverseBits = 32
  final val MinUniverseBits = 1
  final val MaxUniverseBits = 64
  /** The key domain of double keys (beside KeyType.Long). */
  final val DoubleKeys = 4
  final val MaxFrontier = 1 << 20
  final val MaxTopK = 100000
  final val MaxTopKSteps = 50000000L

  def domainName(d: Int): String = if (d == DoubleKeys) "double" else KeyType.name(d)
  def isBytesDomain(d: Int): Boolean = d == KeyType.String || d == KeyType.Binary

  /** Universe index of a string / binary key's fingerprint: its top `bits` bits. */
  @inline def bytesIndex(fp: Long, bits: Int): Long = if (bits >= 64) fp else fp >>> (64 - bits)

  def checkBits(bits: Int): Unit =
    SketchException.require(bits >= MinUniverseBits && bits <= MaxUniverseBits,
      s"universe_bits must be in [$MinUniverseBits, $MaxUniverseBits], got $bits")

  def create(spec: WindowSpec, epsilon: Double, delta: Double, mergeLevels: Int = 1,
             cellKind: Int = ecmsketch.ecm.CellKinds.default.id, universeBits: Int = DefaultUniverseBits,
             seed: Long = EcmSketch.DefaultSeed, maxArrivals: Long = CellParams.Unbounded,
             candidates: Int = KeyTable.DefaultCapacity): DyadicSketch = {
    checkCandidates(candidates)
    val p = DyadicPlanner.cachedPlan(epsilon, delta, mergeLevels, cellKind, universeBits)
    val s = new DyadicSketch(universeBits, epsilon, delta, Array.fill(universeBits + 1)(EcmSketch.create(spec, p, seed, maxArrivals)))
    s._candidates = candidates
    s
  }

  /** The delta to build with so that heavy-hitter queries with any ratio phi >= phiMin report no key
    * below phi A with probability >= 1 - delta (their failure bound is delta' / phi, docs/design/dyadic.md):
    * delta' = delta * phiMin. phiMin = 1 leaves delta as it is.
    */
  def deltaFor(delta: Double, phiMin: Double): Double = {
    SketchException.require(!phiMin.isNaN && phiMin > 0.0 && phiMin <= 1.0, s"phi_min must be in (0, 1], got $phiMin")
    SketchException.require(!delta.isNaN && delta > 0.0 && delta < 1.0, s"delta must be in (0, 1), got $delta")
    delta * phiMin
  }

  def checkCandidates(m: Int): Unit =
    SketchException.require(m >= 1 && m <= KeyTable.MaxCapacity, s"candidates must be in [1, ${KeyTable.MaxCapacity}], got $m")

  /** Order-preserving n-way merge (cross-site; count-based sketches refused): level by level, every
    * level as one order-preserving merge (no time-disjoint layout: the levels keep one depth).
    */
  def merge(xs: Seq[DyadicSketch]): DyadicSketch = {
    WindowSketch.checkMergeable(xs, "dyadic merge")
    DyadicMerge.mergeImpl(xs, (ls: Seq[EcmSketch]) => EcmSketch.merge(ls, timeDisjoint = false))
  }

  /** Merge of partial sketches of one stream (count windows allowed). */
  def mergeSameStream(xs: Seq[DyadicSketch]): DyadicSketch =
    DyadicMerge.mergeImpl(xs, (ls: Seq[EcmSketch]) => EcmSketch.mergeUnchecked(ls))
}
