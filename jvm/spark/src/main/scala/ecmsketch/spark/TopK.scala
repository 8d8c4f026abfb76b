package ecmsketch.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.ImperativeAggregate
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

import ecmsketch.core.{SketchException, SketchKind, WindowSketch}
import ecmsketch.frequent.{FreqKeys, FreqPlan, FrequentItem, FrequentKind, FrequentOps, FrequentSketch, KeySlots}
import ecmsketch.ingest.{Ingest, SketchOps}

/** `top_k_agg(key, ts [, window [, epsilon]], value =>, window_type =>, merge_levels =>)`: a
  * frequent-items sketch (docs/design/windowed-top-k.md) as the STRUCT of [[TypedSketch]], which
  * carries the key's type. Rows in any order reach the sketch through [[Ingest]]: integer keys as
  * themselves, DOUBLE keys as their bits, STRING and BINARY keys through the key slots of their
  * buffer ([[KeySlots]]). NULL key, ts or value rows are skipped.
  */
case class TopKAgg(key: Expression, ts: Expression, window: Expression, epsilon: Expression, value: Expression,
                   windowType: Expression, mergeLevels: Expression,
                   mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends IngestAgg[FrequentSketch] {

  override def prettyName: String = "top_k_agg"
  override def children: Seq[Expression] = Seq(key, ts, window, epsilon, value, windowType, mergeLevels)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): TopKAgg =
    copy(key = c(0), ts = c(1), window = c(2), epsilon = c(3), value = c(4), windowType = c(5), mergeLevels = c(6))

  private lazy val eps = Args.constDouble(epsilon, fn, "epsilon", TopKAgg.DefaultEpsilon)
  private lazy val keyType: Int = TopKKeys.of(key.dataType, fn)
  private lazy val bytesKeys = FreqKeys.isBytes(keyType)
  private def newOps(): FrequentOps =
    new FrequentOps(() => FrequentSketch.create(spec, eps, levels), keyType, if (bytesKeys) new KeySlots else null)
  /** Encodes and creates; buffers of string and binary keys get ops of their own (their key slots). */
  @transient protected lazy val ops: SketchOps[FrequentSketch] = newOps()

  override def checkInputDataTypes(): TypeCheckResult = Checks {
    keyType; Args.checkValue(value, fn); spec
    val ml = Args.constLong(mergeLevels, fn, "merge_levels", 0L)
    if (ml < 0 || ml > FreqPlan.MaxLevels - 1)
      throw new SketchException(s"$fn: merge_levels must be in [0, ${FreqPlan.MaxLevels - 1}], got $ml")
    try ops.create() catch { case e: SketchException => throw new SketchException(s"$fn: ${e.getMessage}") }
  }

  override def createAggregationBuffer(): Ingest[FrequentSketch] =
    if (bytesKeys) new Ingest(newOps(), spec.window, IngestAgg.bufferSalt()) else super.createAggregationBuffer()
  override def deserialize(bytes: Array[Byte]): Ingest[FrequentSketch] =
    if (!bytesKeys) super.deserialize(bytes)
    else DataErrors(fn) { Ingest.deserialize(newOps(), spec.window, bytes, IngestAgg.bufferSalt()) }

  @transient private lazy val keyCol = InputColumn.integral(key)

  override def update(buffer: Ingest[FrequentSketch], input: InternalRow): Ingest[FrequentSketch] = {
    try {
      if (keyCol.ordinal >= 0) { if (!input.isNullAt(keyCol.ordinal)) addRow(buffer, keyCol.read(input), input) }
      else {
        val k = key.eval(input)
        if (k != null) keyType match {
          case FreqKeys.Str | FreqKeys.Binary =>
            // a key already held shares its slot; a new one is copied, since a source may reuse its bytes
            val slots = buffer.ops.asInstanceOf[FrequentOps].slots
            val slot = k match {
              case u: UTF8String =>
                checkKeyBytes(u.numBytes)
                u.getBaseObject match {
                  case a: Array[Byte] => slots.put(a, (u.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt, u.numBytes)
                  case _ => slots.put(u.getBytes) // off-heap: getBytes copies
                }
              case other => val a = other.asInstanceOf[Array[Byte]]; checkKeyBytes(a.length); slots.put(a, 0, a.length)
            }
            if (!addRowKept(buffer, slot, input)) slots.release(slot)
          case FreqKeys.Double => addRow(buffer, FreqKeys.doubleBits(DyadicArgs.toDouble(k)), input)
          case _ => addRow(buffer, Args.longOf(k), input)
        }
      }
    } catch { case e: SketchException => DataErrors(fn)(throw e) }
    buffer
  }

  private def checkKeyBytes(n: Int): Unit =
    if (n > FreqKeys.MaxKeyBytes) throw new SketchException(s"a key must be at most ${FreqKeys.MaxKeyBytes} bytes, got $n")

  override def dataType: DataType = TypedSketch.structOf(key.dataType)
  override def eval(buffer: Ingest[FrequentSketch]): Any = TypedSketch.row(super.eval(buffer).asInstanceOf[Array[Byte]])
  override def defaultResult: Option[Literal] = Option(Literal(eval(createAggregationBuffer()), dataType))

  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

object TopKAgg {
  final val DefaultEpsilon = 0.001
}

/** `top_k_merge(sketch)`: order-preserving merge of frequent-items sketches; returns the type it is given. */
case class TopKMergeAgg(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends SketchMergeAgg[FrequentSketch] {
  override def prettyName: String = "top_k_merge"
  protected def kind: SketchKind[FrequentSketch] = FrequentKind
  override protected def typedInput: Boolean = true
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): TopKMergeAgg = copy(child = c.head)
  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** Key types of frequent-items sketches in SQL. */
private[spark] object TopKKeys {
  /** The sketch's key type for a key column of type `dt`. */
  def of(dt: DataType, fn: String): Int = dt match {
    case ByteType | ShortType | IntegerType => FreqKeys.Int
    case LongType => FreqKeys.BigInt
    case FloatType | DoubleType => FreqKeys.Double
    case _: StringType => FreqKeys.Str
    case BinaryType => FreqKeys.Binary
    case t => throw new SketchException(s"$fn: key must be TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, STRING or BINARY, got ${t.sql}")
  }

  /** Whether a sketch of key type `have` (Unset: empty) answers with keys of SQL type `dt`. */
  def fits(have: Int, dt: DataType): Boolean = have == FreqKeys.Unset || (dt match {
    case LongType => have == FreqKeys.BigInt || have == FreqKeys.Int
    case _ => scala.util.Try(of(dt, "")).toOption.contains(have)
  })

  /** A key as Catalyst holds a value of type `dt`. A key that `dt` cannot hold exactly (a STRUCT
    * whose key_type was narrowed after top_k_agg, e.g. by a cast or a table's column type) fails.
    */
  def catalyst(k: Any, dt: DataType): Any = (k, dt) match {
    case (n: Number, ByteType) => val v = n.longValue; if (v.toByte != v) misfit(k, dt); v.toByte
    case (n: Number, ShortType) => val v = n.longValue; if (v.toShort != v) misfit(k, dt); v.toShort
    case (n: Number, IntegerType) => val v = n.longValue; if (v.toInt != v) misfit(k, dt); v.toInt
    case (n: Number, LongType) => n.longValue
    case (n: Number, FloatType) =>
      val d = n.doubleValue; val f = d.toFloat
      if (f.toDouble != d && !(d.isNaN && f.isNaN)) misfit(k, dt)
      f
    case (n: Number, DoubleType) => n.doubleValue
    case (s: String, _: StringType) => UTF8String.fromString(s)
    case (b: Array[Byte], BinaryType) => b
    case (other, t) => throw new SketchException(s"a ${other.getClass.getSimpleName} key cannot be returned as ${t.sql}")
  }

  private def misfit(k: Any, dt: DataType): Nothing = throw new SketchException(
    s"the sketch holds the key $k, which the column's key type ${dt.sql} cannot hold; the sketch column's " +
      "key_type must stay the type of the column top_k_agg read")

  /** The answer rows STRUCT<key, estimate, lower, upper> of `items`, keys of SQL type `dt`. */
  def rows(s: FrequentSketch, items: Seq[FrequentItem], dt: DataType, fn: String): GenericArrayData = {
    if (!fits(s.keyTypeCode, dt)) throw new SketchException(
      s"this frequent-items sketch holds ${s.keyTypeName} keys, not ${dt.sql}" +
        "; give key_type => '" + s.keyTypeName + "' (or query the STRUCT of top_k_agg, which carries its key type)")
    new GenericArrayData(items.map { i =>
      new GenericInternalRow(Array[Any](catalyst(i.key, dt), i.estimate, i.lower.toDouble, i.upper.toDouble))
    }.toArray[Any])
  }

  /** A point query's key as [[FrequentSketch.estimate]] takes it. */
  def queryKey(k: Any): Any = k match {
    case u: UTF8String => u.toString
    case b: Byte => java.lang.Long.valueOf(b.toLong)
    case s: Short => java.lang.Long.valueOf(s.toLong)
    case i: Int => java.lang.Long.valueOf(i.toLong)
    case l: Long => java.lang.Long.valueOf(l)
    case f: Float => java.lang.Double.valueOf(f.toDouble)
    case d: Double => java.lang.Double.valueOf(d)
    case other => other
  }
}

/** The expressions of the frequent-items sketch's functions ([[ecmsketch.frequent.FrequentFunctions]]). */
private[spark] object FrequentFunctionImpls {
  import SqlFunctions.impl

  val all: Seq[SqlFunctions.Impl] = Seq(
    impl("top_k_agg", classOf[TopKAgg])(a => TopKAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6))),
    impl("top_k_merge", classOf[TopKMergeAgg])(a => TopKMergeAgg(a(0))))
}

/** ecm_point of a frequent-items sketch (called by EcmPoint when the sketch is one): the key's estimate. */
private[spark] object FrequentPoint {
  def point(s: WindowSketch, key: Any, r: java.lang.Long, n: java.lang.Long): Option[Double] = s match {
    case f: FrequentSketch =>
      // a sketch of DOUBLE keys takes any numeric key (an integer or DECIMAL literal) as a DOUBLE
      val k = if (f.keyTypeCode == FreqKeys.Double && !key.isInstanceOf[UTF8String] && !key.isInstanceOf[Array[Byte]])
        java.lang.Double.valueOf(DyadicArgs.toDouble(key)) else TopKKeys.queryKey(key)
      Some(f.estimate(k, r, n).estimate)
    case _ => None
  }
}
