package ecmsketch

import ecmsketch.dwave.{DwConfig, DwSketch}
import ecmsketch.core.{CellFamily, KeyType, SketchException, WindowSketch}
import ecmsketch.ecm.EcmSketch
import ecmsketch.format.SketchCodec
import ecmsketch.rwave.{DistinctSketch, RwConfig}
import ecmsketch.window.EhSketch

/** What `sketch_info` (SQL) and `info()` (Python) report for a sketch. */
object SketchDescription {
  /** Field names in display order. Window is null when unbounded; first_ts/last_ts are null for an
    * empty sketch; fields that do not apply to a sketch or cell kind are null.
    */
  val fields: Seq[String] = Seq("kind", "format_version", "window_type", "window", "ts_unit", "epsilon", "delta",
    "width", "depth", "cell_kind", "cell_epsilon", "cm_epsilon", "max_arrivals", "cell_delta", "wave_capacity",
    "wave_instances", "optimize_for", "key_type", "seed",
    "planned_merge_levels", "merge_depth", "error_bound", "point_error_bound", "inner_product_error_bound",
    "total_error_bound", "first_ts", "last_ts", "total_weight", "size_bytes")

  private def arrivals(u: Long): Any = if (u == DwConfig.Unbounded) null else u

  private def rw(c: RwConfig): Map[String, Any] =
    Map("cell_delta" -> c.delta, "wave_capacity" -> c.capacity, "wave_instances" -> c.instances)

  private val noWave = Map[String, Any]("max_arrivals" -> null, "cell_delta" -> null, "wave_capacity" -> null, "wave_instances" -> null)

  def describe(s: WindowSketch, sizeBytes: Int): Map[String, Any] = {
    val common = Map[String, Any](
      "format_version" -> SketchCodec.Version,
      "window_type" -> s.spec.typeName,
      "window" -> (if (s.spec.unbounded) null else s.spec.window),
      "ts_unit" -> (if (s.spec.countWindow) "sequence" else if (s.spec.tsMicros) "microseconds" else "ticks"),
      "epsilon" -> s.epsilon, "cell_epsilon" -> s.cellEpsilon,
      "planned_merge_levels" -> s.plannedLevels, "merge_depth" -> s.mergeDepth,
      "first_ts" -> (if (s.isEmpty) null else s.firstTs), "last_ts" -> (if (s.isEmpty) null else s.lastTs),
      "total_weight" -> s.count, "size_bytes" -> sizeBytes) ++ noWave
    val single = Map[String, Any]("delta" -> null, "width" -> null, "depth" -> null, "cm_epsilon" -> null,
      "optimize_for" -> null, "key_type" -> null, "seed" -> null, "point_error_bound" -> null, "total_error_bound" -> null,
      "inner_product_error_bound" -> null)
    s match {
      case e: EcmSketch =>
        val det = e.plan.deterministicCells
        val cell = e.family match {
          case d: ecmsketch.dwave.DwCells => Map[String, Any]("max_arrivals" -> arrivals(d.config.maxArrivals))
          case r: ecmsketch.rwave.RwCells => rw(r.config)
          case _ => Map.empty[String, Any]
        }
        common ++ cell ++ Map(
          "kind" -> "ecm", "cell_kind" -> e.cellName, "delta" -> e.delta, "width" -> e.width, "depth" -> e.depth,
          "cm_epsilon" -> e.plan.cmEpsilon, "optimize_for" -> e.plan.kind.name, "key_type" -> KeyType.name(e.keyType),
          "seed" -> e.seed, "error_bound" -> e.errorBound, "point_error_bound" -> e.pointErrorBound,
          "inner_product_error_bound" -> (if (det) e.innerProductErrorBound(e) else null),
          "total_error_bound" -> (if (det) e.totalErrorBound else null))
      case h: EhSketch => common ++ single ++ Map(
        "kind" -> "eh", "cell_kind" -> "eh", "error_bound" -> h.errorBound, "total_error_bound" -> h.errorBound)
      case d: DwSketch => common ++ single ++ Map(
        "kind" -> "dwave", "cell_kind" -> "dwave", "max_arrivals" -> arrivals(d.maxArrivals),
        "error_bound" -> d.errorBound, "total_error_bound" -> d.errorBound)
      case d: DistinctSketch => common ++ single ++ rw(d.config) ++ Map(
        "kind" -> "distinct", "cell_kind" -> CellFamily.name(CellFamily.RandWaveId), "delta" -> d.delta,
        "key_type" -> KeyType.name(d.keyType), "seed" -> d.seed, "error_bound" -> d.errorBound)
      case other => throw new SketchException(s"unknown sketch ${other.getClass.getSimpleName}")
    }
  }
}
