package ecmsketch.ecm.dyadic

import ecmsketch.core.{KeyType, Params, SketchException}
import ecmsketch.ecm.EcmSketch

/** The merges of dyadic sketches ([[DyadicSketch.merge]], [[DyadicSketch.mergeSameStream]]): level by level. */
private[dyadic] object DyadicMerge {
  import DyadicSketch.isBytesDomain

  def mergeImpl(xs: Seq[DyadicSketch], m: Seq[EcmSketch] => EcmSketch): DyadicSketch = {
    SketchException.require(xs.nonEmpty, "merge needs at least one sketch")
    val first = xs.head
    Params.requireAllSame(DyadicKind.plural, xs)(_.diffs(_))
    val domain = xs.map(_._keyDomain).find(_ != KeyType.Unset).getOrElse(KeyType.Unset)
    val lv = Array.tabulate(first.universeBits + 1)(i => m(xs.map(_.levels(i))))
    val out = new DyadicSketch(first.universeBits, first.epsilon, first.requestedDelta, lv)
    out._keyDomain = domain
    out._candidates = xs.find(_.bytesKeys).getOrElse(first)._candidates
    val tables = xs.flatMap(s => Option(s.keyTable))
    if (tables.nonEmpty) {
      val t = tables.head.copy()
      tables.tail.foreach(t.absorb)
      out.keyTable = t
    } else if (isBytesDomain(domain)) out.keyTable = new KeyTable(out._candidates, out.epochLength)
    out.restoreLevelsState()
    out
  }
}
