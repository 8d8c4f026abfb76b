package ecmsketch.window

import ecmsketch.core.{SketchException, WindowCounter, Windows}

/** Parameters of an exponential histogram.
  *
  * Bucket rule (see docs/design/exponential-histogram.md, "Exponential histogram"): level i holds buckets of size 2^i.
  * Level 0 keeps k0 = max(1, ceil(1/eps) - 1) or k0 + 1 buckets, every higher level k = ceil(1/(2 eps))
  * or k + 1 (the oldest level may hold fewer). With these caps every bucket j of size >= 2 satisfies
  * ECM's invariant 1, C_j <= 2 eps (1 + sum of the newer buckets), which gives (a) relative error
  * <= eps for the midpoint estimator on every range and (b) the order-preserving merge bound of
  * ECM Theorem 4 (it needs invariant 1 literally; the printed ceil(1/(2 eps)) rule alone does not give it).
  *
  * @param epsilon relative error of one histogram, in (0, 1)
  * @param window  window length N in ticks (time-based) or arrivals (count-based); Long.MaxValue = unbounded
  */
final case class EhConfig(epsilon: Double, window: Long) {
  SketchException.require(!epsilon.isNaN && epsilon > 0.0 && epsilon < 1.0,
    s"epsilon must be in (0, 1), got $epsilon")
  SketchException.require(window > 0, s"window must be positive, got $window")
  SketchException.require(epsilon >= EhConfig.MinEpsilon,
    s"epsilon $epsilon is below the supported minimum ${EhConfig.MinEpsilon}")

  /** Minimum number of size-1 buckets once a larger bucket exists. */
  val k0: Int = math.max(1, math.ceil(1.0 / epsilon - 1e-12).toInt - 1)
  /** Minimum number of buckets of each size >= 2 below the oldest level. */
  val k: Int = math.max(1, math.ceil(1.0 / (2.0 * epsilon) - 1e-12).toInt)
  /** Ring capacity of level 0 and of the other levels (the cap plus one transient slot). */
  val cap0: Int = k0 + 2
  val cap: Int = k + 2

  @inline def maxAt(level: Int): Int = if (level == 0) k0 + 1 else k + 1
  @inline def minAt(level: Int): Int = if (level == 0) k0 else k
  @inline def capAt(level: Int): Int = if (level == 0) cap0 else cap
  def unbounded: Boolean = window == Long.MaxValue
}

object EhConfig {
  final val MinEpsilon = 1e-4
  final val MaxLevels = 63
}

/** Exponential histogram over a sliding window (Datar et al., as restated in ECM §3 and GT §2).
  *
  * It counts arrivals (or sums non-negative integer weights) with timestamps in the window
  * (now - r, now] for any range r <= N and any now >= the last timestamp, with relative error at
  * most `epsilon` on every query. Timestamps must be non-decreasing; equal timestamps are allowed.
  *
  * Storage is array based: level i is a ring buffer (a fixed-length deque, ECM §7.1) of bucket end
  * timestamps inside one `Array[Long]`; the size of every bucket of level i is 2^i, so it is not
  * stored. Levels are allocated on demand. Every bucket of level i is newer than every bucket of
  * level i + 1, so a range query is a scan over levels plus a binary search inside one level.
  *
  * A bucket's elements have timestamps in [end of the next older bucket, its own end]; the oldest
  * bucket's elements lie in [lowerTs, end]. Its last element is exactly at its end.
  *
  * Segment (tail): a histogram made by a time-disjoint merge ([[ExpHistogram.concat]], docs/design/merging.md
  * "Time-disjoint merges") also holds, older than every level bucket, a run of buckets of any
  * size (oldest first, with their sizes), each satisfying invariant 1 against all the weight newer
  * than it. The estimator reads them as one more stretch of the bucket list; inserts never touch
  * them (they only make them older); expiry drops them first.
  */
final class ExpHistogram(val config: EhConfig) extends WindowCounter {
  import ExpHistogram._

  // hot-path copies of the configuration
  private[this] val unbounded = config.unbounded
  private[this] val window = config.window
  private[this] val max0 = config.maxAt(0)

  // One ring buffer per level, grown on demand (doubling up to the level's capacity), so memory
  // is proportional to the buckets held; r0 caches level 0's ring for the insert path.
  private[window] var rings: Array[Array[Long]] = EmptyRings
  private var r0: Array[Long] = EmptyLongs
  private[window] var heads: Array[Int] = EmptyInts
  private[window] var sizes: Array[Int] = EmptyInts
  private[window] var levels: Int = 0 // levels in use: highest non-empty level + 1
  private var allocLevels: Int = 0
  private var _total: Long = 0L
  private var _lowerTs: Long = Long.MaxValue
  private var _lastTs: Long = Long.MinValue
  // the segment: live buckets tHead until tN, oldest first; tSuffix(i) = sum of tSizes(i until tN)
  private var tSizes: Array[Long] = EmptyLongs
  private var tEnds: Array[Long] = EmptyLongs
  private var tSuffix: Array[Long] = EmptyLongs
  private var tHead: Int = 0
  private var tN: Int = 0

  /** Weight held in all retained buckets (some may lie partly before the window). */
  def total: Long = _total
  def heldWeight: Long = _total
  /** Lower bound of every retained timestamp (Long.MaxValue when empty). */
  def lowerTs: Long = _lowerTs
  /** The latest timestamp seen (Long.MinValue before the first one). */
  def lastTs: Long = _lastTs
  def isEmpty: Boolean = levels == 0 && tHead == tN
  /** End of the newest retained bucket (Long.MinValue when empty). */
  def newestEnd: Long = {
    var l = 0
    while (l < levels && sizes(l) == 0) l += 1
    if (l < levels) endAt(l, sizes(l) - 1) else if (tHead < tN) tEnds(tN - 1) else Long.MinValue
  }
  /** Whether a bucket survives expiry at `now` (>= lastTs): the newest ends after now - N. */
  override def retainsAt(now: Long): Boolean =
    !isEmpty && (unbounded || now < Long.MinValue + window || newestEnd > now - window)
  /** Number of retained buckets (segment included). */
  def bucketCount: Int = { var s = tN - tHead; var i = 0; while (i < levels) { s += sizes(i); i += 1 }; s }
  /** Number of buckets in the segment (0 unless a time-disjoint merge made this histogram). */
  def segmentCount: Int = tN - tHead
  /** Whether the histogram holds a segment (then it is written as format version 2). */
  def segmented: Boolean = tHead < tN
  /** Size and end of the j-th oldest segment bucket. */
  def segmentSizeAt(j: Int): Long = tSizes(tHead + j)
  def segmentEndAt(j: Int): Long = tEnds(tHead + j)
  def levelCount: Int = levels
  /** Timestamp slots allocated by the ring buffers (memory is proportional to the buckets held). */
  def allocatedSlots: Int = { var s = 0; var i = 0; while (i < rings.length) { if (rings(i) != null) s += rings(i).length; i += 1 }; s }
  /** Levels with per-level arrays allocated, and rings allocated among them (heap estimates in benchmarks). */
  def allocatedLevels: Int = allocLevels
  def ringCount: Int = { var s = 0; var i = 0; while (i < rings.length) { if (rings(i) != null) s += 1; i += 1 }; s }
  def sizeAt(level: Int): Int = if (level < levels) sizes(level) else 0
  /** End timestamp of the j-th oldest bucket of `level`. */
  def endAt(level: Int, j: Int): Long = {
    val r = rings(level)
    var i = heads(level) + j
    if (i >= r.length) i -= r.length
    r(i)
  }

  // ---------------------------------------------------------------- ring buffer helpers
  private def ensureLevel(level: Int): Unit = {
    if (level >= EhConfig.MaxLevels) throw new SketchException("exponential histogram overflow: more than 2^63 weight")
    if (level >= allocLevels) {
      val n = math.min(EhConfig.MaxLevels, math.max(level + 1, allocLevels * 2))
      rings = java.util.Arrays.copyOf(rings, n)
      heads = java.util.Arrays.copyOf(heads, n)
      sizes = java.util.Arrays.copyOf(sizes, n)
      allocLevels = n
    }
    var l = 0
    while (l <= level) {
      if (rings(l) == null) { rings(l) = new Array[Long](math.min(4, config.capAt(l))); heads(l) = 0 }
      l += 1
    }
    if (level == 0 || r0.length == 0) r0 = rings(0)
  }

  /** Doubles the ring of `level` (up to its capacity), laying the buckets out from index 0. */
  private def growRing(level: Int): Array[Long] = {
    val r = rings(level)
    val n = math.min(config.capAt(level), math.max(4, 2 * r.length))
    if (n <= r.length) throw new IllegalStateException(s"level $level ring is full")
    val nr = new Array[Long](n)
    val h = heads(level); val s = sizes(level)
    var j = 0
    while (j < s) { var i = h + j; if (i >= r.length) i -= r.length; nr(j) = r(i); j += 1 }
    rings(level) = nr; heads(level) = 0
    if (level == 0) r0 = nr
    nr
  }

  @inline private def pushNewest(level: Int, ts: Long): Unit = {
    var r = rings(level)
    val s = sizes(level)
    if (s == r.length) r = growRing(level)
    var i = heads(level) + s
    if (i >= r.length) i -= r.length
    r(i) = ts
    sizes(level) = s + 1
  }

  @inline private def popOldest(level: Int): Unit = {
    var h = heads(level) + 1
    if (h == rings(level).length) h = 0
    heads(level) = h
    sizes(level) -= 1
  }

  @inline private def oldestEnd(level: Int): Long = rings(level)(heads(level))

  // ---------------------------------------------------------------- updates
  private def checkOrder(ts: Long): Unit =
    if (ts < _lastTs)
      throw new SketchException(
        s"timestamps must be non-decreasing: got $ts after ${_lastTs} (the Spark and Python layers reorder input; the core does not)")

  /** Moves the clock to `now` (>= the last timestamp) and drops buckets wholly before the window. */
  def advanceTo(now: Long): Unit = {
    checkOrder(now)
    _lastTs = now
    expire(now)
  }

  private def expire(now: Long): Unit = {
    if (tN != 0) expireSegment(now)
    if (!unbounded && tHead == tN && levels > 0 && oldestEnd(levels - 1) <= now - window && now >= Long.MinValue + window) {
      val bound = now - config.window // buckets ending at or before it lie wholly outside (now - N, now]
      if (now >= Long.MinValue + config.window) {
        var top = levels - 1
        while (top >= 0 && oldestEnd(top) <= bound) {
          _lowerTs = oldestEnd(top)
          _total -= 1L << top
          popOldest(top)
          while (top >= 0 && sizes(top) == 0) { heads(top) = 0; top -= 1 }
        }
        levels = top + 1
        if (levels == 0) _lowerTs = Long.MaxValue
      }
    }
  }

  /** Drops the segment buckets wholly before the window (they are older than every level bucket). */
  private def expireSegment(now: Long): Unit =
    if (!unbounded && now >= Long.MinValue + window) {
      val bound = now - window
      while (tHead < tN && tEnds(tHead) <= bound) {
        _lowerTs = tEnds(tHead)
        _total -= tSizes(tHead)
        tHead += 1
      }
      if (tHead == tN) {
        tSizes = EmptyLongs; tEnds = EmptyLongs; tSuffix = EmptyLongs; tHead = 0; tN = 0
        if (levels == 0) _lowerTs = Long.MaxValue
      }
    }

  /** Registers one arrival at `ts`. Amortized O(1), worst case O(log n). */
  def add(ts: Long): Unit = {
    if (ts < _lastTs) checkOrder(ts)
    if (_total == Long.MaxValue) throw new SketchException("exponential histogram overflow: more than 2^63 - 1 weight")
    _lastTs = ts
    if (!unbounded) expire(ts)
    if (levels == 0) { ensureLevel(0); levels = 1; if (_lowerTs == Long.MaxValue) _lowerTs = ts }
    var r = r0
    val s = sizes(0)
    if (s == r.length) r = growRing(0)
    var i0 = heads(0) + s
    if (i0 >= r.length) i0 -= r.length
    r(i0) = ts
    val s0 = s + 1
    sizes(0) = s0
    _total += 1
    if (s0 > max0) cascade()
  }

  private def cascade(): Unit = {
    var i = 0
    while (sizes(i) > config.maxAt(i)) {
      popOldest(i)
      val e = oldestEnd(i) // the newer of the two oldest
      popOldest(i)
      if (i + 1 >= levels) { ensureLevel(i + 1); levels = i + 2 }
      pushNewest(i + 1, e)
      i += 1
    }
  }

  /** Registers weight `v >= 0` at `ts`: the same state as `v` single arrivals at `ts`, computed in
    * O(k log v) time by carrying runs of equal buckets level by level instead of one at a time.
    */
  def add(ts: Long, v: Long): Unit = {
    if (v < 0) throw new SketchException(s"weight must be non-negative, got $v")
    if (Long.MaxValue - _total < v) throw new SketchException("exponential histogram overflow: more than 2^63 - 1 weight")
    if (v <= SmallWeight) { // small weights: unit adds are cheaper than carrying runs
      if (v == 0) advanceTo(ts) else { var i = 0L; while (i < v) { add(ts); i += 1 } }
      return
    }
    checkOrder(ts)
    if (Long.MaxValue - _total < v) throw new SketchException("exponential histogram overflow: more than 2^63 - 1 weight")
    _lastTs = ts
    expire(ts)
    if (levels == 0) { ensureLevel(0); levels = 1; if (_lowerTs == Long.MaxValue) _lowerTs = ts }
    _total += v
    carry(EmptyLongs, 0, 0, ts, v)
  }

  /** Registers one arrival at each of `ts(start until end)` (non-decreasing, not before the last
    * timestamp): the same state as one `add(ts(i))` each, computed level by level (each level
    * receives the ends carried up from the level below as one sorted run). Where a bucket expires
    * during the run, the run is cut: the arrivals before the first one that drops a bucket are
    * carried together (nothing expires among them: the oldest bucket outlives them, and every
    * bucket they make or join ends no earlier), that arrival is added alone, with its expiry, and
    * the rest is cut again. So expiry happens exactly where it would one by one. `ts` is not kept.
    */
  override def addSorted(ts: Array[Long], start: Int, end: Int): Unit = {
    val n = end
    if (n <= start) return
    if (ts(start) < _lastTs) checkOrder(ts(start))
    if (Long.MaxValue - _total < n - start) { var i = start; while (i < n) { add(ts(i)); i += 1 }; return }
    var from = start
    while (from < n) {
      val until = expiryFree(ts, from, n)
      if (until - from < 4) { var i = from; while (i < until) { add(ts(i)); i += 1 } }
      else carryRun(ts, from, until)
      if (until < n) add(ts(until)) // the arrival that drops a bucket
      from = until + 1
    }
  }

  /** Registers weight `ws(i)` at `ts(i)` for every i in [from, until) (timestamps non-decreasing, not
    * before the last one): the same state as `add(ts(i), ws(i))` in order. As in [[addSorted]], the
    * events are cut where one drops a bucket; the events between cuts go into level 0 as one
    * run-length list of bucket ends and are carried up level by level ([[carryRuns]]), so the cost is
    * O((k + n) log W) for n events of total weight W instead of O(n k log W). Input that `add` would
    * refuse (a negative weight, an overflow, a timestamp out of order) is added one by one, so that
    * the same event fails with the same message.
    */
  private[window] def addWeightedSorted(ts: Array[Long], ws: Array[Long], from: Int, until: Int): Unit = {
    if (until <= from) return
    var prev = _lastTs
    var sum = 0L
    var i = from
    while (i < until) {
      val t = ts(i); val v = ws(i)
      if (t < prev || v <= 0 || Long.MaxValue - _total - sum < v) { // refused input or weight 0: one by one
        var j = from; while (j < until) { add(ts(j), ws(j)); j += 1 }
        return
      }
      sum += v; prev = t; i += 1
    }
    var a = from
    while (a < until) {
      val b = expiryFree(ts, a, until)
      if (b > a) {
        _lastTs = ts(b - 1)
        if (levels == 0) { ensureLevel(0); levels = 1; if (_lowerTs == Long.MaxValue) _lowerTs = ts(a) }
        var w = 0L; var j = a; while (j < b) { w += ws(j); j += 1 }
        _total += w
        carryRuns(ts, ws, a, b - a)
      }
      if (b < until) add(ts(b), ws(b)) // the event that drops a bucket, with its expiry
      a = b + 1
    }
  }

  /** Pushes into level 0 the run-length list of bucket ends `ends(off until off + n)` (oldest first),
    * `counts(j)` buckets ending at `ends(j)`, and carries up as [[carry]] does: a level holding s
    * buckets that receives c more keeps the newest (s + c) - 2m of them, m = ceil((s + c - maxK) / 2),
    * and passes on the ends of the pairs it merged (positions 1, 3, .., 2m - 1 of its sequence,
    * oldest first) as the next level's run-length list. The result is the state of pushing the
    * buckets one at a time; each level costs O(its buckets + the runs it receives).
    */
  private def carryRuns(ends: Array[Long], counts: Array[Long], off: Int, n: Int): Unit = {
    val sc = ExpHistogram.runScratch.get()
    var inE = ends; var inC = counts; var inOff = off; var inN = n
    var level = 0
    while (inN > 0) {
      if (level >= levels) { ensureLevel(level); levels = level + 1 }
      val s = sizes(level)
      var incoming = 0L
      var j = 0
      while (j < inN) { incoming += inC(inOff + j); j += 1 }
      val d = incoming - (config.maxAt(level) - s) // (s + incoming) - maxK, without overflow
      if (d <= 0) {
        j = 0
        while (j < inN) { appendRun(level, inE(inOff + j), inC(inOff + j).toInt); j += 1 }
        inN = 0
      } else {
        val lim = 2 * (d / 2 + (d & 1)) // the merged prefix: 2m items
        // the next level's runs: the ends at the odd positions below lim
        val (outE, outC) = sc.pair(!(inE eq sc.e1), inN + s / 2 + 1)
        var outN = 0
        val r = rings(level); val h = heads(level)
        var p = 1
        while (p < s && p < lim) {
          var x = h + p; if (x >= r.length) x -= r.length
          val e = r(x)
          if (outN > 0 && outE(outN - 1) == e) outC(outN - 1) += 1 else { outE(outN) = e; outC(outN) = 1; outN += 1 }
          p += 2
        }
        var pos = s.toLong
        j = 0
        while (j < inN && pos < lim) {
          val c = inC(inOff + j)
          val odd = (math.min(pos + c, lim) >> 1) - (pos >> 1) // odd positions in [pos, min(pos + c, lim))
          if (odd > 0) {
            val e = inE(inOff + j)
            if (outN > 0 && outE(outN - 1) == e) outC(outN - 1) += odd else { outE(outN) = e; outC(outN) = odd; outN += 1 }
          }
          pos += c; j += 1
        }
        // this level keeps positions [lim, s + incoming)
        if (lim <= s) {
          var nh = h + lim.toInt; if (nh >= r.length) nh -= r.length
          heads(level) = nh; sizes(level) = s - lim.toInt
          j = 0
          while (j < inN) { appendRun(level, inE(inOff + j), inC(inOff + j).toInt); j += 1 }
        } else {
          heads(level) = 0; sizes(level) = 0
          pos = s.toLong
          j = 0
          while (j < inN) {
            val c = inC(inOff + j); val end = pos + c; val st = math.max(pos, lim)
            if (end > st) appendRun(level, inE(inOff + j), (end - st).toInt)
            pos = end; j += 1
          }
        }
        inE = outE; inC = outC; inOff = 0; inN = outN
      }
      level += 1
    }
  }

  /** The first index in [from, n) whose arrival drops a bucket (n if none): the first timestamp at
    * or after the oldest retained end (or ts(from), when nothing is retained) plus the window.
    */
  private def expiryFree(ts: Array[Long], from: Int, n: Int): Int = {
    if (unbounded) return n
    val oldest = if (tHead < tN) tEnds(tHead) else if (levels > 0) oldestEnd(levels - 1) else ts(from)
    if (oldest > Long.MaxValue - window) return n
    val cut = oldest + window // an arrival at or after cut drops the oldest bucket
    if (ts(n - 1) < cut) return n
    var a = from; var b = n - 1 // ts(b) >= cut
    while (a < b) { val mid = (a + b) >>> 1; if (ts(mid) >= cut) b = mid else a = mid + 1 }
    a
  }

  /** Carries `ts(from until until)` (at least one arrival, none of which drops a bucket) into level 0. */
  private def carryRun(ts: Array[Long], from: Int, until: Int): Unit = {
    val last = ts(until - 1)
    _lastTs = last
    if (levels == 0) { ensureLevel(0); levels = 1; if (_lowerTs == Long.MaxValue) _lowerTs = ts(from) }
    _total += until - from
    carry(ts, from, until - from, last, 0L)
  }

  /** Pushes, into level 0, the explicit bucket ends `inc0(off until off + incN0)` (oldest first) followed by
    * `run` buckets ending at `ts`, and carries up: a level over its cap merges its oldest buckets in
    * pairs (each pair ends at its newer end) and passes those pairs on, oldest first, to the next
    * level. The result is the state of pushing the buckets one at a time.
    */
  private def carry(inc0: Array[Long], off: Int, incN0: Int, ts: Long, run0: Long): Unit = {
    var inc = inc0
    var incOff = off // where inc's items start (level 0 only; the carried pairs start at 0)
    var incN = incN0
    var run = run0
    var level = 0
    var done = false
    var sc: ExpHistogram.CarryScratch = null
    while (!done) {
      if (level >= levels) { ensureLevel(level); levels = level + 1 }
      val s = sizes(level)
      val maxK = config.maxAt(level)
      val a = s + incN // materialized prefix: the level's buckets, then the explicit incoming ones
      if (a.toLong + run <= maxK.toLong) {
        appendRange(level, inc, incOff, incOff + incN)
        appendRun(level, ts, run.toInt)
        done = true
      } else {
        val n = a.toLong + run
        val m = (n - maxK + 1) / 2 // pair merges; leaves n - 2m in {maxK - 1, maxK} = {k_i, k_i + 1}
        // The sequence, oldest first: the level's s buckets, inc(0 until incN), then `run` buckets
        // ending at ts. Pair p merges items 2p and 2p + 1; its end is the newer one.
        val explicitPairs = math.min(m, (a / 2).toLong).toInt
        if (sc == null) sc = ExpHistogram.carryScratch.get()
        var out = if (inc eq sc.p) sc.q else sc.p
        if (out.length < explicitPairs) {
          out = new Array[Long](math.max(explicitPairs, 2 * out.length))
          if (out.length <= ExpHistogram.CarryKeep) { if (inc eq sc.p) sc.q = out else sc.p = out }
        }
        val r = rings(level)
        val h = heads(level)
        var j = 0
        while (j < explicitPairs) {
          val q = 2 * j + 1
          out(j) = if (q < s) { var i = h + q; if (i >= r.length) i -= r.length; r(i) } else inc(incOff + q - s)
          j += 1
        }
        val nextRun = m - explicitPairs
        // this level keeps the newest n - 2m items of the sequence
        val from = 2 * m
        if (from <= s) {
          var nh = h + from.toInt
          if (nh >= r.length) nh -= r.length
          heads(level) = nh; sizes(level) = s - from.toInt
          appendRange(level, inc, incOff, incOff + incN)
        } else {
          heads(level) = 0; sizes(level) = 0
          if (from < a) appendRange(level, inc, incOff + (from - s).toInt, incOff + incN)
        }
        appendRun(level, ts, (n - math.max(from, a.toLong)).toInt)
        inc = out; incOff = 0; incN = explicitPairs; run = nextRun
        level += 1
        if (incN == 0 && run == 0) done = true
      }
    }
  }

  /** Makes the ring of `level` hold at least `need` buckets (its buckets laid out from index 0 if it grows). */
  private def reserve(level: Int, need: Int): Array[Long] = {
    var r = rings(level)
    if (need > r.length) {
      val c = math.min(config.capAt(level), math.max(need, 2 * r.length))
      if (need > c) throw new IllegalStateException(s"level $level ring is full")
      val nr = new Array[Long](c)
      val h = heads(level); val s = sizes(level)
      val first = math.min(s, r.length - h)
      System.arraycopy(r, h, nr, 0, first)
      System.arraycopy(r, 0, nr, first, s - first)
      rings(level) = nr; heads(level) = 0
      if (level == 0) r0 = nr
      r = nr
    }
    r
  }

  /** Appends `src(from until until)` as the newest buckets of `level`. */
  private def appendRange(level: Int, src: Array[Long], from: Int, until: Int): Unit = {
    val cnt = until - from
    if (cnt > 0) {
      val s = sizes(level)
      val r = reserve(level, s + cnt)
      var i = heads(level) + s
      if (i >= r.length) i -= r.length
      val first = math.min(cnt, r.length - i)
      System.arraycopy(src, from, r, i, first)
      System.arraycopy(src, from + first, r, 0, cnt - first)
      sizes(level) = s + cnt
    }
  }

  /** Appends `cnt` buckets ending at `ts` as the newest of `level`. */
  private def appendRun(level: Int, ts: Long, cnt: Int): Unit = if (cnt > 0) {
    val s = sizes(level)
    val r = reserve(level, s + cnt)
    var i = heads(level) + s
    if (i >= r.length) i -= r.length
    val first = math.min(cnt, r.length - i)
    java.util.Arrays.fill(r, i, i + first, ts)
    java.util.Arrays.fill(r, 0, cnt - first, ts)
    sizes(level) = s + cnt
  }

  // ---------------------------------------------------------------- queries

  /** Locates the straddling bucket for the range ts >= lo. Returns the weight of the buckets wholly
    * in range and the size of the straddling bucket (0 if none, in which case the answer is exact).
    */
  private def locate(lo: Long): (Long, Long) = {
    var sum = 0L
    var l = 0
    while (l < levels) {
      val s = sizes(l)
      if (oldestEnd(l) >= lo) {
        sum += s.toLong << l
        l += 1
      } else {
        // binary search: number of buckets of level l with end >= lo (they are the newest ones)
        var a = 0; var b = s // invariant: buckets [0, a) end before lo; [b, s) end at or after lo
        while (a < b) {
          val mid = (a + b) >>> 1
          if (endAt(l, mid) >= lo) b = mid else a = mid + 1
        }
        val inLevel = s - a
        if (inLevel > 0) return (sum + ((inLevel - 1).toLong << l), 1L << l)
        if (l == 0) return (0L, 0L)
        return (sum - (1L << (l - 1)), 1L << (l - 1))
      }
    }
    // every level bucket ends at or after lo
    if (tHead < tN) return locateInSegment(lo, sum)
    // the oldest one straddles lo unless lo <= lowerTs
    if (levels == 0) return (0L, 0L)
    val top = levels - 1
    if (lo <= _lowerTs) (sum, 0L) else (sum - (1L << top), 1L << top)
  }

  /** [[locate]] below the levels, every one of whose buckets (weight `levelSum`) ends at or after `lo`. */
  private def locateInSegment(lo: Long, levelSum: Long): (Long, Long) = {
    var a = tHead; var b = tN // the oldest segment bucket ending at or after lo
    while (a < b) {
      val mid = (a + b) >>> 1
      if (tEnds(mid) >= lo) b = mid else a = mid + 1
    }
    if (a == tN) { // the segment lies before lo: the oldest level bucket (if any) straddles it
      if (levels == 0) (0L, 0L) else (levelSum - (1L << (levels - 1)), 1L << (levels - 1))
    } else {
      val inner = levelSum + tSuffix(a + 1)
      if (a == tHead && lo <= _lowerTs) (inner + tSizes(a), 0L) else (inner, tSizes(a))
    }
  }

  /** Known interval [low, high] of the weight with timestamps >= lo. */
  def boundsFrom(lo: Long): (Long, Long) = {
    val (s, q) = locate(lo)
    if (q == 0) (s, s) else (s + 1, s + q)
  }

  /** Estimate of the weight with timestamps >= lo: the midpoint of the known interval. */
  def estimateFrom(lo: Long): Double = {
    val (s, q) = locate(lo)
    if (q == 0) s.toDouble else s.toDouble + (q + 1).toDouble / 2.0
  }

  /** Weight with timestamps > x (tests and callers that think in exclusive boundaries). */
  def estimateAfter(x: Long): Double = if (x == Long.MaxValue) 0.0 else estimateFrom(x + 1)
  def boundsAfter(x: Long): (Long, Long) = if (x == Long.MaxValue) (0L, 0L) else boundsFrom(x + 1)

  /** Estimate for the range (now - r, now]; r in [0, N], now >= last timestamp. */
  def estimate(range: Long, now: Long): Double = {
    Windows.checkQuery(config.window, range, now, _lastTs)
    if (range == 0) 0.0 else estimateFrom(Windows.lowerBound(now, range))
  }

  /** Buckets from oldest to newest as (size, end) pairs; used by merge and serialization. */
  def foreachBucket(f: (Long, Long) => Unit): Unit = {
    var t = tHead
    while (t < tN) { f(tSizes(t), tEnds(t)); t += 1 }
    var l = levels - 1
    while (l >= 0) {
      val s = sizes(l); var j = 0
      while (j < s) { f(1L << l, endAt(l, j)); j += 1 }
      l -= 1
    }
  }

  /** Checks the structural invariants (used by tests and after decoding). */
  def checkInvariants(): Unit = {
    var prev = _lowerTs
    var newerSum = 0L
    var l = 0
    while (l < levels) {
      val s = sizes(l)
      if (s > config.maxAt(l)) throw new SketchException(s"level $l holds $s buckets, more than ${config.maxAt(l)}")
      if (l < levels - 1 && s < config.minAt(l))
        throw new SketchException(s"level $l holds $s buckets, fewer than ${config.minAt(l)}")
      if (l == levels - 1 && s == 0) throw new SketchException(s"top level $l is empty")
      l += 1
    }
    var sum = 0L
    foreachBucket { (size, end) =>
      if (end < prev) throw new SketchException(s"bucket ends out of order: $end after $prev")
      if (end > _lastTs) throw new SketchException(s"bucket end $end after the last timestamp ${_lastTs}")
      prev = end; sum += size
    }
    if (sum != _total) throw new SketchException(s"total ${_total} does not match the buckets ($sum)")
    // invariant 1: every bucket of size >= 2 has C_j <= 2 eps (1 + newer weight)
    l = 0
    while (l < levels) {
      val s = sizes(l); var j = s - 1
      while (j >= 0) {
        val c = 1L << l
        if (c >= 2 && c.toDouble > 2.0 * config.epsilon * (1.0 + newerSum.toDouble) * (1 + 1e-12))
          throw new SketchException(s"invariant 1 fails at level $l")
        newerSum += c; j -= 1
      }
      l += 1
    }
    var t = tN - 1
    while (t >= tHead) {
      val c = tSizes(t)
      if (c < 1) throw new SketchException(s"segment bucket of size $c")
      if (c >= 2 && c.toDouble > 2.0 * config.epsilon * (1.0 + newerSum.toDouble) * (1 + 1e-12))
        throw new SketchException(s"invariant 1 fails in the segment (a bucket of $c with $newerSum newer)")
      newerSum += c; t -= 1
    }
  }

  /** A deep copy. */
  def copy(): ExpHistogram = {
    val h = new ExpHistogram(config)
    h.rings = rings.map(r => if (r == null) null else r.clone()); h.heads = heads.clone(); h.sizes = sizes.clone()
    h.r0 = if (h.rings.length > 0 && h.rings(0) != null) h.rings(0) else EmptyLongs
    h.levels = levels; h.allocLevels = allocLevels
    h._total = _total; h._lowerTs = _lowerTs; h._lastTs = _lastTs
    if (tHead < tN) h.setSegment(java.util.Arrays.copyOfRange(tSizes, tHead, tN), java.util.Arrays.copyOfRange(tEnds, tHead, tN))
    h
  }

  /** Installs a segment (sizes and ends oldest first, older than every level bucket); the caller
    * keeps the total and lowerTs right.
    */
  private def setSegment(sz: Array[Long], ends: Array[Long]): Unit = {
    val n = sz.length
    val suf = new Array[Long](n + 1)
    var i = n - 1
    while (i >= 0) { suf(i) = suf(i + 1) + sz(i); i -= 1 }
    tSizes = sz; tEnds = ends; tSuffix = suf; tHead = 0; tN = n
  }

  /** Rebuilds the state from decoded parts (ends per level, oldest first), taking ownership of the
    * level arrays (they become the rings). Validates invariants.
    */
  private[ecmsketch] def restore(levelEnds: Array[Array[Long]], lowerTs: Long, lastTs: Long,
                                 segSizes: Array[Long] = EmptyLongs, segEnds: Array[Long] = EmptyLongs): Unit = {
    val n = levelEnds.length
    tSizes = EmptyLongs; tEnds = EmptyLongs; tSuffix = EmptyLongs; tHead = 0; tN = 0
    levels = 0; allocLevels = 0; rings = EmptyRings; r0 = EmptyLongs; heads = EmptyInts; sizes = EmptyInts; _total = 0
    if (n > 0) {
      if (n > EhConfig.MaxLevels) throw new SketchException(s"$n levels, more than ${EhConfig.MaxLevels}")
      // the level arrays become the rings (owned from now on: the decoder made them for this histogram)
      rings = new Array[Array[Long]](n); heads = new Array[Int](n); sizes = new Array[Int](n); allocLevels = n
      var l = 0
      var t = 0L
      while (l < n) {
        val e = levelEnds(l)
        if (e.length > config.maxAt(l)) throw new SketchException(s"level $l holds ${e.length} buckets, more than ${config.maxAt(l)}")
        rings(l) = if (e.length > 0) e else new Array[Long](1); heads(l) = 0; sizes(l) = e.length
        t += e.length.toLong << l
        if (t < 0) throw new SketchException("bucket weights overflow")
        l += 1
      }
      levels = n
    }
    r0 = if (n > 0) rings(0) else EmptyLongs
    _total = total0(levelEnds)
    if (segSizes.length > 0) {
      var j = 0
      while (j < segSizes.length) {
        val c = segSizes(j)
        if (c < 1) throw new SketchException(s"segment bucket of size $c")
        if (c > Long.MaxValue - _total) throw new SketchException("bucket weights overflow")
        _total += c; j += 1
      }
      setSegment(segSizes, segEnds)
    }
    _lowerTs = if (n == 0 && segSizes.length == 0) Long.MaxValue else lowerTs
    _lastTs = lastTs
    checkInvariants()
  }

  private def total0(levelEnds: Array[Array[Long]]): Long = {
    var t = 0L; var l = 0
    while (l < levelEnds.length) { t += levelEnds(l).length.toLong << l; l += 1 }
    t
  }

  override def toString: String = {
    val sb = new StringBuilder(s"ExpHistogram(eps=${config.epsilon}, N=${config.window}, total=${_total}, buckets=[")
    var first = true
    foreachBucket { (s, e) => if (!first) sb.append(", "); sb.append(s).append('@').append(e); first = false }
    sb.append("])").toString
  }
}

object ExpHistogram {
  /** The two buffers of carried pairs that [[ExpHistogram.carry]] alternates between, one pair per
    * thread (a carry never runs inside another on the same thread): many small histograms (the cells
    * of many sketches) would otherwise each keep their own. Buffers above [[CarryKeep]] longs are not kept.
    */
  private[window] final class CarryScratch { var p: Array[Long] = EmptyLongs; var q: Array[Long] = EmptyLongs }
  private[window] final val CarryKeep = 1 << 16 // 512 KB a buffer: a batch of 2^16 rows per cell fits
  private[window] val carryScratch: ThreadLocal[CarryScratch] = ThreadLocal.withInitial(() => new CarryScratch)

  /** Two run-length lists (ends, counts) per thread for [[ExpHistogram.carryRuns]], used in turn;
    * lists above [[CarryKeep]] runs are not kept.
    */
  private[window] final class RunScratch {
    var e1: Array[Long] = EmptyLongs; var c1: Array[Long] = EmptyLongs
    var e2: Array[Long] = EmptyLongs; var c2: Array[Long] = EmptyLongs
    /** List 1 (or 2), made to hold at least `n` runs. */
    def pair(first: Boolean, n: Int): (Array[Long], Array[Long]) = {
      val (e, c) = if (first) (e1, c1) else (e2, c2)
      if (e.length >= n) (e, c)
      else {
        val m = math.max(n, 2 * e.length)
        val (ne, nc) = (new Array[Long](m), new Array[Long](m))
        if (m <= CarryKeep) { if (first) { e1 = ne; c1 = nc } else { e2 = ne; c2 = nc } }
        (ne, nc)
      }
    }
  }
  private[window] val runScratch: ThreadLocal[RunScratch] = ThreadLocal.withInitial(() => new RunScratch)

  /** Event arrays of [[merge]], one set per thread (a merge never runs inside another on the same
    * thread); sets above [[MergeKeep]] events are not kept.
    */
  private[window] final class MergeScratch {
    var t: Array[Long] = EmptyLongs; var w: Array[Long] = EmptyLongs
    var t2: Array[Long] = EmptyLongs; var w2: Array[Long] = EmptyLongs
    /** Makes every array hold at least `n` events. */
    def reserve(n: Int): MergeScratch = {
      if (t.length < n) {
        val m = math.max(n, math.min(MergeKeep, 2 * t.length))
        t = new Array[Long](m); w = new Array[Long](m); t2 = new Array[Long](m); w2 = new Array[Long](m)
      }
      this
    }
    /** Drops arrays above [[MergeKeep]] events (a rare large merge does not pin them). */
    def release(): Unit = if (t.length > MergeKeep) { t = EmptyLongs; w = EmptyLongs; t2 = EmptyLongs; w2 = EmptyLongs }
  }
  private[window] final val MergeKeep = 1 << 15 // 256 KB an array, 1 MB a thread: the 11 K events of a cell at eps 0.01 fit
  private[window] val mergeScratch: ThreadLocal[MergeScratch] = ThreadLocal.withInitial(() => new MergeScratch)

  /** Weights up to this are added as unit arrivals (same state, faster than the run carry). */
  final val SmallWeight = 16L
  private val EmptyLongs = new Array[Long](0)
  private val EmptyRings = new Array[Array[Long]](0)
  private val EmptyInts = new Array[Int](0)

  /** The first timestamp of (now - range, now]: [[ecmsketch.core.Windows.lowerBound]]. */
  @inline def lowerBound(now: Long, range: Long): Long = Windows.lowerBound(now, range)

  /** Whether `parts` (oldest first) are time-disjoint: every part's lower timestamp is at or after
    * the newest bucket end of every older part, so that no retained row of a newer part lies before a
    * bucket end of an older one (docs/design/merging.md, "Time-disjoint merges"). Empty parts are ignored.
    */
  def timeDisjoint(parts: Seq[ExpHistogram]): Boolean = {
    var end = Long.MinValue
    parts.forall { h =>
      h == null || h.isEmpty || { val ok = h.lowerTs >= end; end = math.max(end, h.newestEnd); ok }
    }
  }

  /** Time-disjoint merge: the histograms `parts` (oldest first, [[timeDisjoint]], all of `config`)
    * laid side by side, without re-inserting anything, so that the result answers within the bound
    * of its inputs (no merge level; the lemma and proof are in docs/design/merging.md, "Time-disjoint
    * merges"). The newest part keeps its levels (later inserts cascade there as before); every
    * bucket of the older parts goes, oldest first, into the segment, which is then compacted: from
    * the newest segment bucket to the oldest, consecutive buckets are joined while the joined bucket
    * satisfies invariant 1 against the weight newer than it. A joined bucket's rows lie between the
    * previous bucket's end and its own, and its last row is at its end, as in any bucket; so the
    * estimator's error stays within epsilon of the parts' rows, and the segment holds O(log(W) / eps)
    * buckets however many parts it joins.
    */
  def concat(parts: Seq[ExpHistogram], config: EhConfig): ExpHistogram = {
    val ps = parts.filter(h => h != null && !h.isEmpty)
    if (ps.isEmpty) return new ExpHistogram(config)
    if (ps.exists(_.config != config)) throw new SketchException("a time-disjoint merge needs histograms of one epsilon and window")
    if (!timeDisjoint(ps)) throw new SketchException("a time-disjoint merge of histograms whose time spans overlap")
    val newest = ps.last
    val out = newest.copy()
    if (ps.size > 1) {
      var n = newest.segmentCount
      var total = newest.total
      ps.init.foreach { h =>
        n += h.bucketCount
        if (h.total > Long.MaxValue - total) throw new SketchException("exponential histogram overflow: more than 2^63 - 1 weight")
        total += h.total
      }
      val sz = new Array[Long](n); val en = new Array[Long](n)
      var i = 0
      ps.init.foreach(_.foreachBucket { (c, e) => sz(i) = c; en(i) = e; i += 1 })
      var segWeight = 0L
      var j = 0
      while (j < newest.segmentCount) { sz(i) = newest.segmentSizeAt(j); en(i) = newest.segmentEndAt(j); segWeight += sz(i); i += 1; j += 1 }
      compactInto(out, sz, en, n, newest.total - segWeight, config.epsilon)
      out._total = total
      out._lowerTs = ps.head.lowerTs
      out._lastTs = ps.iterator.map(_.lastTs).max
      out.expire(out._lastTs)
    }
    out
  }

  /** Joins consecutive buckets of `sz`/`en` (oldest first), newest first, while the joined bucket
    * satisfies invariant 1 against `newer` plus the weight of the groups newer than it, and installs
    * the groups as `h`'s segment.
    */
  private def compactInto(h: ExpHistogram, sz: Array[Long], en: Array[Long], n: Int, newer: Long, eps: Double): Unit = {
    val gs = new Array[Long](n); val ge = new Array[Long](n) // groups, newest first
    var m = 0
    var w = newer
    var i = n - 1
    while (i >= 0) {
      val c = sz(i)
      if (m > 0 && (gs(m - 1) + c).toDouble <= 2.0 * eps * (1.0 + (w - gs(m - 1)).toDouble)) gs(m - 1) += c
      else { gs(m) = c; ge(m) = en(i); m += 1 }
      w += c
      i -= 1
    }
    val osz = new Array[Long](m); val oen = new Array[Long](m)
    var k = 0
    while (k < m) { osz(k) = gs(m - 1 - k); oen(k) = ge(m - 1 - k); k += 1 }
    h.setSegment(osz, oen)
  }

  /** Order-preserving aggregation (ECM §5.1, Theorem 4), n-way, into a histogram with `config`.
    *
    * Every input bucket b with c elements in [s(b), e(b)] becomes the weighted events
    * floor((c-1)/2) at s(b) and c - floor((c-1)/2) at e(b) (its last element is exactly at e(b));
    * all events are inserted in timestamp order. For a query boundary inside b this misplaces at
    * most ceil((c-1)/2) <= c/2 elements, which invariant 1 bounds by eps times the input's count
    * in range; the result therefore answers within (1 + eps_in)(1 + eps_out) - 1 of the union.
    * Inputs that hold nothing after the merged clock's expiry (every bucket ends at or before
    * lastTs - N, out of reach of every query of the result) do not take part: a single input left
    * is copied (no error is added; docs/design/merging.md, "Time-disjoint merges").
    */
  def merge(inputs: Seq[ExpHistogram], config: EhConfig): ExpHistogram = {
    var lastTs = Long.MinValue
    inputs.foreach(h => if (h != null && h.lastTs > lastTs) lastTs = h.lastTs)
    val nonEmpty = inputs.filter(h => h != null && h.retainsAt(lastTs))
    val out =
      if (nonEmpty.size == 1 && nonEmpty.head.config == config) nonEmpty.head.copy()
      else {
        val res = new ExpHistogram(config)
        if (nonEmpty.nonEmpty) {
          var count = 0
          nonEmpty.foreach(h => count += 2 * h.bucketCount)
          // scratch space per thread: a sketch merge merges every cell in turn
          val sc = mergeScratch.get().reserve(count)
          val ts = sc.t; val ws = sc.w
          val runStarts = new Array[Int](nonEmpty.size + 1)
          var n = 0
          var r = 0
          nonEmpty.foreach { h =>
            runStarts(r) = n; r += 1
            // a bucket of c elements ending at e, after the previous end p: floor((c-1)/2) at p
            // when positive, then the rest at e
            var prev = h.lowerTs
            h.foreachBucket { (c, e) =>
              val lo = (c - 1) / 2
              if (lo > 0) { ts(n) = prev; ws(n) = lo; n += 1 }
              ts(n) = e; ws(n) = c - lo; n += 1
              prev = e
            }
          }
          runStarts(r) = n
          val (sts, sws) = Windows.mergeSortedRuns(ts, ws, runStarts, r, n, sc.t2, sc.w2)
          sc.release()
          // equal timestamps summed in place, then added as one sorted list of weighted events
          var i = 0
          var m = 0
          while (i < n) {
            val t = sts(i); var w = sws(i); i += 1
            while (i < n && sts(i) == t) { w += sws(i); i += 1 }
            sts(m) = t; sws(m) = w; m += 1
          }
          res.addWeightedSorted(sts, sws, 0, m)
        }
        res
      }
    if (lastTs != Long.MinValue && lastTs > out.lastTs) out.advanceTo(lastTs)
    out
  }
}
