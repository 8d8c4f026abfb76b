package ecmsketch.ecm

import ecmsketch.core.Codec
import ecmsketch.ingest.SketchOps

/** How the ingest layer builds ECM-sketches of one plan and seed; `keyType` is recorded on every run. */
final class EcmOps(factory: () => EcmSketch, keyType: Int) extends SketchOps[EcmSketch] {
  def create(): EcmSketch = { val s = factory(); s.setKeyType(keyType); s }
  def add(s: EcmSketch, fp: Long, ts: Long, v: Long): Unit = s.addFingerprint(fp, ts, v)
  override def addSorted(s: EcmSketch, fps: Array[Long], ts: Array[Long], vs: Array[Long], from: Int, until: Int): Unit =
    s.addSortedBatch(fps, ts, vs, from, until)
  def merge(xs: Seq[EcmSketch]): EcmSketch = EcmKind.mergeSameStream(xs)
  override def createSide(): Option[EcmSketch] = EcmSketch.sideOf(create())
  override def mergeRuns(xs: Seq[EcmSketch]): EcmSketch = EcmSketch.mergeMixed(create(), xs)
  override lazy val lossless: Boolean = !create().plan.deterministicCells
  override def eventSalted: Boolean = lossless
  override def setEventSalt(s: EcmSketch, salt: Long): Unit = s.setEventSalt(salt)
  def encode(s: EcmSketch): Array[Byte] = Codec.encode(EcmKind, s)
  def decode(b: Array[Byte]): EcmSketch = Codec.decodeAs(EcmKind, b)
}
