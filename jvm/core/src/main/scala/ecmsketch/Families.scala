package ecmsketch

import ecmsketch.asynchronous.AsyncKind
import ecmsketch.core.{CellKind, Registration, SketchKind, WindowSketch}
import ecmsketch.decayed.DecayedKind
import ecmsketch.dwave.{DwCellKind, DwKind}
import ecmsketch.ecm.EcmKind
import ecmsketch.ecm.dyadic.DyadicKind
import ecmsketch.frequent.FrequentKind
import ecmsketch.rwave.{DistinctKind, RwCellKind}
import ecmsketch.eh.{EhCellKind, EhKind}

/** The registration list: every sketch kind and cell kind, one line per family. The core registry
  * (ecmsketch.core.Registry) loads this object by name on first use; a new family adds its
  * descriptors here (docs/design/README.md, "Layout").
  */
object Families extends Registration {
  val sketchKinds: Seq[SketchKind[_ <: WindowSketch]] = Seq(EhKind, EcmKind, DwKind, DistinctKind, DyadicKind,
    AsyncKind, DecayedKind, FrequentKind)
  /** In the order the `cell` option lists them in messages. */
  val cellKinds: Seq[CellKind] = Seq(EhCellKind, DwCellKind, RwCellKind)
}
