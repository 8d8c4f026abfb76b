package ecmsketch.dwave

import ecmsketch.core.InfoField.{long, real, text}
import ecmsketch.core.{ByteReader, ByteWriter, CellOps, CellHeader, CellKind, CellParams, Codec, EcmCellContext, SketchException, SketchHeader, OneCellKind, InfoField, FunctionSpec}

/** The stand-alone deterministic wave (sketch kind 3): max_arrivals (i64), then one wave cell. */
object DwKind extends OneCellKind[DwSketch](3, "dwave", DwCellKind) {
  override def functions: Seq[FunctionSpec] = DwFunctions.all
  def describe: String = "a deterministic wave (from dwave_agg or dwave_merge)"
  def expected: String = "a deterministic wave (from dwave_agg)"
  def plural: String = "deterministic waves"
  def sizeHint(s: DwSketch): Int = Codec.HeaderSize + 32 + 6 * s.wave.itemCount

  def encodeBody(s: DwSketch, out: ByteWriter): Unit = {
    out.putLong(s.maxArrivals)
    new DwCells(s.wave.config).write(s.wave, out, s.firstTs)
  }

  def decodeBody(in: ByteReader, c: SketchHeader): DwSketch = {
    val u = DwCellKind.readMaxArrivals(in)
    val cfg = DwConfig(c.cellEpsilon, c.spec.window, u)
    val wave = c.readSingleCell(in, new DwCells(cfg))(new DetWave(cfg))
    DwSketch.restore(c.spec, c.epsilon, c.levels, c.cellEpsilon, wave)
  }

  def merge(xs: Seq[DwSketch]): DwSketch = DwSketch.merge(xs)
  def mergeSameStream(xs: Seq[DwSketch]): DwSketch = DwSketch.mergeUnchecked(xs)
  def mergeDiffs(a: DwSketch, b: DwSketch): Seq[String] = a.diffs(b)
  def infoFields: Seq[InfoField] = Seq(text("cell_kind"), long("max_arrivals"), real("total_error_bound"))
  def info(s: DwSketch): Map[String, Any] = Map("cell_kind" -> "dwave", "max_arrivals" -> DwCellKind.arrivals(s.maxArrivals),
    "total_error_bound" -> s.errorBound)
  def errorBound(s: DwSketch): Double = s.errorBound
}

/** Deterministic-wave cells (cell kind 2); an ECM-sketch keeps their max_arrivals in its header. */
object DwCellKind extends CellKind(2, "dwave") {
  def deterministic: Boolean = true
  override def takesMaxArrivals: Boolean = true
  def minCellEpsilon: Double = DwConfig.MinEpsilon
  def cellOps(p: CellParams): CellOps = new DwCells(DwConfig(p.cellEpsilon, p.window, p.maxArrivals))
  override def writeParams(f: CellOps, out: ByteWriter): Unit = out.putLong(config(f).maxArrivals)
  override def readParams(in: ByteReader, c: EcmCellContext): CellHeader = CellHeader(readMaxArrivals(in), 0.0)
  override def infoFields: Seq[InfoField] = Seq(long("max_arrivals"))
  override def info(f: CellOps): Map[String, Any] = Map("max_arrivals" -> arrivals(config(f).maxArrivals))
  override def mergedArrivals(us: Seq[Long], sameStream: Boolean): Long = DwConfig.mergedArrivals(us, sameStream)

  private def config(f: CellOps): DwConfig = f match {
    case d: DwCells => d.config
    case other => throw new SketchException(s"${other.name} cells where deterministic-wave cells were expected")
  }

  /** max_arrivals for `sketch_info`: null when unbounded. */
  private[dwave] def arrivals(u: Long): Any = if (u == DwConfig.Unbounded) null else u

  private[dwave] def readMaxArrivals(in: ByteReader): Long = {
    val u = in.getLong("max_arrivals")
    if (u <= 0) throw new SketchException(s"corrupt sketch: max_arrivals $u is not positive")
    u
  }
}
