package ecmsketch.core

/** What `sketch_info` (SQL) and `info()` (Python) report for a sketch: the fields every kind shares
  * here, the kind's own from its [[SketchKind.info]].
  */
object SketchDescription {
  /** Field names in display order. Window is null when unbounded; first_ts/last_ts are null for an
    * empty sketch; fields that do not apply to a sketch or cell kind are null.
    */
  val fields: Seq[String] = Seq("kind", "format_version", "window_type", "window", "ts_unit", "epsilon", "delta",
    "width", "depth", "cell_kind", "cell_epsilon", "cm_epsilon", "max_arrivals", "cell_delta", "wave_capacity",
    "wave_instances", "optimize_for", "key_type", "seed",
    "planned_merge_levels", "merge_depth", "error_bound", "point_error_bound", "inner_product_error_bound",
    "total_error_bound", "first_ts", "last_ts", "total_weight", "size_bytes",
    "universe_bits", "range_error_bound", "quantile_rank_error_bound", "heavy_hitter_error_bound",
    "candidates", "candidate_recall_floor",
    // async sketches
    "measure", "sample_capacity", "tradeoff_level", "identity", "levels_used", "retained",
    // decayed sketches
    "decay", "decay_param", "tau", "constant", "max_weight", "resolution", "stored_entries",
    // ECM-sketches with EH cells: the largest size the plan allows on any stream (what max_bytes bounds)
    "max_size_bytes",
    // whether the bytes carry a checksum (format version 4); last, so that the fields before keep their positions
    "checksum")

  private val notApplicable: Map[String, Any] = Seq("cell_kind", "max_arrivals", "cell_delta", "wave_capacity", "wave_instances",
    "delta", "width", "depth", "cm_epsilon", "optimize_for", "key_type", "seed", "point_error_bound",
    "total_error_bound", "inner_product_error_bound", "universe_bits", "range_error_bound", "quantile_rank_error_bound",
    "heavy_hitter_error_bound", "candidates", "candidate_recall_floor",
    "measure", "sample_capacity", "tradeoff_level", "identity", "levels_used", "retained",
    "decay", "decay_param", "tau", "constant", "max_weight", "resolution", "stored_entries", "max_size_bytes").map(_ -> null).toMap

  /** The description of `s`, whose encoding is `bytes`: the bytes it was read from, or its encoding.
    * `format_version` and `checksum` describe those bytes (a sketch read from version-1 bytes reports 1
    * and false; every sketch this library writes has version 4 and a checksum).
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
      "total_weight" -> s.count, "size_bytes" -> bytes.length) ++ notApplicable
    val kind = Registry.kindOf(s).getOrElse(throw new SketchException(s"unknown sketch ${s.getClass.getSimpleName}"))
    val own = info(kind, s)
    val unknown = own.keySet -- fields
    if (unknown.nonEmpty) // a kind's sketch_info fields must be declared above (and in Spark's SketchInfo schema)
      throw new IllegalStateException(s"sketch kind '${kind.name}' reports sketch_info fields not in SketchDescription.fields: ${unknown.toSeq.sorted.mkString(", ")}")
    common ++ Map[String, Any]("kind" -> kind.name, "error_bound" -> errorBound(kind, s)) ++ own
  }

  private def info[S <: WindowSketch](k: SketchKind[S], s: WindowSketch): Map[String, Any] = k.info(k.cast(s).get)
  private def errorBound[S <: WindowSketch](k: SketchKind[S], s: WindowSketch): Double = k.errorBound(k.cast(s).get)
}
