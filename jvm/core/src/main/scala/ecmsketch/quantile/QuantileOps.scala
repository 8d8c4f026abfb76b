package ecmsketch.quantile

import ecmsketch.core.Codec
import ecmsketch.ingest.SketchOps

/** How the ingest layer builds windowed quantile sketches from rows in any order: a row reaches
  * [[ecmsketch.ingest.Ingest]] with its value's 64 bits (`java.lang.Double.doubleToRawLongBits`) in
  * the place of a key, and its weight.
  */
final class QuantileOps(factory: () => QuantileSketch) extends SketchOps[QuantileSketch] {
  def create(): QuantileSketch = factory()
  def add(s: QuantileSketch, bits: Long, ts: Long, v: Long): Unit = s.add(ts, java.lang.Double.longBitsToDouble(bits), v)
  /** Sorted batches go to [[QuantileSketch.addSorted]]. */
  override def addSorted(s: QuantileSketch, bits: Array[Long], ts: Array[Long], vs: Array[Long], from: Int, until: Int): Unit =
    s.addSorted(ts, bits, vs, from, until)
  /** Rows in any order into an empty sketch: [[QuantileSketch.addUnsorted]]. */
  override def addUnsorted(s: QuantileSketch, bits: Array[Long], ts: Array[Long], vs: Array[Long], n: Int): Boolean =
    s.addUnsorted(ts, bits, vs, n)
  def merge(xs: Seq[QuantileSketch]): QuantileSketch = QuantileSketch.mergeSameStream(xs)
  /** The finished sketch of a partial aggregate's runs: overlapping runs are folded into one (early
    * merges of runs keep them side by side, so that a finished aggregate is of generation 1).
    */
  override def finish(xs: Seq[QuantileSketch]): QuantileSketch = QuantileSketch.mergeSameStream(xs, fold = true)
  /** Rows in no order wait in the reorder buffer up to [[ecmsketch.ingest.Ingest.MaxLate]]: a sorted
    * batch is sealed at once ([[QuantileSketch.addSorted]]), which costs less than side runs of late
    * rows and their fold, so a partition's rows of one group, up to that many, make one run.
    */
  override def bufferRows: Int = ecmsketch.ingest.Ingest.MaxLate
  def encode(s: QuantileSketch): Array[Byte] = Codec.encode(QuantileKind, s)
  def decode(b: Array[Byte]): QuantileSketch = Codec.decodeAs(QuantileKind, b)
}
