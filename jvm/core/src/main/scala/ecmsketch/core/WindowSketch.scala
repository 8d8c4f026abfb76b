package ecmsketch.core

/** Window and unit of a sketch's timestamps.
  * @param countWindow true: count-based window, timestamps are arrival sequence numbers
  * @param tsMicros    true: timestamps are microseconds of a TIMESTAMP column (informational; the
  *                    sketch works on ticks either way)
  * @param window      N in ticks or arrivals; Long.MaxValue = unbounded
  */
final case class WindowSpec(countWindow: Boolean, tsMicros: Boolean, window: Long) {
  SketchException.require(window > 0, s"window must be positive, got $window")
  SketchException.require(!(countWindow && tsMicros), "a count-based window takes integer sequence numbers, not TIMESTAMPs")
  def unbounded: Boolean = window == Long.MaxValue
  def typeName: String = if (countWindow) "count" else "time"
}

object WindowSpec {
  final val Unbounded = Long.MaxValue
  def parseType(s: String): Boolean = s.trim.toLowerCase match {
    case "time" => false
    case "count" => true
    case other => throw new SketchException(s"window_type must be 'time' or 'count', got '$other'")
  }
}

/** State and checks shared by every sketch kind: the window, the requested and cell epsilon, the
  * merge depth (levels of order-preserving merge behind it), the clock and the total weight seen.
  */
abstract class WindowSketch {
  /** The kind's descriptor: its id, codec, merges and what `sketch_info` reports. */
  def kind: SketchKind[_ <: WindowSketch]
  def spec: WindowSpec
  /** The epsilon the user asked for. */
  def epsilon: Double
  /** Epsilon of every sliding-window cell. */
  def cellEpsilon: Double
  /** Merge levels the plan budgets for (the bound is `epsilon` up to this depth). */
  def plannedLevels: Int

  // Written only by this class and the sketch kinds' own classes (tests may set the merge depth).
  private[ecmsketch] var _mergeDepth: Int = 0
  protected var _firstTs: Long = Long.MaxValue
  protected var _lastTs: Long = Long.MinValue
  protected var _count: Long = 0L
  /** Whether any row (of any weight) was ever added; first/last timestamps are defined only then. */
  protected var _hasRows: Boolean = false

  def mergeDepth: Int = _mergeDepth
  /** Earliest timestamp ever added (Long.MaxValue when nothing was added). */
  def firstTs: Long = _firstTs
  /** Latest timestamp ever added (Long.MinValue when nothing was added). */
  def lastTs: Long = _lastTs
  /** Total weight ever added, inside the window or not. */
  def count: Long = _count
  def isEmpty: Boolean = !_hasRows

  /** Relative error of one cell at the current merge depth. */
  def cellBound: Double = Bounds.compound(cellEpsilon, mergeDepth)

  @inline protected final def checkAdd(ts: Long, v: Long): Unit =
    if (v < 0 || ts < _lastTs || _count > Long.MaxValue - v || (ts == _lastTs && _hasRows && spec.countWindow)) failAdd(ts, v)

  private def failAdd(ts: Long, v: Long): Unit = failAfter(ts, v, _lastTs, _hasRows, _count)

  /** The error of adding (ts, v) after rows up to `last` (`has`: any) of total weight `total`. */
  private def failAfter(ts: Long, v: Long, last: Long, has: Boolean, total: Long): Unit = {
    if (ts == last && has && spec.countWindow)
      throw new SketchException(s"count-based windows take unique arrival sequence numbers; got $ts twice")
    if (v < 0) throw new SketchException(s"weight must be non-negative, got $v")
    if (ts < last)
      throw new SketchException(s"timestamps must be non-decreasing: got $ts after $last (use the SQL aggregate or add_many, which reorder input)")
    if (Long.MaxValue - total < v) throw new SketchException("total weight overflows 2^63 - 1")
  }

  /** Checks rows [from, until) as [[checkAdd]] would check them added one after the other, without
    * taking any: a refused batch leaves the sketch as it was.
    */
  protected final def checkBatch(ts: Array[Long], ws: Array[Long], from: Int, until: Int): Unit = {
    var last = _lastTs; var has = _hasRows; var total = _count
    var i = from
    while (i < until) {
      val t = ts(i); val v = ws(i)
      if (v < 0 || t < last || total > Long.MaxValue - v || (t == last && has && spec.countWindow)) failAfter(t, v, last, has, total)
      last = t; has = true; total += v
      i += 1
    }
  }

  /** Notes rows [from, until) (checked by [[checkBatch]]) as [[noteAdd]] notes them one by one. */
  protected final def noteBatch(ts: Array[Long], ws: Array[Long], from: Int, until: Int): Unit =
    if (until > from) {
      var w = 0L
      var i = from
      while (i < until) { w += ws(i); i += 1 }
      noteAdd(ts(from), 0L)
      noteAdd(ts(until - 1), w)
    }

  protected def noteAdd(ts: Long, v: Long): Unit = {
    _hasRows = true
    if (ts < _firstTs) _firstTs = ts
    _lastTs = ts
    _count += v
  }

  /** Resolves a query's (range, now) to the first timestamp of (now - range, now], or null for an
    * empty range (range 0). Range defaults to the window, now to the last timestamp.
    */
  def lowerBound(range: java.lang.Long, now: java.lang.Long): java.lang.Long = {
    val r: Long = if (range == null) spec.window else range.longValue
    val t: Long = if (now == null) _lastTs else now.longValue
    Windows.checkQuery(spec.window, r, t, _lastTs)
    if (r == 0) null else java.lang.Long.valueOf(Windows.lowerBound(t, r))
  }

  /** Sets the clock and totals of a sketch read from bytes (the header's merge depth, first and last
    * timestamps, total weight and whether it has rows); the codec validated them.
    */
  def restoreState(mergeDepth: Int, firstTs: Long, lastTs: Long, count: Long, hasRows: Boolean): Unit = {
    _mergeDepth = mergeDepth; _firstTs = firstTs; _lastTs = lastTs; _count = count; _hasRows = hasRows
  }

  /** Counts rows that were dropped before reaching the sketch (they lay a whole window behind the
    * newest row): their weight goes into the total weight, their earliest timestamp into firstTs.
    */
  def withDroppedRows(weight: Long, minTs: Long): Unit = {
    if (Long.MaxValue - _count < weight) throw new SketchException("total weight overflows 2^63 - 1")
    _count += weight
    if (minTs < _firstTs) _firstTs = minTs
  }

  protected def copyStateFrom(o: WindowSketch): Unit = {
    _mergeDepth = o._mergeDepth; _firstTs = o._firstTs; _lastTs = o._lastTs; _count = o._count; _hasRows = o._hasRows
  }

  /** Clock and depth of the merge of `inputs`, of which `contributing` hold retained buckets. When a
    * contributing input has cells of another epsilon than this sketch's (a "mixed" merge of a plan's
    * runs and its fine side runs, docs/design/rows-in-any-order.md "Rows in any order"), the depth is
    * [[Bounds.mixedMergeDepth]]: the inputs' bounds expressed as a depth at this cell epsilon, plus one.
    */
  protected[ecmsketch] def mergeStateFrom(inputs: Seq[WindowSketch], contributing: Seq[WindowSketch]): Unit =
    mergeStateFrom(inputs, contributing, Seq(contributing))

  /** As above, for a merge that laid time-disjoint `clusters` of the contributing inputs side by side
    * after merging each cluster (docs/design/merging.md, "Time-disjoint merges"): the depth is the largest
    * cluster's, a cluster of one input keeping that input's depth and a larger one adding a level.
    */
  protected[ecmsketch] def mergeStateFrom(inputs: Seq[WindowSketch], contributing: Seq[WindowSketch], clusters: Seq[Seq[WindowSketch]]): Unit = {
    val withRows = inputs.filter(_._hasRows)
    _hasRows = withRows.nonEmpty
    _firstTs = if (_hasRows) withRows.map(_._firstTs).min else Long.MaxValue
    _lastTs = if (_hasRows) withRows.map(_._lastTs).max else Long.MinValue
    _count = WindowSketch.totalCount(inputs)
    _mergeDepth =
      if (contributing.exists(_.cellEpsilon != cellEpsilon))
        Bounds.mixedMergeDepth(cellEpsilon, contributing.map(s => (s.cellEpsilon, s._mergeDepth)))
      else if (contributing.size <= 1) contributing.headOption.map(_._mergeDepth).getOrElse(inputs.map(_._mergeDepth).max)
      else clusters.map(c => c.map(_._mergeDepth).max + (if (c.size > 1) 1 else 0)).max
    if (_mergeDepth > 65535) throw new SketchException("merge depth exceeds 65535")
  }

  /** Names the parameters that differ between this sketch and `o` (empty if none). */
  protected def commonDiffs(o: WindowSketch): Seq[String] = {
    val b = Seq.newBuilder[String]
    if (spec.countWindow != o.spec.countWindow) b += s"window_type ${spec.typeName} vs ${o.spec.typeName}"
    if (spec.window != o.spec.window) b += s"window ${spec.window} vs ${o.spec.window}"
    if (spec.tsMicros != o.spec.tsMicros) b += s"timestamp unit ${unit(spec)} vs ${unit(o.spec)}"
    if (epsilon != o.epsilon) b += s"epsilon $epsilon vs ${o.epsilon}"
    if (cellEpsilon != o.cellEpsilon) b += s"cell_epsilon $cellEpsilon vs ${o.cellEpsilon}"
    if (plannedLevels != o.plannedLevels) b += s"merge_levels $plannedLevels vs ${o.plannedLevels}"
    b.result()
  }

  private def unit(s: WindowSpec) = if (s.tsMicros) "TIMESTAMP" else "integer ticks"
}

/** A stand-alone sliding-window counter with a plan and a certified bound (the one-cell kinds).
  * It counts arrivals (or sums weights) over the window with relative error at most [[errorBound]]
  * on every range; the cell epsilon is chosen so that the bound equals `epsilon` after
  * `plannedLevels` levels of order-preserving merge (see [[CounterSketch.cellEpsilonFor]]).
  */
abstract class CounterSketch extends WindowSketch {
  protected def counter: WindowCounter

  /** Adds weight `v` (default 1) at `ts`; timestamps must be non-decreasing. */
  def add(ts: Long, v: Long = 1L): Unit = {
    checkAdd(ts, v)
    counter.add(ts, v)
    noteAdd(ts, v)
  }

  /** Adds a batch whose timestamps are sorted (non-decreasing, not before the last timestamp); `vs`
    * null means weight 1. The same state as adding the rows one by one (runs of unit weights go to
    * the counter as sorted runs, [[WindowCounter.addSorted]]); a row that [[add]] would refuse is
    * refused with its message, the rows before it added.
    */
  def addSortedBatch(ts: Array[Long], vs: Array[Long]): Unit = {
    val n = ts.length
    var from = 0
    while (from < n) {
      // the longest run from `from` of unit weights that add would take (in order, no overflow)
      var i = from
      var prev = _lastTs
      var seen = _hasRows
      val strict = spec.countWindow
      while (i < n && (vs == null || vs(i) == 1L) && ts(i) >= prev && !(strict && seen && ts(i) == prev) &&
             _count <= Long.MaxValue - (i - from + 1)) {
        prev = ts(i); seen = true; i += 1
      }
      if (i > from) {
        counter.addSorted(ts, from, i)
        noteAdd(ts(from), (i - from).toLong)
        _lastTs = ts(i - 1)
        from = i
      } else { add(ts(from), if (vs == null) 1L else vs(from)); from += 1 } // refused here, or a weighted row
    }
  }

  /** Estimated weight in (now - range, now]; null range = the window, null now = last timestamp. */
  def count(range: java.lang.Long, now: java.lang.Long): Double = {
    val lo = lowerBound(range, now)
    if (lo == null) 0.0 else counter.estimateFrom(lo)
  }

  /** Certified relative error of every [[count]] answer at the current merge depth. */
  def errorBound: Double = cellBound
}

object CounterSketch {
  /** Cell epsilon (1 + epsilon)^(1/(levels+1)) - 1, nudged down by ulps so that the bound reported
    * at the planned depth is <= epsilon in floating point.
    */
  def cellEpsilonFor(epsilon: Double, levels: Int): Double = {
    Bounds.checkEpsilon(epsilon)
    var cellEps = Bounds.cellEpsilonFor(epsilon, levels)
    while (Bounds.compound(cellEps, levels) > epsilon) cellEps = Math.nextDown(cellEps)
    cellEps
  }
}

object WindowSketch {
  /** The inputs' total weight; a merge whose inputs' weights pass 2^63 - 1 is refused. */
  def totalCount(inputs: Seq[WindowSketch]): Long = {
    var c = 0L
    inputs.foreach { s =>
      if (Long.MaxValue - c < s.count) throw new SketchException("total weight overflows 2^63 - 1")
      c += s.count
    }
    c
  }

  /** The parameter differences a mixed merge (a plan's runs with its fine side runs, docs/design/rows-in-any-order.md
    * "Rows in any order") allows: cell epsilon and the planned levels recorded with it.
    */
  def mixedDiffs(diffs: Seq[String]): Seq[String] =
    diffs.filterNot(x => x.startsWith("cell_epsilon ") || x.startsWith("merge_levels "))

  /** The inputs of a merge whose counter (`counter`) still holds weight at the merged clock, the
    * latest last timestamp among them: an input whose every bucket ends at or before that clock
    * minus the window is out of reach of every query of the merged sketch, so it neither
    * contributes nor counts in the merge depth (docs/design/merging.md, "Time-disjoint merges").
    */
  def retaining[S <: WindowSketch](inputs: Seq[S])(counter: S => WindowCounter): Seq[S] = {
    val now = inputs.iterator.filter(!_.isEmpty).map(_.lastTs).foldLeft(Long.MinValue)(math.max)
    inputs.filter { s => val c = counter(s); c != null && c.retainsAt(now) }
  }

  /** Refuses merging count-based sketches: ECM §5.1 (Fig. 2), count-based windows keep the order
    * of the counted arrivals but lose that of the others, so no order-preserving merge exists.
    */
  def checkMergeable(s: Seq[WindowSketch], what: String): Unit = {
    SketchException.require(s.nonEmpty, s"$what needs at least one sketch")
    if (s.size > 1 && s.exists(_.spec.countWindow))
      throw new SketchException(
        s"$what: count-based sketches cannot be merged. A count-based window counts the last N arrivals of one stream; " +
          "sketches of different streams keep no order among the arrivals they did not count (ECM-sketch §5.1, Fig. 2). " +
          "Use window_type => 'time' for sketches that must be merged.")
  }
}
