package ecmsketch.window

import ecmsketch.core.{CellFamily, CellKind, CellParams, Codec, ByteReader, ByteWriter, SketchHeader, OneCellKind}

/** The stand-alone exponential histogram (sketch kind 1): one EH cell after the common header. */
object EhKind extends OneCellKind[EhSketch](1, "eh", CellFamily.ExpHistogramId) {
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
  def info(s: EhSketch): Map[String, Any] = Map("cell_kind" -> "eh", "total_error_bound" -> s.errorBound)
  def errorBound(s: EhSketch): Double = s.errorBound
}

/** Exponential-histogram cells (cell kind 1). */
object EhCellKind extends CellKind(CellFamily.ExpHistogramId, "eh") {
  def deterministic: Boolean = true
  def minCellEpsilon: Double = EhConfig.MinEpsilon
  def family(p: CellParams): CellFamily = new EhCells(EhConfig(p.cellEpsilon, p.window))
}
