package ecmsketch.ecm

import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}
import java.nio.ByteBuffer

import ecmsketch.core.{CellOps, CellParams, KeyType, KeyedSketch, SketchException, WindowCounter, WindowSketch,
  WindowSpec}
import ecmsketch.hash.Hashing

/** Parameters of an ECM-sketch (all of them go into the binary header).
  * @param maxArrivals U of deterministic-wave cells (an upper bound on the weight in any window);
  *                    CellParams.Unbounded otherwise
  */
final case class EcmParams(spec: WindowSpec, plan: EcmPlan, seed: Long, maxArrivals: Long = CellParams.Unbounded) {
  def width: Int = plan.width
  def depth: Int = plan.depth
  def cellKind: Int = plan.cellKind
}

/** ECM-sketch (Papapetrou, Garofalakis, Deligiannakis, PVLDB 2012): a Count-Min array of width w and
  * depth d whose cells are sliding-window counters. Answers point queries f(x, r), inner products,
  * self-joins (F2) and the total count over any range r <= N, and merges order-preservingly.
  *
  * Guarantees (with e = the cell error at the current merge depth, [[cellBound]]; A = ||a_r||_1):
  *  - point:  |f^ - f| <= max(e, (1+e) eps_cm) * A with probability >= 1 - delta;
  *  - inner product of a and b: |est - a.b| <= max(P, (1+P) eps_cm) * A * B, P = (1+e_a)(1+e_b) - 1;
  *  - total:  |est - A| <= e * A (deterministic).
  */
final class EcmSketch private (val params: EcmParams, val cellOps: CellOps,
                               private[ecmsketch] val cells: Array[WindowCounter]) extends WindowSketch with KeyedSketch {
  def kind: EcmKind.type = EcmKind
  import EcmSketch._

  private val coeffs = Hashing.rowCoefficients(params.seed, params.depth)
  private[ecmsketch] var _keyType: Int = KeyType.Unset
  /** Salt of the event ids of randomized-wave cells: cell i is created with salt
    * [[EcmSketch.cellSalt]](eventSalt, i) (docs/design/rwave.md, "Event ids"). Random for a new sketch
    * unless set ([[setEventSalt]]; the Spark layer derives it from the partition and the rows);
    * derived from the inputs for merges and from the bytes for decoded sketches.
    */
  private[ecmsketch] var eventSalt: Long = java.util.concurrent.ThreadLocalRandom.current().nextLong()

  /** Sets the salt from which cells created from now on derive their event ids: sketches built
    * with the same salt from the same rows are byte-identical. Streams whose sketches will be merged
    * need different salts (or they share event ids, and the merge counts their common ids once).
    */
  def setEventSalt(salt: Long): Unit = eventSalt = salt
  @inline private def newCell(idx: Int): WindowCounter = cellOps.create(cellSalt(eventSalt, idx))

  def spec: WindowSpec = params.spec
  def plan: EcmPlan = params.plan
  def epsilon: Double = plan.epsilon
  def delta: Double = plan.delta
  def cellEpsilon: Double = plan.cellEpsilon
  def plannedLevels: Int = plan.levels
  val width: Int = params.width
  val depth: Int = params.depth
  def seed: Long = params.seed
  def keyType: Int = _keyType
  def cellKind: Int = params.cellKind
  def cellName: String = CellKinds.nameOf(params.cellKind)
  /** max_arrivals of deterministic-wave cells (CellParams.Unbounded for other cells or when not given). */
  def maxArrivals: Long = params.maxArrivals

  /** The cell error at the current merge depth (randomized-wave merges are lossless). */
  override def cellBound: Double = cellOps.errorBound(mergeDepth)

  /** Column of fingerprint `fp` in row `j`. */
  @inline def column(fp: Long, j: Int): Int = Hashing.column(fp, coeffs(2 * j), coeffs(2 * j + 1), params.width)

  // ------------------------------------------------------------------ updates

  /** Adds weight `v` for the key with fingerprint `fp` at `ts` (non-decreasing). */
  def addFingerprint(fp: Long, ts: Long, v: Long): Unit = {
    checkAdd(ts, v)
    val w = width
    val x = Hashing.modP(fp)
    var j = 0
    while (j < depthCache) {
      val idx = j * w + Hashing.columnOfReduced(x, coeffs(2 * j), coeffs(2 * j + 1), w)
      var c = cells(idx)
      if (c == null) { c = newCell(idx); cells(idx) = c }
      if (v == 1L) c.add(ts) else c.add(ts, v)
      j += 1
    }
    noteAdd(ts, v)
  }
  private[this] val depthCache = params.depth

  /** Adds rows `[from, until)` of parallel arrays whose timestamps are sorted (non-decreasing and
    * not before the last timestamp). The result is identical to adding them one by one, but the
    * work is grouped cell by cell (a counting sort on the cell index keeps each cell's rows in time
    * order), so each cell's histogram stays in cache while it is updated.
    */
  def addSortedBatch(fps: Array[Long], ts: Array[Long], vs: Array[Long], from: Int, until: Int): Unit = {
    val n = until - from
    if (n <= 0) return
    if (n < 256) { var i = from; while (i < until) { addFingerprint(fps(i), ts(i), vs(i)); i += 1 }; return }
    var sum = 0L
    var i = from
    var prev = _lastTs
    var seen = _hasRows
    val strict = spec.countWindow
    var units = true
    while (i < until) {
      val t = ts(i); val v = vs(i)
      if (t < prev || (strict && seen && t == prev) || v < 0 || sum > Long.MaxValue - v || _count > Long.MaxValue - sum - v) {
        // fall back to the checked path for the exact error message
        var k = from; while (k < until) { addFingerprint(fps(k), ts(k), vs(k)); k += 1 }; return
      }
      units &= v == 1L
      sum += v; prev = t; seen = true; i += 1
    }
    val d = depthCache; val w = width
    val m = n * d
    // scratch space shared by the sketches of this thread (many small sketches, e.g. one per group
    // of a GROUP BY, would otherwise each keep arrays sized for their largest batch)
    val sc = EcmSketch.batchScratch.get().reserve(m, w * d + 1, n)
    val cellOf = sc.cell; val order = sc.order; val counts = sc.counts; val run = sc.ts
    java.util.Arrays.fill(counts, 0, w * d + 1, 0)
    i = 0
    while (i < n) {
      val x = Hashing.modP(fps(from + i))
      var j = 0
      while (j < d) {
        val c = j * w + Hashing.columnOfReduced(x, coeffs(2 * j), coeffs(2 * j + 1), w)
        cellOf(i * d + j) = c
        counts(c + 1) += 1
        j += 1
      }
      i += 1
    }
    var c = 0
    while (c < w * d) { counts(c + 1) += counts(c); c += 1 }
    if (units) { addUnitsByCell(ts, from, n, sc); return }
    // stable placement: entries of one cell keep their row (time) order
    var e = 0
    i = 0
    while (i < n) {
      var j = 0
      while (j < d) { val cell = cellOf(e); order(counts(cell)) = i; counts(cell) += 1; e += 1; j += 1 }
      i += 1
    }
    // counts(c) is now the end of cell c's entries; walk them cell by cell
    var start = 0
    c = 0
    while (c < w * d) {
      val end = counts(c)
      if (end > start) {
        val cell = cellOrNew(c)
        // runs of unit weights go to the cell as one sorted run (the same state as one by one)
        var units = 0
        var k = start
        while (k < end) {
          val row = from + order(k)
          val v = vs(row)
          if (v == 1L) { run(units) = ts(row); units += 1 }
          else {
            if (units > 0) { cell.addSorted(run, units); units = 0 }
            cell.add(ts(row), v)
          }
          k += 1
        }
        if (units > 0) cell.addSorted(run, units)
      }
      start = end
      c += 1
    }
    finishBatch(ts, from, until, sum)
  }

  /** The unit-weight case of [[addSortedBatch]]: each row's timestamp is written straight to its d
    * cells' places (counts(c) is where cell c's entries start), so that every cell receives one
    * sorted run, read in place.
    */
  private def addUnitsByCell(ts: Array[Long], from: Int, n: Int, sc: EcmSketch.BatchScratch): Unit = {
    val d = depthCache; val nc = width * d
    val cellOf = sc.cell; val counts = sc.counts; val byCell = sc.byCell
    var e = 0
    var i = 0
    while (i < n) {
      val t = ts(from + i)
      var j = 0
      while (j < d) { val cell = cellOf(e); byCell(counts(cell)) = t; counts(cell) += 1; e += 1; j += 1 }
      i += 1
    }
    // counts(c) is now the end of cell c's run
    var start = 0
    var c = 0
    while (c < nc) {
      val end = counts(c)
      if (end > start) {
        cellOrNew(c).addSorted(byCell, start, end)
      }
      start = end
      c += 1
    }
    finishBatch(ts, from, from + n, n.toLong)
  }

  /** Cell `c`, created (empty) if the sketch has none there yet. */
  @inline private def cellOrNew(c: Int): WindowCounter = {
    var cell = cells(c)
    if (cell == null) { cell = newCell(c); cells(c) = cell }
    cell
  }

  /** The sketch's clock, first timestamp and count after a batch of rows [from, until) of weight `sum`. */
  private def finishBatch(ts: Array[Long], from: Int, until: Int, sum: Long): Unit = {
    _hasRows = true
    if (ts(from) < _firstTs) _firstTs = ts(from)
    _lastTs = ts(until - 1)
    _count += sum
  }

  def add(key: Long, ts: Long, v: Long): Unit = { setKeyType(KeyType.Long); addFingerprint(Hashing.fingerprintLong(key), ts, v) }
  def add(key: String, ts: Long, v: Long): Unit = {
    SketchException.require(key != null, "key must not be null")
    setKeyType(KeyType.String); addFingerprint(Hashing.fingerprintString(key), ts, v)
  }
  def add(key: Array[Byte], ts: Long, v: Long): Unit = {
    SketchException.require(key != null, "key must not be null")
    setKeyType(KeyType.Binary); addFingerprint(Hashing.fingerprintBytes(key), ts, v)
  }

  def addKey(key: Long, ts: Long, v: Long): Unit = add(key, ts, v)
  def addKey(key: String, ts: Long, v: Long): Unit = add(key, ts, v)
  def addKey(key: Array[Byte], ts: Long, v: Long): Unit = add(key, ts, v)

  /** Records the key type on first use; a different type later is refused. */
  def setKeyType(t: Int): Unit = if (_keyType != t) _keyType = KeyType.record(_keyType, t)

  // ------------------------------------------------------------------ queries

  @inline private def cellEstimate(idx: Int, lo: Long): Double = {
    val c = cells(idx)
    if (c == null) 0.0 else c.estimateFrom(lo)
  }

  /** Point query for a fingerprint: min over rows of the cell estimates. */
  def pointFingerprint(fp: Long, range: java.lang.Long, now: java.lang.Long): Double = {
    val lo = lowerBound(range, now)
    if (lo == null) return 0.0
    val x: Long = lo
    var best = Double.PositiveInfinity
    var j = 0
    while (j < params.depth) {
      val e = cellEstimate(j * params.width + column(fp, j), x)
      if (e < best) best = e
      j += 1
    }
    best
  }

  def point(key: Long, range: java.lang.Long, now: java.lang.Long): Double =
    pointFingerprint(fingerprintFor(key), range, now)
  def point(key: String, range: java.lang.Long, now: java.lang.Long): Double =
    pointFingerprint(fingerprintFor(key), range, now)
  def point(key: Array[Byte], range: java.lang.Long, now: java.lang.Long): Double =
    pointFingerprint(fingerprintFor(key), range, now)

  /** Fingerprint of an integral query key, cast losslessly to the sketch's key type or refused. */
  def fingerprintFor(key: Long): Long = _keyType match {
    case KeyType.Unset | KeyType.Long => Hashing.fingerprintLong(key)
    case KeyType.String => Hashing.fingerprintString(java.lang.Long.toString(key))
    case _ => throw keyMismatch("bigint")
  }

  def fingerprintFor(key: String): Long = {
    SketchException.require(key != null, "key must not be null")
    _keyType match {
      case KeyType.Unset | KeyType.String | KeyType.Binary => Hashing.fingerprintString(key)
      case KeyType.Long =>
        val v = try java.lang.Long.parseLong(key) catch { case _: NumberFormatException => throw keyMismatch("string", Some(key)) }
        if (java.lang.Long.toString(v) != key) throw keyMismatch("string", Some(key))
        Hashing.fingerprintLong(v)
      case _ => throw keyMismatch("string")
    }
  }

  def fingerprintFor(key: Array[Byte]): Long = {
    SketchException.require(key != null, "key must not be null")
    _keyType match {
      case KeyType.Unset | KeyType.Binary => Hashing.fingerprintBytes(key)
      case KeyType.String =>
        if (!validUtf8(key)) throw new SketchException(
          "key type mismatch: this sketch holds string keys and the binary query key is not valid UTF-8, so no string key can match it")
        Hashing.fingerprintBytes(key)
      case _ => throw keyMismatch("binary")
    }
  }

  private def keyMismatch(givenType: String, value: Option[String] = None): SketchException =
    new SketchException(
      s"key type mismatch: this sketch holds ${KeyType.name(_keyType)} keys and the query key is $givenType" +
        value.map(v => s" '$v', which is not the canonical text of a ${KeyType.name(_keyType)}").getOrElse("") +
        s"; cast the key to ${KeyType.name(_keyType)}")

  /** Refuses queries whose guarantee needs deterministic cells. */
  private def requireDeterministic(what: String): Unit =
    if (!plan.deterministicCells)
      throw new SketchException(
        s"$what needs deterministic cells: this sketch has 'rwave' (randomized-wave) cells, whose estimates carry no guarantee " +
          "for sums over many cells (ECM-sketch §7.2; a row sum or an inner product would need every cell right at once). " +
          "Point queries work; build the sketch with cell => 'eh' or 'dwave' for totals, inner products and self-joins")

  /** Estimated total weight in the range, ||a_r||_1: the mean of the row sums (each within e). */
  def total(range: java.lang.Long, now: java.lang.Long): Double = {
    requireDeterministic("the total")
    val lo = lowerBound(range, now)
    if (lo == null) return 0.0
    val x: Long = lo
    var sum = 0.0
    var i = 0
    val n = params.width * params.depth
    while (i < n) { sum += cellEstimate(i, x); i += 1 }
    sum / params.depth
  }

  /** Inner product estimate of this sketch and `other` over the range: min over rows of sum_i E_a E_b. */
  def innerProduct(other: EcmSketch, range: java.lang.Long, now: java.lang.Long): Double = {
    SketchException.require(other != null, "the other sketch must not be null")
    requireDeterministic(if (other eq this) "the self-join" else "the inner product")
    other.requireDeterministic("the inner product")
    checkJoinable(other)
    if (_keyType != KeyType.Unset && other._keyType != KeyType.Unset && _keyType != other._keyType &&
        !(Set(_keyType, other._keyType) == Set(KeyType.String, KeyType.Binary)))
      throw new SketchException(s"key type mismatch: inner product of a ${KeyType.name(_keyType)}-keyed and a ${KeyType.name(other._keyType)}-keyed sketch")
    val t: java.lang.Long = if (now == null) java.lang.Long.valueOf(math.max(lastTs, other.lastTs)) else now
    // one range for both sketches: by default the smaller of the two windows
    val r: java.lang.Long = if (range == null) java.lang.Long.valueOf(math.min(spec.window, other.spec.window)) else range
    val lo = lowerBound(r, t)
    other.lowerBound(r, t)
    if (lo == null) return 0.0
    val x: Long = lo
    var best = Double.PositiveInfinity
    var j = 0
    while (j < params.depth) {
      var s = 0.0
      var i = 0
      val base = j * params.width
      while (i < params.width) {
        val a = cellEstimate(base + i, x)
        if (a != 0.0) s += a * other.cellEstimate(base + i, x)
        i += 1
      }
      if (s < best) best = s
      j += 1
    }
    best
  }

  /** Self-join size F2 = sum_x f(x, r)^2. */
  def selfJoin(range: java.lang.Long, now: java.lang.Long): Double = innerProduct(this, range, now)

  private def checkJoinable(o: EcmSketch): Unit = {
    val d = Seq.newBuilder[String]
    if (width != o.width) d += s"width $width vs ${o.width}"
    if (depth != o.depth) d += s"depth $depth vs ${o.depth}"
    if (seed != o.seed) d += s"seed $seed vs ${o.seed}"
    if (spec.countWindow != o.spec.countWindow) d += s"window_type ${spec.typeName} vs ${o.spec.typeName}"
    if (spec.tsMicros != o.spec.tsMicros) d += "timestamp unit"
    val r = d.result()
    if (r.nonEmpty) throw new SketchException(s"cannot combine sketches with different hashing or windows: ${r.mkString(", ")}")
  }

  // ------------------------------------------------------------------ bounds

  /** Certified bound on |f^ - f| / ||a_r||_1 for point queries (probability >= 1 - delta). */
  def pointErrorBound: Double = { val e = cellBound; math.max(e, (1 + e) * plan.cmEpsilon) }

  /** Certified bound on |est - a.b| / (||a_r||_1 ||b_r||_1) for the inner product with `other`
    * (probability >= 1 - delta); with `other` = this, the self-join bound.
    */
  def innerProductErrorBound(other: EcmSketch): Double = {
    requireDeterministic("an inner-product bound")
    other.requireDeterministic("an inner-product bound")
    val p = (1 + cellBound) * (1 + other.cellBound) - 1
    math.max(p, (1 + p) * plan.cmEpsilon)
  }

  /** The bound for the query kind the sketch was planned for. */
  def errorBound: Double = plan.kind match {
    case QueryKind.Point => pointErrorBound
    case QueryKind.InnerProduct => innerProductErrorBound(this)
  }

  /** Certified relative bound of [[total]] (deterministic). */
  def totalErrorBound: Double = cellBound

  /** Moves every cell to the sketch's clock (cells not updated lately lag behind it), dropping what
    * lies wholly before the window; a cell left empty becomes null. No answer changes (queries have
    * now >= the last timestamp and ranges <= N), but the state becomes a function of the sketch's
    * contents: the encoder and every merge call it, so that merging sketch objects and merging
    * their bytes give the same bytes.
    */
  private[ecmsketch] def syncCells(): Unit = if (!isEmpty) {
    var i = 0
    val n = cells.length
    while (i < n) {
      val c = cells(i)
      if (c != null) { c.advanceTo(lastTs); if (c.isEmpty) cells(i) = null }
      i += 1
    }
  }

  def copy(): EcmSketch = EcmSketch.mergeUnchecked(Seq(this))

  def diffs(o: EcmSketch): Seq[String] = {
    val b = Seq.newBuilder[String]
    b ++= commonDiffs(o)
    if (width != o.width) b += s"width $width vs ${o.width}"
    if (depth != o.depth) b += s"depth $depth vs ${o.depth}"
    if (seed != o.seed) b += s"seed $seed vs ${o.seed}"
    if (delta != o.delta) b += s"delta $delta vs ${o.delta}"
    if (plan.kind != o.plan.kind) b += s"optimize_for ${plan.kind.name} vs ${o.plan.kind.name}"
    if (params.cellKind != o.params.cellKind) b += s"cell ${CellKinds.nameOf(params.cellKind)} vs ${CellKinds.nameOf(o.params.cellKind)}"
    else if (plan.cellDelta != o.plan.cellDelta) b += s"cell delta ${plan.cellDelta} vs ${o.plan.cellDelta}"
    b.result()
  }
}

object EcmSketch {
  /** Scratch space of [[EcmSketch.addSortedBatch]], one per thread (a batch never runs inside
    * another on the same thread). Arrays grow to the largest batch seen, up to [[BatchScratch.Keep]]
    * entries; a larger batch gets arrays of its own that are not kept.
    */
  private[ecm] final class BatchScratch {
    var cell: Array[Int] = new Array[Int](0)
    var order: Array[Int] = new Array[Int](0)
    var counts: Array[Int] = new Array[Int](0)
    var ts: Array[Long] = new Array[Long](0)
    /** Timestamps of a unit-weight batch grouped by cell (one entry per row and row of the array). */
    var byCell: Array[Long] = new Array[Long](0)
    def reserve(entries: Int, cells: Int, rows: Int): BatchScratch =
      if (entries > BatchScratch.Keep || cells > BatchScratch.Keep) {
        val t = new BatchScratch
        t.cell = new Array[Int](entries); t.order = new Array[Int](entries); t.counts = new Array[Int](cells); t.ts = new Array[Long](rows)
        t.byCell = new Array[Long](entries)
        t
      } else {
        if (cell.length < entries) { cell = new Array[Int](entries); order = new Array[Int](entries); byCell = new Array[Long](entries) }
        if (counts.length < cells) counts = new Array[Int](cells)
        if (ts.length < rows) ts = new Array[Long](rows)
        this
      }
  }
  private[ecm] object BatchScratch { final val Keep = 1 << 20 }
  private[ecm] val batchScratch: ThreadLocal[BatchScratch] = ThreadLocal.withInitial(() => new BatchScratch)

  /** Default hash seed: identical on every site unless the user picks another. */
  final val DefaultSeed: Long = Hashing.DefaultSeed

  /** Event-id salt of cell `idx` of a sketch with event salt `salt`. */
  @inline private[ecmsketch] def cellSalt(salt: Long, idx: Int): Long = Hashing.mix64(salt + 0x9E3779B97F4A7C15L * (idx + 1L))

  /** Event salt of a merge result: symmetric in the inputs (their order does not matter) and
    * different from every input's.
    */
  private def mergedSalt(sketches: Seq[EcmSketch]): Long = {
    var sum = 0L
    sketches.foreach { s => sum += Hashing.mix64(Hashing.mix64(s.eventSalt) + s._count) }
    Hashing.mix64(Hashing.mix64(sum ^ 0x6D65726765L) + sketches.size)
  }

  def create(spec: WindowSpec, plan: EcmPlan, seed: Long = DefaultSeed, maxArrivals: Long = CellParams.Unbounded): EcmSketch = {
    SketchException.require(maxArrivals > 0, s"max_arrivals must be positive, got $maxArrivals")
    SketchException.require(maxArrivals == CellParams.Unbounded || CellKinds.getOrFail(plan.cellKind).takesMaxArrivals,
      s"max_arrivals applies to ${CellKinds.all.filter(_.takesMaxArrivals).map(k => s"'${k.name}'").mkString(", ")} cells only, " +
        s"not '${CellKinds.nameOf(plan.cellKind)}'")
    val params = EcmParams(spec, plan, seed, maxArrivals)
    new EcmSketch(params, cellOpsFor(params), new Array[WindowCounter](plan.width * plan.depth))
  }

  /** Plans and creates a sketch: epsilon/delta are the bound the caller gets after `levels` merges. */
  def create(spec: WindowSpec, epsilon: Double, delta: Double, kind: QueryKind, levels: Int, seed: Long): EcmSketch =
    create(spec, Planner.plan(epsilon, delta, kind, levels), seed)

  /** The cell ops of the plan's cell kind, from the cell-kind registry. */
  private[ecmsketch] def cellOpsFor(p: EcmParams): CellOps =
    CellKinds.getOrFail(p.cellKind).cellOps(
      CellParams(p.plan.cellEpsilon, p.spec.window, p.seed, p.plan.cellDelta, p.maxArrivals))

  private[ecmsketch] def restore(params: EcmParams, cells: Array[WindowCounter]): EcmSketch =
    new EcmSketch(params, cellOpsFor(params), cells)

  private[ecm] def make(params: EcmParams, cellOps: CellOps, cells: Array[WindowCounter]): EcmSketch =
    new EcmSketch(params, cellOps, cells)

  /** Order-preserving n-way merge of sketches from many sites (ECM §5.3): cell-wise merge, one level
    * of depth for all inputs. Parameters and seed must be equal; count-based sketches are refused.
    * With `timeDisjoint` and cells that have a time-disjoint merge (EH), the inputs are merged in
    * clusters of overlapping time spans, and the clusters laid side by side cell by cell: the depth
    * is the deepest cluster's (docs/design/merging.md, "Time-disjoint merges"), so a roll-up of consecutive
    * periods costs no level.
    */
  def merge(sketches: Seq[EcmSketch], timeDisjoint: Boolean = true): EcmSketch = {
    WindowSketch.checkMergeable(sketches, "ecm merge")
    EcmMerge.mergeImpl(sketches, sameStream = false, timeDisjoint, sizeLimit = s => Planner.worstCaseBytes(s.spec, s.plan))
  }

  /** Merge of partial sketches of one stream (count windows allowed). */
  private[ecmsketch] def mergeUnchecked(sketches: Seq[EcmSketch]): EcmSketch = EcmMerge.mergeImpl(sketches, sameStream = true, timeDisjoint = false)

  /** Key type, clock and depth of a merged sketch; its cells then follow its clock (which is
    * serialized), so that a merge of sketch objects and a merge of their bytes give the same bytes.
    */
  private[ecm] def finishMerge(out: EcmSketch, keyType: Int, sketches: Seq[EcmSketch], contributing: Seq[EcmSketch],
                          clusters: Seq[Seq[EcmSketch]] = null): EcmSketch = {
    out._keyType = keyType
    out.eventSalt = mergedSalt(sketches)
    if (clusters == null) out.mergeStateFrom(sketches, contributing) else out.mergeStateFrom(sketches, contributing, clusters)
    if (!out.isEmpty) {
      val cells = out.cells
      var i = 0
      while (i < cells.length) { val c = cells(i); if (c != null) { c.advanceTo(out.lastTs); if (c.isEmpty) cells(i) = null }; i += 1 }
    }
    out
  }

  /** A fresh fine side run of `main`'s plan (Planner.sidePlan), or None when the plan has none. */
  private[ecmsketch] def sideOf(main: EcmSketch): Option[EcmSketch] =
    Planner.sidePlan(main.plan).map { p =>
      val s = create(main.spec, p, main.seed, main.maxArrivals)
      s._keyType = main._keyType
      s.eventSalt = Hashing.mix64(main.eventSalt ^ 0x73696465L) // "side"
      s
    }

  /** Merge of partial sketches of one stream whose plans differ at most in cell epsilon (and the
    * planned levels recorded with it), e.g. runs of `target`'s plan and its fine side runs, into
    * cells of `target`'s plan ("mixed" merge, docs/design/rows-in-any-order.md "Rows in any order"). The depth is
    * Bounds.mixedMergeDepth: the inputs' bounds expressed as a depth at the output's cell epsilon,
    * plus one. Inputs all of `target`'s plan merge as [[mergeUnchecked]] does.
    */
  private[ecmsketch] def mergeMixed(target: EcmSketch, sketches: Seq[EcmSketch]): EcmSketch = EcmMerge.mergeMixed(target, sketches)

  private[ecmsketch] def validUtf8(b: Array[Byte]): Boolean =
    try {
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b))
      true
    } catch { case _: CharacterCodingException => false }

}
