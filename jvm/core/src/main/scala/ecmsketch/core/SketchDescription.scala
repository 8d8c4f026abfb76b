package ecmsketch.core

import InfoField.{flag, int, long, real, text}

/** What `sketch_info` (SQL) and `info()` (Python) report for a sketch: the fields every kind shares
  * ([[shared]]) and those its kind and cell kinds declare ([[SketchKind.infoFields]],
  * [[CellKind.infoFields]]). The schema over every registered kind is `ecmsketch.Families.infoSchema`.
  */
object SketchDescription {
  /** The fields of every sketch. `window` is NULL when unbounded; `first_ts` and `last_ts` are NULL for an
    * empty sketch.
    */
  val shared: Seq[InfoField] = Seq(text("kind"), int("format_version"), flag("checksum"), text("window_type"),
    long("window"), text("ts_unit"), real("epsilon"), real("cell_epsilon"), int("planned_merge_levels"),
    int("merge_depth"), real("error_bound"), long("first_ts"), long("last_ts"), long("total_weight"), int("size_bytes"))

  /** `sketch_info`, the SQL function of every kind. */
  val functions: Seq[FunctionSpec] = Seq(
    FunctionSpec("sketch_info",
      Seq(FunctionSpec.req("sketch", "Any ecmsketch sketch (BINARY); NULL gives NULL.")),
      "_FUNC_(sketch) - STRUCT describing a sketch: kind, parameters, merge depth, certified error bound, timestamps, size.",
      "misc_funcs",
      "STRUCT<kind: STRING, ..., size_bytes: INT, ...> (fields that do not apply to the sketch's kind are NULL)",
      Seq(FunctionSpec.Example(s"SELECT sketch_info(s).kind, sketch_info(s).window, sketch_info(s).epsilon, " +
        s"sketch_info(s).last_ts FROM (SELECT eh_agg(ts, 10, 0.1) AS s FROM ${FunctionSpec.Ticks});", "eh\t10\t0.1\t3"))))

  /** The schema over the kinds given: the shared fields, then each kind's, then each cell kind's (a name
    * declared twice must have one type, and is listed once).
    */
  def schema(kinds: Seq[SketchKind[_ <: WindowSketch]]): Seq[InfoField] = {
    val cells = kinds.flatMap(_.cellKinds).distinct
    union(shared, kinds.map(k => (k.name, k.infoFields)) ++ cells.map(k => (k.name + " cells", k.infoFields)))
  }

  /** `base` followed by each owner's fields not already listed; a field declared with two types is refused. */
  def union(base: Seq[InfoField], owned: Seq[(String, Seq[InfoField])]): Seq[InfoField] = {
    val out = Seq.newBuilder[InfoField] ++= base
    val seen = scala.collection.mutable.LinkedHashMap[String, (InfoType, String)]()
    base.foreach(f => seen(f.name) = (f.tpe, "every sketch"))
    for ((owner, fs) <- owned; f <- fs) seen.get(f.name) match {
      case Some((t, _)) if t == f.tpe =>
      case Some((t, other)) =>
        throw new IllegalStateException(s"sketch_info field '${f.name}' is ${f.tpe.sqlName} for $owner but ${t.sqlName} for $other")
      case None => seen(f.name) = (f.tpe, owner); out += f
    }
    out.result()
  }

  /** The description of `s`, whose encoding is `bytes`: the bytes it was read from, or its encoding.
    * `format_version` and `checksum` describe those bytes (a sketch read from version-1 bytes reports 1
    * and false; every sketch this library writes has version 4 and a checksum). It holds the shared
    * fields and those of the sketch's kind; fields of other kinds are absent (NULL in `sketch_info`).
    */
  def describe(s: WindowSketch, bytes: Array[Byte]): Map[String, Any] = describeBytes(s, bytes)

  /** The description of `s` as this library writes it (format version 4, with its checksum). */
  def describe(s: WindowSketch): Map[String, Any] = describeBytes(s, Codec.encodeAny(s))

  private def describeBytes(s: WindowSketch, bytes: Array[Byte]): Map[String, Any] = {
    val version = Codec.versionOfBytes(bytes)
    val common = Map[String, Any](
      "format_version" -> version, "checksum" -> (version >= Codec.ChecksumVersion),
      "window_type" -> s.spec.typeName,
      "window" -> (if (s.spec.unbounded) null else s.spec.window),
      "ts_unit" -> (if (s.spec.countWindow) "sequence" else if (s.spec.tsMicros) "microseconds" else "ticks"),
      "epsilon" -> s.epsilon, "cell_epsilon" -> s.cellEpsilon,
      "planned_merge_levels" -> s.plannedLevels, "merge_depth" -> s.mergeDepth,
      "first_ts" -> (if (s.isEmpty) null else s.firstTs), "last_ts" -> (if (s.isEmpty) null else s.lastTs),
      "total_weight" -> s.count, "size_bytes" -> bytes.length)
    val kind = s.kind
    val own = info(kind, s)
    val declared = (kind.infoFields ++ kind.cellKinds.flatMap(_.infoFields)).map(_.name).toSet
    val unknown = own.keySet -- declared
    if (unknown.nonEmpty) // a kind reports only the fields it (or a cell kind) declares
      throw new IllegalStateException(s"sketch kind '${kind.name}' reports undeclared sketch_info fields: ${unknown.toSeq.sorted.mkString(", ")}")
    common ++ Map[String, Any]("kind" -> kind.name, "error_bound" -> errorBound(kind, s)) ++ own
  }

  private def info[S <: WindowSketch](k: SketchKind[S], s: WindowSketch): Map[String, Any] = k.info(k.cast(s).get)
  private def errorBound[S <: WindowSketch](k: SketchKind[S], s: WindowSketch): Double = k.errorBound(k.cast(s).get)
}
