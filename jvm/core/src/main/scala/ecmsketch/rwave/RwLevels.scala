package ecmsketch.rwave

import ecmsketch.core.LongHashMap
import ecmsketch.hash.Hashing

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

private[rwave] final class Scratch {
  /** Id sets of compactions, merges and encodings (reset, never reallocated, per job). */
  val set = new LongHashMap(32, withValues = false)
  val set2 = new LongHashMap(32, withValues = false)
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

/** Batch insertion into the levels of a [[RandWave]] (docs/design/rwave.md, "Storage and cost"):
  * the wave buffers items and hands them here in batches.
  */
private[rwave] object RwLevels {
  import RandWave._

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
  def insertBatch(w: RandWave, ids: Array[Long], ts: Array[Long], m0: Int): Unit = {
    val cap = w.config.capacity; val r = w.config.instances; val coeffs = w.config.coefficients
    w.thaw()
    val sc = scratch.get()
    // sorted by (ts, id), every level's items are appended in (ts, id) order
    sortTieRuns(ts, ids, 0, m0)
    sc.ensure(m0)
    // A big batch with few repeats ([[newestDistinct]]) is not deduplicated as a whole: level 0
    // takes its newest `cap` distinct ids, and each instance skips the older occurrences among the
    // items it keeps (an id has one level, so its older occurrences are kept only where its newest
    // is). Smaller batches, and big ones with many repeats, are deduplicated first.
    val lazyDedupe = w.mayRepeat && m0 >= 2 * cap && newestDistinct(sc, ids, m0, cap)
    val m = if (w.mayRepeat && !lazyDedupe) dedupeBatch(sc, ids, ts, m0) else m0
    val xs = sc.xs; val need = sc.need; val fh = sc.fh
    val ex = sc.cnt; val bnd = sc.bnd; val wpos = sc.wpos; val wts = sc.wts; val wids = sc.wids
    val set = if (lazyDedupe) sc.set else null
    if (lazyDedupe) {
      // sc.idx(0 until cap): positions of the newest cap distinct ids, newest first
      val idx = sc.idx
      val oldest = idx(cap - 1)
      if (w.level0.n > 0 && olderThan(w.level0, ts(oldest), ids(oldest))) { w.level0.n = 0; w.level0.sorted = true }
      var lo = 0; var hi = cap - 1
      while (lo < hi) { val x = idx(lo); idx(lo) = idx(hi); idx(hi) = x; lo += 1; hi -= 1 }
      appendIdx(w, w.level0, ids, ts, idx, cap)
    } else {
      val c0 = math.min(m, cap)
      if (c0 == cap && w.level0.n > 0 && olderThan(w.level0, ts(m - c0), ids(m - c0))) { w.level0.n = 0; w.level0.sorted = true }
      appendAll(w, w.level0, ids, ts, m - c0, m)
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
          val ls = w.levelsOf(i, top)
          var l = 1
          while (k > 0) {
            var lv = ls(l)
            if (lv == null) { lv = new Level(4); ls(l) = lv }
            appendIdx(w, lv, ids, ts, idx, k)
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
        val ls = w.levelsOf(i, top)
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
            ensureRoom(w, lv, c, cap)
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
  @inline def olderThan(lv: Level, t: Long, id: Long): Boolean = {
    val lt = lv.ts(lv.n - 1)
    lt < t || (lt == t && lv.sorted && lv.ids(lv.n - 1) < id)
  }

  /** Whether the batch [0, m) is worth leaving whole: its newest `cap` distinct ids lie within its
    * newest 2 `cap` items (few repeats: deduplicating the whole batch would not shrink it much,
    * while each instance would hash every item of it). If so, sc.idx(0 until cap) are their
    * positions (the last occurrence of each), newest first.
    */
  def newestDistinct(sc: Scratch, ids: Array[Long], m: Int, cap: Int): Boolean = {
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
  def dedupeBatch(sc: Scratch, ids: Array[Long], ts: Array[Long], m: Int): Int = {
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
  def ensureRoom(w: RandWave, lv: Level, k: Int, cap: Int): Unit = if (lv.n + k > lv.ts.length) {
    if (lv.n > 0) w.compact(lv)
    val len = lv.ts.length
    if (lv.n + k > len) {
      val m = math.max(lv.n + k, math.min(2 * cap, math.max(4, 2 * len)))
      lv.ts = java.util.Arrays.copyOf(lv.ts, m); lv.ids = java.util.Arrays.copyOf(lv.ids, m)
    }
  }

  def appendAll(w: RandWave, lv: Level, ids: Array[Long], ts: Array[Long], from: Int, until: Int): Unit = {
    var q = from
    while (q < until) {
      if (lv.n == lv.ts.length) makeRoom(w, lv)
      val n = lv.n
      val c = math.min(until - q, lv.ts.length - n)
      System.arraycopy(ts, q, lv.ts, n, c); System.arraycopy(ids, q, lv.ids, n, c)
      lv.n = n + c
      joinTies(lv, n)
      q += c
    }
    lv.dirty = true
  }

  def appendIdx(w: RandWave, lv: Level, ids: Array[Long], ts: Array[Long], idx: Array[Int], k: Int): Unit = {
    var q = 0
    while (q < k) {
      if (lv.n == lv.ts.length) makeRoom(w, lv)
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
  def joinTies(lv: Level, n: Int): Unit = if (n > 0 && lv.sorted) {
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

  /** Compacts a full buffer; grows it (up to 2 * capacity) if it is still more than half full. */
  def makeRoom(w: RandWave, lv: Level): Unit = {
    val cap = w.config.capacity
    w.compact(lv)
    val len = lv.ts.length
    if (lv.n > len / 2 && len < 2 * cap) {
      val m = math.min(2 * cap, math.max(4, 2 * len))
      lv.ts = java.util.Arrays.copyOf(lv.ts, m); lv.ids = java.util.Arrays.copyOf(lv.ids, m)
    }
  }
}
