package ecmsketch.ecm

import ecmsketch.core.{CellKind, KindTable}
import ecmsketch.dwave.DwCellKind
import ecmsketch.eh.EhCellKind
import ecmsketch.rwave.RwCellKind

/** The cell kinds an ECM-sketch can hold, in the order the `cell` option lists them: the ECM-sketch is
  * a Count-Min array of the counter families' cells, so this family composes theirs.
  */
object CellKinds extends KindTable[CellKind](Seq(EhCellKind, DwCellKind, RwCellKind), "cell kind", "cell")(_.id, _.name) {
  /** The default cell kind: exponential histograms. */
  def default: CellKind = EhCellKind
}
