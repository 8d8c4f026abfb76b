package ecmsketch.ecm.dyadic

import ecmsketch.core.{Annex, ByteReader, Codec}
import ecmsketch.ingest.SketchOps

/** How the ingest layer builds dyadic ECM-sketches: rows reach [[ecmsketch.ingest.Ingest]] keyed by their universe index
  * (the `fp` of [[SketchOps]]); string and binary keys keep their candidate keys beside the runs.
  */
final class DyadicOps(factory: () => DyadicSketch, domain: Int) extends SketchOps[DyadicSketch] {
  def create(): DyadicSketch = { val s = factory(); s.setKeyDomain(domain); s }
  def add(s: DyadicSketch, u: Long, ts: Long, v: Long): Unit = s.addIndex(u, ts, v)
  override def addSorted(s: DyadicSketch, us: Array[Long], ts: Array[Long], vs: Array[Long], from: Int, until: Int): Unit =
    s.addSortedBatch(us, ts, vs, from, until)
  def merge(xs: Seq[DyadicSketch]): DyadicSketch = DyadicKind.mergeSameStream(xs)
  def encode(s: DyadicSketch): Array[Byte] = Codec.encode(DyadicKind, s)
  def decode(b: Array[Byte]): DyadicSketch = Codec.decodeAs(DyadicKind, b)
  // string / binary keys: the candidate keys are kept beside the runs (the runs see fingerprints only)
  @transient private lazy val template: DyadicSketch = create()
  override def newAnnex(): Annex = if (DyadicSketch.isBytesDomain(domain)) new KeyTable(template.candidates, template.epochLength) else null
  override def decodeAnnex(in: ByteReader): Annex = KeyTable.decode(in, template.candidates, template.epochLength)
  override def attachAnnex(s: DyadicSketch, a: Annex): Unit = a match {
    case t: KeyTable => s.attachKeys(t)
    case _ => ()
  }
}

