package ecmsketch.format

import ecmsketch.core.{ByteReader, ByteWriter, CellFamily, KeyType, SketchException, WindowCounter, WindowSketch, WindowSpec}
import ecmsketch.ecm.{EcmParams, EcmPlan, EcmSketch, Planner, QueryKind}
import ecmsketch.dwave.{DetWave, DwCells, DwConfig, DwSketch}
import ecmsketch.rwave.{DistinctSketch, RandWave, RwCells, RwConfig}
import ecmsketch.window.{EhConfig, EhSketch, ExpHistogram}

/** Binary format v1 (docs/FORMAT.md): a fixed little-endian header, then a varint body.
  *
  * {{{
  * offset size field
  *  0     4    magic "ECMS"
  *  4     1    format version (1)
  *  5     1    sketch kind: 1 = exponential histogram, 2 = ECM-sketch, 3 = deterministic wave,
  *             4 = distinct-count sketch (randomized wave)
  *  6     1    cell kind: 1 = exponential histogram, 2 = deterministic wave, 3 = randomized wave
  *  7     1    flags: bit 0 = count-based window, bit 1 = TIMESTAMP (microsecond) ticks; others 0
  *  8     8    window N (i64 > 0; 2^63-1 = unbounded)
  * 16     8    epsilon requested (f64)
  * 24     8    cell epsilon (f64)
  * 32     2    planned merge levels (u16)
  * 34     2    merge depth (u16)
  * 36     8    first timestamp (i64; 2^63-1 when empty)
  * 44     8    last timestamp (i64; -2^63 when empty)
  * 52     8    total weight ever added (i64 >= 0)
  * ECM-sketch only:
  * 60     8    delta (f64)        68  8  Count-Min epsilon (f64)
  * 76     4    width (u32)        80  4  depth (u32)
  * 84     8    hash seed (i64)    92  1  key type   93  1  optimize_for (0 point, 1 inner product)
  * then the cell parameters: deterministic waves: max_arrivals (i64); randomized waves: cell delta
  * (f64), queue capacity (u32), instances (u16).
  * Deterministic wave (kind 3): 60  8  max_arrivals (i64).
  * Distinct-count sketch (kind 4): 60 8 delta (f64), 68 8 seed (i64), 76 1 key type, 77 4 queue
  * capacity (u32), 81 2 instances (u16).
  * body: the cells (one for an EH, width*depth row-major for an ECM-sketch), each encoded by its
  * cell family with timestamps as varint deltas from the first timestamp.
  * }}}
  */
object SketchCodec {
  final val Magic: Array[Byte] = "ECMS".getBytes("US-ASCII")
  final val Version = 1
  final val KindEh = 1
  final val KindEcm = 2
  final val KindDetWave = 3
  final val KindDistinct = 4
  final val HeaderSize = 60
  final val EcmHeaderSize = 94

  /** The cell kind each sketch kind may hold. */
  private def cellKindAllowed(kind: Int, cellKind: Int): Boolean = kind match {
    case KindEh => cellKind == CellFamily.ExpHistogramId
    case KindEcm => cellKind >= CellFamily.ExpHistogramId && cellKind <= CellFamily.RandWaveId
    case KindDetWave => cellKind == CellFamily.DetWaveId
    case KindDistinct => cellKind == CellFamily.RandWaveId
    case _ => false
  }

  private def writeCommon(s: WindowSketch, kind: Int, cellKind: Int, out: ByteWriter): Unit = {
    out.putBytes(Magic)
    out.putByte(Version)
    out.putByte(kind)
    out.putByte(cellKind)
    out.putByte((if (s.spec.countWindow) 1 else 0) | (if (s.spec.tsMicros) 2 else 0) | (if (s.isEmpty) 0 else 4))
    out.putLong(s.spec.window)
    out.putDouble(s.epsilon)
    out.putDouble(s.cellEpsilon)
    out.putShort(s.plannedLevels)
    out.putShort(s.mergeDepth)
    out.putLong(s.firstTs)
    out.putLong(s.lastTs)
    out.putLong(s.count)
  }

  def encode(s: EhSketch): Array[Byte] = {
    val out = new ByteWriter(HeaderSize + 16 + 4 * s.histogram.bucketCount)
    writeCommon(s, KindEh, CellFamily.ExpHistogramId, out)
    new ecmsketch.window.EhCells(s.histogram.config).write(s.histogram, out, s.firstTs)
    out.toByteArray
  }

  def encode(s: EcmSketch): Array[Byte] = {
    val out = new ByteWriter(EcmHeaderSize + s.width * s.depth * 8)
    writeCommon(s, KindEcm, s.params.cellKind, out)
    out.putDouble(s.plan.delta)
    out.putDouble(s.plan.cmEpsilon)
    out.putInt(s.width)
    out.putInt(s.depth)
    out.putLong(s.seed)
    out.putByte(s.keyType)
    out.putByte(s.plan.kind.id)
    s.family match {
      case d: DwCells => out.putLong(d.config.maxArrivals)
      case r: RwCells => writeRwParams(r.config, out)
      case _ => ()
    }
    var i = 0
    val n = s.width * s.depth
    // Cells are written on the sketch's clock; cells not touched lately lag behind it. Wave
    // decoders check every item against the window ending at the sketch's last timestamp, and for
    // every kind this makes the bytes canonical: a lagging EH cell would otherwise write buckets
    // that expired at the sketch's clock, which merges and copies (whose cells follow the sketch's
    // clock) drop, so equal sketches would encode differently.
    if (!s.isEmpty)
      while (i < n) { val c = s.cells(i); if (c != null) c.advanceTo(s.lastTs); i += 1 }
    i = 0
    while (i < n) { s.family.write(s.cells(i), out, s.firstTs); i += 1 }
    out.toByteArray
  }

  private def writeRwParams(c: RwConfig, out: ByteWriter): Unit = {
    out.putDouble(c.delta); out.putInt(c.capacity); out.putShort(c.instances)
  }

  def encode(s: DwSketch): Array[Byte] = {
    val out = new ByteWriter(HeaderSize + 32 + 6 * s.wave.itemCount)
    writeCommon(s, KindDetWave, CellFamily.DetWaveId, out)
    out.putLong(s.maxArrivals)
    new DwCells(s.wave.config).write(s.wave, out, s.firstTs)
    out.toByteArray
  }

  def encode(s: DistinctSketch): Array[Byte] = {
    val out = new ByteWriter(HeaderSize + 32 + 12 * s.wave.entryCount)
    writeCommon(s, KindDistinct, CellFamily.RandWaveId, out)
    out.putDouble(s.config.delta)
    out.putLong(s.config.seed)
    out.putByte(s.keyType)
    out.putInt(s.config.capacity)
    out.putShort(s.config.instances)
    new RwCells(s.config).write(s.wave, out, s.firstTs)
    out.toByteArray
  }

  /** Encodes a sketch of any kind. */
  def encodeAny(s: WindowSketch): Array[Byte] = s match {
    case e: EcmSketch => encode(e)
    case h: EhSketch => encode(h)
    case d: DwSketch => encode(d)
    case d: DistinctSketch => encode(d)
    case other => throw new SketchException(s"cannot encode ${other.getClass.getSimpleName}")
  }

  /** Header fields common to every kind, validated. */
  private final case class Common(kind: Int, cellKind: Int, spec: WindowSpec, epsilon: Double, cellEpsilon: Double,
                                  levels: Int, depth: Int, firstTs: Long, lastTs: Long, count: Long, hasRows: Boolean)

  private def readCommon(in: ByteReader): Common = {
    if (in.remaining < 4) throw new SketchException(s"not an ecmsketch sketch: ${in.remaining} bytes is too short")
    val m = Array.fill(4)(in.getByte("magic").toByte)
    if (!java.util.Arrays.equals(m, Magic))
      throw new SketchException("not an ecmsketch sketch: bad magic bytes " + m.map(b => f"${b & 0xFF}%02x").mkString)
    val version = in.getByte("format version")
    if (version != Version)
      throw new SketchException(s"unsupported sketch format version $version (this library reads version $Version)")
    val kind = in.getByte("sketch kind")
    if (kind < KindEh || kind > KindDistinct) throw new SketchException(s"corrupt sketch: unknown sketch kind $kind")
    val cellKind = in.getByte("cell kind")
    if (cellKind < CellFamily.ExpHistogramId || cellKind > CellFamily.RandWaveId)
      throw new SketchException(s"corrupt sketch: unknown cell kind $cellKind")
    if (!cellKindAllowed(kind, cellKind))
      throw new SketchException(s"corrupt sketch: sketch kind $kind cannot hold cells of kind $cellKind")
    val flags = in.getByte("flags")
    if ((flags & ~7) != 0) throw new SketchException(s"corrupt sketch: unknown flag bits ${flags & ~7}")
    val window = in.getLong("window")
    if (window <= 0) throw new SketchException(s"corrupt sketch: window $window is not positive")
    if ((flags & 3) == 3) throw new SketchException("corrupt sketch: a count-based window with TIMESTAMP ticks")
    val spec = WindowSpec(countWindow = (flags & 1) != 0, tsMicros = (flags & 2) != 0, window = window)
    val eps = in.getDouble("epsilon")
    if (!(eps >= 0.001 && eps < 1.0)) throw new SketchException(s"corrupt sketch: epsilon $eps outside [0.001, 1)")
    val cellEps = in.getDouble("cell epsilon")
    val minCellEps = if (cellKind == CellFamily.RandWaveId) RwConfig.MinEpsilon else EhConfig.MinEpsilon
    if (!(cellEps >= minCellEps && cellEps <= eps))
      throw new SketchException(s"corrupt sketch: cell epsilon $cellEps outside [$minCellEps, $eps]")
    if (cellKind == CellFamily.RandWaveId && cellEps != eps)
      throw new SketchException(s"corrupt sketch: randomized-wave cells must have cell epsilon = epsilon, got $cellEps and $eps")
    val levels = in.getShort("planned merge levels")
    if (levels > Planner.MaxLevels) throw new SketchException(s"corrupt sketch: planned merge levels $levels > ${Planner.MaxLevels}")
    val depth = in.getShort("merge depth")
    val first = in.getLong("first timestamp")
    val last = in.getLong("last timestamp")
    val count = in.getLong("total weight")
    if (count < 0) throw new SketchException(s"corrupt sketch: negative total weight $count")
    val hasRows = (flags & 4) != 0
    if (hasRows && first > last) throw new SketchException(s"corrupt sketch: first timestamp $first after last $last")
    if (!hasRows && (count != 0 || first != Long.MaxValue || last != Long.MinValue))
      throw new SketchException("corrupt sketch: an empty sketch with timestamps or weight")
    Common(kind, cellKind, spec, eps, cellEps, levels, depth, first, last, count, hasRows)
  }

  private def fill(s: WindowSketch, c: Common): Unit = {
    s.restoreState(c.depth, c.firstTs, c.lastTs, c.count, c.hasRows)
  }

  /** Decodes any sketch, validating every field; throws [[SketchException]] on bad bytes. */
  def decode(bytes: Array[Byte]): WindowSketch = {
    val in = new ByteReader(bytes)
    val c = readCommon(in)
    c.kind match {
      case KindEh => decodeEhBody(in, c)
      case KindEcm => decodeEcmBody(in, c)
      case KindDetWave => decodeDwBody(in, c)
      case _ => decodeDistinctBody(in, c)
    }
  }

  /** What a sketch is, for error messages: "an ECM-sketch (from ecm_agg or ecm_merge)". */
  def describeKind(s: WindowSketch): String = s match {
    case _: EcmSketch => "an ECM-sketch (from ecm_agg or ecm_merge)"
    case _: EhSketch => "an exponential histogram (from eh_agg or eh_merge)"
    case _: DwSketch => "a deterministic wave (from dwave_agg or dwave_merge)"
    case _: DistinctSketch => "a distinct-count sketch (from distinct_agg or distinct_merge)"
    case other => other.getClass.getSimpleName
  }

  private def wrongKind(expected: String, got: WindowSketch): SketchException =
    new SketchException(s"expected $expected but got ${describeKind(got)}")

  def decodeEh(bytes: Array[Byte]): EhSketch = decode(bytes) match {
    case e: EhSketch => e
    case other => throw wrongKind("an exponential histogram sketch (from eh_agg)", other)
  }

  def decodeEcm(bytes: Array[Byte]): EcmSketch = decode(bytes) match {
    case e: EcmSketch => e
    case other => throw wrongKind("an ECM-sketch (from ecm_agg)", other)
  }

  def decodeDw(bytes: Array[Byte]): DwSketch = decode(bytes) match {
    case e: DwSketch => e
    case other => throw wrongKind("a deterministic wave (from dwave_agg)", other)
  }

  def decodeDistinct(bytes: Array[Byte]): DistinctSketch = decode(bytes) match {
    case e: DistinctSketch => e
    case other => throw wrongKind("a distinct-count sketch (from distinct_agg)", other)
  }

  private def readMaxArrivals(in: ByteReader): Long = {
    val u = in.getLong("max_arrivals")
    if (u <= 0) throw new SketchException(s"corrupt sketch: max_arrivals $u is not positive")
    u
  }

  /** Reads and checks the randomized-wave parameters against what the config derives from them. */
  private def readRwConfig(in: ByteReader, eps: Double, delta: Double, window: Long, seed: Long): RwConfig = {
    val cfg = try RwConfig(eps, delta, window, seed) catch {
      case e: SketchException => throw new SketchException(s"corrupt sketch: ${e.getMessage}")
    }
    val cap = in.getInt("queue capacity")
    val inst = in.getShort("instances")
    if (cap != cfg.capacity || inst != cfg.instances)
      throw new SketchException(s"corrupt sketch: randomized-wave capacity $cap and instances $inst do not match " +
        s"epsilon $eps and delta $delta (expected ${cfg.capacity} and ${cfg.instances})")
    cfg
  }

  private def checkLevelsZero(c: Common, what: String): Unit =
    if (c.levels != 0 && c.kind == KindDistinct) throw new SketchException(s"corrupt sketch: $what has planned merge levels ${c.levels}, expected 0")

  private def decodeDwBody(in: ByteReader, c: Common): DwSketch = {
    val u = readMaxArrivals(in)
    val cfg = DwConfig(c.cellEpsilon, c.spec.window, u)
    val w = new DwCells(cfg).read(in, c.firstTs, c.lastTs)
    checkEmptyCell(w, c)
    checkWeight(w, c)
    in.expectEnd()
    val wave = if (w == null) new DetWave(cfg) else w.asInstanceOf[DetWave]
    if (w == null && c.hasRows) wave.advanceTo(c.lastTs)
    val s = DwSketch.restore(c.spec, c.epsilon, c.levels, c.cellEpsilon, wave)
    fill(s, c)
    s
  }

  private def decodeDistinctBody(in: ByteReader, c: Common): DistinctSketch = {
    checkLevelsZero(c, "a distinct-count sketch")
    val delta = in.getDouble("delta")
    if (!(delta > 0 && delta < 1)) throw new SketchException(s"corrupt sketch: delta $delta outside (0, 1)")
    val seed = in.getLong("seed")
    val keyType = in.getByte("key type")
    if (keyType > KeyType.Binary) throw new SketchException(s"corrupt sketch: unknown key type $keyType")
    val cfg = readRwConfig(in, c.epsilon, delta, c.spec.window, seed)
    val w = new RwCells(cfg).read(in, c.firstTs, c.lastTs)
    checkEmptyCell(w, c)
    checkWeight(w, c)
    in.expectEnd()
    val wave = if (w == null) new RandWave(cfg) else w.asInstanceOf[RandWave]
    if (w == null && c.hasRows) wave.advanceTo(c.lastTs)
    val s = DistinctSketch.restore(c.spec, cfg, wave, keyType)
    fill(s, c)
    s
  }

  private def checkEmptyCell(cell: WindowCounter, c: Common): Unit =
    if (cell != null && !c.hasRows) throw new SketchException("corrupt sketch: buckets in an empty sketch")

  /** Weight a decoded cell holds, each unit of it from a row of the sketch: the bucket weights of an
    * exponential histogram, the running total of a deterministic wave, the level-0 items of a
    * randomized wave (each the latest occurrence of a value or one event).
    */
  private def cellWeight(cell: WindowCounter): Long = cell match {
    case null => 0L
    case h: ExpHistogram => h.total
    case w: DetWave => w.total
    case r: RandWave => r.level0Count.toLong
    case other => throw new SketchException(s"corrupt sketch: unknown cell ${other.getClass.getSimpleName}")
  }

  /** The cells cannot hold more weight than the header's total weight ever added. */
  private def checkWeight(cell: WindowCounter, c: Common): Unit = {
    val w = cellWeight(cell)
    if (w > c.count) throw new SketchException(s"corrupt sketch: the cell holds weight $w, more than the total weight ${c.count}")
  }

  private def decodeEhBody(in: ByteReader, c: Common): EhSketch = {
    val cfg = EhConfig(c.cellEpsilon, c.spec.window)
    val h = new ecmsketch.window.EhCells(cfg).read(in, c.firstTs, c.lastTs)
    checkEmptyCell(h, c)
    checkWeight(h, c)
    in.expectEnd()
    val hist = if (h == null) new ExpHistogram(cfg) else h.asInstanceOf[ExpHistogram]
    if (h == null && c.hasRows) hist.advanceTo(c.lastTs)
    val s = EhSketch.restore(c.spec, c.epsilon, c.levels, c.cellEpsilon, hist)
    fill(s, c)
    s
  }

  private def decodeEcmBody(in: ByteReader, c: Common): EcmSketch = {
    val delta = in.getDouble("delta")
    if (!(delta > 0 && delta < 1)) throw new SketchException(s"corrupt sketch: delta $delta outside (0, 1)")
    val cmEps = in.getDouble("Count-Min epsilon")
    if (!(cmEps > 0 && cmEps < 1)) throw new SketchException(s"corrupt sketch: Count-Min epsilon $cmEps outside (0, 1)")
    val width = in.getInt("width")
    val depth = in.getInt("depth")
    if (width < 1 || width > Planner.MaxWidth) throw new SketchException(s"corrupt sketch: width $width outside [1, ${Planner.MaxWidth}]")
    if (depth < 1 || depth > Planner.MaxDepth) throw new SketchException(s"corrupt sketch: depth $depth outside [1, ${Planner.MaxDepth}]")
    if (width.toLong * depth > Planner.MaxCells) throw new SketchException(s"corrupt sketch: ${width}x$depth cells exceed ${Planner.MaxCells}")
    // the array must be as large as delta and the Count-Min epsilon claim (they enter the bound)
    val needW = math.ceil(math.E / cmEps - 1e-9)
    if (width < needW) throw new SketchException(s"corrupt sketch: width $width is too small for Count-Min epsilon $cmEps (needs ${needW.toLong})")
    val needD = math.max(1.0, math.ceil(math.log(1.0 / delta) - 1e-9))
    if (depth < needD) throw new SketchException(s"corrupt sketch: depth $depth is too small for delta $delta (needs ${needD.toLong})")
    val seed = in.getLong("seed")
    val keyType = in.getByte("key type")
    if (keyType > KeyType.Binary) throw new SketchException(s"corrupt sketch: unknown key type $keyType")
    val kind = QueryKind.fromId(in.getByte("optimize_for"))
    var maxArrivals = DwConfig.Unbounded
    var cellDelta = 0.0
    c.cellKind match {
      case CellFamily.DetWaveId => maxArrivals = readMaxArrivals(in)
      case CellFamily.RandWaveId =>
        if (kind != QueryKind.Point) throw new SketchException("corrupt sketch: randomized-wave cells with optimize_for inner_product")
        val needD2 = math.max(1.0, math.ceil(math.log(2.0 / delta) - 1e-9))
        if (depth < needD2) throw new SketchException(s"corrupt sketch: depth $depth is too small for delta $delta with randomized cells (needs ${needD2.toLong})")
        cellDelta = in.getDouble("cell delta")
        if (!(cellDelta > 0 && cellDelta <= delta / (2.0 * depth)))
          throw new SketchException(s"corrupt sketch: cell delta $cellDelta outside (0, delta/(2 depth)]")
        readRwConfig(in, c.cellEpsilon, cellDelta, c.spec.window, seed)
      case _ => ()
    }
    val n = width * depth
    if (in.remaining < n) throw new SketchException(s"corrupt sketch: truncated: $n cells need at least $n bytes, ${in.remaining} left")
    val plan = EcmPlan(c.epsilon, delta, kind, c.levels, c.cellEpsilon, cmEps, width, depth, c.cellKind, cellDelta)
    val params = EcmParams(c.spec, plan, seed, maxArrivals)
    val family = EcmSketch.familyFor(params)
    val cells = new Array[WindowCounter](n)
    var i = 0
    while (i < n) {
      val cell = family.read(in, c.firstTs, c.lastTs)
      checkEmptyCell(cell, c)
      cells(i) = cell
      i += 1
    }
    in.expectEnd()
    // each row counts every row of the stream once: its cells together cannot hold more than the total weight
    var j = 0
    while (j < depth) {
      var rowWeight = 0L
      i = 0
      while (i < width) {
        val w = cellWeight(cells(j * width + i))
        rowWeight = if (w > Long.MaxValue - rowWeight) Long.MaxValue else rowWeight + w
        i += 1
      }
      if (rowWeight > c.count)
        throw new SketchException(s"corrupt sketch: the cells of row $j hold weight $rowWeight, more than the total weight ${c.count}")
      j += 1
    }
    val s = EcmSketch.restore(params, cells)
    s._keyType = keyType
    fill(s, c)
    s
  }
}
