package ecmsketch.quantile

import ecmsketch.core.{SketchException, WindowSketch, WindowSpec}
import ecmsketch.hash.Hashing

/** A windowed quantile sketch (docs/design/windowed-quantiles.md): ranks, quantiles and weights of
  * the rows in any range (now - r, now] with r at most the window, each within `epsilon` times the
  * weight of the range with probability at least 1 - `delta`, at every merge depth.
  *
  * It holds runs ([[QuantileRun]]): a sketch built by [[add]] has one. A merge lays time-disjoint
  * runs one after the other and folds runs that overlap in time into one while the sketch's planned
  * merge levels allow ([[FoldPlan]]); the runs it may not fold stay side by side. Either way the
  * bound stays `epsilon`.
  */
final class QuantileSketch private (val spec: WindowSpec, val epsilon: Double, val plannedLevels: Int,
                                    val params: QuantileParams) extends WindowSketch {
  def kind: QuantileKind.type = QuantileKind
  private[quantile] val plan: FoldPlan = new FoldPlan(params, plannedLevels)
  private[quantile] var runs: Array[QuantileRun] = new Array[QuantileRun](0)
  /** The run new rows go to: the one with the newest last timestamp (the last such). */
  private var active: QuantileRun = null

  def cellEpsilon: Double = epsilon
  def delta: Double = params.delta
  def seed: Long = params.seed
  def runCount: Int = runs.length
  def bucketCount: Int = runs.iterator.map(_.bucketCount).sum
  def rawCount: Int = runs.iterator.map(_.rawCount).sum
  /** The generation of each run, in the sketch's order: 0 for a run that took rows, g for a fold
    * ([[FoldPlan]]), [[FoldPlan.Legacy]] for a run of a sketch written before folds.
    */
  def generations: Seq[Int] = runs.toSeq.map(_.gen)
  /** Samples and raw rows held. */
  def storedEntries: Long = runs.iterator.map(_.storedSamples).sum

  /** Adds a row of weight `weight` (default 1) at `ts`; timestamps must be non-decreasing. NaN is refused
    * ("NaN value"); -0.0 is taken as 0.0.
    */
  def add(ts: Long, value: Double, weight: Long = 1L): Unit = {
    if (value.isNaN) throw new SketchException("NaN value: a quantile sketch takes numbers (skip NULLs and NaNs before adding)")
    checkAdd(ts, weight)
    if (weight > 0) {
      val v = if (value == 0.0) 0.0 else value
      if (active == null) {
        active = new QuantileRun(plan.params(0), QuantileRun.startRng(params.seed, ts, v, weight), 0)
        runs = runs :+ active
        keepsUntil = Long.MinValue
      }
      active.add(ts, v, weight)
    }
    noteAdd(ts, weight)
    expire()
  }

  /** Adds rows [from, until) of time-sorted parallel arrays: timestamps, values as their 64 bits
    * (`java.lang.Double.doubleToRawLongBits`) and weights. A batch of at least
    * [[QuantileParams.rawCapacity]] rows is checked whole before any row is taken (the first bad row
    * gives the error [[add]] would give), then goes into the raw region at once, which is sealed
    * down to half its capacity and compacted, as a fold seals its rows
    * (docs/design/windowed-quantiles.md, "Sealing and joining"). Smaller batches are added row by row.
    */
  def addSorted(ts: Array[Long], bits: Array[Long], ws: Array[Long], from: Int, until: Int): Unit = {
    checkRows(ts, bits, ws, from, until)
    val p0 = plan.params(0)
    if (until - from < p0.rawCapacity) {
      var i = from
      while (i < until) { add(ts(i), java.lang.Double.longBitsToDouble(bits(i)), ws(i)); i += 1 }
      return
    }
    // check every row first, so that a refused batch leaves the sketch as it was; the rows before
    // the first NaN are checked first, as adding row by row would find their errors first
    var nan = from
    while (nan < until && !java.lang.Double.isNaN(java.lang.Double.longBitsToDouble(bits(nan)))) nan += 1
    checkBatch(ts, ws, from, nan)
    if (nan < until) throw new SketchException("NaN value: a quantile sketch takes numbers (skip NULLs and NaNs before adding)")
    val f = firstPositive(ws, from, until)
    if (f < until) {
      if (active == null) {
        active = new QuantileRun(p0, QuantileRun.startRng(params.seed, ts(f), Bucket.value(bits(f)), ws(f)), 0)
        runs = runs :+ active
        keepsUntil = Long.MinValue
      }
      active.addBulk(ts, bits, ws, from, until)
    }
    noteBatch(ts, ws, from, until)
    expire()
  }

  /** Takes rows [0, n) in any time order (timestamps, values as their 64 bits, weights) into an empty
    * sketch at once, in the state that sorting them by time, stably, and [[addSorted]] give
    * ([[UnsortedBatch]]), and returns true. Returns false, taking nothing, unless the sketch is empty
    * and has a time window, and the rows number at least the raw capacity, each of weight 1, no value
    * NaN, with timestamps spread ([[UnsortedBatch.slices]]): the caller then sorts them.
    */
  def addUnsorted(ts: Array[Long], bits: Array[Long], ws: Array[Long], n: Int): Boolean = {
    checkRows(ts, bits, ws, 0, n)
    val p0 = plan.params(0)
    if (!isEmpty || runs.nonEmpty || spec.countWindow || n < p0.rawCapacity) return false
    // f: the first row by time (the first to arrive of the oldest timestamp), whose row seeds the coins
    var f = 0; var mx = ts(0)
    var i = 0
    while (i < n) {
      if (ws(i) != 1L || java.lang.Double.isNaN(java.lang.Double.longBitsToDouble(bits(i)))) return false
      if (ts(i) < ts(f)) f = i
      if (ts(i) > mx) mx = ts(i)
      i += 1
    }
    val start = UnsortedBatch.slices(ts, n, ts(f), mx)
    if (start == null) return false
    active = new QuantileRun(p0, QuantileRun.startRng(params.seed, ts(f), Bucket.value(bits(f)), 1L), 0)
    runs = runs :+ active
    keepsUntil = Long.MinValue
    UnsortedBatch.fill(active, ts, bits, n, ts(f), mx, start)
    noteAdd(ts(f), 0L)
    noteAdd(mx, n.toLong)
    expire()
    true
  }

  private def checkRows(ts: Array[Long], bits: Array[Long], ws: Array[Long], from: Int, until: Int): Unit =
    SketchException.require(ts != null && bits != null && ws != null && from >= 0 && from <= until &&
      until <= ts.length && until <= bits.length && until <= ws.length,
      s"a batch of rows [$from, $until) needs timestamps, values and weights of at least $until rows")

  private def firstPositive(ws: Array[Long], from: Int, until: Int): Int = { var i = from; while (i < until && ws(i) <= 0) i += 1; i }

  /** A lower bound on the oldest bucket end or raw timestamp of every run: nothing expires while the
    * window starts at or before it.
    */
  private var keepsUntil: Long = Long.MinValue

  /** Drops what no query can reach any more, and runs left empty. */
  private def expire(): Unit = {
    if (spec.unbounded) return
    val lo = QuantileRun.windowStart(_lastTs, spec.window)
    if (lo <= keepsUntil) return
    var empty = false
    var oldest = Long.MaxValue
    var i = 0
    while (i < runs.length) {
      val r = runs(i)
      r.expireBefore(lo)
      if (r.isEmpty) empty = true else oldest = math.min(oldest, r.oldestEnd)
      i += 1
    }
    keepsUntil = oldest
    if (empty) { runs = runs.filterNot(_.isEmpty); pickActive() }
  }

  private def pickActive(): Unit = {
    active = null
    runs.foreach(r => if (active == null || r.lastTs >= active.lastTs) active = r)
  }

  private def from(range: java.lang.Long, now: java.lang.Long): java.lang.Long = lowerBound(range, now)

  /** Estimated weight of the rows in (now - range, now]; null range = the window, null now = the last timestamp. */
  def count(range: java.lang.Long, now: java.lang.Long): Double = {
    val lo = from(range, now)
    if (lo == null) 0.0 else runs.iterator.map(_.weightFrom(lo)).sum.toDouble
  }

  /** Estimated weight of the rows in (now - range, now] whose value is at most `value`. */
  def rank(value: Double, range: java.lang.Long, now: java.lang.Long): Double = {
    if (value.isNaN) throw new SketchException("NaN value: rank takes a number")
    val lo = from(range, now)
    if (lo == null) 0.0 else runs.iterator.map(_.rank(lo, value)).sum.toDouble
  }

  /** The q-quantile of the rows in (now - range, now]: the smallest stored value v whose estimated
    * rank reaches q times the estimated weight of the range; null when the range holds no weight.
    */
  def quantile(q: Double, range: java.lang.Long, now: java.lang.Long): java.lang.Double =
    quantiles(Array(q), range, now)(0)

  /** Several quantiles of one range at once (one sort of the samples). */
  def quantiles(qs: Array[Double], range: java.lang.Long, now: java.lang.Long): Array[java.lang.Double] = {
    qs.foreach(q => if (!(q >= 0.0 && q <= 1.0)) throw new SketchException(s"quantile q must be in [0, 1], got $q"))
    val out = new Array[java.lang.Double](qs.length)
    val lo = from(range, now)
    if (lo == null) return out
    val all = new WeightedValues
    runs.foreach(_.collect(lo, all))
    if (all.n == 0) return out
    all.sortByValue()
    // cumulative weight at the end of each run of equal values
    val total = all.total.toDouble
    val ends = new Array[Int](all.n); val cums = new Array[Long](all.n)
    var m = 0; var cum = 0L; var i = 0
    while (i < all.n) {
      cum += all.ws(i)
      if (i + 1 == all.n || all.vs(i + 1) != all.vs(i)) { ends(m) = i; cums(m) = cum; m += 1 }
      i += 1
    }
    var k = 0
    while (k < qs.length) {
      val target = qs(k) * total
      var a = 0; var b = m - 1 // the first distinct value whose cumulative weight reaches the target
      while (a < b) { val mid = (a + b) >>> 1; if (cums(mid).toDouble >= target) b = mid else a = mid + 1 }
      out(k) = java.lang.Double.valueOf(all.vs(ends(a)))
      k += 1
    }
    out
  }

  /** The certified absolute rank error of a query of (now - range, now], from the sketch's ledgers:
    * every rank and quantile of the range is within it with probability at least 1 - delta. For runs
    * that took rows it is at most `epsilon` times the weight of the range; a folded run adds the
    * bound of the folds before it on the weight its samples may stand for.
    */
  def rankErrorBound(range: java.lang.Long, now: java.lang.Long): Double = {
    val lo = from(range, now)
    if (lo == null) 0.0
    else params.errorFor(runs.iterator.map(r => plan.variance(r.gen, r.variance(lo), r.weightFrom(lo).toDouble)).sum)
  }

  /** The certified rank error relative to the weight of the range, at every merge depth. */
  def errorBound: Double = epsilon

  def copy(): QuantileSketch = {
    val s = new QuantileSketch(spec, epsilon, plannedLevels, params)
    s.runs = runs.map(_.copy())
    s.pickActive()
    s.copyStateFrom(this)
    s
  }

  def diffs(o: QuantileSketch): Seq[String] = {
    val b = Seq.newBuilder[String]
    b ++= commonDiffs(o)
    if (delta != o.delta) b += s"delta $delta vs ${o.delta}"
    if (seed != o.seed) b += s"seed $seed vs ${o.seed}"
    b.result()
  }

  private[quantile] def restoreRuns(rs: Array[QuantileRun]): Unit = { runs = rs; pickActive() }
}

object QuantileSketch {
  /** A new sketch. `levels` (merge_levels) is the number of merge levels that fold overlapping runs
    * ([[FoldPlan]]); the bound is `epsilon` at every depth.
    */
  def create(spec: WindowSpec, epsilon: Double, delta: Double = QuantileParams.DefaultDelta,
             seed: Long = Hashing.DefaultSeed, levels: Int = 0): QuantileSketch = {
    ecmsketch.core.Bounds.checkLevels(levels)
    new QuantileSketch(spec, epsilon, levels, QuantileParams(epsilon, delta, seed))
  }

  private[quantile] def restore(spec: WindowSpec, epsilon: Double, levels: Int, p: QuantileParams): QuantileSketch =
    new QuantileSketch(spec, epsilon, levels, p)

  /** Merge of sketches of different streams: time-disjoint runs laid one after the other, runs that
    * overlap in time folded as the plan allows, the rest side by side; count-based sketches are refused.
    */
  def merge(xs: Seq[QuantileSketch]): QuantileSketch = {
    WindowSketch.checkMergeable(xs, "quantile merge")
    mergeImpl(xs, Fold)
  }

  /** A merge of some of one merge's inputs before the merge of them all: every run kept on its own
    * (none laid after another, none folded), so that the last merge gives what one merge of all the
    * inputs would, whatever inputs were merged early.
    */
  def mergeEarly(xs: Seq[QuantileSketch]): QuantileSketch = {
    WindowSketch.checkMergeable(xs, "quantile merge")
    mergeImpl(xs, Early)
  }

  /** Merge of partial sketches of one stream (count-based windows allowed: the runs hold disjoint
    * arrivals). With `fold`, runs that overlap in time are folded as the plan allows; without, they
    * stay side by side.
    */
  def mergeSameStream(xs: Seq[QuantileSketch], fold: Boolean = false): QuantileSketch = {
    SketchException.require(xs.nonEmpty, "quantile merge needs at least one sketch")
    mergeImpl(xs, if (fold) Fold else Arrange)
  }

  /** [[merge]] with folds of at most `maxEntries` entries each (tests). */
  private[quantile] def mergeFoldingAtMost(xs: Seq[QuantileSketch], maxEntries: Long): QuantileSketch =
    mergeImpl(xs, Fold, maxEntries)

  /** How a merge treats its runs: each on its own; time-disjoint runs laid end to end; and folded. */
  private final val Early = 0
  private final val Arrange = 1
  private final val Fold = 2

  private def mergeImpl(xs: Seq[QuantileSketch], mode: Int,
                        maxFoldEntries: Long = QuantileMerge.MaxFoldEntries): QuantileSketch = {
    val first = xs.head
    xs.tail.foreach { s =>
      val d = first.diffs(s)
      if (d.nonEmpty) throw new SketchException(s"cannot merge quantile sketches with different parameters: ${d.mkString(", ")}")
    }
    val out = new QuantileSketch(first.spec, first.epsilon, first.plannedLevels, first.params)
    val withRows = xs.filter(!_.isEmpty)
    val clock = if (withRows.isEmpty) Long.MinValue else withRows.map(_.lastTs).max
    val lo = QuantileRun.windowStart(clock, first.spec.window)
    // a run keeps rows at or after lo exactly when its newest row is there; the inputs' runs are read,
    // never changed: a run that must lose what lies before lo is copied first, and one that the
    // merge keeps as it is is copied at the end
    val inputs = new java.util.IdentityHashMap[QuantileRun, java.lang.Boolean]()
    val all = xs.flatMap(_.runs.filter(_.lastTs >= lo).map { r =>
      if (r.oldestEnd < lo) { val c = r.copy(); c.expireBefore(lo); c } else { inputs.put(r, true); r }
    })
    val contributing = xs.filter(_.runs.exists(_.lastTs >= lo))
    val runs =
      if (mode == Early) QuantileMerge.sideBySide(all)
      else {
        val arranged = QuantileMerge.arrange(all)
        if (mode == Fold) QuantileMerge.fold(arranged, out.plan, lo, maxFoldEntries) else arranged
      }
    out.restoreRuns(runs.map(r => if (inputs.containsKey(r)) r.copy() else r))
    out.mergeStateFrom(xs, contributing)
    out
  }
}
