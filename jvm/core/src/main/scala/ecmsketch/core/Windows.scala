package ecmsketch.core

/** Range arithmetic and merge plumbing shared by every cell and sketch kind. */
object Windows {
  /** `xs` grouped into clusters of overlapping time spans, in time order (docs/design/merging.md,
    * "Time-disjoint merges"). Sorted by (lower, upper), an input starts a new cluster when its
    * lower timestamp is at or after the newest `upper` (last bucket end) of every input before it;
    * else it joins the current cluster. So every retained row of a cluster lies at or after every
    * bucket end of the clusters before it, and clusters may be laid side by side.
    *
    * Inputs with the same span stay in one cluster: a split could fall only between two inputs
    * that span a single instant t (lower = upper = t), and which of them ended up in the newer
    * cluster would depend on the order of the inputs; the merge would then not be order-free.
    */
  def timeClusters[T](xs: Seq[T])(lower: T => Long, upper: T => Long): Seq[Seq[T]] = {
    val sorted = xs.sortBy(x => (lower(x), upper(x)))
    val out = Seq.newBuilder[Seq[T]]
    var cur = Vector.empty[T]
    var end = Long.MinValue
    sorted.foreach { x =>
      if (cur.nonEmpty && lower(x) >= end && !(lower(cur.last) == lower(x) && upper(cur.last) == upper(x))) { out += cur; cur = Vector.empty }
      cur = cur :+ x
      end = math.max(end, upper(x))
    }
    if (cur.nonEmpty) out += cur
    out.result()
  }

  /** The first timestamp of the range (now - r, now] for r >= 1, i.e. now - r + 1, saturating at
    * Long.MinValue (which is exact: every timestamp is >= Long.MinValue). The range Long.MaxValue
    * (only an unbounded window admits it; it is an unbounded window's default) means all time.
    */
  @inline def lowerBound(now: Long, range: Long): Long = {
    if (range == Long.MaxValue) return Long.MinValue // the unbounded range: all time
    val d = range - 1
    if (java.lang.Long.compareUnsigned(now - Long.MinValue, d) < 0) Long.MinValue else now - d
  }

  /** Validates a query: 0 <= r <= N and now >= the last timestamp. */
  def checkQuery(window: Long, range: Long, now: Long, lastTs: Long): Unit = {
    if (range < 0) throw new SketchException(s"range must be non-negative, got $range")
    if (range > window) throw new SketchException(s"range $range exceeds the sketch window $window")
    if (now < lastTs) throw new SketchException(s"now ($now) must not precede the sketch's last timestamp ($lastTs)")
  }

  /** Merges `runs` sorted runs of (ts, w) pairs (run r is [starts(r), starts(r+1))) by timestamp
    * (stable: of equal timestamps, the earlier run's come first). The result may be `ts`/`ws`
    * themselves; their contents may be overwritten.
    */
  def mergeSortedRuns(ts: Array[Long], ws: Array[Long], starts: Array[Int], runs: Int, n: Int): (Array[Long], Array[Long]) =
    mergeSortedRuns(ts, ws, starts, runs, n, new Array[Long](n), new Array[Long](n))

  /** [[mergeSortedRuns]] with scratch arrays `t2`, `w2` (at least n long) given by the caller: the
    * result is (ts, ws) or (t2, w2).
    */
  def mergeSortedRuns(ts: Array[Long], ws: Array[Long], starts: Array[Int], runs: Int, n: Int,
                      t2: Array[Long], w2: Array[Long]): (Array[Long], Array[Long]) =
    if (mergeRunsInto(ts, ws, null, starts, runs, n, t2, w2, null)) (t2, w2) else (ts, ws)

  /** Merges sorted runs as [[mergeSortedRuns]] does, carrying a second payload `vs` (null for none)
    * beside `ws`, between the arrays given and the scratch arrays `t2`, `w2`, `v2` (at least n long;
    * `v2` null when `vs` is): true when the result is in the scratch arrays. Only [starts(0), n) is
    * touched, so runs may start past 0.
    */
  def mergeRunsInto(ts: Array[Long], ws: Array[Long], vs: Array[Long], starts: Array[Int], runs: Int, n: Int,
                    t2: Array[Long], w2: Array[Long], v2: Array[Long]): Boolean = {
    var aT = ts; var aW = ws; var aV = vs
    var bT = t2; var bW = w2; var bV = v2
    var b = java.util.Arrays.copyOf(starts, runs + 1)
    var numRuns = runs
    var swapped = false
    while (numRuns > 1) {
      val nb = new Array[Int](numRuns / 2 + 2)
      var k = 0; var r = 0
      while (r < numRuns) {
        val lo = b(r); val mid = b(r + 1); val hi = if (r + 1 < numRuns) b(r + 2) else mid
        var i = lo; var j = mid; var o = lo
        while (i < mid && j < hi) { // branch-free: which run gives the next pair is data, not a jump
          val fromJ = if (aT(j) < aT(i)) 1 else 0
          val src = i + (j - i) * fromJ
          bT(o) = aT(src); bW(o) = aW(src)
          if (aV != null) bV(o) = aV(src)
          j += fromJ; i += 1 - fromJ
          o += 1
        }
        while (i < mid) { bT(o) = aT(i); bW(o) = aW(i); if (aV != null) bV(o) = aV(i); i += 1; o += 1 }
        while (j < hi) { bT(o) = aT(j); bW(o) = aW(j); if (aV != null) bV(o) = aV(j); j += 1; o += 1 }
        nb(k) = lo; k += 1
        r += 2
      }
      nb(k) = n
      b = nb; numRuns = k
      val t1 = aT; aT = bT; bT = t1
      val w1 = aW; aW = bW; bW = w1
      val v1 = aV; aV = bV; bV = v1
      swapped = !swapped
    }
    swapped
  }
}
