package ecmsketch.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import ecmsketch.core.{Codec, Registry, SketchDescription, SketchException, SketchKind, WindowSketch}
import ecmsketch.dwave.{DwKind, DwSketch}
import ecmsketch.ecm.{EcmKind, EcmSketch}
import ecmsketch.rwave.{DistinctKind, DistinctSketch}
import ecmsketch.window.{EhKind, EhSketch}

/** Base of the sketch query functions: the first `sketchArgs` children are BINARY sketches, a NULL
  * sketch gives NULL, and the last decoded sketch of each argument is cached (queries usually
  * probe one sketch with many keys).
  */
abstract class SketchScalar extends Expression with CodegenFallback {
  protected def sketchArgs: Int = 1
  override def sql: String = Args.callSql(prettyName, children)
  override def nullable: Boolean = true
  override def foldable: Boolean = children.forall(_.foldable)

  @transient private lazy val cacheBytes = new Array[Array[Byte]](sketchArgs)
  @transient private lazy val cacheSketch = new Array[WindowSketch](sketchArgs)

  protected def decode(i: Int, b: Array[Byte]): WindowSketch = {
    if ((cacheBytes(i) ne b) && !java.util.Arrays.equals(cacheBytes(i), b)) {
      cacheSketch(i) = Codec.decode(b)
      cacheBytes(i) = b
    }
    cacheSketch(i)
  }

  /** Argument `i` decoded as a sketch of kind `kind` ("f: expected <kind>, got <what it is>" otherwise). */
  protected def as[S <: WindowSketch](kind: SketchKind[S], i: Int, b: Array[Byte]): S = {
    val s = decode(i, b)
    kind.cast(s).getOrElse(throw new SketchException(s"$prettyName: expected ${kind.describe}, got ${Registry.describe(s)}"))
  }

  protected def checkArgs(): Unit = ()

  override def checkInputDataTypes(): TypeCheckResult = Checks {
    children.take(sketchArgs).foreach { c =>
      if (c.dataType != BinaryType && c.dataType != NullType)
        throw new SketchException(s"$prettyName: the sketch argument must be BINARY, got ${c.dataType.sql}")
    }
    checkArgs()
  }

  override def eval(input: InternalRow): Any = DataErrors(prettyName)(evalSketches(input))

  private def evalSketches(input: InternalRow): Any = {
    val sk = new Array[Array[Byte]](sketchArgs)
    var i = 0
    while (i < sketchArgs) {
      val v = children(i).eval(input)
      if (v == null) return null
      sk(i) = v.asInstanceOf[Array[Byte]]
      i += 1
    }
    compute(sk, input)
  }

  protected def compute(sketches: Array[Array[Byte]], input: InternalRow): Any
}

/** Range and now arguments at positions `r` and `r + 1`. */
trait RangeNowArgs { self: SketchScalar =>
  protected def rangeAt: Int
  protected def checkRangeNow(): Unit = {
    Args.checkRangeType(children(rangeAt), prettyName)
    Args.checkNowType(children(rangeAt + 1), prettyName)
  }
  protected def rangeNow(s: WindowSketch, input: InternalRow): (java.lang.Long, java.lang.Long) = {
    val r = Args.range(s, children(rangeAt), children(rangeAt).eval(input), prettyName)
    val n = Args.now(s, children(rangeAt + 1), children(rangeAt + 1).eval(input), prettyName)
    (r, n)
  }
}

/** `ecm_point(sketch, key [, range [, now]])`: estimated weight of `key` in (now - range, now]. */
case class EcmPoint(children: Seq[Expression]) extends SketchScalar with RangeNowArgs {
  override def prettyName: String = "ecm_point"
  protected def rangeAt = 2
  override def dataType: DataType = DoubleType
  override protected def checkArgs(): Unit = {
    children(1).dataType match {
      case _: StringType | BinaryType | NullType => ()
      case dt if Args.isIntegral(dt) => ()
      case dt => throw new SketchException(s"ecm_point: key must be STRING, BINARY, INT or BIGINT, got ${dt.sql}")
    }
    checkRangeNow()
  }
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val s = as(EcmKind, 0, sk(0))
    val k = children(1).eval(input)
    if (k == null) return null
    val (r, n) = rangeNow(s, input)
    val fp = children(1).dataType match {
      case _: StringType => s.fingerprintFor(k.asInstanceOf[UTF8String].toString)
      case BinaryType => s.fingerprintFor(k.asInstanceOf[Array[Byte]])
      case _ => s.fingerprintFor(Args.longOf(k))
    }
    s.pointFingerprint(fp, r, n)
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EcmPoint = copy(children = c)
}

/** `ecm_inner_product(a, b [, range [, now]])`. */
case class EcmInnerProduct(children: Seq[Expression]) extends SketchScalar with RangeNowArgs {
  override def prettyName: String = "ecm_inner_product"
  override protected def sketchArgs = 2
  protected def rangeAt = 2
  override def dataType: DataType = DoubleType
  override protected def checkArgs(): Unit = checkRangeNow()
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val a = as(EcmKind, 0, sk(0)); val b = as(EcmKind, 1, sk(1))
    val (r, n) = rangeNow(a, input)
    a.innerProduct(b, r, n)
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EcmInnerProduct = copy(children = c)
}

/** A query of one sketch over `(now - range, now]`: `f(sketch [, range [, now]])` returning DOUBLE. */
abstract class RangeQuery[S <: WindowSketch] extends SketchScalar with RangeNowArgs {
  protected def rangeAt = 1
  override def dataType: DataType = DoubleType
  override protected def checkArgs(): Unit = checkRangeNow()
  protected def sketch(b: Array[Byte]): S
  protected def query(s: S, range: java.lang.Long, now: java.lang.Long): Double
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val s = sketch(sk(0)); val (r, n) = rangeNow(s, input); query(s, r, n)
  }
}

/** `ecm_self_join(sketch [, range [, now]])`: the second frequency moment F2. */
case class EcmSelfJoin(children: Seq[Expression]) extends RangeQuery[EcmSketch] {
  override def prettyName: String = "ecm_self_join"
  protected def sketch(b: Array[Byte]): EcmSketch = as(EcmKind, 0, b)
  protected def query(s: EcmSketch, r: java.lang.Long, n: java.lang.Long): Double = s.selfJoin(r, n)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EcmSelfJoin = copy(children = c)
}

/** `ecm_total(sketch [, range [, now]])`: the total weight ||a_r||_1. */
case class EcmTotal(children: Seq[Expression]) extends RangeQuery[EcmSketch] {
  override def prettyName: String = "ecm_total"
  protected def sketch(b: Array[Byte]): EcmSketch = as(EcmKind, 0, b)
  protected def query(s: EcmSketch, r: java.lang.Long, n: java.lang.Long): Double = s.total(r, n)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EcmTotal = copy(children = c)
}

/** `eh_count(sketch [, range [, now]])`. */
case class EhCount(children: Seq[Expression]) extends RangeQuery[EhSketch] {
  override def prettyName: String = "eh_count"
  protected def sketch(b: Array[Byte]): EhSketch = as(EhKind, 0, b)
  protected def query(s: EhSketch, r: java.lang.Long, n: java.lang.Long): Double = s.count(r, n)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EhCount = copy(children = c)
}

/** `dwave_count(sketch [, range [, now]])`: count (or sum, for a sum wave) of a deterministic wave. */
case class DwaveCount(children: Seq[Expression]) extends RangeQuery[DwSketch] {
  override def prettyName: String = "dwave_count"
  protected def sketch(b: Array[Byte]): DwSketch = as(DwKind, 0, b)
  protected def query(s: DwSketch, r: java.lang.Long, n: java.lang.Long): Double = s.count(r, n)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DwaveCount = copy(children = c)
}

/** `distinct_count(sketch [, range [, now]])`: distinct values whose latest occurrence is in the range. */
case class DistinctCount(children: Seq[Expression]) extends RangeQuery[DistinctSketch] {
  override def prettyName: String = "distinct_count"
  protected def sketch(b: Array[Byte]): DistinctSketch = as(DistinctKind, 0, b)
  protected def query(s: DistinctSketch, r: java.lang.Long, n: java.lang.Long): Double = s.count(r, n)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DistinctCount = copy(children = c)
}

/** `sketch_info(sketch)`: a STRUCT describing any sketch of this library. */
case class SketchInfo(children: Seq[Expression]) extends SketchScalar {
  override def prettyName: String = "sketch_info"
  override def dataType: DataType = SketchInfo.schema
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val s = decode(0, sk(0))
    val m = SketchInfo.describe(s, sk(0).length)
    new GenericInternalRow(SketchInfo.schema.fields.map { f =>
      m(f.name) match {
        case null => null
        case str: String => UTF8String.fromString(str)
        case other => other
      }
    })
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): SketchInfo = copy(children = c)
}

object SketchInfo {
  val schema: StructType = StructType(Seq(
    StructField("kind", StringType), StructField("format_version", IntegerType),
    StructField("window_type", StringType), StructField("window", LongType), StructField("ts_unit", StringType),
    StructField("epsilon", DoubleType), StructField("delta", DoubleType),
    StructField("width", IntegerType), StructField("depth", IntegerType),
    StructField("cell_kind", StringType), StructField("cell_epsilon", DoubleType), StructField("cm_epsilon", DoubleType),
    StructField("max_arrivals", LongType), StructField("cell_delta", DoubleType),
    StructField("wave_capacity", IntegerType), StructField("wave_instances", IntegerType),
    StructField("optimize_for", StringType), StructField("key_type", StringType), StructField("seed", LongType),
    StructField("planned_merge_levels", IntegerType), StructField("merge_depth", IntegerType),
    StructField("error_bound", DoubleType), StructField("point_error_bound", DoubleType),
    StructField("inner_product_error_bound", DoubleType), StructField("total_error_bound", DoubleType),
    StructField("first_ts", LongType), StructField("last_ts", LongType), StructField("total_weight", LongType),
    StructField("size_bytes", IntegerType)))

  def describe(s: WindowSketch, sizeBytes: Int): Map[String, Any] = SketchDescription.describe(s, sizeBytes)
  assert(schema.fieldNames.toSeq == SketchDescription.fields)
}
