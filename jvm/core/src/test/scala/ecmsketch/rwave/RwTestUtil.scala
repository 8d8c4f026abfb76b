package ecmsketch.rwave

import scala.util.Random

import ecmsketch.hash.Hashing

/** Stream generators and a brute-force distinct-count oracle for the randomized-wave suites. */
object RwTestUtil {
  /** Items (id, ts) in non-decreasing ts order. */
  type Stream = Array[(Long, Long)]

  /** Exact number of ids whose latest ts is >= lo, for a whole stream. */
  final class DistinctOracle(items: Iterable[(Long, Long)]) {
    private val latest: Array[Long] = {
      val m = new java.util.HashMap[Long, Long]()
      items.foreach { case (id, t) => m.put(id, math.max(t, m.getOrDefault(id, Long.MinValue))) }
      val a = new Array[Long](m.size); var k = 0
      val it = m.values().iterator(); while (it.hasNext) { a(k) = it.next(); k += 1 }
      java.util.Arrays.sort(a); a
    }
    def from(lo: Long): Long = {
      var a = 0; var b = latest.length
      while (a < b) { val m = (a + b) >>> 1; if (latest(m) >= lo) b = m else a = m + 1 }
      (latest.length - a).toLong
    }
  }

  /** The level-hash coefficients (a_0, b_0, a_1, b_1, ...) a wave with `cfg` uses. */
  def levelCoefficients(cfg: RwConfig): Seq[Long] = cfg.coefficients.toSeq

  /** The level a wave with `cfg` assigns to `id` in instance i. */
  def levelOf(cfg: RwConfig, i: Int, id: Long): Int = new RandWave(cfg).levelOf(i, ecmsketch.hash.Hashing.modP(id))

  def build(cfg: RwConfig, s: Iterable[(Long, Long)]): RandWave = {
    val w = new RandWave(cfg)
    s.foreach { case (id, t) => w.addItem(id, t) }
    w
  }

  def random(rnd: Random, n: Int, universe: Int): Stream = {
    var t = 0L
    Array.fill(n) { t += rnd.nextInt(4); (rnd.nextInt(universe).toLong, t) }
  }

  def bursty(rnd: Random, n: Int): Stream = {
    var t = 0L
    Array.tabulate(n) { i => if (rnd.nextInt(10) == 0) t += 1 + rnd.nextInt(50); (rnd.nextLong(), t) }
  }

  /** Runs of one value (mostly short, some up to 300 repetitions), new values between runs. */
  def runs(rnd: Random, n: Int): Stream = {
    var t = 0L; var v = rnd.nextLong(); var left = 0
    Array.fill(n) {
      if (left == 0) { v = if (rnd.nextInt(3) == 0) rnd.nextInt(50).toLong else rnd.nextLong(); left = 1 + rnd.nextInt(if (rnd.nextInt(10) == 0) 300 else 8) }
      left -= 1; t += rnd.nextInt(2); (v, t)
    }
  }

  def allDistinct(n: Int, start: Long): Stream = Array.tabulate(n)(i => (start + i, start + i))

  /** Values that re-occur just before they would expire (window N). */
  def nearExpiry(rnd: Random, n: Int, window: Long): Stream = {
    val out = new Array[(Long, Long)](n)
    val pending = scala.collection.mutable.Queue[(Long, Long)]() // (id, due)
    var t = 0L; var i = 0
    while (i < n) {
      t += 1
      if (pending.nonEmpty && pending.head._2 <= t) { val (id, _) = pending.dequeue(); out(i) = (id, t); pending.enqueue((id, t + window - 1)) }
      else { val id = rnd.nextLong(); out(i) = (id, t); if (rnd.nextInt(3) == 0) pending.enqueue((id, t + window - 1 - rnd.nextInt(3))) }
      i += 1
    }
    out
  }

  /** Query starts lo for every boundary of the window at `now`: every distinct ts in the window
    * (and one past it), plus the window's first tick.
    */
  def boundaries(s: Stream, now: Long, window: Long): Array[Long] = {
    val first = if (window == Long.MaxValue) Long.MinValue else now - window + 1
    val b = scala.collection.mutable.LinkedHashSet[Long](first)
    s.foreach { case (_, t) => if (t >= first && t <= now) { b += t; if (t < now) b += t + 1 } }
    b.toArray.sorted
  }

  /** Checks the canonical-state invariants; throws AssertionError on a violation. */
  def checkInvariants(w: RandWave): Unit = {
    val cap = w.config.capacity; val r = w.config.instances
    w.normalize()
    w.thaw()
    def fail(msg: String): Nothing = throw new AssertionError(msg)
    def checkLevel(i: Int, l: Int, lv: Level): Unit = {
      if (lv.n > cap) fail(s"level $l of instance $i holds ${lv.n} > $cap items")
      val seen = new java.util.HashSet[java.lang.Long]()
      var j = 0
      while (j < lv.n) {
        val t = lv.ts(j); val id = lv.ids(j)
        if (j > 0 && !(t > lv.ts(j - 1) || (t == lv.ts(j - 1) && id > lv.ids(j - 1)))) fail(s"level $l of instance $i is not sorted by (ts, id) at $j")
        if (t > w._lastTs) fail(s"item ts $t after lastTs ${w._lastTs}")
        if (w.hasBound && t <= w.bound) fail(s"expired item at level $l of instance $i")
        if (!seen.add(id)) fail(s"duplicate id $id at level $l of instance $i")
        if (l > 0 && w.levelOf(i, Hashing.modP(id)) < l) fail(s"item $id at level $l of instance $i has a lower level hash")
        j += 1
      }
    }
    checkLevel(-1, 0, w.level0)
    w.foreachLevel(checkLevel)
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
      collect(w.level0)
      var l = 1
      while (l <= RwConfig.MaxLevel) { collect(w.levelAt(i, l)); l += 1 }
      l = 1
      while (l <= RwConfig.MaxLevel) {
        val lv = w.levelAt(i, l)
        val in = new java.util.HashSet[java.lang.Long]()
        if (lv != null) { var j = 0; while (j < lv.n) { in.add(lv.ids(j)); j += 1 } }
        val it = all.entrySet().iterator()
        while (it.hasNext) {
          val e = it.next(); val id: Long = e.getKey; val t: Long = e.getValue
          if (w.levelOf(i, Hashing.modP(id)) >= l && !in.contains(id)) {
            if (lv == null || lv.n < cap) fail(s"level $l of instance $i is not full but misses item $id")
            if (!(t < lv.ts(0) || (t == lv.ts(0) && id < lv.ids(0)))) fail(s"level $l of instance $i misses the newer item $id")
          }
        }
        l += 1
      }
      i += 1
    }
  }

  /** Estimate of one instance: 2^l * |{items of level l with ts >= lo}| at the lowest
    * level l that covers lo (level 60 if none does).
    */
  def instanceEstimateFrom(w: RandWave, i: Int, lo: Long): Double = {
    w.normalize()
    if (w.covers(w.level0, lo)) w.countFrom(w.level0, lo).toDouble else w.upperEstimate(i, lo)
  }

  /** The level an instance's query for `lo` uses. */
  def coveringLevel(w: RandWave, i: Int, lo: Long): Int = {
    w.normalize()
    w.thaw()
    if (w.covers(w.level0, lo)) return 0
    val ls = if (w.levels == null) null else w.levels(i)
    var l = 1
    while (l < RwConfig.MaxLevel) {
      val lv = if (ls == null || l >= ls.length) null else ls(l)
      if (w.covers(lv, lo)) return l
      l += 1
    }
    RwConfig.MaxLevel
  }

  /** Entries of level l of instance i (level 0 is shared), after normalization, oldest first. */
  def levelSize(w: RandWave, i: Int, l: Int): Int = { w.normalize(); val lv = w.levelAt(i, l); if (lv == null) 0 else lv.n }
}
