package ecmsketch.asynchronous

import ecmsketch.core.{LongHashMap, Params, SketchException, WindowSketch, WindowSpec, Windows}
import ecmsketch.hash.Hashing

/** One level S_i of an async sketch: the elements selected into it, at most `alpha` of them (the
  * newest in the total order (t, h, v): timestamp, identity hash, value bits), and the discard marker
  * t_i (the largest timestamp ever discarded by overflow), in three parallel arrays over [start, end)
  * with a hash set of their identity hashes for duplicates. While every element arrived newer than
  * the previous ones the arrays stay sorted (append and drop-oldest in O(1), a time-sorted stream);
  * the first older arrival turns them into a binary min-heap from index 0 (a sorted array is one), as
  * the paper suggests (XTB §2): O(log alpha) per offer in any order. [[sortInPlace]] sorts them again
  * for encoding and union.
  */
private[asynchronous] final class Level {
  var ts: Array[Long] = Level.Empty
  var hs: Array[Long] = Level.Empty
  var vs: Array[Long] = Level.Empty
  var start = 0
  var end = 0
  var hasDisc = false
  var disc = 0L
  private val ids = new LongHashMap
  private var sorted = true

  def size: Int = end - start

  def markDiscard(t: Long): Unit = if (!hasDisc || t > disc) { hasDisc = true; disc = t }

  @inline private def less(i: Int, j: Int): Boolean = Level.compare(ts(i), hs(i), vs(i), ts(j), hs(j), vs(j)) < 0

  @inline private def swap(i: Int, j: Int): Unit = {
    val t = ts(i); ts(i) = ts(j); ts(j) = t
    val h = hs(i); hs(i) = hs(j); hs(j) = h
    val v = vs(i); vs(i) = vs(j); vs(j) = v
  }

  private def siftDown(from: Int): Unit = {
    var i = from
    var done = false
    while (!done) {
      val l = 2 * i + 1
      if (l >= end) done = true
      else {
        val c = if (l + 1 < end && less(l + 1, l)) l + 1 else l
        if (less(c, i)) { swap(c, i); i = c } else done = true
      }
    }
  }

  /** Removes the oldest element (the first of a sorted level, the heap's root otherwise). */
  private def popMin(): Unit = {
    ids.remove(hs(start))
    if (sorted) { start += 1; if (start == end) { start = 0; end = 0 }; return }
    end -= 1
    if (end > 0) {
      ts(0) = ts(end); hs(0) = hs(end); vs(0) = vs(end)
      siftDown(0)
      sorted = false
    }
  }

  /** Offers an element: a duplicate (an element with the same identity hash already held) is
    * ignored; an element older than every one of a full level is discarded (its timestamp marked);
    * otherwise it is inserted and, if the level then holds more than `alpha`, the oldest element is
    * discarded and marked (SumProcess step 6, MedianProcess 2(b)). The result is the top `alpha` of
    * every element ever offered, whatever their order.
    */
  def offer(t: Long, h: Long, v: Long, alpha: Int): Unit = {
    if (ids.contains(h)) return
    if (size >= alpha && Level.compare(t, h, v, ts(start), hs(start), vs(start)) < 0) { markDiscard(t); return }
    val append = sorted && (end == start || Level.compare(t, h, v, ts(end - 1), hs(end - 1), vs(end - 1)) > 0)
    if (!append && sorted) { compact(); sorted = false } // a sorted array is a valid heap
    if (end == ts.length) {
      compact()
      if (end == ts.length) {
        // sorted levels keep room for alpha appends past a full level, so compaction is amortized O(1)
        val cap = math.max(16, math.min(ts.length * 2, 2 * (alpha + 1)))
        ts = java.util.Arrays.copyOf(ts, cap); hs = java.util.Arrays.copyOf(hs, cap); vs = java.util.Arrays.copyOf(vs, cap)
      }
    }
    var i = end
    ts(i) = t; hs(i) = h; vs(i) = v
    end += 1
    ids.add(h)
    if (!append) while (i > 0 && less(i, (i - 1) / 2)) { swap(i, (i - 1) / 2); i = (i - 1) / 2 }
    if (size > alpha) { markDiscard(ts(start)); popMin() }
  }

  private def compact(): Unit = if (start > 0) {
    val n = end - start
    System.arraycopy(ts, start, ts, 0, n); System.arraycopy(hs, start, hs, 0, n); System.arraycopy(vs, start, vs, 0, n)
    start = 0; end = n
  }

  /** Drops elements with t < cut (outside every future window) and a marker below it: neither can
    * change an answer, and dropping them makes the state a function of the element set.
    */
  def purge(cut: Long): Unit = {
    while (size > 0 && ts(start) < cut) popMin()
    if (hasDisc && disc < cut) hasDisc = false
  }

  def isTrivial: Boolean = size == 0 && !hasDisc

  /** Orders the elements ascending by (t, h, v) (still a valid heap). */
  def sortInPlace(): Unit = if (!sorted) {
    val n = end
    val nt = new Array[Long](n); val nh = new Array[Long](n); val nv = new Array[Long](n)
    var k = 0
    while (end > 0) { nt(k) = ts(0); nh(k) = hs(0); nv(k) = vs(0); k += 1; popMin() }
    set(nt, nh, nv, n)
  }

  /** Distinct identity hashes held (equals size unless decoded bytes repeat one). */
  def hashCount: Int = ids.size

  /** Replaces the contents by arrays sorted ascending and distinct (from a union or a decode). */
  def set(t: Array[Long], h: Array[Long], v: Array[Long], n: Int): Unit = {
    ts = t; hs = h; vs = v; start = 0; end = n
    ids.reset(n); var i = 0; while (i < n) { ids.add(h(i)); i += 1 }
    sorted = true
  }

  def copy(): Level = {
    val l = new Level
    l.set(java.util.Arrays.copyOfRange(ts, start, end), java.util.Arrays.copyOfRange(hs, start, end),
      java.util.Arrays.copyOfRange(vs, start, end), end - start)
    l.sorted = sorted
    l.hasDisc = hasDisc; l.disc = disc
    l
  }
}

private[asynchronous] object Level {
  val Empty: Array[Long] = new Array[Long](0)

  @inline def compare(t1: Long, h1: Long, v1: Long, t2: Long, h2: Long, v2: Long): Int =
    if (t1 != t2) java.lang.Long.compare(t1, t2)
    else if (h1 != h2) java.lang.Long.compare(h1, h2)
    else java.lang.Long.compare(v1, v2)
}

/** Xu-Tirthapura-Busch sketches for asynchronous streams (Xu, Tirthapura, Busch 2008; docs/design/async.md):
  * elements (v, t) arrive in any order of their timestamps and every query over a range
  * of the window answers within (epsilon, delta).
  *
  *  - measure [[AsyncSketch.Sum]] / [[AsyncSketch.Count]]: the sum sketch (XTB §2.2). Levels S_0..S_M
  *    with M = 63, so every positive BIGINT weight has a level (l = floor(log2 v) + 1 <= 63 = M: the
  *    spec's "v >= 2^M" case cannot occur) and no user bound V_max is needed; levels are allocated
  *    when an element first reaches them. alpha = ceil(12 ln(8/delta) / epsilon^2) elements a level.
  *    The count is the sum with every weight 1.
  *  - measure [[AsyncSketch.Quantile]]: the median sketch (XTB §3.1) for any quantile q: levels S_0..S_M
  *    (M = 63) of uniform samples (level i keeps each element with probability 2^-i), alpha =
  *    ceil(96 ln(8/delta) / epsilon^2), epsilon < 1/2; values are DOUBLEs.
  *
  * Element identity and union (XTB §4). An element's coins (its level) are a function of its
  * identity: a 64-bit hash, under the sketch's seed, of (value, ts), or of (id, value, ts) when the
  * sketch takes ids. Elements with equal identity are ONE element, at one site or at several
  * (set semantics, duplicate-insensitive: a replayed row is counted once). Without ids, two rows
  * with equal value and timestamp are therefore one element; give an `id` to count them separately.
  * Because every level is the top alpha (by (t, h, v)) of the elements ever offered to it, and
  * elements outside every future window (t <= last_ts - window) are dropped, the state is a function
  * of the set of identities: [[AsyncSketch.merge]] gives the same state and bytes as one sketch
  * over the union (Lemma 23), in any order and at any depth.
  */
final class AsyncSketch private[asynchronous] (val spec: WindowSpec, val measure: Int, val epsilon: Double,
                                               val delta: Double, val seed: Long, val withIds: Boolean,
                                               val tradeoff: Int) extends WindowSketch {
  def kind: AsyncKind.type = AsyncKind
  import AsyncSketch._

  /** Elements a level holds. */
  val alpha: Int = AsyncSketch.alpha(measure, epsilon, delta)
  def cellEpsilon: Double = epsilon
  def plannedLevels: Int = 0
  /** Lossless merges add no error. */
  override def cellBound: Double = epsilon

  private[asynchronous] var levels: Array[Level] = new Array[Level](0)

  def isQuantile: Boolean = measure == Quantile
  def measureName: String = MeasureNames(measure)
  /** Allocated levels (those an element reached). */
  def levelCount: Int = levels.length
  /** Elements held over all levels. */
  def retained: Long = levels.iterator.map(_.size.toLong).sum

  private def level(i: Int): Level = {
    if (i >= levels.length) {
      val a = java.util.Arrays.copyOf(levels, i + 1)
      var j = levels.length
      while (j <= i) { a(j) = new Level; j += 1 }
      levels = a
    }
    levels(i)
  }

  /** The first timestamp of every future window: elements before it are dropped. */
  private def cut: Long = if (!_hasRows || spec.unbounded) Long.MinValue else Windows.lowerBound(_lastTs, spec.window)

  private def note(ts: Long, v: Long): Unit = {
    if (Long.MaxValue - _count < v) throw new SketchException("total weight overflows 2^63 - 1")
    if (!_hasRows || ts > _lastTs) _lastTs = ts
    if (!_hasRows || ts < _firstTs) _firstTs = ts
    _hasRows = true
    _count += v
  }

  private def requireIds(hasId: Boolean): Unit =
    if (hasId != withIds) throw new SketchException(
      if (withIds) "this async sketch identifies elements by (id, value, ts): every row needs an id"
      else "this async sketch identifies elements by (value, ts) and takes no id; build it with ids to add rows with one")

  // ------------------------------------------------------------------ updates

  /** Adds an element of positive weight `v` at `ts` (sum sketches; any timestamp order). */
  def addWeight(v: Long, ts: Long): Unit = { requireIds(false); addSum(v, ts, 0L) }
  /** The same, identified by (id, v, ts) (sketches with ids; `idFp` is the id's fingerprint). */
  def addWeightWithId(v: Long, ts: Long, idFp: Long): Unit = { requireIds(true); addSum(v, ts, idFp) }

  /** Adds a DOUBLE value at `ts` (quantile sketches). */
  def addValue(x: Double, ts: Long): Unit = { requireIds(false); addQ(x, ts, 0L) }
  def addValueWithId(x: Double, ts: Long, idFp: Long): Unit = { requireIds(true); addQ(x, ts, idFp) }

  private def addSum(v: Long, ts: Long, idFp: Long): Unit = {
    if (measure == Quantile) throw new SketchException("this is an async quantile sketch: add values with addValue")
    if (v <= 0) throw new SketchException(s"async sum sketches take positive integer weights, got $v")
    if (measure == Count && v != 1) throw new SketchException(s"an async count sketch takes weight 1, got $v")
    note(ts, v)
    if (ts < cut) return
    val h = identityHash(seed, v, ts, withIds, idFp)
    val top = sumTop(v, h)
    val a = alpha
    if (top < tradeoff) level(top).offer(ts, h, v, a)
    else { var i = tradeoff; while (i <= top) { level(i).offer(ts, h, v, a); i += 1 } }
  }

  private def addQ(x: Double, ts: Long, idFp: Long): Unit = {
    if (measure != Quantile) throw new SketchException(s"this is an async $measureName sketch: add weights with addWeight")
    if (x.isNaN) throw new SketchException("an async quantile sketch value must not be NaN")
    note(ts, 1L)
    if (ts < cut) return
    val vb = valueBits(x)
    val h = identityHash(seed, vb, ts, withIds, idFp)
    val top = quantileTop(h)
    val a = alpha
    var i = 0
    while (i <= top) { level(i).offer(ts, h, vb, a); i += 1 }
  }

  /** Drops what lies outside every future window and trailing empty levels (the canonical state). */
  private[asynchronous] def canonicalize(): Unit = {
    val c = cut
    levels.foreach(_.purge(c))
    var n = levels.length
    while (n > 0 && levels(n - 1).isTrivial) n -= 1
    if (n < levels.length) levels = java.util.Arrays.copyOf(levels, n)
  }

  // ------------------------------------------------------------------ queries

  private def complete(j: Int, lo: Long): Boolean = j >= levels.length || !levels(j).hasDisc || levels(j).disc < lo

  /** Estimated sum (count) of the distinct elements with ts in (now - range, now]; null range = the
    * window, null now = the last timestamp. SumQuery (XTB §2.2) with the trade-off level L.
    */
  def sum(range: java.lang.Long, now: java.lang.Long): Double = {
    if (measure == Quantile) throw new SketchException("async_sum needs an async sum or count sketch, got an async quantile sketch")
    val lob = lowerBound(range, now)
    if (lob == null || !_hasRows) return 0.0
    val lo = lob.longValue
    canonicalize()
    // l' = the smallest level such that every level from it up is complete for the window
    var lp = levels.length
    while (lp > 0 && complete(lp - 1, lo)) lp -= 1
    if (lp > TopLevel) throw new SketchException(
      s"async sum query failed: the top level discarded an element inside the range (probability below delta = $delta)")
    val big = lp >= 63 // 2^l' overflows a BIGINT: sum in doubles
    var exact = 0L; var approx = 0.0; var overflow = false
    val top = if (lp >= tradeoff) lp else math.min(tradeoff, levels.length - 1)
    var j = lp
    while (j <= top && j < levels.length) {
      val l = levels(j)
      var i = l.start
      while (i < l.end) {
        if (l.ts(i) >= lo) {
          // 2^l' * max(v / 2^l', 1) = max(v, 2^l')
          val v = l.vs(i)
          if (big) { overflow = true; approx += math.max(v.toDouble, StrictMath.scalb(1.0, lp)) }
          else {
            val x = if (v >= (1L << lp)) v else 1L << lp
            if (!overflow && exact <= Long.MaxValue - x) exact += x
            else { if (!overflow) { approx = exact.toDouble; overflow = true }; approx += x.toDouble }
          }
        }
        i += 1
      }
      j += 1
    }
    if (overflow) approx else exact.toDouble
  }

  /** The level MedianQuery reads for a range starting at `lo`: the smallest complete level. */
  private def quantileLevel(lo: Long): Int = {
    var j = 0
    while (j <= TopLevel && !complete(j, lo)) j += 1
    if (j > TopLevel) throw new SketchException(s"async quantile query failed: every level discarded an element inside the range")
    j
  }

  /** The in-range sample MedianQuery answers from, sorted (empty for an empty range). */
  def quantileSample(range: java.lang.Long, now: java.lang.Long): Array[Double] = {
    if (measure != Quantile) throw new SketchException(s"async_quantile needs an async quantile sketch, got an async $measureName sketch")
    val lob = lowerBound(range, now)
    if (lob == null || !_hasRows) return new Array[Double](0)
    val lo = lob.longValue
    canonicalize()
    val j = quantileLevel(lo)
    if (j >= levels.length) {
      if (j > 0) throw new SketchException("async quantile query failed: no sample of the range reached the level it needs")
      return new Array[Double](0)
    }
    val l = levels(j)
    val out = Array.newBuilder[Double]
    var i = l.start
    while (i < l.end) { if (l.ts(i) >= lo) out += bitsValue(l.vs(i)); i += 1 }
    val a = out.result()
    if (a.isEmpty && j > 0) throw new SketchException("async quantile query failed: no sample of the range reached the level it needs")
    java.util.Arrays.sort(a)
    a
  }

  /** The q-quantile of the range (the sample element of rank ceil(q n), the smallest for q = 0), None if empty. */
  def quantile(q: Double, range: java.lang.Long, now: java.lang.Long): Option[Double] =
    quantiles(Array(q), range, now).headOption.flatten

  def quantiles(qs: Array[Double], range: java.lang.Long, now: java.lang.Long): Seq[Option[Double]] = {
    qs.foreach(checkQ)
    val a = quantileSample(range, now)
    qs.toSeq.map(q => if (a.isEmpty) None else Some(a(rankIndex(q, a.length))))
  }

  // ------------------------------------------------------------------ merge

  def diffs(o: AsyncSketch): Seq[String] = {
    val b = Seq.newBuilder[String]
    if (measure != o.measure) b += s"measure $measureName vs ${o.measureName}"
    b ++= commonDiffs(o)
    if (delta != o.delta) b += s"delta $delta vs ${o.delta}"
    if (seed != o.seed) b += s"seed $seed vs ${o.seed}"
    if (withIds != o.withIds) b += s"identity ${identityName(withIds)} vs ${identityName(o.withIds)}"
    if (tradeoff != o.tradeoff) b += s"tradeoff $tradeoff vs ${o.tradeoff}"
    b.result()
  }

  private[asynchronous] def restoreLevels(ls: Array[Level]): Unit = levels = ls

  def copy(): AsyncSketch = {
    val s = new AsyncSketch(spec, measure, epsilon, delta, seed, withIds, tradeoff)
    s.levels = levels.map(_.copy())
    s.copyStateFrom(this)
    s
  }

  override def restoreState(mergeDepth: Int, firstTs: Long, lastTs: Long, count: Long, hasRows: Boolean): Unit =
    super.restoreState(0, firstTs, lastTs, count, hasRows)
}

object AsyncSketch {
  final val Sum = 0
  final val Count = 1
  final val Quantile = 2
  val MeasureNames: IndexedSeq[String] = IndexedSeq("sum", "count", "quantile")

  /** M: the top level (levels 0..63). */
  final val TopLevel = 63
  /** The default trade-off level L = M - 1: every element stored at its one top level (SumProcess). */
  final val DefaultTradeoff = TopLevel - 1
  final val MaxAlpha: Int = 1 << 24
  final val DefaultEpsilon = 0.1
  final val DefaultDelta = 0.05
  final val DefaultSeed: Long = Hashing.DefaultSeed

  def identityName(withIds: Boolean): String = if (withIds) "(id, value, ts)" else "(value, ts)"

  /** alpha: ceil(12 ln(8/delta) / epsilon^2) for sums (XTB §2.2, with the square the printed
    * formula lost), ceil(96 ln(8/delta) / epsilon^2) for quantiles (XTB §3.1).
    */
  def alphaExact(measure: Int, epsilon: Double, delta: Double): Double =
    math.ceil((if (measure == Quantile) 96.0 else 12.0) * math.log(8.0 / delta) / (epsilon * epsilon))

  def alpha(measure: Int, epsilon: Double, delta: Double): Int = {
    val a = alphaExact(measure, epsilon, delta)
    if (!(a <= MaxAlpha)) throw new SketchException(
      s"epsilon $epsilon and delta $delta need $a elements a level, more than $MaxAlpha; use a larger epsilon")
    a.toInt
  }

  def checkParams(measure: Int, epsilon: Double, delta: Double, tradeoff: Int): Unit = {
    SketchException.require(measure >= Sum && measure <= Quantile, s"unknown async measure $measure")
    val maxEps = if (measure == Quantile) 0.5 else 1.0
    SketchException.require(!epsilon.isNaN && epsilon >= 0.001 && epsilon < maxEps,
      s"epsilon of an async ${MeasureNames(measure)} sketch must be in [0.001, $maxEps), got $epsilon")
    SketchException.require(!delta.isNaN && delta > 0.0 && delta < 1.0, s"delta must be in (0, 1), got $delta")
    if (measure == Quantile) SketchException.require(tradeoff == 0, s"async quantile sketches take no tradeoff level, got $tradeoff")
    else SketchException.require(tradeoff >= 0 && tradeoff < TopLevel, s"tradeoff must be in [0, ${TopLevel - 1}], got $tradeoff")
    alpha(measure, epsilon, delta)
  }

  /** A new empty sketch over a timestamp window (`window` ticks, Long.MaxValue = unbounded). */
  def create(measure: Int, window: Long = WindowSpec.Unbounded, epsilon: Double = DefaultEpsilon,
             delta: Double = DefaultDelta, seed: Long = DefaultSeed, withIds: Boolean = false,
             tradeoff: Int = -1, tsMicros: Boolean = false): AsyncSketch = {
    val l = if (tradeoff < 0) (if (measure == Quantile) 0 else DefaultTradeoff) else tradeoff
    checkParams(measure, epsilon, delta, l)
    new AsyncSketch(WindowSpec(countWindow = false, tsMicros = tsMicros, window = window), measure, epsilon, delta, seed, withIds, l)
  }

  /** Parses a window type: async sketches take timestamp windows only. */
  def checkWindowType(s: String): Unit =
    if (WindowSpec.parseType(s)) throw new SketchException(
      "async sketches take window_type => 'time' only: a count-based window (the last N arrivals) has no meaning " +
        "when rows arrive out of timestamp order")

  def checkQ(q: Double): Unit = SketchException.require(!q.isNaN && q >= 0.0 && q <= 1.0, s"quantile q must be in [0, 1], got $q")

  /** Sorted index of the q-quantile of n values: ceil(q n) - 1, at least 0 (the smallest x with rank >= q n). */
  def rankIndex(q: Double, n: Int): Int = math.min(n - 1, math.max(0, math.ceil(q * n).toInt - 1))

  // ------------------------------------------------------------------ coins

  private final val IdentitySalt = 0x4153594E43L // "ASYNC"
  private final val CoinR = 0x5DEECE66DL
  private final val CoinZ = 0x2545F4914F6CDD1DL

  /** Identity hash of an element under `seed`: of (v, ts), or (id, v, ts) when `withId`. */
  def identityHash(seed: Long, v: Long, ts: Long, withId: Boolean, idFp: Long): Long = {
    var h = Hashing.mix64(seed ^ IdentitySalt)
    h = Hashing.mix64(h ^ v)
    h = Hashing.mix64(h + ts)
    if (withId) Hashing.mix64(h ^ Hashing.mix64(idFp + IdentitySalt)) else h
  }

  /** Z >= 1 with Pr[Z = i] = 2^-i: 1 + the trailing 1-bits of a coin word (XTB §2.2, step 4 of SumProcess). */
  @inline private def geometric(h: Long): Int = java.lang.Long.numberOfTrailingZeros(~Hashing.mix64(h ^ CoinZ)) + 1

  /** The level SumProcess stores (v, t) at (XTB §2.2, steps 2-5): l = floor(log2 v) + 1; r = 1 with
    * probability v / 2^l (the top l bits of a coin word, as an integer below 2^l, are < v); then
    * l + min(Z, M - l + 1) - 1 if r = 1, else l - 1.
    */
  def sumTop(v: Long, h: Long): Int = {
    val l = 64 - java.lang.Long.numberOfLeadingZeros(v)
    val u = Hashing.mix64(h ^ CoinR) >>> (64 - l)
    if (u < v) l + math.min(geometric(h), TopLevel - l + 1) - 1 else l - 1
  }

  /** The highest level a quantile element is sampled into: level i with probability 2^-i, capped at M. */
  def quantileTop(h: Long): Int = math.min(geometric(h) - 1, TopLevel)

  /** Value bits of a quantile element (-0.0 as 0.0). */
  def valueBits(x: Double): Long = java.lang.Double.doubleToLongBits(if (x == 0.0) 0.0 else x)
  def bitsValue(b: Long): Double = java.lang.Double.longBitsToDouble(b)

  // ------------------------------------------------------------------ union

  /** The top `alpha` distinct elements of two levels (merged from the newest end), with the marker
    * of `x` raised to the newest element left out. `y`'s marker is the caller's.
    */
  private def union(x: Level, y: Level, alpha: Int): Level = {
    x.sortInPlace(); y.sortInPlace()
    val cap = math.min(alpha, x.size + y.size)
    val ts = new Array[Long](cap); val hs = new Array[Long](cap); val vs = new Array[Long](cap)
    var i = x.end - 1; var k = y.end - 1
    var m = cap // fills ts(m - 1) downwards
    var done = false
    while (!done && (i >= x.start || k >= y.start)) {
      val c =
        if (i < x.start) -1 else if (k < y.start) 1
        else Level.compare(x.ts(i), x.hs(i), x.vs(i), y.ts(k), y.hs(k), y.vs(k))
      val (t, h, v) = if (c >= 0) (x.ts(i), x.hs(i), x.vs(i)) else (y.ts(k), y.hs(k), y.vs(k))
      if (m == 0) done = true
      else { m -= 1; ts(m) = t; hs(m) = h; vs(m) = v }
      if (!done) { if (c >= 0) i -= 1; if (c <= 0) k -= 1 }
    }
    val out = new Level
    if (x.hasDisc) out.markDiscard(x.disc)
    // the newest element left out (the loop stopped on it) is discarded
    if (done) out.markDiscard(if (i >= x.start && (k < y.start || Level.compare(x.ts(i), x.hs(i), x.vs(i), y.ts(k), y.hs(k), y.vs(k)) >= 0)) x.ts(i) else y.ts(k))
    out.set(java.util.Arrays.copyOfRange(ts, m, cap), java.util.Arrays.copyOfRange(hs, m, cap), java.util.Arrays.copyOfRange(vs, m, cap), cap - m)
    out
  }

  /** Union (XTB §4, Lemma 23): level by level, the top alpha of the union of the inputs' elements (a
    * set union: equal elements once) with the marker max(t^A, t^B, the newest discarded). The result
    * equals (state and bytes) one sketch over the union of the inputs' elements.
    */
  def merge(xs: Seq[AsyncSketch]): AsyncSketch = {
    SketchException.require(xs.nonEmpty, "async merge needs at least one sketch")
    val first = xs.head
    Params.requireAllSame(AsyncKind.plural, xs)(_.diffs(_))
    val out = new AsyncSketch(first.spec, first.measure, first.epsilon, first.delta, first.seed, first.withIds, first.tradeoff)
    val withRows = xs.filter(_._hasRows)
    if (withRows.nonEmpty) {
      var c = 0L
      xs.foreach { s => if (Long.MaxValue - c < s._count) throw new SketchException("total weight overflows 2^63 - 1"); c += s._count }
      out.restoreState(0, withRows.map(_._firstTs).min, withRows.map(_._lastTs).max, c, hasRows = true)
    }
    val cut = out.cut
    val n = xs.map(_.levels.length).max
    val a = out.alpha
    out.levels = Array.tabulate(n) { j =>
      var acc = new Level
      xs.foreach { s =>
        if (j < s.levels.length) {
          val l = s.levels(j)
          acc = union(acc, l, a)
          if (l.hasDisc) acc.markDiscard(l.disc)
        }
      }
      acc.purge(cut)
      acc
    }
    out.canonicalize()
    out
  }
}
