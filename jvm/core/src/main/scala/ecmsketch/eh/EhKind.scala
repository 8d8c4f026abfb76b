package ecmsketch.eh

import ecmsketch.core.InfoField.{real, text}
import ecmsketch.core.{CellOps, CellKind, CellParams, Codec, ByteReader, ByteWriter, SketchHeader, OneCellKind, InfoField, FunctionSpec}

/** The stand-alone exponential histogram (sketch kind 1): one EH cell after the common header. */
object EhKind extends OneCellKind[EhSketch](1, "eh", EhCellKind) {
  override def functions: Seq[FunctionSpec] = EhFunctions.all
  def describe: String = "an exponential histogram (from eh_agg or eh_merge)"
  def expected: String = "an exponential histogram sketch (from eh_agg)"
  def plural: String = "exponential histograms"
  def sizeHint(s: EhSketch): Int = Codec.HeaderSize + 16 + 4 * s.histogram.bucketCount

  def encodeBody(s: EhSketch, out: ByteWriter): Unit =
    new EhCells(s.histogram.config).write(s.histogram, out, s.firstTs)

  def decodeBody(in: ByteReader, c: SketchHeader): EhSketch = {
    val cfg = EhConfig(c.cellEpsilon, c.spec.window)
    val hist = c.readSingleCell(in, new EhCells(cfg))(new ExpHistogram(cfg))
    EhSketch.restore(c.spec, c.epsilon, c.levels, c.cellEpsilon, hist)
  }

  def merge(xs: Seq[EhSketch]): EhSketch = EhSketch.merge(xs)
  def mergeSameStream(xs: Seq[EhSketch]): EhSketch = EhSketch.mergeUnchecked(xs)
  def mergeDiffs(a: EhSketch, b: EhSketch): Seq[String] = a.diffs(b)
  def infoFields: Seq[InfoField] = Seq(text("cell_kind"), real("total_error_bound"))
  def info(s: EhSketch): Map[String, Any] = Map("cell_kind" -> "eh", "total_error_bound" -> s.errorBound)
  def errorBound(s: EhSketch): Double = s.errorBound
  override def formatVersion(s: EhSketch): Int = if (s.histogram.segmented) 2 else Codec.Version
}

/** Exponential-histogram cells (cell kind 1). */
object EhCellKind extends CellKind(1, "eh") {
  def deterministic: Boolean = true
  def minCellEpsilon: Double = EhConfig.MinEpsilon
  def cellOps(p: CellParams): CellOps = new EhCells(EhConfig(p.cellEpsilon, p.window))

  /** The EH cell encoding ([[EhCells.write]]) at its largest: the level count (<= 63: 1 byte), the
    * lower timestamp's offset (<= 10 bytes), per level a bucket count (<= k0 + 1 on level 0, k + 1
    * above) and per bucket its end as a varint delta. The first delta (from the lower timestamp) may
    * take 10 bytes; the other B - 1 deltas are >= 0 and sum to less than the window (every retained
    * bucket ends inside it), and a varint of x takes at most 1 + log2(x + 1) / 7 bytes, a concave
    * function, so they take at most (B - 1) (1 + log2(W / (B - 1) + 1) / 7) bytes, and at most 10
    * each. B and the level count are taken at their maxima over all streams (63 levels), so the
    * bound holds for any weights and timestamps.
    */
  override def worstCellBytes(p: CellParams): Option[Long] = {
    val c = EhConfig(p.cellEpsilon, p.window)
    val levels = EhConfig.MaxLevels
    val buckets = c.maxAt(0).toLong + (levels - 1).toLong * c.maxAt(1)
    def varLen(x: Long): Long = { var n = 1L; var v = x >>> 7; while (v != 0) { n += 1; v >>>= 7 }; n }
    val counts = varLen(c.maxAt(0).toLong) + (levels - 1) * varLen(c.maxAt(1).toLong)
    val m = buckets - 1
    val deltas = math.min(10.0 * m, m * (1.0 + math.log1p(p.window.toDouble / m) / math.log(2.0) / 7.0))
    Some(1L + 10L + counts + 10L + math.ceil(deltas).toLong)
  }
}
