package ecmsketch.eh

import ecmsketch.core.{SketchException, WindowCounter, Windows}

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
  private[eh] var rings: Array[Array[Long]] = EmptyRings
  private var r0: Array[Long] = EmptyLongs
  private[eh] var heads: Array[Int] = EmptyInts
  private[eh] var sizes: Array[Int] = EmptyInts
  private[eh] var levels: Int = 0 // levels in use: highest non-empty level + 1
  private var allocLevels: Int = 0
  private[eh] var _total: Long = 0L
  private[eh] var _lowerTs: Long = Long.MaxValue
  private[eh] var _lastTs: Long = Long.MinValue
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
  private[eh] def ensureLevel(level: Int): Unit = {
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

  private[eh] def expire(now: Long): Unit = {
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
    EhCarry.carry(this, EmptyLongs, 0, 0, ts, v)
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

  /** The first index in [from, n) whose arrival drops a bucket (n if none): the first timestamp at
    * or after the oldest retained end (or ts(from), when nothing is retained) plus the window.
    */
  private[eh] def expiryFree(ts: Array[Long], from: Int, n: Int): Int = {
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
    EhCarry.carry(this, ts, from, until - from, last, 0L)
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
  private[eh] def appendRange(level: Int, src: Array[Long], from: Int, until: Int): Unit = {
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
  private[eh] def appendRun(level: Int, ts: Long, cnt: Int): Unit = if (cnt > 0) {
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
  private[eh] def setSegment(sz: Array[Long], ends: Array[Long]): Unit = {
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
  /** Weights up to this are added as unit arrivals (same state, faster than the run carry). */
  final val SmallWeight = 16L
  private[eh] val EmptyLongs = new Array[Long](0)
  private val EmptyRings = new Array[Array[Long]](0)
  private val EmptyInts = new Array[Int](0)

  /** The first timestamp of (now - range, now]: [[ecmsketch.core.Windows.lowerBound]]. */
  @inline def lowerBound(now: Long, range: Long): Long = Windows.lowerBound(now, range)

  /** Whether `parts` (oldest first) are time-disjoint: every part's lower timestamp is at or after
    * the newest bucket end of every older part, so that no retained row of a newer part lies before a
    * bucket end of an older one (docs/design/merging.md, "Time-disjoint merges"). Empty parts are ignored.
    */
  def timeDisjoint(parts: Seq[ExpHistogram]): Boolean = EhMerge.timeDisjoint(parts)

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
  def concat(parts: Seq[ExpHistogram], config: EhConfig): ExpHistogram = EhMerge.concat(parts, config)

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
  def merge(inputs: Seq[ExpHistogram], config: EhConfig): ExpHistogram = EhMerge.merge(inputs, config)
}
