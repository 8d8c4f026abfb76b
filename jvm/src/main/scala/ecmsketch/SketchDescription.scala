package ecmsketch

import ecmsketch.ecm.{EcmSketch, KeyType}
import ecmsketch.format.SketchCodec
import ecmsketch.window.EhSketch

/** What `sketch_info` (SQL) and `info()` (Python) report for a sketch. */
object SketchDescription {
  /** Field names in display order. Window is null when unbounded; first_ts/last_ts are null for an
    * empty sketch; ECM-only fields are null for an exponential histogram.
    */
  val fields: Seq[String] = Seq("kind", "format_version", "window_type", "window", "ts_unit", "epsilon", "delta",
    "width", "depth", "cell_kind", "cell_epsilon", "cm_epsilon", "optimize_for", "key_type", "seed",
    "planned_merge_levels", "merge_depth", "error_bound", "point_error_bound", "inner_product_error_bound",
    "total_error_bound", "first_ts", "last_ts", "total_weight", "size_bytes")

  def describe(s: WindowSketch, sizeBytes: Int): Map[String, Any] = {
    val common = Map[String, Any](
      "format_version" -> SketchCodec.Version,
      "window_type" -> s.spec.typeName,
      "window" -> (if (s.spec.unbounded) null else s.spec.window),
      "ts_unit" -> (if (s.spec.countWindow) "sequence" else if (s.spec.tsMicros) "microseconds" else "ticks"),
      "epsilon" -> s.epsilon, "cell_kind" -> "eh", "cell_epsilon" -> s.cellEpsilon,
      "planned_merge_levels" -> s.plannedLevels, "merge_depth" -> s.mergeDepth,
      "first_ts" -> (if (s.isEmpty) null else s.firstTs), "last_ts" -> (if (s.isEmpty) null else s.lastTs),
      "total_weight" -> s.count, "size_bytes" -> sizeBytes)
    s match {
      case e: EcmSketch => common ++ Map(
        "kind" -> "ecm", "delta" -> e.delta, "width" -> e.width, "depth" -> e.depth,
        "cm_epsilon" -> e.plan.cmEpsilon, "optimize_for" -> e.plan.kind.name, "key_type" -> KeyType.name(e.keyType),
        "seed" -> e.seed, "error_bound" -> e.errorBound, "point_error_bound" -> e.pointErrorBound,
        "inner_product_error_bound" -> e.innerProductErrorBound(e), "total_error_bound" -> e.totalErrorBound)
      case h: EhSketch => common ++ Map(
        "kind" -> "eh", "delta" -> null, "width" -> null, "depth" -> null, "cm_epsilon" -> null,
        "optimize_for" -> null, "key_type" -> null, "seed" -> null, "error_bound" -> h.errorBound,
        "point_error_bound" -> null, "inner_product_error_bound" -> null, "total_error_bound" -> h.errorBound)
      case other => throw new SketchException(s"unknown sketch ${other.getClass.getSimpleName}")
    }
  }
}
