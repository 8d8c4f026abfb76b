package ecmsketch.frequent

import java.nio.charset.StandardCharsets

import scala.collection.mutable.ArrayBuffer

import ecmsketch.core.Bounds.satAdd
import ecmsketch.core.{KeyedSketch, SketchException, WindowSketch, WindowSpec, Windows}
import ecmsketch.hash.Hashing

/** A frequent value of a range: the key (in the sketch's key type), the estimate (the middle of the
  * certified interval) and the interval [lower, upper] that holds the key's true weight in the range.
  */
final case class FrequentItem(key: Any, estimate: Double, lower: Long, upper: Long)

/** The weight of a range: estimate and certified interval. */
final case class RangeCount(estimate: Double, lower: Long, upper: Long)

/** Windowed frequent items: heavy hitters, top-k and frequency estimates of any range of the window,
  * deterministic, with certified intervals (docs/design/windowed-top-k.md).
  *
  * Scales l = 0, 1, ... keep blocks of 2^l units per key over the last q * 2^l units of weight
  * ([[Scale]]); a query uses the finest scale that still holds the whole range. Scale 0 is exact
  * over the last q units; a scale is added (a copy of the coarsest one) the first time the
  * coarsest one must drop entries. Keys are kept exactly ([[KeyDict]]) and come back in their type.
  */
final class FrequentSketch private[frequent] (val spec: WindowSpec, val epsilon: Double, val plannedLevels: Int,
                                              val plan: FreqPlan) extends WindowSketch with KeyedSketch {
  def kind: FrequentKind.type = FrequentKind
  /** Epsilon again (the kind has no cells; the bound of one sketch is [[FreqPlan.bound]](0)). */
  def cellEpsilon: Double = epsilon

  private[frequent] var keyType: Int = FreqKeys.Unset
  private[frequent] var dict: KeyDict = null
  private[frequent] val scales = ArrayBuffer[Scale]()

  def keyTypeName: String = FreqKeys.name(keyType)
  /** The key type's code ([[FreqKeys]]; Unset while empty). */
  def keyTypeCode: Int = keyType
  def scaleCount: Int = { flush(); scales.size }
  /** Entries and partial counts held, over every scale. */
  def storedEntries: Long = { flush(); storedNow }
  private[frequent] def storedNow: Long = scales.iterator.map(s => s.size.toLong + s.liveResiduals).sum
  /** Distinct keys held. */
  def keysHeld: Int = { flush(); if (dict == null) 0 else referencedKeys().count(identity) }

  /** Marks (by id) the keys an entry, a partial count or a pending row refers to. */
  private[frequent] def referencedKeys(): Array[Boolean] = {
    val m = new Array[Boolean](if (dict == null) 0 else dict.capacity)
    scales.foreach { sc =>
      var i = sc.start
      while (i < sc.end) { if (sc.ekey(i) != Scale.Total) m(sc.ekey(i)) = true; i += 1 }
      var j = 0
      while (j < sc.rn) { m(sc.rKey(j)) = true; j += 1 }
    }
    var i = 0
    while (i < pn) { m(pId(i)) = true; i += 1 }
    m
  }

  // the dictionary is swept once it holds twice the keys it held after the last sweep
  private var sweepAt = 4096

  private def collectKeys(): Unit = if (dict != null && dict.size > sweepAt) {
    dict.sweep(referencedKeys())
    sweepAt = 2 * dict.size + 4096
  }

  /** q 2^l units, saturating at Long.MaxValue (weights may approach 2^63). */
  private[frequent] def horizon(l: Int): Long = if (plan.q > (Long.MaxValue >> l)) Long.MaxValue else plan.q << l

  private[frequent] def setKeyType(t: Int): Unit = {
    keyType = FreqKeys.record(keyType, t)
    if (dict == null) dict = new KeyDict(FreqKeys.isBytes(keyType))
  }

  // ---- adds -------------------------------------------------------------------------------------
  // One row: `key` with weight `v` at `ts` (non-decreasing). The first key fixes the sketch's key type
  // (BIGINT, INT, DOUBLE, STRING or BINARY); a key of another type, an earlier timestamp or a negative
  // weight is refused with a SketchException naming it.

  /** Fixes the key type to INT, as `top_k_agg` over an INT column does with its first row: integer
    * keys added later are INT keys (refused outside 32 bits), and the sketch merges with INT sketches.
    * A sketch that holds keys of another type refuses it.
    */
  def declareIntKeys(): Unit = setKeyType(FreqKeys.Int)

  /** Adds a BIGINT key. */
  def addKey(key: Long, ts: Long, v: Long): Unit = { checkAdd(ts, v); setKeyType(FreqKeys.BigInt); addId(dict.idOfLong(key), ts, v) }
  /** Adds an INT key. */
  def addInt(key: Int, ts: Long, v: Long): Unit = { checkAdd(ts, v); setKeyType(FreqKeys.Int); addId(dict.idOfLong(key.toLong), ts, v) }
  /** Adds a DOUBLE key (-0.0 counts as 0.0). */
  def addDouble(key: Double, ts: Long, v: Long): Unit = {
    checkAdd(ts, v); setKeyType(FreqKeys.Double); addId(dict.idOfLong(FreqKeys.doubleBits(key)), ts, v)
  }
  /** Adds a STRING key (kept exactly, as UTF-8). */
  def addKey(key: String, ts: Long, v: Long): Unit = {
    SketchException.require(key != null, "a frequent-items key must not be null")
    addBytes(key.getBytes(StandardCharsets.UTF_8), FreqKeys.Str, ts, v)
  }
  /** Adds a BINARY key (a copy is kept). */
  def addKey(key: Array[Byte], ts: Long, v: Long): Unit = {
    SketchException.require(key != null, "a frequent-items key must not be null")
    addBytes(key.clone(), FreqKeys.Binary, ts, v)
  }

  /** Adds a key of type `t` held as 64 bits (BIGINT, INT, or DOUBLE as [[FreqKeys.doubleBits]]). */
  private[frequent] def addBits(t: Int, bits: Long, ts: Long, v: Long): Unit = { checkAdd(ts, v); addId(idOfBits(t, bits), ts, v) }

  /** Adds a STRING or BINARY key (type `t`) whose array the sketch may keep. */
  private[frequent] def addBytes(b: Array[Byte], t: Int, ts: Long, v: Long): Unit =
    addBytes(b, Hashing.fingerprintBytes(b), t, ts, v)

  /** [[addBytes]] of a key whose [[Hashing.fingerprintBytes]] is `h`. */
  private[frequent] def addBytes(b: Array[Byte], h: Long, t: Int, ts: Long, v: Long): Unit = { checkAdd(ts, v); addId(idOfBytes(b, h, t), ts, v) }

  // Rows not yet given to the scales: they go in batches, scale by scale (each scale's arrays stay
  // in cache), with each scale's window and horizon rules applied row by row, so the state is the
  // one adding row by row gives. Pending rows hold a reference to their key.
  private val pTs = new Array[Long](FrequentSketch.BatchRows)
  private val pId = new Array[Int](FrequentSketch.BatchRows)
  private val pW = new Array[Long](FrequentSketch.BatchRows)
  private var pn = 0

  private def addId(id: Int, ts: Long, v: Long): Unit = {
    // Long.MinValue is the drop mark of a scale that never dropped (Scale.dropped)
    if (ts == Long.MinValue) failMinTs()
    if (v > 0) { pTs(pn) = ts; pId(pn) = id; pW(pn) = v; pn += 1 }
    noteAdd(ts, v)
    if (pn == pTs.length) flush()
  }

  /** Gives the pending rows to every scale, then applies the window rule at the last timestamp (a
    * row of weight 0 moves the clock without reaching the scales).
    */
  private[frequent] def flush(): Unit = {
    flushRows()
    if (!spec.unbounded && !isEmpty && scales.nonEmpty) {
      val lo = Windows.lowerBound(_lastTs, spec.window)
      if (lo > Long.MinValue) scales.foreach(_.dropWhile(lo - 1))
    }
  }

  private def flushRows(): Unit = if (pn > 0) {
    if (scales.isEmpty) scales += new Scale(1L, plan.k)
    feed(pTs, pId, pW, pn, new Array[Int](FrequentSketch.MaxScales + 1))
    pn = 0
    collectKeys()
  }

  /** Gives rows [0, n) of time-sorted arrays (weights above 0) to the scales, scale `l` from row
    * `from(l)` on, each scale applying its window and horizon rules row by row.
    */
  private def feed(ts: Array[Long], ids: Array[Int], ws: Array[Long], n: Int, from: Array[Int]): Unit = {
    var l = 0
    while (l < scales.size) {
      val sc = scales(l); val h = horizon(l)
      var i = from(l)
      while (i < n) {
        sc.addKey(ids(i), ts(i), ws(i))
        sc.addTotal(ts(i), ws(i))
        if (!spec.unbounded) {
          val lo = Windows.lowerBound(ts(i), spec.window)
          if (lo > Long.MinValue) sc.dropWhile(lo - 1)
        }
        horizonRule(l, h, i, from)
        i += 1
      }
      l += 1
    }
  }

  /** The dictionary id of a key of type `t` held as 64 bits (see [[addBits]]). */
  private[frequent] def idOfBits(t: Int, bits: Long): Int = { setKeyType(t); dict.idOfLong(bits) }

  /** The dictionary id of a STRING or BINARY key (type `t`) whose array the sketch may keep, with
    * [[Hashing.fingerprintBytes]] `h`.
    */
  private[frequent] def idOfBytes(b: Array[Byte], h: Long, t: Int): Int = {
    SketchException.require(b.length <= FreqKeys.MaxKeyBytes, s"a frequent-items key must be at most ${FreqKeys.MaxKeyBytes} bytes, got ${b.length}")
    setKeyType(t); dict.idOfBytes(b, h)
  }

  /** -2^63 is the drop mark of a scale that never dropped ([[Scale.dropped]]): no row takes it. */
  private def failMinTs(): Nothing = throw new SketchException("a frequent-items sketch takes timestamps above -2^63, got -2^63")

  /** Checks rows [from, until) of a time-sorted batch (timestamps, weights) before [[addSortedIds]]:
    * a refused batch leaves the sketch as it was.
    */
  private[frequent] def checkSorted(ts: Array[Long], ws: Array[Long], from: Int, until: Int): Unit = {
    checkBatch(ts, ws, from, until)
    if (until > from && ts(from) == Long.MinValue)
      failMinTs()
  }

  /** Whether [[addSortedIds]] takes a sorted batch of `rows` rows: an empty sketch takes a batch of
    * [[FrequentSketch.BatchRows]] rows or more at once. Other batches go row by row, each key looked
    * up as its row is added (a sweep of the dictionary between rows keeps only the keys held).
    */
  private[frequent] def takesSortedBatch(rows: Int): Boolean =
    isEmpty && pn == 0 && scales.isEmpty && rows >= FrequentSketch.BatchRows

  /** Adds rows [from, until) of a time-sorted batch checked by [[checkSorted]], row `i`'s key as the
    * dictionary id `ids(i - from)`, into a sketch that [[takesSortedBatch]] (no sweep of the
    * dictionary runs before every row is in). Scale by scale (docs/design/windowed-top-k.md,
    * "Structure"): the coarsest scale, whose horizon holds the batch's weight, takes every row; each
    * finer scale `l` takes the rows from the newest timestamp at which the batch's rows from it on
    * weigh at least its horizon `H_l`, with its drop mark just before that timestamp.
    */
  private[frequent] def addSortedIds(ids: Array[Int], ts: Array[Long], ws: Array[Long], from: Int, until: Int): Unit = {
    SketchException.require(takesSortedBatch(until - from), "a frequent-items sketch takes a sorted batch only when empty")
    // the rows of weight above 0: the arrays given when they are all such rows from index 0 (the
    // scales only read them, before this returns), else copies
    var n = 0
    var total = 0L
    var i = from
    while (i < until) { if (ws(i) > 0) { n += 1; total += ws(i) }; i += 1 }
    val all = from == 0 && n == until
    val bTs = if (all) ts else new Array[Long](n)
    val bId = if (all) ids else new Array[Int](n)
    val bW = if (all) ws else new Array[Long](n)
    if (!all) {
      n = 0; i = from
      while (i < until) { if (ws(i) > 0) { bTs(n) = ts(i); bId(n) = ids(i - from); bW(n) = ws(i); n += 1 }; i += 1 }
    }
    noteBatch(ts, ws, from, until)
    if (n > 0) {
      var coarsest = 0
      while (horizon(coarsest) < total) coarsest += 1
      SketchException.require(coarsest < FrequentSketch.MaxScales, s"a frequent-items sketch holds at most ${FrequentSketch.MaxScales} scales")
      val starts = new Array[Int](FrequentSketch.MaxScales + 1)
      // walking back from the newest row: scale l starts at the first timestamp boundary where the
      // rows after it weigh H_l or more (scales below the coarsest always find one, at row 0 at last)
      var l = 0; var suffix = 0L
      i = n - 1
      while (i >= 0 && l < coarsest) {
        suffix += bW(i)
        if (i == 0 || bTs(i - 1) < bTs(i)) while (l < coarsest && suffix >= horizon(l)) { starts(l) = i; l += 1 }
        i -= 1
      }
      l = 0
      while (l <= coarsest) {
        val sc = new Scale(1L << l, plan.k)
        if (starts(l) > 0) sc.dropped = bTs(starts(l)) - 1
        // room for what the scale holds when its rows weigh 1 (it would grow to it by doubling): a key
        // entry and a total entry per lambda rows it takes, k entries of carried units, and at most
        // 2q + 2k + 1 in all ("Size"); heavier rows may make it grow past this
        val rows = (n - starts(l)).toLong
        sc.reserve(math.min(2L * ((rows + sc.lambda - 1) / sc.lambda) + plan.k + 2, 2L * plan.q + 2L * plan.k + 2).toInt)
        scales += sc
        l += 1
      }
      feed(bTs, bId, bW, n, starts)
    }
    flush()
    collectKeys()
  }

  /** The horizon rule of scale `l` after row `i`: before the coarsest scale first drops, a copy of it
    * becomes the next scale, which takes the rows after `i` (and the rule at row `i` itself).
    */
  private def horizonRule(l: Int, h: Long, i: Int, from: Array[Int]): Unit = {
    val sc = scales(l)
    while (sc.overHorizon(h)) {
      if (l == scales.size - 1) {
        SketchException.require(l < FrequentSketch.MaxScales - 1, s"a frequent-items sketch holds at most ${FrequentSketch.MaxScales} scales")
        scales += sc.copyAs(sc.lambda * 2)
        from(l + 1) = i + 1
        horizonRule(l + 1, horizon(l + 1), i, from)
      }
      sc.dropOldest()
    }
  }

  /** Window rule, then the horizon rule on every scale (a scale is added before the coarsest one
    * first drops an entry).
    */
  private[frequent] def maintain(): Unit = if (!isEmpty && scales.nonEmpty) {
    if (!spec.unbounded) {
      val lo = Windows.lowerBound(_lastTs, spec.window)
      if (lo > Long.MinValue) scales.foreach(_.dropWhile(lo - 1))
    }
    var l = 0
    while (l < scales.size) {
      val s = scales(l)
      val h = horizon(l)
      while (s.overHorizon(h)) {
        if (l == scales.size - 1) {
          SketchException.require(l < FrequentSketch.MaxScales - 1, s"a frequent-items sketch holds at most ${FrequentSketch.MaxScales} scales")
          scales += s.copyAs(s.lambda * 2)
        }
        s.dropOldest()
      }
      l += 1
    }
  }

  // ---- queries ----------------------------------------------------------------------------------

  /** The first timestamp of the query range, or None for an empty range. */
  private def rangeStart(range: java.lang.Long, now: java.lang.Long): Option[Long] = {
    val lo = lowerBound(range, now)
    if (lo == null) None else Some(lo.longValue)
  }

  /** The finest scale holding every entry at or after `t0`. */
  private[frequent] def scaleFor(t0: Long): Scale = {
    var l = 0
    // a scale that never dropped (drop mark Long.MinValue) covers every range, the unbounded one too
    while (l < scales.size && scales(l).dropped != Long.MinValue && scales(l).dropped >= t0) l += 1
    if (l == scales.size) throw new IllegalStateException(s"no scale covers $t0") // the coarsest never drops by horizon
    scales(l)
  }

  /** The weight of (now - range, now]; null range = the window, null now = the last timestamp. */
  def rangeCount(range: java.lang.Long, now: java.lang.Long): RangeCount = { flush(); countOf(range, now) }

  private def countOf(range: java.lang.Long, now: java.lang.Long): RangeCount = rangeStart(range, now) match {
    case None => RangeCount(0.0, 0L, 0L)
    case Some(_) if scales.isEmpty => RangeCount(0.0, 0L, 0L)
    case Some(t0) => val (lo, hi, _) = scaleFor(t0).totals(t0); RangeCount((lo.toDouble + hi.toDouble) / 2.0, lo, hi)
  }

  /** Frequency of one key (given as a Long, Integer, Double, String or byte array) in (now - range, now]. */
  def estimate(key: Any, range: java.lang.Long, now: java.lang.Long): FrequentItem = {
    flush()
    val t0 = rangeStart(range, now)
    if (t0.isEmpty || scales.isEmpty) return FrequentItem(key, 0.0, 0L, 0L)
    val s = scaleFor(t0.get)
    val dec = s.totals(t0.get)._3
    lookup(key) match {
      case -1 => FrequentItem(key, dec / 2.0, 0L, dec)
      case id =>
        val (lo, hi) = s.keyBound(id, t0.get)
        val up = satAdd(hi, dec)
        FrequentItem(dict.value(id, keyType), (lo.toDouble + up.toDouble) / 2.0, lo, up)
    }
  }

  /** The id of a query key, or -1 when the sketch holds no such key; a key of another type is refused. */
  private def lookup(key: Any): Int = {
    if (dict == null) return -1
    val bits: Option[Long] = key match {
      case x: java.lang.Long if keyType == FreqKeys.BigInt || keyType == FreqKeys.Int => Some(x.longValue)
      case x: java.lang.Integer if keyType == FreqKeys.BigInt || keyType == FreqKeys.Int => Some(x.longValue)
      case x: java.lang.Double if keyType == FreqKeys.Double => Some(FreqKeys.doubleBits(x.doubleValue))
      case _: String | _: Array[Byte] => None
      case other => throw new SketchException(s"this frequent-items sketch holds ${FreqKeys.name(keyType)} keys; cannot look up ${describe(other)}")
    }
    bits match {
      case Some(b) => findLong(b)
      case None =>
        val b = key match {
          case s: String if keyType == FreqKeys.Str => s.getBytes(StandardCharsets.UTF_8)
          case a: Array[Byte] if keyType == FreqKeys.Binary => a
          case other => throw new SketchException(s"this frequent-items sketch holds ${FreqKeys.name(keyType)} keys; cannot look up ${describe(other)}")
        }
        findBytes(b)
    }
  }

  private def describe(x: Any): String = x match {
    case null => "a null key"
    case _: String => "a string key"
    case _: Array[Byte] => "a binary key"
    case o => s"a ${o.getClass.getSimpleName} key"
  }

  private def findLong(v: Long): Int = dict.findLong(v)
  private def findBytes(b: Array[Byte]): Int = dict.findBytes(b)

  /** Every key held with its certified interval in the range, and the range's weight. */
  private def items(t0: Long): (Seq[FrequentItem], RangeCount) = {
    val s = scaleFor(t0)
    val (nlo, nhi, dec) = s.totals(t0)
    val cap = dict.capacity
    val lo = new Array[Long](cap); val hi = new Array[Long](cap); val seen = new Array[Boolean](cap)
    s.keyBounds(t0, lo, hi, seen)
    val ids = ArrayBuffer[Int]()
    var id = 0
    while (id < cap) { if (seen(id)) ids += id; id += 1 }
    // largest estimate first; ties by upper bound, then by key (answers do not depend on ids)
    val order = ids.sortWith { (a, b) =>
      val ea = lo(a).toDouble + hi(a).toDouble; val eb = lo(b).toDouble + hi(b).toDouble // (sums of weights up to 2^63 overflow a Long)
      if (ea != eb) ea > eb else if (hi(a) != hi(b)) hi(a) > hi(b) else dict.compareKeys(a, b) < 0
    }
    val out = order.map { i => val up = satAdd(hi(i), dec); FrequentItem(dict.value(i, keyType), (lo(i).toDouble + up.toDouble) / 2.0, lo(i), up) }
    (out.toSeq, RangeCount((nlo.toDouble + nhi.toDouble) / 2.0, nlo, nhi))
  }

  /** The `k` keys of largest estimate in (now - range, now], largest first. A key held by no
    * entry has an upper bound of the range's decrement amount and is not listed.
    */
  def topK(k: Int, range: java.lang.Long, now: java.lang.Long): Seq[FrequentItem] = {
    SketchException.require(k >= 1, s"k must be positive, got $k")
    flush()
    rangeStart(range, now) match {
      case Some(t0) if scales.nonEmpty => items(t0)._1.take(k)
      case _ => Seq.empty
    }
  }

  /** The keys whose estimate is at least phi times the estimated weight of (now - range, now]:
    * every key of weight >= (phi + e) n is listed and none of weight < (phi - e) n, e the
    * [[FrequentKind.errorBound]] and n the range's weight.
    */
  def heavyHitters(phi: Double, range: java.lang.Long, now: java.lang.Long): Seq[FrequentItem] = {
    SketchException.require(!phi.isNaN && phi > 0.0 && phi <= 1.0, s"phi must be in (0, 1], got $phi")
    flush()
    rangeStart(range, now) match {
      case Some(t0) if scales.nonEmpty =>
        val (xs, n) = items(t0)
        xs.filter(x => x.estimate >= phi * n.estimate && x.upper > 0)
      case _ => Seq.empty
    }
  }

  /** The certified error at this sketch's merge depth (a fraction of the range's weight). */
  def errorBound: Double = plan.bound(mergeDepth)

  def diffs(o: FrequentSketch): Seq[String] = {
    val b = Seq.newBuilder[String] ++= commonDiffs(o)
    if (plan.folds != o.plan.folds)
      b += s"body version ${if (plan.folds) "2 or 3" else "1"} vs ${if (o.plan.folds) "2 or 3" else "1"} (a sketch of body " +
        "version 1, from an older release, merges only with sketches of that version)"
    else if (plan != o.plan) b += s"plan $plan vs ${o.plan}"
    b.result()
  }

  /** An empty sketch with the parameters of this one. */
  private[frequent] def emptyLike(): FrequentSketch = new FrequentSketch(spec, epsilon, plannedLevels, plan)

  private[frequent] def copyState(o: WindowSketch): Unit = copyStateFrom(o)
  private[frequent] def mergeState(inputs: Seq[WindowSketch], contributing: Seq[WindowSketch], clusters: Seq[Seq[WindowSketch]]): Unit =
    mergeStateFrom(inputs, contributing, clusters)
}

object FrequentSketch {
  /** Most scales a sketch holds (block sizes 2^0 to 2^62). */
  final val MaxScales = 63
  /** Rows buffered before they go to the scales. */
  final val BatchRows = 1024

  /** A new sketch whose answers are within `epsilon` of the range's weight after `levels` merge levels. */
  def create(spec: WindowSpec, epsilon: Double, levels: Int = 0): FrequentSketch =
    new FrequentSketch(spec, epsilon, levels, FreqPlan.of(epsilon, levels))

  /** Order-preserving n-way merge (count-based sketches refused): docs/design/windowed-top-k.md, "Merges". */
  def merge(xs: Seq[FrequentSketch]): FrequentSketch = {
    WindowSketch.checkMergeable(xs, "frequent-items merge")
    FrequentMerge.merge(xs, dropBehind = true)
  }

  /** Merge of partial sketches of one stream (count-based windows allowed). */
  def mergeSameStream(xs: Seq[FrequentSketch]): FrequentSketch = {
    SketchException.require(xs.nonEmpty, "frequent-items merge needs at least one sketch")
    FrequentMerge.merge(xs, dropBehind = false)
  }
}
