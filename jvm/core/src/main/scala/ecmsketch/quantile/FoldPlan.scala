package ecmsketch.quantile

/** How a sketch spends its variance budget X = epsilon^2 / (2 ln(2/delta)) (per n^2 on a range of
  * weight n) on its runs and on folds (docs/design/windowed-quantiles.md, "Folds").
  *
  * A sketch of `levels` planned merge levels (`planned_merge_levels`: in SQL and Python, Spark's own
  * merge of partial aggregates plus `merge_levels`) folds up to `folds = min(levels, MaxFolds)`
  * generations, one per planned level: the first when an aggregate finishes its runs. A run of
  * generation 0 takes rows; a fold turns overlapping runs into one run of generation g (one more than
  * the highest it folds) that takes their samples as rows. Each of the `folds + 1` generations spends
  * an equal share of X on its own compactions. The sample weight of a range of the runs a
  * generation-g fold takes exceeds the weight of the rows they stand for by at most a factor
  * `grow^g`, `grow = 1 + 2 spanEpsilon`, so the fold's share is scaled down by `grow^(2g)`; together
  * the generations spend at most X. With no planned level there are no folds, and runs spend X.
  *
  * Runs of sketches written before folds (body version 1) spent all of X: they are of generation
  * [[FoldPlan.Legacy]] and are never folded.
  */
private[quantile] final class FoldPlan(val base: QuantileParams, val levels: Int) {
  import FoldPlan._

  /** The highest generation a fold may make. */
  val folds: Int = math.min(levels, MaxFolds)
  /** 1 + 2 spanEpsilon: how much a generation's sample weight of a range may exceed its input's. */
  val grow: Double = 1.0 + 2.0 * base.spanEpsilon

  /** The share of X the own compactions of a run of generation `gen` spend. */
  def share(gen: Int): Double =
    if (gen == Legacy) 1.0 else 1.0 / (folds + 1) / math.pow(grow, 2.0 * gen)

  private val byGen: Array[QuantileParams] = Array.tabulate(folds + 1)(g => base.withShare(share(g)))
  private val legacy: QuantileParams = base.withShare(1.0)

  /** The parameters of a run of generation `gen` (one of [[valid]]): its share of the budget. */
  def params(gen: Int): QuantileParams = if (gen == Legacy) legacy else byGen(gen)

  /** Whether a sketch of this plan may hold a run of generation `gen`: 0 to [[folds]], or legacy. */
  def valid(gen: Int): Boolean = gen == Legacy || (gen >= 0 && gen <= folds)

  /** Whether a run of generation `gen` may be folded (into generation gen + 1 at least). */
  def foldable(gen: Int): Boolean = gen != Legacy && gen < folds

  /** A bound, per n^2 and in units of X, on the variance that the coins of the folds and runs before
    * a run of generation `gen` left in its samples, n the weight of the rows the run stands for:
    * the sum over j in [0, gen) of share(j) grow^(2j), which is gen / (folds + 1).
    */
  def inherited(gen: Int): Double = if (gen == Legacy) 0.0 else gen.toDouble / (folds + 1)

  /** The variance proxy that a run of generation `gen` whose own ledgers give `own` for a range of
    * sample weight `weight` certifies: its own plus the inherited part, with the weight the run's rows
    * may have (at most grow^(gen + 1) times its sample weight).
    */
  def variance(gen: Int, own: Double, weight: Double): Double =
    if (gen == Legacy || gen == 0) own
    else { val n = weight * math.pow(grow, gen + 1.0); own + inherited(gen) * base.budget * n * n }
}

object FoldPlan {
  /** The most generations of folds a sketch plans for. */
  final val MaxFolds = 4
  /** The generation of runs of sketches written before folds. */
  final val Legacy = 255
}
