package ecmsketch.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.ImperativeAggregate
import org.apache.spark.sql.types._

import ecmsketch.core.{SketchException, SketchKind}
import ecmsketch.hash.Hashing
import ecmsketch.ingest.{Ingest, SketchOps}
import ecmsketch.quantile.{QuantileKind, QuantileOps, QuantileParams, QuantileSketch}

/** `quantile_agg(value, ts [, window [, epsilon]], delta =>, weight =>, window_type =>, seed =>,
  * merge_levels =>)`: a windowed quantile sketch (BINARY) of numeric values
  * (docs/design/windowed-quantiles.md). Rows in any order reach the sketch through [[Ingest]], each
  * value's 64 bits in the place of a key. NULL value, ts or weight rows are skipped; NaN fails.
  */
case class QuantileAgg(x: Expression, ts: Expression, window: Expression, epsilon: Expression, delta: Expression,
                       weight: Expression, windowType: Expression, seed: Expression, mergeLevels: Expression,
                       mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends IngestAgg[QuantileSketch] {

  override def prettyName: String = "quantile_agg"
  /** The row's weight (IngestAgg's `value`). */
  protected def value: Expression = weight
  override def children: Seq[Expression] = Seq(x, ts, window, epsilon, delta, weight, windowType, seed, mergeLevels)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): QuantileAgg =
    copy(x = c(0), ts = c(1), window = c(2), epsilon = c(3), delta = c(4), weight = c(5), windowType = c(6),
      seed = c(7), mergeLevels = c(8))

  private lazy val eps = Args.constDouble(epsilon, fn, "epsilon", QuantileAgg.DefaultEpsilon)
  private lazy val dlt = Args.constDouble(delta, fn, "delta", QuantileParams.DefaultDelta)
  private lazy val hashSeed = Args.constLong(seed, fn, "seed", Hashing.DefaultSeed)
  @transient protected lazy val ops: SketchOps[QuantileSketch] =
    new QuantileOps(() => QuantileSketch.create(spec, eps, dlt, hashSeed, levels))

  override def checkInputDataTypes(): TypeCheckResult = Checks {
    if (!DyadicArgs.isNumeric(x.dataType)) throw new SketchException(s"$fn: value must be a number, got ${x.dataType.sql}")
    if (!Args.isDefault(weight) && !Args.isIntegral(weight.dataType))
      throw new SketchException(s"$fn: weight must be an integer type, got ${weight.dataType.sql}")
    spec
    try ops.create() catch { case e: SketchException => throw new SketchException(s"$fn: ${e.getMessage}") }
  }

  // a DOUBLE column is read straight from the row
  @transient private lazy val xOrdinal: Int = x match {
    case b: BoundReference if b.dataType == DoubleType => b.ordinal
    case _ => -1
  }

  override def update(buffer: Ingest[QuantileSketch], input: InternalRow): Ingest[QuantileSketch] = {
    val d: Double =
      if (xOrdinal >= 0) { if (input.isNullAt(xOrdinal)) return buffer; input.getDouble(xOrdinal) }
      else { val v = x.eval(input); if (v == null) return buffer; DyadicArgs.toDouble(v) }
    try {
      if (d.isNaN) throw new SketchException("NaN value: a quantile sketch takes numbers (filter out NaN, or map it to NULL)")
      addRow(buffer, java.lang.Double.doubleToRawLongBits(if (d == 0.0) 0.0 else d), input)
    } catch { case e: SketchException => DataErrors(fn)(throw e) }
    buffer
  }

  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

object QuantileAgg {
  final val DefaultEpsilon = 0.01
}

/** `quantile_merge(sketch)`: order-preserving merge of windowed quantile sketches. */
case class QuantileMergeAgg(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends SketchMergeAgg[QuantileSketch] {
  override def prettyName: String = "quantile_merge"
  protected def kind: SketchKind[QuantileSketch] = QuantileKind
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): QuantileMergeAgg = copy(child = c.head)
  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** The queries of `ecm_quantile`, `ecm_rank` and `ecm_range_count` on a windowed quantile sketch. */
private[spark] object QuantileQueries {
  private def number(v: Any, fn: String, what: String): Double = {
    val d = DyadicArgs.toDouble(v)
    if (d.isNaN) throw new SketchException(s"$fn: $what must be a number, got NaN")
    d
  }

  /** The quantiles of several q at once (null q elements give null elements). */
  def quantiles(s: QuantileSketch, qs: Array[java.lang.Double], r: java.lang.Long, n: java.lang.Long): Array[Any] = {
    val asked = qs.filter(_ != null).map(_.doubleValue)
    val answers = s.quantiles(asked, r, n)
    var j = 0
    qs.map { q => if (q == null) null else { val a = answers(j); j += 1; a: Any } }
  }

  def rank(s: QuantileSketch, x: Any, r: java.lang.Long, n: java.lang.Long, fn: String): Double = s.rank(number(x, fn, "x"), r, n)

  /** The weight of the values in [lo, hi]: rank(hi) less the weight below lo. */
  def rangeCount(s: QuantileSketch, lo: Any, hi: Any, r: java.lang.Long, n: java.lang.Long, fn: String): Double = {
    val a = number(lo, fn, "lo"); val b = number(hi, fn, "hi")
    if (a > b) 0.0
    else {
      // the weight below lo: rank(nextDown(lo)); nothing lies below -Infinity
      val below = if (a == Double.NegativeInfinity) 0.0 else s.rank(java.lang.Math.nextDown(a), r, n)
      math.max(0.0, s.rank(b, r, n) - below)
    }
  }
}

/** The expressions of the windowed quantile sketch's functions ([[ecmsketch.quantile.QuantileFunctions]]). */
private[spark] object QuantileFunctionImpls {
  import SqlFunctions.impl

  val all: Seq[SqlFunctions.Impl] = Seq(
    impl("quantile_agg", classOf[QuantileAgg])(a => QuantileAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8))),
    impl("quantile_merge", classOf[QuantileMergeAgg])(a => QuantileMergeAgg(a(0))))
}
