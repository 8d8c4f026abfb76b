package ecmsketch.bench.paper

import ecmsketch.ecm.EcmSketch

/** Brute-force answers for the paper's queries ([ECM] §7.1): at t = the last arrival, ranges
  * r = 10^1 .. 10^6, the range (t - r, t] holds the events with ts >= t - r + 1. For each range:
  * every distinct key with its exact count, the number of events ||a_r||_1 and the self-join F2.
  */
final class Exact(val now: Long, val ranges: Array[Long], val keys: Array[Array[Long]], val counts: Array[Array[Long]],
                  val l1: Array[Long], val f2: Array[Double])

object Exact {
  val Ranges: Array[Long] = Array(10L, 100L, 1000L, 10000L, 100000L, 1000000L)

  /** Exact answers over every event of `s`. */
  def of(s: Streams.Stream): Exact = {
    val now = s.lastTs
    val n = Ranges.length
    val keys = new Array[Array[Long]](n); val counts = new Array[Array[Long]](n)
    val l1 = new Array[Long](n); val f2 = new Array[Double](n)
    var q = 0
    while (q < n) {
      val lo = now - Ranges(q) + 1
      var start = java.util.Arrays.binarySearch(s.ts, lo)
      if (start < 0) start = -start - 1
      else { while (start > 0 && s.ts(start - 1) == lo) start -= 1 }
      val m = new java.util.HashMap[java.lang.Long, Array[Long]]()
      var i = start
      while (i < s.size) {
        val c = m.get(s.keys(i))
        if (c == null) m.put(s.keys(i), Array(1L)) else c(0) += 1
        i += 1
      }
      val ks = new Array[Long](m.size); val cs = new Array[Long](m.size)
      var j = 0; var sq = 0.0
      val it = m.entrySet().iterator()
      while (it.hasNext) { val e = it.next(); ks(j) = e.getKey; cs(j) = e.getValue()(0); sq += cs(j).toDouble * cs(j); j += 1 }
      keys(q) = ks; counts(q) = cs; l1(q) = (s.size - start).toLong; f2(q) = sq
      q += 1
    }
    new Exact(now, Ranges, keys, counts, l1, f2)
  }

  /** Observed errors of a sketch against the exact answers. Point: |f^ - f| / ||a_r||_1 over every
    * distinct key of every range (avg, max, count, and the per-range averages); self-join:
    * |F2^ - F2| / ||a_r||_1^2 per range (avg, max over the ranges, the per-range values).
    */
  final case class Errors(pointAvg: Double, pointMax: Double, pointQueries: Long, pointByRange: Seq[Double],
                          sjAvg: Double, sjMax: Double, sjByRange: Seq[Double])

  def pointErrors(sk: EcmSketch, ex: Exact): (Double, Double, Long, Seq[Double]) = {
    val now = java.lang.Long.valueOf(ex.now)
    var sum = 0.0; var mx = 0.0; var cnt = 0L
    val byRange = ex.ranges.indices.map { q =>
      val r = java.lang.Long.valueOf(ex.ranges(q))
      val ks = ex.keys(q); val cs = ex.counts(q); val l1 = ex.l1(q).toDouble
      var s = 0.0
      var i = 0
      while (i < ks.length) {
        val e = math.abs(sk.point(ks(i), r, now) - cs(i)) / l1
        s += e; if (e > mx) mx = e
        i += 1
      }
      sum += s; cnt += ks.length
      if (ks.isEmpty) 0.0 else s / ks.length
    }
    (if (cnt == 0) 0.0 else sum / cnt, mx, cnt, byRange)
  }

  def selfJoinErrors(sk: EcmSketch, ex: Exact): (Double, Double, Seq[Double]) = {
    val now = java.lang.Long.valueOf(ex.now)
    val byRange = ex.ranges.indices.map { q =>
      val l1 = ex.l1(q).toDouble
      math.abs(sk.selfJoin(java.lang.Long.valueOf(ex.ranges(q)), now) - ex.f2(q)) / (l1 * l1)
    }
    (byRange.sum / byRange.size, byRange.max, byRange)
  }
}
