package ecmsketch.api

import ecmsketch.Families
import ecmsketch.asynchronous.AsyncSketch
import ecmsketch.core.{CellParams, Codec, CounterSketch, KeyType, KeyedSketch, SketchException,
  SketchKind, WindowSketch, WindowSpec}
import ecmsketch.ecm.{EcmSketch, Planner, QueryKind}
import ecmsketch.ecm.dyadic.{DyadicSketch, KeyEstimate, KeyTable}
import ecmsketch.decayed.{Decay, DecayedSketch}
import ecmsketch.frequent.{FreqPlan, FrequentItem, FrequentSketch, RangeCount}
import ecmsketch.quantile.QuantileSketch
import ecmsketch.dwave.DwSketch
import ecmsketch.rwave.DistinctSketch
import ecmsketch.hash.Hashing
import ecmsketch.eh.EhSketch

/** A small, Java-typed facade over the core for the Python package (JPype): primitive arrays in,
  * plain values out, no Scala defaults or collections in the signatures. Batches must be sorted by
  * timestamp (Python sorts them stably before calling).
  */
object PyApi {
  def spec(countWindow: Boolean, tsMicros: Boolean, window: Long): WindowSpec = WindowSpec(countWindow, tsMicros, window)

  /** An ECM-sketch with cells 'eh', 'dwave' or 'rwave'; maxArrivals <= 0 means unbounded. */
  def ecmCreateCell(countWindow: Boolean, tsMicros: Boolean, window: Long, epsilon: Double, delta: Double,
                    optimizeFor: String, mergeLevels: Int, seed: Long, cell: String, maxArrivals: Long): EcmSketch = {
    val kind = Planner.cellKind(cell)
    EcmSketch.create(spec(countWindow, tsMicros, window),
      Planner.plan(epsilon, delta, QueryKind.fromName(optimizeFor), mergeLevels, kind), seed, arrivals(maxArrivals))
  }

  /** An ECM-sketch planned for a memory budget (Planner.planWithin): the smallest certified bound whose
    * sketch can never serialize to more than maxBytes bytes.
    */
  def ecmCreateWithin(countWindow: Boolean, tsMicros: Boolean, window: Long, maxBytes: Long, delta: Double,
                      optimizeFor: String, mergeLevels: Int, seed: Long, cell: String): EcmSketch = {
    val sp = spec(countWindow, tsMicros, window)
    EcmSketch.create(sp, Planner.planWithin(maxBytes, delta, QueryKind.fromName(optimizeFor), mergeLevels, Planner.cellKind(cell), sp), seed)
  }

  private def arrivals(u: Long): Long = if (u <= 0) CellParams.Unbounded else u

  def dwCreate(countWindow: Boolean, tsMicros: Boolean, window: Long, epsilon: Double, mergeLevels: Int,
               maxArrivals: Long): DwSketch =
    DwSketch.create(spec(countWindow, tsMicros, window), epsilon, mergeLevels, arrivals(maxArrivals))

  def distinctCreate(countWindow: Boolean, tsMicros: Boolean, window: Long, epsilon: Double, delta: Double,
                     seed: Long): DistinctSketch =
    DistinctSketch.create(spec(countWindow, tsMicros, window), epsilon, delta, seed)

  def ehCreate(countWindow: Boolean, tsMicros: Boolean, window: Long, epsilon: Double, mergeLevels: Int): EhSketch =
    EhSketch.create(spec(countWindow, tsMicros, window), epsilon, mergeLevels)

  private def checkBatch(n: Int, ts: Array[Long], vs: Array[Long]): Unit = {
    SketchException.require(ts.length == n, s"keys and timestamps differ in length: $n vs ${ts.length}")
    SketchException.require(vs == null || vs.length == n, s"keys and values differ in length: $n vs ${vs.length}")
  }

  // Batches of rows (parallel arrays, sorted by timestamp; vs = null means weight 1): keyed sketches
  // (ECM-sketches, distinct-count sketches) by key type, and the stand-alone counters.
  def addLongs(s: KeyedSketch, keys: Array[Long], ts: Array[Long], vs: Array[Long]): Unit = {
    checkBatch(keys.length, ts, vs)
    var i = 0
    while (i < keys.length) { s.addKey(keys(i), ts(i), if (vs == null) 1L else vs(i)); i += 1 }
  }

  def addStrings(s: KeyedSketch, keys: Array[String], ts: Array[Long], vs: Array[Long]): Unit = {
    checkBatch(keys.length, ts, vs)
    var i = 0
    while (i < keys.length) { s.addKey(keys(i), ts(i), if (vs == null) 1L else vs(i)); i += 1 }
  }

  def addBytes(s: KeyedSketch, keys: Array[Array[Byte]], ts: Array[Long], vs: Array[Long]): Unit = {
    checkBatch(keys.length, ts, vs)
    var i = 0
    while (i < keys.length) { s.addKey(keys(i), ts(i), if (vs == null) 1L else vs(i)); i += 1 }
  }

  /** Rows sorted by timestamp into an ECM-sketch: Python's buffered `add` and its `add_many`
    * (vs = null means weight 1). Deterministic cells take them through [[EcmSketch.addSortedBatch]]
    * (the same state as adding them one by one, with the work grouped cell by cell); randomized-wave
    * cells one by one, so that their bytes too are those of single adds.
    */
  def ecmAddLongs(s: EcmSketch, keys: Array[Long], ts: Array[Long], vs: Array[Long]): Unit = {
    checkBatch(keys.length, ts, vs)
    if (keys.length > 0) {
      s.setKeyType(KeyType.Long)
      val fps = new Array[Long](keys.length)
      var i = 0
      while (i < keys.length) { fps(i) = Hashing.fingerprintLong(keys(i)); i += 1 }
      addFps(s, fps, ts, vs)
    }
  }

  /** String keys (UTF-8), as [[ecmAddLongs]]. */
  def ecmAddStrings(s: EcmSketch, keys: Array[String], ts: Array[Long], vs: Array[Long]): Unit =
    ecmAddObjects(s, KeyType.String, keys, ts, vs)(Hashing.fingerprintString)

  /** Binary keys, as [[ecmAddLongs]]. */
  def ecmAddBytes(s: EcmSketch, keys: Array[Array[Byte]], ts: Array[Long], vs: Array[Long]): Unit =
    ecmAddObjects(s, KeyType.Binary, keys, ts, vs)(Hashing.fingerprintBytes)

  private def ecmAddObjects[K <: AnyRef](s: EcmSketch, kt: Int, keys: Array[K], ts: Array[Long], vs: Array[Long])
                                        (fp: K => Long): Unit = {
    checkBatch(keys.length, ts, vs)
    if (keys.length > 0) {
      s.setKeyType(kt)
      val fps = new Array[Long](keys.length)
      var i = 0
      while (i < keys.length) {
        SketchException.require(keys(i) != null, "key must not be null")
        fps(i) = fp(keys(i)); i += 1
      }
      addFps(s, fps, ts, vs)
    }
  }

  /** Deterministic cells take the batch in chunks of [[BatchChunk]] rows (the same state as one
    * batch, or one by one): the batch's scratch arrays (d cell indexes per row) then stay in cache
    * instead of growing with the batch.
    */
  private def addFps(s: EcmSketch, fps: Array[Long], ts: Array[Long], vs: Array[Long]): Unit =
    if (s.plan.deterministicCells) {
      var from = 0
      while (from < fps.length) {
        val until = math.min(fps.length, from + BatchChunk)
        if (vs != null) s.addSortedBatch(fps, ts, vs, from, until)
        else s.addSortedBatch(fps.slice(from, until), ts.slice(from, until), Ones, 0, until - from)
        from = until
      }
    } else { var i = 0; while (i < fps.length) { s.addFingerprint(fps(i), ts(i), if (vs == null) 1L else vs(i)); i += 1 } }

  private final val BatchChunk = 1 << 16
  private val Ones: Array[Long] = Array.fill(BatchChunk)(1L)

  def addMany(s: CounterSketch, ts: Array[Long], vs: Array[Long]): Unit = {
    checkBatch(ts.length, ts, vs)
    s.addSortedBatch(ts, vs)
  }

  // Bytes (docs/FORMAT.md) and merges, as the SQL functions do them.
  def encode(s: WindowSketch): Array[Byte] = Codec.encodeAny(s)

  /** Decodes a sketch that must be of the registered kind `kind` ('ecm', 'eh', 'dwave', 'distinct'). */
  def decode(kind: String, b: Array[Byte]): WindowSketch = Families.decodeAs(Families.named(kind), b)

  /** Cross-site n-way merge of sketches of the registered kind `kind`. */
  def merge(kind: String, xs: Array[WindowSketch]): WindowSketch = mergeAs(Families.named(kind), xs.toSeq)

  private def mergeAs[S <: WindowSketch](k: SketchKind[S], xs: Seq[WindowSketch]): S =
    k.merge(xs.map(x => k.cast(x).getOrElse(throw new SketchException(s"expected ${k.describe}, got ${Families.describe(x)}"))))

  /** The plain Count-Min matrix of an ECM-sketch for one query range, in one call (the threshold
    * monitor's statistics vector, ECM §6.2): every cell evaluated over (now - range, now], row-major
    * (depth rows of width cells). Range defaults to the window, now to the last timestamp; an empty
    * sketch or range gives zeros.
    */
  def ecmMatrix(s: EcmSketch, range: java.lang.Long, now: java.lang.Long): Array[Double] = {
    SketchException.require(s != null, "the sketch must not be null")
    val n = s.width * s.depth
    val out = new Array[Double](n)
    if (!s.isEmpty) {
      val lo = s.lowerBound(range, now)
      if (lo != null) {
        val x: Long = lo
        var i = 0
        while (i < n) { val c = s.cells(i); if (c != null) out(i) = c.estimateFrom(x); i += 1 }
      }
    }
    out
  }

  /** The columns (one per row) that a key's fingerprint hashes to in an ECM-sketch. */
  def ecmColumns(s: EcmSketch, fp: Long): Array[Int] = Array.tabulate(s.depth)(j => s.column(fp, j))

  /** Keys of [[info]] in display order. */
  def infoFields(): Array[String] = Families.infoFields.toArray

  /** Values of [[infoFields]] (boxed; null where not applicable) for `s` as [[encode]] writes it. */
  def info(s: WindowSketch): Array[Object] = values(Families.info(s))

  /** Values of [[infoFields]] for serialized bytes of any kind, as SQL's `sketch_info` gives them:
    * `format_version`, `checksum` and `size_bytes` describe these bytes.
    */
  def infoOfBytes(b: Array[Byte]): Array[Object] = values(Families.info(Families.decode(b), b))

  private def values(m: Map[String, Any]): Array[Object] = Families.infoFields.map(f => m(f).asInstanceOf[AnyRef]).toArray

  // ------------------------------------------------------------------ dyadic ECM-sketches (Python's DyadicSketch)

  def dyadicCreate(countWindow: Boolean, tsMicros: Boolean, window: Long, epsilon: Double, delta: Double,
                   mergeLevels: Int, seed: Long, cell: String, universeBits: Int): DyadicSketch =
    dyadicCreate(countWindow, tsMicros, window, epsilon, delta, mergeLevels, seed, cell, universeBits, KeyTable.DefaultCapacity)

  def dyadicCreate(countWindow: Boolean, tsMicros: Boolean, window: Long, epsilon: Double, delta: Double,
                   mergeLevels: Int, seed: Long, cell: String, universeBits: Int, candidates: Int): DyadicSketch =
    DyadicSketch.create(spec(countWindow, tsMicros, window), epsilon, delta, mergeLevels, Planner.cellKind(cell),
      universeBits, seed, candidates = candidates)

  /** DyadicSketch.deltaFor: the delta that certifies heavy-hitter precision 1 - delta for every phi >= phiMin. */
  def dyadicDeltaFor(delta: Double, phiMin: Double): Double = DyadicSketch.deltaFor(delta, phiMin)

  /** String keys (UTF-8; sorted by timestamp; vs = null means weight 1). */
  def dyadicAddStrings(s: DyadicSketch, keys: Array[String], ts: Array[Long], vs: Array[Long]): Unit = {
    checkBatch(keys.length, ts, vs)
    var i = 0
    while (i < keys.length) {
      SketchException.require(keys(i) != null, "key must not be null")
      s.add(keys(i).getBytes(java.nio.charset.StandardCharsets.UTF_8), KeyType.String, ts(i), if (vs == null) 1L else vs(i)); i += 1
    }
  }

  /** Binary keys (sorted by timestamp; vs = null means weight 1). */
  def dyadicAddBytes(s: DyadicSketch, keys: Array[Array[Byte]], ts: Array[Long], vs: Array[Long]): Unit = {
    checkBatch(keys.length, ts, vs)
    var i = 0
    while (i < keys.length) {
      SketchException.require(keys(i) != null, "key must not be null")
      s.add(keys(i), KeyType.Binary, ts(i), if (vs == null) 1L else vs(i)); i += 1
    }
  }

  def dyadicPointString(s: DyadicSketch, x: String, range: java.lang.Long, now: java.lang.Long): Double =
    s.point(x.getBytes(java.nio.charset.StandardCharsets.UTF_8), range, now)
  def dyadicPointBytes(s: DyadicSketch, x: Array[Byte], range: java.lang.Long, now: java.lang.Long): Double = s.point(x, range, now)

  /** Integer keys (sorted by timestamp; vs = null means weight 1). */
  def dyadicAddLongs(s: DyadicSketch, keys: Array[Long], ts: Array[Long], vs: Array[Long]): Unit = {
    checkBatch(keys.length, ts, vs)
    var i = 0
    while (i < keys.length) { s.add(keys(i), ts(i), if (vs == null) 1L else vs(i)); i += 1 }
  }

  /** Double keys (sorted by timestamp; vs = null means weight 1). */
  def dyadicAddDoubles(s: DyadicSketch, keys: Array[Double], ts: Array[Long], vs: Array[Long]): Unit = {
    checkBatch(keys.length, ts, vs)
    var i = 0
    while (i < keys.length) { s.add(keys(i), ts(i), if (vs == null) 1L else vs(i)); i += 1 }
  }

  def dyadicHeavyHitters(s: DyadicSketch, phi: Double, range: java.lang.Long, now: java.lang.Long): Array[KeyEstimate] =
    s.heavyHitters(phi, range, now).toArray

  def dyadicTopK(s: DyadicSketch, k: Int, range: java.lang.Long, now: java.lang.Long): Array[KeyEstimate] =
    s.topK(k, range, now).toArray

  /** The q-quantile as a boxed Long (integer keys) or Double (double keys); null for an empty range. */
  def dyadicQuantile(s: DyadicSketch, q: Double, range: java.lang.Long, now: java.lang.Long): Object =
    if (s.keyDomain == DyadicSketch.DoubleKeys) s.quantileDouble(q, range, now).map(Double.box).orNull
    else s.quantile(q, range, now).map(Long.box).orNull

  /** [estimate, lower, upper] of the weight of keys in [lo, hi] (integer keys). */
  def dyadicRangeLongs(s: DyadicSketch, lo: Long, hi: Long, range: java.lang.Long, now: java.lang.Long): Array[Double] = {
    val e = s.rangeCount(lo, hi, range, now); Array(e.estimate, e.lower, e.upper)
  }

  def dyadicRangeDoubles(s: DyadicSketch, lo: Double, hi: Double, range: java.lang.Long, now: java.lang.Long): Array[Double] = {
    val e = s.rangeCount(lo, hi, range, now); Array(e.estimate, e.lower, e.upper)
  }

  def dyadicRankLong(s: DyadicSketch, x: Long, range: java.lang.Long, now: java.lang.Long): Array[Double] = {
    val e = s.rank(x, range, now); Array(e.estimate, e.lower, e.upper)
  }

  def dyadicRankDouble(s: DyadicSketch, x: Double, range: java.lang.Long, now: java.lang.Long): Array[Double] = {
    val e = s.rank(x, range, now); Array(e.estimate, e.lower, e.upper)
  }

  def dyadicPointLong(s: DyadicSketch, x: Long, range: java.lang.Long, now: java.lang.Long): Double = s.point(x, range, now)
  def dyadicPointDouble(s: DyadicSketch, x: Double, range: java.lang.Long, now: java.lang.Long): Double = s.point(x, range, now)

  // ------------------------------------------------------------------ async sketches (Python's AsyncSum / AsyncQuantile)

  /** An async sketch: measure 'sum', 'count' or 'quantile'; tradeoff < 0 means the default level. */
  def asyncCreate(measure: String, tsMicros: Boolean, window: Long, epsilon: Double, delta: Double, seed: Long,
                  withIds: Boolean, tradeoff: Int): AsyncSketch = {
    val m = AsyncSketch.MeasureNames.indexOf(measure)
    SketchException.require(m >= 0, s"measure must be 'sum', 'count' or 'quantile', got '$measure'")
    AsyncSketch.create(m, window, epsilon, delta, seed, withIds, tradeoff, tsMicros)
  }

  /** Fingerprints of element ids, as the SQL aggregates take them (the `id` column's key type). */
  def idPrintsLongs(ids: Array[Long]): Array[Long] = ids.map(Hashing.fingerprintLong)
  def idPrintsStrings(ids: Array[String]): Array[Long] = ids.map { x =>
    SketchException.require(x != null, "ids must not be None"); Hashing.fingerprintString(x)
  }
  def idPrintsBytes(ids: Array[Array[Byte]]): Array[Long] = ids.map { x =>
    SketchException.require(x != null, "ids must not be None"); Hashing.fingerprintBytes(x)
  }

  /** Rows of a sum (count) sketch in any order; ids = null for a sketch without ids. */
  def asyncAddWeights(s: AsyncSketch, vs: Array[Long], ts: Array[Long], ids: Array[Long]): Unit = {
    SketchException.require(vs.length == ts.length, s"values and timestamps differ in length: ${vs.length} vs ${ts.length}")
    SketchException.require(ids == null || ids.length == ts.length, s"ids and timestamps differ in length: ${ids.length} vs ${ts.length}")
    var i = 0
    while (i < ts.length) { if (ids == null) s.addWeight(vs(i), ts(i)) else s.addWeightWithId(vs(i), ts(i), ids(i)); i += 1 }
  }

  /** Rows of a quantile sketch in any order; ids = null for a sketch without ids. */
  def asyncAddValues(s: AsyncSketch, xs: Array[Double], ts: Array[Long], ids: Array[Long]): Unit = {
    SketchException.require(xs.length == ts.length, s"values and timestamps differ in length: ${xs.length} vs ${ts.length}")
    SketchException.require(ids == null || ids.length == ts.length, s"ids and timestamps differ in length: ${ids.length} vs ${ts.length}")
    var i = 0
    while (i < ts.length) { if (ids == null) s.addValue(xs(i), ts(i)) else s.addValueWithId(xs(i), ts(i), ids(i)); i += 1 }
  }

  def asyncSum(s: AsyncSketch, range: java.lang.Long, now: java.lang.Long): Double = s.sum(range, now)

  /** The q-quantiles (boxed Doubles; null for an empty range) from one sample read. */
  def asyncQuantiles(s: AsyncSketch, qs: Array[Double], range: java.lang.Long, now: java.lang.Long): Array[Object] =
    s.quantiles(qs, range, now).map(_.map(x => Double.box(x): Object).orNull).toArray

  // ------------------------------------------------------------------ decayed sketches (Python's DecayedSketch)

  /** A decayed sketch; decay = null builds the general sketch (decay chosen at query time);
    * resolution <= 0 takes the default.
    */
  def decayedCreate(decay: String, decayParam: Double, epsilon: Double, delta: Double, constant: Double,
                    maxWeight: Long, resolution: Long, seed: Long, tsMicros: Boolean): DecayedSketch =
    DecayedSketch.create(Option(decay).map(Decay(_, decayParam)), epsilon, delta, constant, maxWeight,
      if (resolution <= 0) null else java.lang.Long.valueOf(resolution), seed, tsMicros)

  /** Rows in any order: 64-bit id hashes (from [[decayedIds]]), weights, values and timestamps. */
  def decayedAdd(s: DecayedSketch, ids: Array[Long], ws: Array[Long], vs: Array[Double], ts: Array[Long]): Unit = {
    val n = ids.length
    SketchException.require(ws.length == n && vs.length == n && ts.length == n,
      s"ids, weights, values and timestamps differ in length: $n, ${ws.length}, ${vs.length}, ${ts.length}")
    var i = 0
    while (i < n) { s.add(ids(i), ws(i), vs(i), ts(i)); i += 1 }
  }

  /** Identity hashes as SQL computes them: of integer ids, of strings, of byte strings. */
  def decayedIdsLong(xs: Array[Long]): Array[Long] = xs.map(DecayedSketch.idOfLong)
  def decayedIdsString(xs: Array[String]): Array[Long] = xs.map(x => DecayedSketch.idOfBytes(x.getBytes("UTF-8")) ^ 0x5717L)
  def decayedIdsBytes(xs: Array[Array[Byte]]): Array[Long] = xs.map(DecayedSketch.idOfBytes)
  def decayedIdsDouble(xs: Array[Double]): Array[Long] = xs.map(DecayedSketch.idOfDouble)
  /** The default identity (weight, value, ts). */
  def decayedIdsDefault(ws: Array[Long], vs: Array[Double], ts: Array[Long]): Array[Long] =
    Array.tabulate(ws.length)(i => DecayedSketch.defaultId(ws(i), vs(i), ts(i)))

  def decayedSum(s: DecayedSketch, decay: String, param: java.lang.Double, now: java.lang.Long): Double =
    s.sum(s.queryDecay(decay, param), now)

  def decayedSelectivity(s: DecayedSketch, lo: Double, hi: Double, decay: String, param: java.lang.Double,
                         now: java.lang.Long): Double = s.selectivity(lo, hi, s.queryDecay(decay, param), now)

  /** The decayed q-quantile, or null. */
  def decayedQuantile(s: DecayedSketch, q: Double, decay: String, param: java.lang.Double, now: java.lang.Long): java.lang.Double =
    s.quantile(q, s.queryDecay(decay, param), now).map(Double.box).orNull

  /** Frequent values as [value0, share0, value1, share1, ...], largest share first. */
  def decayedFrequent(s: DecayedSketch, phi: Double, decay: String, param: java.lang.Double, now: java.lang.Long): Array[Double] =
    s.frequent(phi, s.queryDecay(decay, param), now).flatMap { case (v, sh) => Seq(v, sh) }.toArray

  // ------------------------------------------------------------------ windowed quantiles (Python's QuantileSketch)

  /** A windowed quantile sketch; `levels` is recorded (its bound is epsilon at every merge depth). */
  def quantileCreate(countWindow: Boolean, tsMicros: Boolean, window: Long, epsilon: Double, delta: Double,
                     levels: Int, seed: Long): QuantileSketch =
    QuantileSketch.create(spec(countWindow, tsMicros, window), epsilon, delta, seed, levels)

  /** Rows sorted by timestamp (ws = null means weight 1). The batch is checked for NaN values before
    * any row is added, so a refused batch leaves the sketch as it was.
    */
  def quantileAdd(s: QuantileSketch, xs: Array[Double], ts: Array[Long], ws: Array[Long]): Unit = {
    SketchException.require(xs.length == ts.length, s"values and timestamps differ in length: ${xs.length} vs ${ts.length}")
    SketchException.require(ws == null || ws.length == xs.length, s"values and weights differ in length: ${xs.length} vs ${ws.length}")
    var i = 0
    while (i < xs.length) {
      if (xs(i).isNaN) throw new SketchException("NaN value: a quantile sketch takes numbers (skip NULLs and NaNs before adding)")
      i += 1
    }
    i = 0
    while (i < xs.length) { s.add(ts(i), xs(i), if (ws == null) 1L else ws(i)); i += 1 }
  }

  // ------------------------------------------------------------------ frequent items (Python's FrequentSketch)

  /** A frequent-items sketch whose bound is epsilon after `levels` merge levels. */
  def frequentCreate(countWindow: Boolean, tsMicros: Boolean, window: Long, epsilon: Double, levels: Int,
                     intKeys: Boolean): FrequentSketch = {
    val s = FrequentSketch.create(spec(countWindow, tsMicros, window), epsilon, levels)
    if (intKeys) s.declareIntKeys()
    s
  }

  /** Most merge levels a frequent-items sketch plans for. */
  def frequentMaxLevels(): Int = FreqPlan.MaxLevels

  /** Integer keys (sorted by timestamp; vs = null means weight 1): BIGINT keys, or INT keys when the
    * sketch holds INT keys (built by SQL from an INT column), each checked to fit before any is added.
    */
  def frequentAddLongs(s: FrequentSketch, keys: Array[Long], ts: Array[Long], vs: Array[Long]): Unit = {
    checkBatch(keys.length, ts, vs)
    var i = 0
    if (s.keyTypeName == "int") {
      while (i < keys.length) {
        if (keys(i) != keys(i).toInt.toLong) throw new SketchException(s"this frequent-items sketch holds int keys; key ${keys(i)} does not fit in an INT")
        i += 1
      }
      i = 0
      while (i < keys.length) { s.addInt(keys(i).toInt, ts(i), if (vs == null) 1L else vs(i)); i += 1 }
    } else while (i < keys.length) { s.addKey(keys(i), ts(i), if (vs == null) 1L else vs(i)); i += 1 }
  }

  /** DOUBLE keys (sorted by timestamp; vs = null means weight 1). */
  def frequentAddDoubles(s: FrequentSketch, keys: Array[Double], ts: Array[Long], vs: Array[Long]): Unit = {
    checkBatch(keys.length, ts, vs)
    var i = 0
    while (i < keys.length) { s.addDouble(keys(i), ts(i), if (vs == null) 1L else vs(i)); i += 1 }
  }

  // STRING and BINARY keys: addStrings / addBytes (a FrequentSketch is a KeyedSketch)

  def frequentEstimateLong(s: FrequentSketch, key: Long, range: java.lang.Long, now: java.lang.Long): FrequentItem =
    s.estimate(java.lang.Long.valueOf(key), range, now)
  def frequentEstimateDouble(s: FrequentSketch, key: Double, range: java.lang.Long, now: java.lang.Long): FrequentItem =
    s.estimate(java.lang.Double.valueOf(key), range, now)
  def frequentEstimateString(s: FrequentSketch, key: String, range: java.lang.Long, now: java.lang.Long): FrequentItem = {
    SketchException.require(key != null, "a frequent-items key must not be null")
    s.estimate(key, range, now)
  }
  def frequentEstimateBytes(s: FrequentSketch, key: Array[Byte], range: java.lang.Long, now: java.lang.Long): FrequentItem = {
    SketchException.require(key != null, "a frequent-items key must not be null")
    s.estimate(key, range, now)
  }

  def frequentTopK(s: FrequentSketch, k: Int, range: java.lang.Long, now: java.lang.Long): Array[FrequentItem] =
    s.topK(k, range, now).toArray

  def frequentHeavyHitters(s: FrequentSketch, phi: Double, range: java.lang.Long, now: java.lang.Long): Array[FrequentItem] =
    s.heavyHitters(phi, range, now).toArray

  /** The weight of the range: estimate, and lower and upper as longs (weights up to 2^63 - 1). */
  def frequentRangeCount(s: FrequentSketch, range: java.lang.Long, now: java.lang.Long): RangeCount =
    s.rangeCount(range, now)
}
