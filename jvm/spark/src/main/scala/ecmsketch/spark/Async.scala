package ecmsketch.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.{ImperativeAggregate, TypedImperativeAggregate}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.util.{ArrayData, GenericArrayData}
import org.apache.spark.sql.types._

import ecmsketch.Families
import ecmsketch.asynchronous.{AsyncKind, AsyncSketch}
import ecmsketch.core.{Codec, SketchException, SketchKind}

/** The async sketches in SQL (docs/design/async.md, "Asynchronous streams"): the aggregation buffer is the
  * sketch itself, since it takes rows in any timestamp order (no reorder buffer), and Spark's merge of
  * partial buffers is the lossless union.
  */
abstract class AsyncAgg extends TypedImperativeAggregate[AsyncSketch] {
  protected def measure: Int
  protected def ts: Expression
  protected def window: Expression
  protected def epsilon: Expression
  protected def delta: Expression
  protected def id: Expression
  protected def seed: Expression
  protected def windowType: Expression
  protected def tradeoff: Expression
  /** The weight (sum) or value (quantile); Args.Default for the count. */
  protected def value: Expression

  protected final def fn: String = prettyName
  override def sql(isDistinct: Boolean): String = Args.callSql(prettyName, children)
  override def sql: String = Args.callSql(prettyName, children)

  private lazy val tsMicros: Boolean = {
    AsyncSketch.checkWindowType(Args.constString(windowType, fn, "window_type", "time"))
    Args.checkTs(ts, fn, countWindow = false)
  }
  private lazy val windowTicks: Long = Args.window(window, fn, tsMicros)
  private lazy val eps = Args.constDouble(epsilon, fn, "epsilon", AsyncSketch.DefaultEpsilon)
  private lazy val dlt = Args.constDouble(delta, fn, "delta", AsyncSketch.DefaultDelta)
  private lazy val hashSeed = Args.constLong(seed, fn, "seed", AsyncSketch.DefaultSeed)
  private lazy val level: Int = {
    val l = Args.constLong(tradeoff, fn, "tradeoff", -1L)
    if (l < -1 || l > Int.MaxValue) throw new SketchException(s"$fn: tradeoff must be in [0, ${AsyncSketch.TopLevel - 1}], got $l")
    l.toInt
  }
  private lazy val withIds = !Args.isDefault(id)
  private lazy val idKind: Int = if (withIds) Args.keyType(id, fn, "id") else 0

  protected def checkValue(): Unit

  override def checkInputDataTypes(): TypeCheckResult = Checks {
    checkValue(); tsMicros; windowTicks; idKind; createAggregationBuffer()
  }

  override def createAggregationBuffer(): AsyncSketch =
    try AsyncSketch.create(measure, windowTicks, eps, dlt, hashSeed, withIds, level, tsMicros)
    catch { case e: SketchException => throw new SketchException(s"$fn: ${e.getMessage}") }

  @transient private lazy val tsCol = InputColumn.integral(ts)

  /** Adds a row with the value read by `add` (NULL ts, value or id skips the row). */
  override def update(buffer: AsyncSketch, input: InternalRow): AsyncSketch = DataErrors(fn)(updateRow(buffer, input))

  private def updateRow(buffer: AsyncSketch, input: InternalRow): AsyncSketch = {
    val tc = tsCol
    val t = tc.long(input)
    if (t == InputColumn.Null && tc.isNull(input)) return buffer
    val v: Any = if (Args.isDefault(value)) null else { val x = value.eval(input); if (x == null) return buffer; x }
    if (withIds) {
      val k = id.eval(input)
      if (k == null) return buffer
      add(buffer, v, t, true, KeyPrint(idKind, k))
    } else add(buffer, v, t, false, 0L)
    buffer
  }

  protected def add(s: AsyncSketch, v: Any, t: Long, hasId: Boolean, idFp: Long): Unit

  override def merge(buffer: AsyncSketch, input: AsyncSketch): AsyncSketch = DataErrors(fn) {
    if (input.isEmpty) buffer else if (buffer.isEmpty) input else AsyncSketch.merge(Seq(buffer, input))
  }
  override def eval(buffer: AsyncSketch): Any = DataErrors(fn) { Codec.encode(AsyncKind, buffer) }
  override def serialize(buffer: AsyncSketch): Array[Byte] = DataErrors(fn) { Codec.encode(AsyncKind, buffer) }
  override def deserialize(bytes: Array[Byte]): AsyncSketch = DataErrors(fn) { Families.decodeAs(AsyncKind, bytes) }
  override def nullable: Boolean = false
  override def dataType: DataType = BinaryType
  override def defaultResult: Option[Literal] = Option(Literal.create(eval(createAggregationBuffer()), BinaryType))
}

/** `async_sum_agg(value, ts [, window [, epsilon [, delta]]], id =>, seed =>, window_type =>, tradeoff =>)`:
  * the XTB sum sketch of positive integer weights, rows in any timestamp order.
  */
case class AsyncSumAgg(value: Expression, ts: Expression, window: Expression, epsilon: Expression, delta: Expression,
                       id: Expression, seed: Expression, windowType: Expression, tradeoff: Expression,
                       mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0) extends AsyncAgg {
  override def prettyName: String = "async_sum_agg"
  protected def measure: Int = AsyncSketch.Sum
  override def children: Seq[Expression] = Seq(value, ts, window, epsilon, delta, id, seed, windowType, tradeoff)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): AsyncSumAgg =
    copy(value = c(0), ts = c(1), window = c(2), epsilon = c(3), delta = c(4), id = c(5), seed = c(6), windowType = c(7), tradeoff = c(8))
  protected def checkValue(): Unit =
    if (!Args.isIntegral(value.dataType) && value.dataType != NullType)
      throw new SketchException(s"$fn: value must be a positive integer (TINYINT, SMALLINT, INT or BIGINT), got ${value.dataType.sql}")
  protected def add(s: AsyncSketch, v: Any, t: Long, hasId: Boolean, idFp: Long): Unit = {
    val w = Args.longOf(v)
    if (hasId) s.addWeightWithId(w, t, idFp) else s.addWeight(w, t)
  }
  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** `async_count_agg(ts [, window [, epsilon [, delta]]], id =>, seed =>, window_type =>, tradeoff =>)`:
  * the sum sketch with every weight 1. Without an id, rows with equal ts are one element.
  */
case class AsyncCountAgg(ts: Expression, window: Expression, epsilon: Expression, delta: Expression,
                         id: Expression, seed: Expression, windowType: Expression, tradeoff: Expression,
                         mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0) extends AsyncAgg {
  override def prettyName: String = "async_count_agg"
  protected def measure: Int = AsyncSketch.Count
  protected def value: Expression = Args.Default
  override def children: Seq[Expression] = Seq(ts, window, epsilon, delta, id, seed, windowType, tradeoff)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): AsyncCountAgg =
    copy(ts = c(0), window = c(1), epsilon = c(2), delta = c(3), id = c(4), seed = c(5), windowType = c(6), tradeoff = c(7))
  protected def checkValue(): Unit = ()
  protected def add(s: AsyncSketch, v: Any, t: Long, hasId: Boolean, idFp: Long): Unit =
    if (hasId) s.addWeightWithId(1L, t, idFp) else s.addWeight(1L, t)
  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** `async_quantile_agg(value, ts [, window [, epsilon [, delta]]], id =>, seed =>, window_type =>)`: the
  * XTB median sketch of numeric values (as DOUBLE), for any quantile.
  */
case class AsyncQuantileAgg(value: Expression, ts: Expression, window: Expression, epsilon: Expression, delta: Expression,
                            id: Expression, seed: Expression, windowType: Expression,
                            mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0) extends AsyncAgg {
  override def prettyName: String = "async_quantile_agg"
  protected def measure: Int = AsyncSketch.Quantile
  protected def tradeoff: Expression = Args.Default
  override def children: Seq[Expression] = Seq(value, ts, window, epsilon, delta, id, seed, windowType)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): AsyncQuantileAgg =
    copy(value = c(0), ts = c(1), window = c(2), epsilon = c(3), delta = c(4), id = c(5), seed = c(6), windowType = c(7))
  protected def checkValue(): Unit =
    if (!DyadicArgs.isNumeric(value.dataType))
      throw new SketchException(s"$fn: value must be a number, got ${value.dataType.sql}")
  protected def add(s: AsyncSketch, v: Any, t: Long, hasId: Boolean, idFp: Long): Unit = {
    val x = DyadicArgs.toDouble(v)
    if (hasId) s.addValueWithId(x, t, idFp) else s.addValue(x, t)
  }
  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** `async_merge(sketch)`: the lossless union of async sketches (same measure and parameters). */
case class AsyncMergeAgg(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends SketchMergeAgg[AsyncSketch] {
  override def prettyName: String = "async_merge"
  protected def kind: SketchKind[AsyncSketch] = AsyncKind
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): AsyncMergeAgg = copy(child = c.head)
  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** `async_sum(sketch [, range [, now]])`: the estimated sum (count) of an async sum (count) sketch. */
case class AsyncSum(children: Seq[Expression]) extends RangeQuery[AsyncSketch] {
  override def prettyName: String = "async_sum"
  protected def sketch(b: Array[Byte]): AsyncSketch = as(AsyncKind, 0, b)
  protected def query(s: AsyncSketch, r: java.lang.Long, n: java.lang.Long): Double = s.sum(r, n)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): AsyncSum = copy(children = c)
}

/** `async_quantile(sketch, q [, range [, now]])`: the q-quantile (DOUBLE) of an async quantile sketch,
  * or an ARRAY<DOUBLE> for an ARRAY of q (one sample read for all). NULL for an empty range.
  */
case class AsyncQuantile(children: Seq[Expression]) extends SketchScalar with RangeNowArgs with CodegenFallback {
  override def prettyName: String = "async_quantile"
  protected def rangeAt = 2
  private def qArray: Boolean = children(1).dataType.isInstanceOf[ArrayType]
  override def dataType: DataType = if (qArray) ArrayType(DoubleType, containsNull = true) else DoubleType
  override protected def checkArgs(): Unit = {
    children(1).dataType match {
      case ArrayType(et, _) if DyadicArgs.isNumeric(et) => ()
      case dt if DyadicArgs.isNumeric(dt) => ()
      case dt => throw new SketchException(s"$prettyName: q must be a DOUBLE or an ARRAY<DOUBLE>, got ${dt.sql}")
    }
    checkRangeNow()
  }
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val s = as(AsyncKind, 0, sk(0))
    val q = children(1).eval(input)
    if (q == null) return null
    val (r, n) = rangeNow(s, input)
    if (!qArray) {
      val x = DyadicArgs.toDouble(q)
      AsyncSketch.checkQ(x)
      s.quantile(x, r, n).map(Double.box).orNull
    } else {
      val a = q.asInstanceOf[ArrayData]
      val et = children(1).dataType.asInstanceOf[ArrayType].elementType
      val qs: Array[Option[Double]] = Array.tabulate(a.numElements()) { i =>
        if (a.isNullAt(i)) None else { val x = DyadicArgs.toDouble(a.get(i, et)); AsyncSketch.checkQ(x); Some(x) }
      }
      val sample = s.quantileSample(r, n)
      new GenericArrayData(qs.map {
        case Some(x) if sample.nonEmpty => sample(AsyncSketch.rankIndex(x, sample.length)): Any
        case _ => null: Any
      })
    }
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): AsyncQuantile = copy(children = c)
}

/** The expressions of the async sketch's functions ([[ecmsketch.asynchronous.AsyncFunctions]]). */
private[spark] object AsyncFunctionImpls {
  import SqlFunctions.impl

  val all: Seq[SqlFunctions.Impl] = Seq(
    impl("async_sum_agg", classOf[AsyncSumAgg])(a => AsyncSumAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8))),
    impl("async_count_agg", classOf[AsyncCountAgg])(a => AsyncCountAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7))),
    impl("async_quantile_agg", classOf[AsyncQuantileAgg])(a => AsyncQuantileAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7))),
    impl("async_merge", classOf[AsyncMergeAgg])(a => AsyncMergeAgg(a(0))),
    impl("async_sum", classOf[AsyncSum])(a => AsyncSum(a)),
    impl("async_quantile", classOf[AsyncQuantile])(a => AsyncQuantile(a)))
}
