package ecmsketch.rwave

import scala.util.Random

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
}
