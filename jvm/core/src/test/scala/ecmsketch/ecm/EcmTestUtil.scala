package ecmsketch.ecm

import ecmsketch.core.WindowSketch

/** Merges and counts of ECM-sketches that only the suites use. */
object EcmTestUtil {
  /** [[EcmSketch.merge]] with another size limit for the side-by-side layout. */
  def mergeWithin(sketches: Seq[EcmSketch], limit: Long): EcmSketch = {
    WindowSketch.checkMergeable(sketches, "ecm merge")
    EcmMerge.mergeImpl(sketches, sameStream = false, timeDisjoint = true, sizeLimit = _ => Some(limit))
  }

  def nonEmptyCells(s: EcmSketch): Int = s.cells.count(c => c != null && !c.isEmpty)
}
