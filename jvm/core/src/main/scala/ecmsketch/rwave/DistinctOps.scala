package ecmsketch.rwave

import ecmsketch.core.Codec
import ecmsketch.ingest.SketchOps

/** How the ingest layer builds distinct-count sketches: `fp` is the value's fingerprint; every row has weight 1. */
final class DistinctOps(factory: () => DistinctSketch, keyType: Int) extends SketchOps[DistinctSketch] {
  def create(): DistinctSketch = { val s = factory(); s.setKeyType(keyType); s }
  def add(s: DistinctSketch, fp: Long, ts: Long, v: Long): Unit = s.addFingerprint(fp, ts)
  /** Only the last occurrence of a value in a sorted batch changes the state (docs/design/rwave.md). */
  override def addSorted(s: DistinctSketch, fps: Array[Long], ts: Array[Long], vs: Array[Long], from: Int, until: Int): Unit =
    s.addSortedBatch(fps, ts, from, until)
  def merge(xs: Seq[DistinctSketch]): DistinctSketch = DistinctKind.mergeSameStream(xs)
  override def lossless: Boolean = true
  def encode(s: DistinctSketch): Array[Byte] = Codec.encode(DistinctKind, s)
  def decode(b: Array[Byte]): DistinctSketch = Codec.decodeAs(DistinctKind, b)
}
