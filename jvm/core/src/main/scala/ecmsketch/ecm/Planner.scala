package ecmsketch.ecm

import ecmsketch.core.{Bounds, CellParams, Codec, SketchException, WindowSpec}

/** The query kind a sketch's parameters are optimized for. Serializable: Spark ships it to executors
  * inside plans, and Scala 2.12 deserializes a case object through its superclass's constructor. */
sealed abstract class QueryKind(val id: Int, val name: String) extends Serializable
object QueryKind {
  case object Point extends QueryKind(0, "point")
  case object InnerProduct extends QueryKind(1, "inner_product")
  val all: Seq[QueryKind] = Seq(Point, InnerProduct)
  def fromName(s: String): QueryKind = all.find(_.name.equalsIgnoreCase(s.trim)).getOrElse(
    throw new SketchException(s"optimize_for must be 'point' or 'inner_product', got '$s'"))
  def fromId(i: Int): QueryKind = all.find(_.id == i).getOrElse(
    throw new SketchException(s"corrupt sketch: unknown query kind $i"))
}

/** An ECM-sketch plan: the split of the requested error between the sliding-window cells and the
  * Count-Min array, and the array's shape.
  *
  * We use the journal's split ([ECM-J] Theorems 2 and 3), the tighter analysis:
  *  - point:          e_sw = eps,            eps_cm = eps / (1 + eps)  (bound max(e_sw, (1+e_sw) eps_cm) = eps)
  *  - inner product:  (1+e_sw)^2 = 1 + eps,  eps_cm = eps / (1 + eps)  (bound max(P, (1+P) eps_cm) = eps,
  *                                                                       P = (1+e_sw)^2 - 1)
  * where e_sw is the cell error *after* the budgeted merge levels. A cell after h levels of
  * order-preserving merge has error (1 + cellEps)^(h+1) - 1 (see [[EcmSketch.cellBound]]), so
  * cellEps = (1 + e_sw)^(1/(levels+1)) - 1. For levels = 1 this equals the paper's h-level
  * formula; for more levels it is slightly smaller because it accounts for the compounding the
  * printed formula h eps (1 + eps) + eps leaves out. Width w = ceil(e / eps_cm), depth d = ceil(ln(1/delta)).
  */
final case class EcmPlan(epsilon: Double, delta: Double, kind: QueryKind, levels: Int,
                         cellEpsilon: Double, cmEpsilon: Double, width: Int, depth: Int,
                         cellKind: Int = CellKinds.default.id, cellDelta: Double = 0.0) {
  /** Whether the cells are deterministic (EH, deterministic wave): only those carry inner-product guarantees. */
  def deterministicCells: Boolean = CellKinds.get(cellKind).forall(_.deterministic)
}

object Planner {
  final val MaxWidth = 1 << 20
  final val MaxDepth = 32
  final val MaxCells = 1 << 22
  final val MaxLevels = Bounds.MaxLevels

  def checkEpsilon(epsilon: Double): Unit = Bounds.checkEpsilon(epsilon)

  def checkLevels(levels: Int): Unit = Bounds.checkLevels(levels)

  /** Cell epsilon such that a cell merged `levels` times has error at most `target`. */
  def cellEpsilonFor(target: Double, levels: Int): Double = Bounds.cellEpsilonFor(target, levels)

  private def fitDown(x: Double, ok: Double => Boolean): Double = Bounds.fitDown(x, ok)

  /** The bound a sketch with these parameters reports at merge depth `depth` (see EcmSketch). */
  def boundAt(kind: QueryKind, cellEps: Double, depth: Int, epsCm: Double): Double = {
    val e = Bounds.compound(cellEps, depth)
    kind match {
      case QueryKind.Point => math.max(e, (1 + e) * epsCm)
      case QueryKind.InnerProduct => val p = (1 + e) * (1 + e) - 1; math.max(p, (1 + p) * epsCm)
    }
  }

  /** The plan of fine side runs of `plan` (docs/design/rows-in-any-order.md, "Rows in any order"): the same array,
    * epsilon and query kind, cells of epsilon [[Bounds.sideCellEpsilon]], so that the one merge of a
    * partition's side runs stays within the main plan's cell epsilon. None for randomized-wave cells
    * (their merges add no error: side runs need no finer cells) and when the finer cells would fall
    * below the supported cell epsilon.
    */
  def sidePlan(plan: EcmPlan): Option[EcmPlan] =
    if (!plan.deterministicCells) None
    else Bounds.sideCellEpsilon(plan.cellEpsilon).map(cf => plan.copy(levels = Bounds.sideLevels(plan.levels), cellEpsilon = cf))

  /** Cell kind from its SQL/Python name ('eh', 'dwave' or 'rwave': the registered cell kinds). */
  def cellKind(name: String): Int = CellKinds.named(name).id

  /** Plans a sketch with cells of `cellKind`. Deterministic cells (EH, deterministic waves) use
    * [[plan]]. Randomized-wave cells use the journal's split for randomized cells ([ECM-J] after
    * Theorem 3): eps_sw = eps, eps_cm = eps/(1+eps), delta_cm = delta/2; their merges are lossless,
    * so no merge budget is needed. A point query reads d cells and fails if any of them
    * underestimates, so each cell gets delta_sw = delta/(2d) (the printed Theorem 3 charges a single
    * delta_sw; a union bound over the d cells is needed). Randomized cells give no inner-product
    * guarantee ([ECM] §7.2), so optimize_for => 'inner_product' is refused for them.
    */
  def plan(epsilon: Double, delta: Double, kind: QueryKind, levels: Int, cellKind: Int): EcmPlan = CellKinds.get(cellKind) match {
    case Some(ck) if ck.deterministic => plan(epsilon, delta, kind, levels).copy(cellKind = cellKind)
    case Some(ck) =>
      checkEpsilon(epsilon)
      SketchException.require(!delta.isNaN && delta > 0.0 && delta < 1.0, s"delta must be in (0, 1), got $delta")
      checkLevels(levels)
      SketchException.require(kind == QueryKind.Point,
        "optimize_for => 'inner_product' needs deterministic cells ('eh' or 'dwave'): randomized-wave cells carry no inner-product guarantee (ECM-sketch §7.2)")
      SketchException.require(epsilon >= ck.minCellEpsilon,
        s"epsilon must be at least ${ck.minCellEpsilon} for '${ck.name}' cells (their queues hold 36/epsilon^2 items per level), got $epsilon")
      val epsCm = fitDown(epsilon / (1.0 + epsilon), c => (1.0 + epsilon) * c <= epsilon)
      val width = math.ceil(math.E / epsCm - 1e-9).toInt
      val depth = math.max(1, math.ceil(math.log(2.0 / delta) - 1e-9).toInt)
      SketchException.require(width <= MaxWidth && depth <= MaxDepth && width.toLong * depth <= MaxCells,
        s"epsilon $epsilon / delta $delta need a ${width}x$depth array, more than the supported $MaxCells cells")
      EcmPlan(epsilon, delta, kind, levels, epsilon, epsCm, width, depth, cellKind, delta / (2.0 * depth))
    case None => throw new SketchException(s"unknown cell kind $cellKind")
  }

  def plan(epsilon: Double, delta: Double, kind: QueryKind, levels: Int): EcmPlan = {
    checkEpsilon(epsilon)
    SketchException.require(!delta.isNaN && delta > 0.0 && delta < 1.0, s"delta must be in (0, 1), got $delta")
    checkLevels(levels)
    val eSw = kind match {
      case QueryKind.Point => epsilon
      case QueryKind.InnerProduct => math.sqrt(1.0 + epsilon) - 1.0
    }
    val epsCm = fitDown(epsilon / (1.0 + epsilon), c => (1.0 + epsilon) * c <= epsilon)
    // nudge by ulps so that the bound reported at the planned depth is <= epsilon in floating point
    val cellEps = fitDown(cellEpsilonFor(eSw, levels), c => boundAt(kind, c, levels, epsCm) <= epsilon)
    SketchException.require(cellEps >= Bounds.MinCellEpsilon,
      s"epsilon $epsilon with $levels merge levels needs cell epsilon $cellEps, below the supported ${Bounds.MinCellEpsilon}")
    val width = math.ceil(math.E / epsCm - 1e-9).toInt
    val depth = math.max(1, math.ceil(math.log(1.0 / delta) - 1e-9).toInt)
    SketchException.require(width <= MaxWidth && depth <= MaxDepth && width.toLong * depth <= MaxCells,
      s"epsilon $epsilon / delta $delta need a ${width}x$depth array, more than the supported $MaxCells cells")
    EcmPlan(epsilon, delta, kind, levels, cellEps, epsCm, width, depth)
  }

  /** The largest serialized size an ECM-sketch of `plan` over `spec` can reach, on any stream and
    * after any merges (they keep the plan; a time-disjoint merge lays its inputs side by side only
    * when the result stays within it, docs/design/merging.md): its header, exact, plus width x depth cells
    * at [[ecmsketch.core.CellKind.worstCellBytes]]. None when the cell kind has no such bound.
    */
  def worstCaseBytes(spec: WindowSpec, plan: EcmPlan): Option[Long] =
    CellKinds.getOrFail(plan.cellKind).worstCellBytes(
      CellParams(plan.cellEpsilon, spec.window, 0L, plan.cellDelta, CellParams.Unbounded)).map { cell =>
      val cells = plan.width.toLong * plan.depth
      val empty = Codec.encode(EcmKind, EcmSketch.create(spec, plan)).length.toLong // header + 1 byte per empty cell
      empty - cells + cells * cell
    }

  /** The largest epsilon tried by [[planWithin]]. */
  final val MaxBudgetEpsilon = 0.99

  /** The plan with the smallest certified bound whose worst-case size ([[worstCaseBytes]]) is at most
    * `maxBytes`: `delta`, the query kind, the merge levels and the cell kind as given, the journal's
    * split of epsilon (for a bound max(e_sw, (1 + e_sw) eps_cm) the balanced split is the one of
    * least memory), epsilon found by bisection (the worst case grows as epsilon shrinks). Refused with
    * a message giving the smallest budget that fits when even epsilon 0.99 does not, and for cells
    * without a worst-case size (waves).
    */
  def planWithin(maxBytes: Long, delta: Double, kind: QueryKind, levels: Int, cellKind: Int, spec: WindowSpec): EcmPlan = {
    val ck = CellKinds.get(cellKind).getOrElse(throw new SketchException(s"unknown cell kind $cellKind"))
    SketchException.require(maxBytes > 0, s"max_bytes must be a positive integer, got $maxBytes")
    def sized(eps: Double): Option[(EcmPlan, Long)] = {
      val p = try Some(plan(eps, delta, kind, levels, cellKind)) catch { case _: SketchException => None }
      p.flatMap(q => worstCaseBytes(spec, q).map(q -> _))
    }
    val (hiPlan, hiBytes) = sized(MaxBudgetEpsilon).getOrElse {
      plan(MaxBudgetEpsilon, delta, kind, levels, cellKind) // its own message when the arguments are bad
      throw new SketchException(s"max_bytes needs 'eh' cells (a worst-case size is known for them only), not '${ck.name}'")
    }
    SketchException.require(hiBytes <= maxBytes,
      s"max_bytes $maxBytes is too small: even epsilon $MaxBudgetEpsilon (a ${hiPlan.width}x${hiPlan.depth} array for delta $delta, " +
        s"$levels merge levels) may need $hiBytes bytes on some stream; give max_bytes >= $hiBytes or a larger delta")
    var lo = Bounds.MinEpsilon
    var hi = MaxBudgetEpsilon
    var best = hiPlan
    var it = 0
    while (it < 40 && hi - lo > 1e-6 * hi) {
      val mid = math.sqrt(lo * hi)
      sized(mid) match {
        case Some((p, b)) if b <= maxBytes => hi = mid; best = p
        case _ => lo = mid
      }
      it += 1
    }
    best
  }
}
