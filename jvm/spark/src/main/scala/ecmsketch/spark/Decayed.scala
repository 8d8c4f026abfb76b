package ecmsketch.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow, Literal, XxHash64Function}
import org.apache.spark.sql.catalyst.expressions.aggregate.{ImperativeAggregate, TypedImperativeAggregate}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import ecmsketch.Families
import ecmsketch.core.{Codec, SketchException, SketchKind}
import ecmsketch.decayed.{Decay, DecayedKind, DecayedSketch}

/** The decayed sketch in SQL (docs/design/decayed.md, "Decayed sketch"): `decayed_agg`, `decayed_merge` and
  * its queries. The sketch is order- and duplicate-insensitive, so rows go straight into it (no
  * reordering): the aggregation buffer is the sketch, partial sketches merge losslessly.
  */
private[spark] object DecayedArgs {
  def isNumeric(dt: DataType): Boolean =
    Args.isIntegral(dt) || dt == FloatType || dt == DoubleType || dt == NullType || dt.isInstanceOf[DecimalType]

  def toDouble(v: Any): Double = v match {
    case d: Double => d
    case f: Float => f.toDouble
    case d: Decimal => d.toDouble
    case other => Args.longOf(other).toDouble
  }

  /** The 64-bit identity hash of an id value of type `dt` (any type Spark can hash). */
  def idHash(v: Any, dt: DataType): Long = (dt, v) match {
    case (t, x) if Args.isIntegral(t) => DecayedSketch.idOfLong(Args.longOf(x))
    case (DateType, i: Int) => DecayedSketch.idOfLong(i.toLong)
    case (t, l: Long) if Args.isTimestamp(t) => DecayedSketch.idOfLong(l)
    case (DoubleType | FloatType, x) => DecayedSketch.idOfDouble(toDouble(x))
    case (_: StringType, s: UTF8String) => DecayedSketch.idOfBytes(s.getBytes) ^ 0x5717L
    case (BinaryType, b: Array[Byte]) => DecayedSketch.idOfBytes(b)
    case (t, x) => XxHash64Function.hash(x, t, 0x1DL)
  }

  /** A decay name argument: a constant string or NULL (omitted). */
  def decayName(e: Expression, fn: String): String =
    if (Args.isDefault(e)) null else Args.constString(e, fn, "decay", null)

  def decayParam(e: Expression, fn: String): java.lang.Double =
    if (Args.isDefault(e)) null
    else {
      val d = Args.constDouble(e, fn, "decay_param", Double.NaN)
      if (d.isNaN) null else java.lang.Double.valueOf(d)
    }
}

/** `decayed_agg(weight, ts [, epsilon [, delta]] [, value => v] [, id => x] [, seed => s]
  * [, decay => 'window'|'exp'|'poly', decay_param => p] [, constant => C] [, max_weight => m]
  * [, resolution => r])`: a decayed sketch (BINARY). Rows with a NULL weight, ts, value or id are skipped.
  */
case class DecayedAgg(weight: Expression, ts: Expression, epsilon: Expression, delta: Expression, value: Expression,
                      id: Expression, seed: Expression, decay: Expression, decayParam: Expression, constant: Expression,
                      maxWeight: Expression, resolution: Expression,
                      mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends TypedImperativeAggregate[DecayedSketch] {

  override def prettyName: String = "decayed_agg"
  private def fn: String = prettyName
  override def sql(isDistinct: Boolean): String = Args.callSql(prettyName, children)
  override def sql: String = Args.callSql(prettyName, children)
  override def children: Seq[Expression] =
    Seq(weight, ts, epsilon, delta, value, id, seed, decay, decayParam, constant, maxWeight, resolution)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DecayedAgg =
    copy(weight = c(0), ts = c(1), epsilon = c(2), delta = c(3), value = c(4), id = c(5), seed = c(6), decay = c(7),
      decayParam = c(8), constant = c(9), maxWeight = c(10), resolution = c(11))

  private lazy val tsMicros: Boolean = Args.checkTs(ts, fn, countWindow = false)
  private lazy val hasValue = !Args.isDefault(value)
  private lazy val hasId = !Args.isDefault(id)
  private lazy val fixedDecay: Option[Decay] = {
    val n = DecayedArgs.decayName(decay, fn)
    val p = DecayedArgs.decayParam(decayParam, fn)
    if (n == null) {
      if (p != null) throw new SketchException(s"$fn: decay_param given without decay")
      None
    } else {
      if (p == null) throw new SketchException(s"$fn: decay '${n.trim.toLowerCase}' needs a decay_param")
      Some(try Decay(n, p.doubleValue) catch { case e: SketchException => throw new SketchException(s"$fn: ${e.getMessage}") })
    }
  }
  @transient private lazy val factory: () => DecayedSketch = {
    val eps = Args.constDouble(epsilon, fn, "epsilon", DecayedSketch.DefaultEpsilon)
    val dlt = Args.constDouble(delta, fn, "delta", DecayedSketch.DefaultDelta)
    val s = Args.constLong(seed, fn, "seed", DecayedSketch.DefaultSeed)
    val c = Args.constDouble(constant, fn, "constant", DecayedSketch.DefaultConstant)
    val mw = Args.constLong(maxWeight, fn, "max_weight", DecayedSketch.DefaultMaxWeight)
    val res: java.lang.Long = if (Args.isDefault(resolution)) null else java.lang.Long.valueOf(Args.constLong(resolution, fn, "resolution", 1L))
    val d = fixedDecay
    val micros = tsMicros
    try DecayedSketch.create(d, eps, dlt, c, mw, res, s, micros)
    catch { case e: SketchException => throw new SketchException(s"$fn: ${e.getMessage}") }
    () => DecayedSketch.create(d, eps, dlt, c, mw, res, s, micros)
  }

  override def checkInputDataTypes(): TypeCheckResult = Checks {
    if (!Args.isIntegral(weight.dataType))
      throw new SketchException(s"$fn: weight must be an integer type (1 for counts), got ${weight.dataType.sql}")
    tsMicros
    if (hasValue && !DecayedArgs.isNumeric(value.dataType))
      throw new SketchException(s"$fn: value must be a number, got ${value.dataType.sql}")
    factory
  }

  override def createAggregationBuffer(): DecayedSketch = factory()

  // weight and ts (BIGINT/INT ticks, or TIMESTAMP microseconds) straight from the row when they are
  // bound columns (no boxing), else through eval (see [[InputColumn]])
  @transient private lazy val weightCol = InputColumn.integral(weight)
  @transient private lazy val tsCol = InputColumn.integral(ts)

  override def update(buffer: DecayedSketch, input: InternalRow): DecayedSketch = DataErrors(fn)(updateRow(buffer, input))

  private def updateRow(buffer: DecayedSketch, input: InternalRow): DecayedSketch = {
    val wl = weightCol.long(input)
    if (wl == InputColumn.Null && weightCol.isNull(input)) return buffer
    val tl = tsCol.long(input)
    if (tl == InputColumn.Null && tsCol.isNull(input)) return buffer
    val v = if (hasValue) value.eval(input) else null
    if (!hasValue || v != null) {
      val vd = if (hasValue) DecayedArgs.toDouble(v) else wl.toDouble
      if (!hasId) buffer.add(DecayedSketch.defaultId(wl, vd, tl), wl, vd, tl)
      else {
        val x = id.eval(input)
        if (x != null) buffer.add(DecayedArgs.idHash(x, id.dataType), wl, vd, tl)
      }
    }
    buffer
  }

  override def merge(buffer: DecayedSketch, input: DecayedSketch): DecayedSketch = DataErrors(fn) {
    DecayedSketch.merge(Seq(buffer, input))
  }
  override def eval(buffer: DecayedSketch): Any = DataErrors(fn) { Codec.encode(DecayedKind, buffer) }
  override def serialize(buffer: DecayedSketch): Array[Byte] = DataErrors(fn) { Codec.encode(DecayedKind, buffer) }
  override def deserialize(bytes: Array[Byte]): DecayedSketch = DataErrors(fn) { Families.decodeAs(DecayedKind, bytes) }
  override def nullable: Boolean = false
  override def dataType: DataType = BinaryType
  override def defaultResult: Option[Literal] = Option(Literal.create(eval(createAggregationBuffer()), BinaryType))

  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** `decayed_merge(sketch)`: lossless merge of decayed sketches (same parameters and seed). */
case class DecayedMergeAgg(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends SketchMergeAgg[DecayedSketch] {
  override def prettyName: String = "decayed_merge"
  protected def kind: SketchKind[DecayedSketch] = DecayedKind
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DecayedMergeAgg = copy(child = c.head)
  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** A decayed query `f(sketch, args..., decay, param [, now])`: `decayAt` is the decay's position. */
abstract class DecayedQuery extends SketchScalar with CodegenFallback {
  protected def decayAt: Int
  protected def decayed(b: Array[Byte]): DecayedSketch = as(DecayedKind, 0, b)
  protected def numericArg(i: Int, what: String): Unit =
    if (!DecayedArgs.isNumeric(children(i).dataType))
      throw new SketchException(s"$prettyName: $what must be a number, got ${children(i).dataType.sql}")

  protected def checkDecayArgs(): Unit = {
    val d = children(decayAt); val n = children(decayAt + 2)
    if (!(d.dataType == NullType || d.dataType.isInstanceOf[StringType]))
      throw new SketchException(s"$prettyName: decay must be 'window', 'exp' or 'poly', got ${d.dataType.sql}")
    numericArg(decayAt + 1, "decay_param")
    Args.checkNowType(n, prettyName)
  }

  /** The decay and query time for sketch `s` on this row. */
  protected def decayNow(s: DecayedSketch, input: InternalRow): (Decay, java.lang.Long) = {
    val dv = children(decayAt).eval(input)
    val pv = children(decayAt + 1).eval(input)
    val name = if (dv == null) null else dv.asInstanceOf[UTF8String].toString
    val param = if (pv == null) null else java.lang.Double.valueOf(DecayedArgs.toDouble(pv))
    val d = s.queryDecay(name, param)
    val nv = children(decayAt + 2).eval(input)
    (d, Args.now(s, children(decayAt + 2), nv, prettyName))
  }
}

/** `decayed_sum(sketch [, decay, param [, now]])`: the estimated decayed sum over distinct elements. */
case class DecayedSum(children: Seq[Expression]) extends DecayedQuery {
  override def prettyName: String = "decayed_sum"
  protected def decayAt = 1
  override def dataType: DataType = DoubleType
  override protected def checkArgs(): Unit = checkDecayArgs()
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val s = decayed(sk(0))
    val (d, n) = decayNow(s, input)
    s.sum(d, n)
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DecayedSum = copy(children = c)
}

/** `decayed_quantile(sketch, q [, decay, param [, now]])`: the decayed q-quantile of the values (NULL if none). */
case class DecayedQuantile(children: Seq[Expression]) extends DecayedQuery {
  override def prettyName: String = "decayed_quantile"
  protected def decayAt = 2
  override def dataType: DataType = DoubleType
  override protected def checkArgs(): Unit = { numericArg(1, "q"); checkDecayArgs() }
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val s = decayed(sk(0))
    val q = children(1).eval(input)
    if (q == null) return null
    val (d, n) = decayNow(s, input)
    s.quantile(DecayedArgs.toDouble(q), d, n).map(Double.box).orNull
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DecayedQuantile = copy(children = c)
}

/** `decayed_selectivity(sketch, lo, hi [, decay, param [, now]])`: decayed fraction of the weight with value in [lo, hi]. */
case class DecayedSelectivity(children: Seq[Expression]) extends DecayedQuery {
  override def prettyName: String = "decayed_selectivity"
  protected def decayAt = 3
  override def dataType: DataType = DoubleType
  override protected def checkArgs(): Unit = { numericArg(1, "lo"); numericArg(2, "hi"); checkDecayArgs() }
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val s = decayed(sk(0))
    val lo = children(1).eval(input); val hi = children(2).eval(input)
    if (lo == null || hi == null) return null
    val (d, n) = decayNow(s, input)
    s.selectivity(DecayedArgs.toDouble(lo), DecayedArgs.toDouble(hi), d, n)
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DecayedSelectivity = copy(children = c)
}

/** `decayed_frequent(sketch, phi [, decay, param [, now]])`: ARRAY<STRUCT<value, share>>, largest share first. */
case class DecayedFrequent(children: Seq[Expression]) extends DecayedQuery {
  override def prettyName: String = "decayed_frequent"
  protected def decayAt = 2
  override def dataType: DataType = ArrayType(StructType(Seq(
    StructField("value", DoubleType), StructField("share", DoubleType))), containsNull = false)
  override protected def checkArgs(): Unit = { numericArg(1, "phi"); checkDecayArgs() }
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val s = decayed(sk(0))
    val phi = children(1).eval(input)
    if (phi == null) return null
    val (d, n) = decayNow(s, input)
    new GenericArrayData(s.frequent(DecayedArgs.toDouble(phi), d, n).map { case (v, sh) =>
      new GenericInternalRow(Array[Any](v, sh))
    }.toArray[Any])
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DecayedFrequent = copy(children = c)
}

/** The expressions of the decayed sketch's functions ([[ecmsketch.decayed.DecayedFunctions]]). */
private[spark] object DecayedFunctionImpls {
  import SqlFunctions.impl

  val all: Seq[SqlFunctions.Impl] = Seq(
    impl("decayed_agg", classOf[DecayedAgg])(a => DecayedAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8), a(9), a(10), a(11))),
    impl("decayed_merge", classOf[DecayedMergeAgg])(a => DecayedMergeAgg(a(0))),
    impl("decayed_sum", classOf[DecayedSum])(a => DecayedSum(a)),
    impl("decayed_quantile", classOf[DecayedQuantile])(a => DecayedQuantile(a)),
    impl("decayed_frequent", classOf[DecayedFrequent])(a => DecayedFrequent(a)),
    impl("decayed_selectivity", classOf[DecayedSelectivity])(a => DecayedSelectivity(a)))
}
