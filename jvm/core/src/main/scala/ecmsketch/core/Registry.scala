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
  def readSingleCell[C <: WindowCounter](in: ByteReader, family: CellFamily)(empty: => C): C = {
    val cell = family.read(in, firstTs, lastTs)
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

/** A sketch kind (DataSketches' `Family`): its id in the format header, its names in messages, its
  * body encoding, its n-way merges and what `sketch_info` reports for it. One object per kind,
  * in the kind's own package; [[Registry]] lists them.
  */
abstract class SketchKind[S <: WindowSketch](val id: Int, val name: String)(implicit ct: ClassTag[S]) {
  /** What a sketch of this kind is, for error messages: "an ECM-sketch (from ecm_agg or ecm_merge)". */
  def describe: String
  /** What a typed decode expects: "an ECM-sketch (from ecm_agg)". */
  def expected: String
  /** The kind in plural, for merge messages: "ECM-sketches". */
  def plural: String
  def cellKindAllowed(cellKind: Int): Boolean
  def cellKindOf(s: S): Int
  /** Capacity hint for the encoder (bytes). */
  def sizeHint(s: S): Int
  /** Writes what follows the common header: the kind's own header fields and its cells. */
  def encodeBody(s: S, out: ByteWriter): Unit
  /** Reads what [[encodeBody]] wrote, validating every field; the caller restores the header's state. */
  def decodeBody(in: ByteReader, h: SketchHeader): S
  /** Cross-site n-way merge (count-based sketches refused). */
  def merge(xs: Seq[S]): S
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
    * unless a kind reads older bytes into the current plan (randomized-wave kinds read version 1
    * bytes of version 0.1.0's plan, which they write as version 3).
    */
  def readsAs(version: Int, written: Int, s: S): Boolean = false

  final def cls: Class[_] = ct.runtimeClass
  final def cast(s: WindowSketch): Option[S] = s match { case x: S => Some(x); case _ => None }
}

/** A sketch kind that holds exactly one cell, of cell kind `cellKindId`. */
abstract class OneCellKind[S <: WindowSketch](id: Int, name: String, val cellKindId: Int)(implicit ct: ClassTag[S])
    extends SketchKind[S](id, name) {
  final def cellKindAllowed(cellKind: Int): Boolean = cellKind == cellKindId
  final def cellKindOf(s: S): Int = cellKindId
}

/** Parameters from which a cell kind builds the cell family of an ECM-sketch. */
final case class CellParams(cellEpsilon: Double, window: Long, seed: Long, cellDelta: Double, maxArrivals: Long)

object CellParams {
  /** max_arrivals when none is given (only deterministic-wave cells take one). */
  final val Unbounded = Long.MaxValue
}

/** The cell parameters read from an ECM-sketch header: max_arrivals, the cell delta, and the
  * family that reads the cells when their bytes follow an older plan than the sketch's family
  * (`reader(family)`; the family itself by default).
  */
final case class CellHeader(maxArrivals: Long, cellDelta: Double, reader: CellFamily => CellFamily = identity)

/** What an ECM-sketch's header holds besides the cell parameters, for a cell kind's checks. */
final case class EcmCellContext(cellEpsilon: Double, window: Long, seed: Long, delta: Double, depth: Int,
                                pointQueries: Boolean, version: Int)

/** A cell kind: its id in the format, its name ('eh', 'dwave', 'rwave'), how an ECM-sketch builds,
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
  def family(p: CellParams): CellFamily
  /** Writes the cell parameters of an ECM-sketch header (nothing by default). */
  def writeParams(f: CellFamily, out: ByteWriter): Unit = ()
  /** Reads them back, validated. */
  def readParams(in: ByteReader, c: EcmCellContext): CellHeader = CellHeader(CellParams.Unbounded, 0.0)
  /** [[SketchKind.readsAs]] for a sketch of these cells. */
  def readsAs(version: Int, written: Int): Boolean = false
  /** The `sketch_info` fields its cells add to the sketch that holds them (names and types). */
  def infoFields: Seq[InfoField] = Nil
  /** Values of [[infoFields]] for cells of family `f`. */
  def info(f: CellFamily): Map[String, Any] = Map.empty
  /** max_arrivals of a merge of several contributing sketches (see DwConfig.mergedArrivals). */
  def mergedArrivals(us: Seq[Long], sameStream: Boolean): Long = CellParams.Unbounded
  /** The largest encoding (bytes) one cell of these parameters can have in an ECM-sketch, on any
    * stream and after any merges; None when the kind has no such bound (max_bytes refuses it).
    */
  def worstCellBytes(p: CellParams): Option[Long] = None
}

/** Every sketch and cell kind, in one list outside core (the registration file). */
trait Registration {
  def sketchKinds: Seq[SketchKind[_ <: WindowSketch]]
  def cellKinds: Seq[CellKind]
}

/** The kinds, looked up by id, name or class. The list itself lives in [[Registry.RegistrationObject]]
  * (it names every family, so core cannot hold it); the registry loads it by name once, on first
  * use, so every entry point (SQL, PyApi, the codec, tests) sees every kind.
  */
object Registry {
  final val RegistrationObject = "ecmsketch.Families"

  private lazy val registration: Registration =
    Class.forName(RegistrationObject + "$", true, getClass.getClassLoader).getField("MODULE$").get(null).asInstanceOf[Registration]

  lazy val sketchKinds: Seq[SketchKind[_ <: WindowSketch]] = unique(registration.sketchKinds, "sketch")(k => (k.id, k.name))
  lazy val cellKinds: Seq[CellKind] = unique(registration.cellKinds, "cell")(k => (k.id, k.name))

  private lazy val sketchById: Map[Int, SketchKind[_ <: WindowSketch]] = sketchKinds.map(k => k.id -> k).toMap
  private lazy val cellById: Map[Int, CellKind] = cellKinds.map(k => k.id -> k).toMap

  private def unique[K](ks: Seq[K], what: String)(key: K => (Int, String)): Seq[K] = {
    val keys = ks.map(key)
    require(keys.map(_._1).distinct.size == keys.size && keys.map(_._2).distinct.size == keys.size,
      s"duplicate $what kind ids or names in $RegistrationObject: $keys")
    ks
  }

  def sketchKind(id: Int): Option[SketchKind[_ <: WindowSketch]] = sketchById.get(id)
  def cellKind(id: Int): Option[CellKind] = cellById.get(id)

  /** The cell kind `id`; a SketchException names an unknown one. */
  def cellKindOrFail(id: Int): CellKind =
    cellById.getOrElse(id, throw new SketchException(s"corrupt sketch: unknown cell kind $id"))

  /** The cell kind named `name` ('eh', 'dwave', 'rwave'), case-insensitively. */
  def cellKindNamed(name: String): CellKind = {
    val n = name.trim.toLowerCase
    cellKinds.find(_.name == n).getOrElse {
      val names = cellKinds.map(k => s"'${k.name}'")
      throw new SketchException(s"cell must be ${names.init.mkString(", ")} or ${names.last}, got '$n'")
    }
  }

  /** The sketch kind named `name` ('ecm', 'eh', 'dwave', 'distinct'). */
  def sketchKindNamed(name: String): SketchKind[_ <: WindowSketch] =
    sketchKinds.find(_.name == name).getOrElse(throw new SketchException(s"unknown sketch kind '$name'"))

  /** The kind of a sketch object. */
  def kindOf(s: WindowSketch): Option[SketchKind[_ <: WindowSketch]] = sketchKinds.find(_.cls.isInstance(s))

  /** What a sketch is, for error messages. */
  def describe(s: WindowSketch): String = kindOf(s).map(_.describe).getOrElse(s.getClass.getSimpleName)
}
