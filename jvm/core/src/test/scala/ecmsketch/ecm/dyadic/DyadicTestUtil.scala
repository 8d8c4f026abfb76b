package ecmsketch.ecm.dyadic

import ecmsketch.ecm.EcmTestUtil

/** Counts of dyadic sketches that only the suites use. */
object DyadicTestUtil {
  def nonEmptyCells(d: DyadicSketch): Int = d.levels.map(EcmTestUtil.nonEmptyCells).sum
}
