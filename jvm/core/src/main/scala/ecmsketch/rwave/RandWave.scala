package ecmsketch.rwave

import ecmsketch.core.{SketchException, WindowCounter}
import ecmsketch.hash.Hashing

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
  private def flush(): Unit = if (pN > 0) { val n = pN; pN = 0; RwLevels.insertBatch(this, pIds, pTs, n) }

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

  private[rwave] def levelsOf(i: Int, h: Int): Array[Level] = {
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

  @inline private[rwave] def hasBound: Boolean = !unbounded && _lastTs != Long.MinValue && _lastTs >= Long.MinValue + window
  @inline private[rwave] def bound: Long = _lastTs - window

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
  @inline private[rwave] def countFrom(lv: Level, lo: Long): Int = lv.n - firstAtLeast(lv, lo)

  @inline private[rwave] def covers(lv: Level, lo: Long): Boolean = lv == null || lv.n < cap || lv.ts(0) < lo

  private[rwave] def upperEstimate(i: Int, lo: Long): Double = {
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
  def merge(inputs: Seq[RandWave], config: RwConfig): RandWave = RwMerge.merge(inputs, config)
}
