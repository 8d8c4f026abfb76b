package ecmsketch

import scala.collection.mutable.ArrayBuffer

/** Exact answers for a stream of (key, ts, weight) arrivals in non-decreasing ts order. */
final class Oracle {
  val ts = ArrayBuffer[Long]()
  val keys = ArrayBuffer[Long]()
  val ws = ArrayBuffer[Long]()

  def add(key: Long, t: Long, w: Long): Unit = { keys += key; ts += t; ws += w }

  /** Weight with timestamps in (x, +inf), optionally of one key. */
  def after(x: Long, key: Option[Long] = None): Long = {
    var s = 0L; var i = ts.length - 1
    while (i >= 0 && ts(i) > x) { if (key.forall(_ == keys(i))) s += ws(i); i -= 1 }
    s
  }

  def freqsAfter(x: Long): Map[Long, Long] = {
    val m = scala.collection.mutable.HashMap[Long, Long]()
    var i = ts.length - 1
    while (i >= 0 && ts(i) > x) { m(keys(i)) = m.getOrElse(keys(i), 0L) + ws(i); i -= 1 }
    m.toMap
  }
}

object Oracle {
  /** Arrivals in sorted order from several streams merged. */
  def union(os: Seq[Oracle]): Oracle = {
    val all = os.flatMap(o => o.ts.indices.map(i => (o.ts(i), o.keys(i), o.ws(i)))).sortBy(_._1)
    val u = new Oracle
    all.foreach { case (t, k, w) => u.add(k, t, w) }
    u
  }
}
