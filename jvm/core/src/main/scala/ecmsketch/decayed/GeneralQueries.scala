package ecmsketch.decayed

import ecmsketch.core.SketchException

/** Queries of the general decayed sketch (`decay` None; CTX §4): windows at query time, decomposable
  * decays by the telescoping sum, and the frequent-value candidates.
  */
private[decayed] object GeneralQueries {
  import DecayedSketch.{medianOf, satSub}

  /** Per copy and level: the entries with t <= c in ascending t, and suffix sums of RangeSample of
    * those whose value satisfies `p`, scaled by 1/p_level.
    */
  private final class CopyView(sk: DecayedSketch, j: Int, c: Long, p: Double => Boolean) {
    private val params = sk.params
    private val levels = sk.levels
    private val ts = new Array[Array[Long]](params.topLevel + 1)
    private val suffix = new Array[Array[Double]](params.topLevel + 1)
    // prefix minimum of the levels' t_i (Long.MinValue stands for "nothing discarded")
    private val prefMin = new Array[Long](params.topLevel + 1)
    locally {
      var m = Long.MaxValue
      var i = 0
      while (i <= params.topLevel) {
        val l = levels(j)(i)
        val ti = if (l == null || !l.discarded) Long.MinValue else l.tI
        if (ti < m) m = ti
        prefMin(i) = m
        i += 1
      }
    }

    private def build(i: Int): Unit = if (ts(i) == null) {
      val l = levels(j)(i)
      val es = if (l == null) Array.empty[Entry] else l.entries.filter(_.t <= c).sortBy(_.t)
      ts(i) = es.map(_.t)
      val s = new Array[Double](es.length + 1)
      val scale = 1.0 / Arith.levelProbability(i)
      var k = es.length - 1
      while (k >= 0) { s(k) = s(k + 1) + (if (p(es(k).v)) es(k).rs * scale else 0.0); k -= 1 }
      suffix(i) = s
    }

    /** V^(s): the estimated weight with s <= t <= c, from the lowest level with t_i < s. */
    def window(s: Long): Double = {
      // first level whose t_i < s: prefMin is non-increasing
      var lo = 0; var hi = params.topLevel + 1
      while (lo < hi) { val mid = (lo + hi) >>> 1; if (prefMin(mid) < s || prefMin(mid) == Long.MinValue) hi = mid else lo = mid + 1 }
      if (lo > params.topLevel) throw new SketchException(
        "every level of the decayed sketch discarded an element of the queried window; the sketch cannot answer it (Cormode-Tirthapura-Xu §4.1)")
      build(lo)
      val t = ts(lo)
      // first index with t >= s
      var a = 0; var b = t.length
      while (a < b) { val m = (a + b) >>> 1; if (t(m) < s) a = m + 1 else b = m }
      suffix(lo)(a)
    }
  }

  /** Probes of the telescoping sum: every stored timestamp <= c and every t_i + 1 <= c, ascending. */
  private def probes(sk: DecayedSketch, c: Long): Array[Long] = {
    val levels = sk.levels
    val b = Array.newBuilder[Long]
    levels.foreach(_.foreach { l =>
      if (l != null) {
        l.entries.foreach(e => if (e.t <= c) b += e.t)
        if (l.discarded && l.tI < c) b += l.tI + 1
      }
    })
    val a = b.result()
    java.util.Arrays.sort(a)
    if (a.isEmpty) a else {
      var n = 1
      var k = 1
      while (k < a.length) { if (a(k) != a(n - 1)) { a(n) = a(k); n += 1 }; k += 1 }
      java.util.Arrays.copyOf(a, n)
    }
  }

  /** The general sketch's estimate of sum over distinct elements with ts <= c and p(value) of
    * w g(c - ts): a window W directly (median of the copies' V^(c - W + 1)), any other decay by the
    * telescoping sum over probe timestamps T_1 < ... < T_K (CTX §4.2, with the sign/index
    * correction): sum_k [G(T_k) - G(T_{k-1})] median_j V^_j(T_k), G(t) = g(c - t), G(T_0) = 0.
    */
  def generalEstimate(sk: DecayedSketch, d: Decay, c: Long, p: Double => Boolean): Double = {
    val params = sk.params
    val views = (0 until params.copies).map(j => new CopyView(sk, j, c, p))
    val vals = new Array[Double](params.copies)
    def med(s: Long): Double = { var j = 0; while (j < vals.length) { vals(j) = views(j).window(s); j += 1 }; medianOf(vals) }
    d match {
      case w: Decay.Window =>
        val wt = w.ticks(params.ticksPerUnit)
        med(if (c < Long.MinValue + wt) Long.MinValue else c - wt + 1)
      case _ =>
        val ps = probes(sk, c)
        var total = 0.0
        var prevG = 0.0
        var k = 0
        while (k < ps.length) {
          val g = d.g(satSub(c, ps(k)), params.ticksPerUnit)
          val dg = g - prevG
          if (dg != 0.0) total += dg * med(ps(k))
          prevG = g
          k += 1
        }
        total
    }
  }

  /** Distinct values of the stored entries with t <= c, ascending. */
  def candidateValues(sk: DecayedSketch, c: Long): Array[Double] = {
    val vs = new java.util.TreeSet[java.lang.Double]()
    sk.levels.foreach(_.foreach(l => if (l != null) l.entries.foreach(e => if (e.t <= c) vs.add(e.v))))
    vs.toArray(new Array[java.lang.Double](0)).map(_.doubleValue)
  }

  /** Frequent-item candidates of the general sketch: per copy, the values whose share exceeds
    * `cut` in the single level that covers every probe (a uniform sample of all stored timestamps),
    * weighted by RangeSample * g(age) / p_level.
    */
  def shortlist(sk: DecayedSketch, c: Long, d: Decay, cut: Double): Seq[Double] = {
    val params = sk.params; val levels = sk.levels
    val out = scala.collection.mutable.LinkedHashSet[Double]()
    (0 until params.copies).foreach { j =>
      val lv = sk.queryLevel(j, l => !l.discarded)
      val l = levels(j)(lv)
      if (l != null) {
        val acc = scala.collection.mutable.HashMap[Double, Double]()
        var tot = 0.0
        l.entries.foreach { e =>
          if (e.t <= c) {
            val x = e.rs * d.g(satSub(c, e.t), params.ticksPerUnit)
            acc(e.v) = acc.getOrElse(e.v, 0.0) + x
            tot += x
          }
        }
        if (tot > 0) acc.foreach { case (v, x) => if (x / tot > cut) out += v }
      }
    }
    out.toSeq
  }
}
