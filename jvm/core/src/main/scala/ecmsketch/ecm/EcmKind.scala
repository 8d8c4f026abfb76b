package ecmsketch.ecm

import ecmsketch.core.InfoField.{int, long, real, text}
import ecmsketch.core.{ByteReader, ByteWriter, CellOps, Codec, EcmCellContext, KeyType, SketchException, SketchHeader, SketchKind, WindowCounter, InfoField, FunctionSpec, CellKind}
import ecmsketch.hash.Hashing

/** The ECM-sketch (sketch kind 2): its Count-Min header (docs/FORMAT.md), the cell parameters its
  * cell kind keeps there, then width x depth cells, row-major.
  */
object EcmKind extends SketchKind[EcmSketch](2, "ecm") {
  override def functions: Seq[FunctionSpec] = EcmFunctions.all
  final val HeaderSize = 94

  def describe: String = "an ECM-sketch (from ecm_agg or ecm_merge)"
  def expected: String = "an ECM-sketch (from ecm_agg)"
  def plural: String = "ECM-sketches"
  def cellKinds: Seq[CellKind] = CellKinds.all
  def cellKindOf(s: EcmSketch): Int = s.params.cellKind
  def sizeHint(s: EcmSketch): Int = HeaderSize + s.width * s.depth * 8

  def encodeBody(s: EcmSketch, out: ByteWriter): Unit = {
    out.putDouble(s.plan.delta)
    out.putDouble(s.plan.cmEpsilon)
    out.putInt(s.width)
    out.putInt(s.depth)
    out.putLong(s.seed)
    out.putByte(s.keyType)
    out.putByte(s.plan.kind.id)
    CellKinds.getOrFail(s.cellKind).writeParams(s.cellOps, out)
    var i = 0
    val n = s.width * s.depth
    // Cells are written on the sketch's clock (cells not touched lately lag behind it): wave
    // decoders check every item against the window ending at the sketch's last timestamp, and for
    // every kind it makes the bytes canonical, since merges sync their inputs the same way.
    s.syncCells()
    while (i < n) { s.cellOps.write(s.cells(i), out, s.firstTs); i += 1 }
  }

  def decodeBody(in: ByteReader, c: SketchHeader): EcmSketch = {
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
    val cells = CellKinds.getOrFail(c.cellKind).readParams(in,
      EcmCellContext(c.cellEpsilon, c.spec.window, seed, delta, depth, pointQueries = kind == QueryKind.Point, c.version))
    val n = width * depth
    if (in.remaining < n) throw new SketchException(s"corrupt sketch: truncated: $n cells need at least $n bytes, ${in.remaining} left")
    val plan = EcmPlan(c.epsilon, delta, kind, c.levels, c.cellEpsilon, cmEps, width, depth, c.cellKind, cells.cellDelta)
    val params = EcmParams(c.spec, plan, seed, cells.maxArrivals)
    decodeCells(params, keyType, in, c, cells.reader)
  }

  /** Reads the width x depth cells of a sketch with `params` (EcmKind.decodeBody), checking them
    * against the header `c`.
    */
  private def decodeCells(params: EcmParams, keyType: Int, in: ByteReader, c: SketchHeader,
                          reader: CellOps => CellOps): EcmSketch = {
    val cellOps = EcmSketch.cellOpsFor(params)
    val cellReader = reader(cellOps)
    val width = params.width; val depth = params.depth
    val n = width * depth
    val cells = new Array[WindowCounter](n)
    var i = 0
    while (i < n) {
      val cell = cellReader.read(in, c.firstTs, c.lastTs)
      c.checkEmptyCell(cell)
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
        val w = SketchHeader.weight(cells(j * width + i))
        rowWeight = if (w > Long.MaxValue - rowWeight) Long.MaxValue else rowWeight + w
        i += 1
      }
      if (rowWeight > c.count)
        throw new SketchException(s"corrupt sketch: the cells of row $j hold weight $rowWeight, more than the total weight ${c.count}")
      j += 1
    }
    val s = EcmSketch.make(params, cellOps, cells)
    s._keyType = keyType
    s.eventSalt = Hashing.mix64(Hashing.fingerprintBytes(in.bytes) ^ 0x6465636F6465L) // cells created later: from the bytes
    s
  }

  /** The largest version a cell needs, on the sketch's clock, as written: 2 when a cell is segmented
    * (a time-disjoint merge's), 3 for randomized-wave cells of a plan version 0.1.0 did not have
    * (asked of the cell ops with no cell), else 1.
    */
  override def formatVersion(s: EcmSketch): Int = {
    s.syncCells()
    var v = math.max(Codec.Version, s.cellOps.formatVersion(null)) // a version the cells' plan needs
    s.cells.foreach(c => if (c != null) v = math.max(v, s.cellOps.formatVersion(c)))
    v
  }

  override def readsAs(version: Int, written: Int, s: EcmSketch): Boolean =
    CellKinds.getOrFail(s.cellKind).readsAs(version, written)

  def merge(xs: Seq[EcmSketch]): EcmSketch = EcmSketch.merge(xs)
  def mergeSameStream(xs: Seq[EcmSketch]): EcmSketch = EcmSketch.mergeUnchecked(xs)
  def mergeDiffs(a: EcmSketch, b: EcmSketch): Seq[String] = a.diffs(b) ++
    (if (a.keyType != KeyType.Unset && b.keyType != KeyType.Unset && a.keyType != b.keyType)
      Seq(s"key type ${KeyType.name(a.keyType)} vs ${KeyType.name(b.keyType)}") else Nil)

  def infoFields: Seq[InfoField] = Seq(text("cell_kind"), real("delta"), int("width"), int("depth"), real("cm_epsilon"),
    text("optimize_for"), text("key_type"), long("seed"), real("point_error_bound"), real("inner_product_error_bound"),
    real("total_error_bound"), long("max_size_bytes"))

  def info(e: EcmSketch): Map[String, Any] = {
    val det = e.plan.deterministicCells
    CellKinds.getOrFail(e.cellKind).info(e.cellOps) ++ Map(
      "cell_kind" -> e.cellName, "delta" -> e.delta, "width" -> e.width, "depth" -> e.depth,
      "cm_epsilon" -> e.plan.cmEpsilon, "optimize_for" -> e.plan.kind.name, "key_type" -> KeyType.name(e.keyType),
      "seed" -> e.seed, "point_error_bound" -> e.pointErrorBound,
      "inner_product_error_bound" -> (if (det) e.innerProductErrorBound(e) else null),
      "total_error_bound" -> (if (det) e.totalErrorBound else null),
      "max_size_bytes" -> Planner.worstCaseBytes(e.spec, e.plan).map(Long.box).orNull)
  }

  def errorBound(s: EcmSketch): Double = s.errorBound
}
