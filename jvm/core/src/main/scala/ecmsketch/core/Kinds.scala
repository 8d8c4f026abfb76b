package ecmsketch.core

import scala.reflect.ClassTag

/** The validated header fields every sketch kind shares (docs/FORMAT.md, bytes 0-59; version 4 adds the
  * checksum at 60-63, which the codec verifies before it reads them).
  */
final case class SketchHeader(kind: Int, cellKind: Int, spec: WindowSpec, epsilon: Double, cellEpsilon: Double,
                              levels: Int, depth: Int, firstTs: Long, lastTs: Long, count: Long, hasRows: Boolean,
                              version: Int = Codec.Version) {
  /** A decoded cell must be empty in an empty sketch. */
  def checkEmptyCell(cell: WindowCounter): Unit =
    if (cell != null && !hasRows) throw new SketchException("corrupt sketch: buckets in an empty sketch")

  /** The cells cannot hold more weight than the header's total weight ever added. */
  def checkWeight(cell: WindowCounter): Unit = {
    val w = SketchHeader.weight(cell)
    if (w > count) throw new SketchException(s"corrupt sketch: the cell holds weight $w, more than the total weight $count")
  }

  /** The body of a one-cell sketch kind: the cell, validated against this header, and the end of
    * the bytes. An empty cell becomes `empty`, moved to the header's clock when the sketch has rows.
    */
  def readSingleCell[C <: WindowCounter](in: ByteReader, cellOps: CellOps)(empty: => C): C = {
    val cell = cellOps.read(in, firstTs, lastTs)
    checkEmptyCell(cell)
    checkWeight(cell)
    in.expectEnd()
    if (cell != null) cell.asInstanceOf[C]
    else {
      val c = empty
      if (hasRows) c.advanceTo(lastTs)
      c
    }
  }
}

object SketchHeader {
  def weight(cell: WindowCounter): Long = if (cell == null) 0L else cell.heldWeight
}

/** A sketch kind's descriptor (DataSketches' `Family`): its id in the format header, its names in
  * messages, the cell kinds it holds, its body encoding, its n-way merges, what `sketch_info` reports
  * for it, its error bound and its SQL functions. One object per kind, in the kind's own package;
  * the registration list (`ecmsketch.Families`) names them all.
  */
abstract class SketchKind[S <: WindowSketch](val id: Int, val name: String)(implicit ct: ClassTag[S]) {
  /** What a sketch of this kind is, for error messages: "an ECM-sketch (from ecm_agg or ecm_merge)". */
  def describe: String
  /** What a typed decode expects: "an ECM-sketch (from ecm_agg)". */
  def expected: String
  /** The kind in plural, for merge messages: "ECM-sketches". */
  def plural: String
  /** The cell kinds its sketches may hold; none: it holds no sliding-window cells ([[Codec.NoCells]]). */
  def cellKinds: Seq[CellKind]
  /** Whether a header may name cell kind `cellKind` for this kind. */
  final def cellKindAllowed(cellKind: Int): Boolean =
    if (cellKind == Codec.NoCells) cellKinds.isEmpty else cellKinds.exists(_.id == cellKind)
  def cellKindOf(s: S): Int
  /** Capacity hint for the encoder (bytes). */
  def sizeHint(s: S): Int
  /** Writes what follows the common header: the kind's own header fields and its cells. */
  def encodeBody(s: S, out: ByteWriter): Unit
  /** Reads what [[encodeBody]] wrote, validating every field; the caller restores the header's state. */
  def decodeBody(in: ByteReader, h: SketchHeader): S
  /** Cross-site n-way merge (count-based sketches refused). */
  def merge(xs: Seq[S]): S
  /** A cross-site merge of some of one merge's inputs, before the merge of them all (a merge
    * aggregate holding more inputs than it keeps apart). Default: [[merge]]; a kind whose merges
    * spend planned levels (windowed quantiles fold runs) leaves that to the last merge.
    */
  def mergeEarly(xs: Seq[S]): S = merge(xs)
  /** n-way merge of partial sketches of one stream (count windows allowed). */
  def mergeSameStream(xs: Seq[S]): S
  /** Parameters that differ between two sketches a merge aggregate combines (empty: they merge). */
  def mergeDiffs(a: S, b: S): Seq[String]
  /** The `sketch_info` fields this kind reports beside the shared ones ([[SketchDescription.shared]]):
    * their names and types, in the order `sketch_info` lists them. The fields of its cell kind come
    * from [[CellKind.infoFields]].
    */
  def infoFields: Seq[InfoField]
  /** Values of this kind's [[infoFields]] (and of its cell kind's) for `s`; a missing field is NULL. */
  def info(s: S): Map[String, Any]
  /** The kind's SQL functions: aggregates, merges and queries ([[FunctionSpec]]). */
  def functions: Seq[FunctionSpec] = Nil
  /** The certified relative error of the kind's main query at the sketch's merge depth. */
  def errorBound(s: S): Double
  /** The checksum-less format version (1 to 3) whose layout the body follows: [[Codec.Version]] unless a
    * cell needs a newer one. Version-4 bytes carry the same body; bytes of versions 1 to 3 must carry
    * exactly this version.
    */
  def formatVersion(s: S): Int = Codec.Version
  /** Whether bytes of format `version` may decode to a sketch that is written as `written`: never,
    * unless a kind reads bytes of an older release's plan into the current one (and then writes
    * them in a newer version).
    */
  def readsAs(version: Int, written: Int, s: S): Boolean = false

  final def cls: Class[_] = ct.runtimeClass
  final def cast(s: WindowSketch): Option[S] = s match { case x: S => Some(x); case _ => None }
}

/** A sketch kind that holds exactly one cell, of cell kind `cell`. */
abstract class OneCellKind[S <: WindowSketch](id: Int, name: String, val cell: CellKind)(implicit ct: ClassTag[S])
    extends SketchKind[S](id, name) {
  final def cellKindId: Int = cell.id
  final def cellKinds: Seq[CellKind] = Seq(cell)
  final def cellKindOf(s: S): Int = cell.id
}

/** Parameters from which a cell kind builds the cell ops of an ECM-sketch. */
final case class CellParams(cellEpsilon: Double, window: Long, seed: Long, cellDelta: Double, maxArrivals: Long)

object CellParams {
  /** max_arrivals when none is given (only cell kinds that [[CellKind.takesMaxArrivals]] use it). */
  final val Unbounded = Long.MaxValue
}

/** The cell parameters read from an ECM-sketch header: max_arrivals, the cell delta, and the
  * cell ops that read the cells when their bytes follow an older plan than the sketch's
  * (`reader(cellOps)`; the cell ops themselves by default).
  */
final case class CellHeader(maxArrivals: Long, cellDelta: Double, reader: CellOps => CellOps = identity)

/** What an ECM-sketch's header holds besides the cell parameters, for a cell kind's checks. */
final case class EcmCellContext(cellEpsilon: Double, window: Long, seed: Long, delta: Double, depth: Int,
                                pointQueries: Boolean, version: Int)

/** A cell kind: its id in the format, its name (the value of the `cell` option), how an ECM-sketch builds,
  * plans and describes its cells, and the cell parameters it keeps in an ECM-sketch's header.
  */
abstract class CellKind(val id: Int, val name: String) {
  /** Deterministic cells carry totals and inner products; randomized ones point queries only. */
  def deterministic: Boolean
  /** Whether its cells take max_arrivals (an upper bound on the weight in any window). */
  def takesMaxArrivals: Boolean = false
  /** The smallest cell epsilon a header may hold. */
  def minCellEpsilon: Double
  /** Header checks of the cell epsilon beyond the range (e.g. equal to epsilon). */
  def checkCellEpsilon(cellEps: Double, eps: Double): Unit = ()
  def cellOps(p: CellParams): CellOps
  /** Writes the cell parameters of an ECM-sketch header (nothing by default). */
  def writeParams(f: CellOps, out: ByteWriter): Unit = ()
  /** Reads them back, validated. */
  def readParams(in: ByteReader, c: EcmCellContext): CellHeader = CellHeader(CellParams.Unbounded, 0.0)
  /** [[SketchKind.readsAs]] for a sketch of these cells. */
  def readsAs(version: Int, written: Int): Boolean = false
  /** The `sketch_info` fields its cells add to the sketch that holds them (names and types). */
  def infoFields: Seq[InfoField] = Nil
  /** Values of [[infoFields]] for cells built by `f`. */
  def info(f: CellOps): Map[String, Any] = Map.empty
  /** max_arrivals of a merge of several contributing sketches (see DwConfig.mergedArrivals). */
  def mergedArrivals(us: Seq[Long], sameStream: Boolean): Long = CellParams.Unbounded
  /** The largest encoding (bytes) one cell of these parameters can have in an ECM-sketch, on any
    * stream and after any merges; None when the kind has no such bound (max_bytes refuses it).
    */
  def worstCellBytes(p: CellParams): Option[Long] = None
}

/** Kinds looked up by id and name, built from the lists given: the registration list
  * (`ecmsketch.Families`) holds every sketch kind, a family that holds cells its cell kinds.
  */
class KindTable[K](kinds: Seq[K], what: String, option: String)(id: K => Int, name: K => String) {
  locally {
    val ids = kinds.map(id)
    val names = kinds.map(name)
    require(ids.distinct.size == ids.size && names.distinct.size == names.size, s"duplicate $what ids or names: ${ids.zip(names)}")
  }
  private val byId: Map[Int, K] = kinds.map(k => id(k) -> k).toMap

  def all: Seq[K] = kinds
  def get(i: Int): Option[K] = byId.get(i)
  /** The kind of id `i`; a SketchException names an unknown one. */
  def getOrFail(i: Int): K = byId.getOrElse(i, throw new SketchException(s"corrupt sketch: unknown $what $i"))
  /** The kind named `n` (trimmed, case-insensitive); the message names the `option` and lists the names. */
  def named(n: String): K = {
    val key = n.trim.toLowerCase
    kinds.find(k => name(k) == key).getOrElse {
      val names = kinds.map(k => s"'${name(k)}'")
      val list = if (names.size == 1) names.head else s"${names.init.mkString(", ")} or ${names.last}"
      throw new SketchException(s"$option must be $list, got '$key'")
    }
  }
  /** The name of id `i`, or "unknown(i)". */
  def nameOf(i: Int): String = get(i).map(name).getOrElse(s"unknown($i)")
}
