package ecmsketch.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, GenericInternalRow, JoinedRow, UnsafeArrayData, UnsafeRow}
import org.apache.spark.sql.catalyst.util.{ArrayData, GenericArrayData}
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.array.ByteArrayMethods
import org.apache.spark.sql.catalyst.expressions.codegen.{CodeGenerator, CodegenContext, CodegenFallback, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import ecmsketch.Families
import ecmsketch.core.{InfoType, SketchException, SketchKind, WindowSketch}
import ecmsketch.dwave.{DwKind, DwSketch}
import ecmsketch.ecm.{EcmKind, EcmSketch}
import ecmsketch.ecm.dyadic.DyadicSketch
import ecmsketch.frequent.FrequentSketch
import ecmsketch.quantile.QuantileSketch
import ecmsketch.rwave.{DistinctKind, DistinctSketch}
import ecmsketch.eh.{EhKind, EhSketch}

/** Base of the sketch query functions: the first `sketchArgs` children are sketches (BINARY, or the
  * STRUCT of [[TypedSketch]]), a NULL sketch gives NULL, and the last decoded sketch of each argument is cached (queries usually
  * probe one sketch with many keys). Subclasses either generate code ([[EcmPoint]]) or mix in
  * CodegenFallback (which keeps their operator out of whole-stage code generation).
  */
abstract class SketchScalar extends Expression {
  protected def sketchArgs: Int = 1
  override def sql: String = Args.callSql(prettyName, children)
  override def nullable: Boolean = true
  override def foldable: Boolean = children.forall(_.foldable)

  // One-entry cache per sketch argument. A hit must be certain: the same array object, or an array
  // of the same length whose bytes are all equal (a length or sampled-hash match alone is not enough).
  // Rows that hold the sketch in an UnsafeRow are compared in place, without Spark's per-row copy.
  @transient private lazy val cacheBytes = new Array[Array[Byte]](sketchArgs)
  @transient private lazy val cacheSketch = new Array[WindowSketch](sketchArgs)
  @transient private lazy val argBytes = new Array[Array[Byte]](sketchArgs)
  @transient private lazy val argOrdinal: Array[Int] = children.take(sketchArgs).map {
    case b: BoundReference if b.dataType == BinaryType => b.ordinal
    case _ => -1
  }.toArray

  /** Foldable sketch arguments are evaluated once; their bytes stay the same for every row. */
  @transient private lazy val constBytes: Array[Array[Byte]] = children.take(sketchArgs).map { c =>
    if (c.foldable) TypedSketch.bytes(c.eval(), c.dataType) else null
  }.toArray

  protected def decode(i: Int, b: Array[Byte]): WindowSketch = {
    if ((cacheBytes(i) ne b) && !java.util.Arrays.equals(cacheBytes(i), b)) {
      cacheSketch(i) = Families.decode(b)
      cacheBytes(i) = b
    }
    cacheSketch(i)
  }

  /** Bytes of sketch argument `i`, or null for a NULL sketch; the cached array when the row's bytes equal it. */
  private def argument(i: Int, input: InternalRow): Array[Byte] = {
    val cb = constBytes(i)
    if (cb != null) return cb
    val ord = argOrdinal(i)
    val cached = cacheBytes(i)
    if (ord >= 0 && cached != null) {
      var row = input
      var o = ord
      // an aggregate evaluates its input over JoinedRow(buffer, row): find the UnsafeRow that holds the field
      while (row.isInstanceOf[JoinedRow]) {
        val j = row.asInstanceOf[JoinedRow]
        val left = j.getLeft
        if (left == null) row = null
        else if (o < left.numFields) row = left
        else { o -= left.numFields; row = j.getRight }
      }
      row match {
        case u: UnsafeRow =>
          if (u.isNullAt(o)) return null
          val offSize = u.getLong(o)
          val size = offSize.toInt
          if (size == cached.length && ByteArrayMethods.arrayEquals(u.getBaseObject, u.getBaseOffset + (offSize >>> 32),
              cached, Platform.BYTE_ARRAY_OFFSET, size.toLong)) return cached
        case _ => ()
      }
    }
    TypedSketch.bytes(children(i).eval(input), children(i).dataType)
  }

  /** Argument `i` decoded as a sketch of kind `kind` ("f: expected <kind>, got <what it is>" otherwise). */
  protected def as[S <: WindowSketch](kind: SketchKind[S], i: Int, b: Array[Byte]): S = {
    val s = decode(i, b)
    kind.cast(s).getOrElse(throw new SketchException(s"$prettyName: expected ${kind.describe}, got ${Families.describe(s)}"))
  }

  protected def checkArgs(): Unit = ()

  override def checkInputDataTypes(): TypeCheckResult = Checks {
    children.take(sketchArgs).foreach { c =>
      if (!TypedSketch.isSketchColumn(c.dataType))
        throw new SketchException(s"$prettyName: the sketch argument must be a sketch (BINARY, or the STRUCT of top_k_agg), got ${c.dataType.sql}")
    }
    checkArgs()
  }

  override def eval(input: InternalRow): Any = DataErrors(prettyName)(evalSketches(input))

  private def evalSketches(input: InternalRow): Any = {
    val sk = argBytes
    var i = 0
    while (i < sketchArgs) {
      val v = argument(i, input)
      if (v == null) return null
      sk(i) = v
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
  // Constant range and now are converted once per sketch object (the conversion depends on its tick unit).
  @transient protected lazy val constRangeNow: Boolean = children(rangeAt).foldable && children(rangeAt + 1).foldable
  @transient private var rnFor: WindowSketch = null
  @transient private var rnValue: (java.lang.Long, java.lang.Long) = null
  protected def rangeNow(s: WindowSketch, input: InternalRow): (java.lang.Long, java.lang.Long) =
    if (constRangeNow) rangeNowOf(s, null, null)
    else rangeNowOf(s, children(rangeAt).eval(input), children(rangeAt + 1).eval(input))
  /** Range and now for sketch `s` from the values `rv` and `nv` (when both are constant, those are
    * ignored and the constants are converted once per sketch object).
    */
  protected def rangeNowOf(s: WindowSketch, rv: Any, nv: Any): (java.lang.Long, java.lang.Long) = {
    if (constRangeNow && (rnFor eq s)) return rnValue
    val r = Args.range(s, children(rangeAt), if (constRangeNow) children(rangeAt).eval() else rv, prettyName)
    val n = Args.now(s, children(rangeAt + 1), if (constRangeNow) children(rangeAt + 1).eval() else nv, prettyName)
    if (constRangeNow) { rnValue = (r, n); rnFor = s }
    (r, n)
  }
}

/** `ecm_point(sketch, key [, range [, now]])`: estimated weight of `key` in (now - range, now].
  * With an ARRAY of keys, an ARRAY<DOUBLE> of the estimates in the same order (a NULL element gives
  * a NULL element, a NULL array gives NULL); the sketch is decoded once for all of them.
  */
case class EcmPoint(children: Seq[Expression]) extends SketchScalar with RangeNowArgs {
  override def prettyName: String = "ecm_point"
  protected def rangeAt = 2
  private def keyArray: Boolean = children(1).dataType.isInstanceOf[ArrayType]
  override def dataType: DataType = if (keyArray) ArrayType(DoubleType, containsNull = true) else DoubleType
  override protected def checkArgs(): Unit = {
    children(1).dataType match {
      case ArrayType(et, _) => keyKindOf(et, s"ecm_point: key array elements must be STRING, BINARY, INT or BIGINT, got ARRAY<${et.sql}>")
      case dt => keyKindOf(dt, s"ecm_point: key must be STRING, BINARY, INT or BIGINT (or an ARRAY of them), got ${dt.sql}")
    }
    checkRangeNow()
  }
  private def keyKindOf(dt: DataType, err: => String): Int = dt match {
    case _: StringType => 0
    case BinaryType => 1
    case NullType => 3
    case t if Args.isIntegral(t) => 2
    case FloatType | DoubleType | _: DecimalType if doubleKeys => 4
    case _ => throw new SketchException(err)
  }
  /** DOUBLE and FLOAT keys: for a frequent-items sketch of DOUBLE keys, whose STRUCT says so at analysis. */
  private def doubleKeys: Boolean = TypedSketch.keyTypeOf(children(0).dataType).exists(t => t == DoubleType || t == FloatType)
  @transient private lazy val elemType: DataType = children(1).dataType match {
    case ArrayType(et, _) => et
    case dt => dt
  }
  @transient private lazy val keyKind: Int = keyKindOf(elemType, "")

  // The sketch of the last bytes seen. A hit must be certain: the same array object, or an array of
  // the same length whose bytes are all equal (a length or sampled-hash match alone is not enough).
  @transient private var lastBytes: Array[Byte] = null
  @transient private var lastSketch: WindowSketch = null

  /** The ECM-sketch (or dyadic sketch, see [[dyadicPoint]]) of bytes `b`. */
  private def sketchOf(b: Array[Byte]): WindowSketch = {
    val last = lastBytes
    if ((last ne b) && (last == null || last.length != b.length || !java.util.Arrays.equals(last, b))) {
      lastSketch = decode(0, b) match {
        case d @ (_: DyadicSketch | _: FrequentSketch) => d
        case _ => as(EcmKind, 0, b)
      }
      lastBytes = b
    }
    lastSketch
  }

  private def fail(e: SketchException): Nothing = DataErrors(prettyName)(throw e)

  // Entry points of the generated code (and of eval): the sketch's bytes, the key, and the range and
  // now values (ignored when both are constant). A NULL sketch or key never reaches them.
  // With constant range and now, one PointMemo per sketch object serves every row.
  @transient private var memoFor: EcmSketch = null
  @transient private var memo: PointMemo = null

  private def constMemo(s: EcmSketch): PointMemo = {
    if (memoFor ne s) {
      val (r, n) = rangeNowOf(s, null, null)
      memo = new PointMemo(s, r, n)
      memoFor = s
    }
    memo
  }

  def pointLong(b: Array[Byte], key: Long, rv: Any, nv: Any): Double =
    try {
      sketchOf(b) match {
        case s: EcmSketch =>
          if (constRangeNow) { val m = constMemo(s); m(s.fingerprintFor(key)) }
          else { val (r, n) = rangeNowOf(s, rv, nv); s.pointFingerprint(s.fingerprintFor(key), r, n) }
        case d => dyadicOne(d, key, rv, nv)
      }
    } catch { case e: SketchException => fail(e) }

  def pointString(b: Array[Byte], key: UTF8String, rv: Any, nv: Any): Double =
    try {
      sketchOf(b) match {
        case s: EcmSketch =>
          if (constRangeNow) { val m = constMemo(s); m(s.fingerprintFor(key.toString)) }
          else { val (r, n) = rangeNowOf(s, rv, nv); s.pointFingerprint(s.fingerprintFor(key.toString), r, n) }
        case d => dyadicOne(d, key, rv, nv)
      }
    } catch { case e: SketchException => fail(e) }

  def pointBinary(b: Array[Byte], key: Array[Byte], rv: Any, nv: Any): Double =
    try {
      sketchOf(b) match {
        case s: EcmSketch =>
          if (constRangeNow) { val m = constMemo(s); m(s.fingerprintFor(key)) }
          else { val (r, n) = rangeNowOf(s, rv, nv); s.pointFingerprint(s.fingerprintFor(key), r, n) }
        case d => dyadicOne(d, key, rv, nv)
      }
    } catch { case e: SketchException => fail(e) }

  def pointDouble(b: Array[Byte], key: Double, rv: Any, nv: Any): Double =
    try {
      sketchOf(b) match {
        case _: EcmSketch => throw new SketchException("ecm_point: an ECM-sketch takes STRING, BINARY, INT or BIGINT keys, got a DOUBLE key")
        case d => dyadicOne(d, key, rv, nv)
      }
    } catch { case e: SketchException => fail(e) }

  def pointArray(b: Array[Byte], keys: ArrayData, rv: Any, nv: Any): ArrayData =
    try {
      val s = sketchOf(b) match {
        case e: EcmSketch => e
        case d => return dyadicMany(d, keys, rv, nv)
      }
      val m = if (constRangeNow) constMemo(s) else { val (r, n) = rangeNowOf(s, rv, nv); new PointMemo(s, r, n) }
      val len = keys.numElements()
      var nulls = false
      var i = 0
      while (i < len && !nulls) { nulls = keys.isNullAt(i); i += 1 }
      val out = new Array[Double](len)
      i = 0
      while (i < len) {
        if (!nulls || !keys.isNullAt(i)) out(i) = m(printAt(s, keys, i))
        i += 1
      }
      if (!nulls) UnsafeArrayData.fromPrimitiveArray(out)
      else {
        val boxed = new Array[Any](len)
        i = 0
        while (i < len) { if (!keys.isNullAt(i)) boxed(i) = out(i); i += 1 }
        new GenericArrayData(boxed)
      }
    } catch { case e: SketchException => fail(e) }

  /** Fingerprint of element `i` of a key array, read with its typed accessor (no boxing). */
  private def printAt(s: EcmSketch, a: ArrayData, i: Int): Long = elemType match {
    case LongType => s.fingerprintFor(a.getLong(i))
    case IntegerType => s.fingerprintFor(a.getInt(i).toLong)
    case _: StringType => s.fingerprintFor(a.getUTF8String(i).toString)
    case BinaryType => s.fingerprintFor(a.getBinary(i))
    case ShortType => s.fingerprintFor(a.getShort(i).toLong)
    case ByteType => s.fingerprintFor(a.getByte(i).toLong)
    case dt => throw new SketchException(s"ecm_point: unsupported key element type ${dt.sql}")
  }

  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val k = children(1).eval(input)
    if (k == null) return null
    val (rv, nv) = if (constRangeNow) (null, null) else (children(2).eval(input), children(3).eval(input))
    if (keyArray) pointArray(sk(0), k.asInstanceOf[ArrayData], rv, nv)
    else keyKind match {
      case 0 => pointString(sk(0), k.asInstanceOf[UTF8String], rv, nv)
      case 1 => pointBinary(sk(0), k.asInstanceOf[Array[Byte]], rv, nv)
      case 4 => pointDouble(sk(0), DyadicArgs.toDouble(k), rv, nv)
      case _ => pointLong(sk(0), Args.longOf(k), rv, nv)
    }
  }

  /** Generated code calls this expression's typed entry points directly (no per-row InternalRow,
    * no boxing of the key), so an operator holding ecm_point stays in whole-stage code generation.
    */
  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val jt = CodeGenerator.javaType(dataType)
    if (children(0).dataType == NullType || (!keyArray && keyKind == 3))
      return ev.copy(code = code"boolean ${ev.isNull} = true; $jt ${ev.value} = ${CodeGenerator.defaultValue(dataType)};")
    val self = ctx.addReferenceObj("ecmPoint", this, classOf[EcmPoint].getName)
    val sk = children(0).genCode(ctx)
    // a typed sketch column (the STRUCT of top_k_agg) holds the bytes in its first field, which may be NULL
    val typed = TypedSketch.isTyped(children(0).dataType)
    val skBytes = if (typed) s"${sk.value}.getBinary(0)" else s"${sk.value}"
    val skNull = if (typed) s"(${sk.isNull} || ${sk.value}.isNullAt(0))" else s"${sk.isNull}"
    val k = children(1).genCode(ctx)
    val (rnCode, rArg, nArg) =
      if (constRangeNow) ("", "null", "null")
      else {
        val (rc, ra) = boxedArg(ctx, children(2)); val (nc, na) = boxedArg(ctx, children(3))
        (rc + "\n" + nc, ra, na)
      }
    val method = if (keyArray) "pointArray" else keyKind match {
      case 0 => "pointString"
      case 1 => "pointBinary"
      case 4 => "pointDouble"
      case _ => "pointLong"
    }
    ev.copy(code = code"""
      |${sk.code}
      |boolean ${ev.isNull} = true;
      |$jt ${ev.value} = ${CodeGenerator.defaultValue(dataType)};
      |if (!$skNull) {
      |  ${k.code}
      |  if (!${k.isNull}) {
      |    $rnCode
      |    ${ev.isNull} = false;
      |    ${ev.value} = $self.$method($skBytes, ${k.value}, $rArg, $nArg);
      |  }
      |}""".stripMargin)
  }

  /** Code evaluating `e` into an Object (null for NULL, a boxed value for a primitive) and its name. */
  private def boxedArg(ctx: CodegenContext, e: Expression): (String, String) = {
    val g = e.genCode(ctx)
    val v = ctx.freshName("arg")
    val value =
      if (CodeGenerator.isPrimitiveType(e.dataType)) s"${CodeGenerator.boxedType(e.dataType)}.valueOf(${g.value})"
      else s"${g.value}"
    (s"${g.code}\nObject $v = ${g.isNull} ? null : (Object) $value;", v)
  }

  // A dyadic sketch (ecm.dyadic): the point query of its level 0 (integer query keys; on a sketch
  // of double keys, as doubles). The typed entry points above route dyadic sketches here.
  private def dyadicOne(s: WindowSketch, key: Any, rv: Any, nv: Any): Double = {
    val (r, n) = rangeNowOf(s, rv, nv)
    DyadicPoint.point(s, key, elemType, r, n).orElse(FrequentPoint.point(s, key, r, n)).get
  }

  private def dyadicMany(s: WindowSketch, keys: ArrayData, rv: Any, nv: Any): ArrayData = {
    val (r, n) = rangeNowOf(s, rv, nv)
    new GenericArrayData(Array.tabulate[Any](keys.numElements()) { i =>
      if (keys.isNullAt(i)) null
      else { val k = element(keys, i); DyadicPoint.point(s, k, elemType, r, n).orElse(FrequentPoint.point(s, k, r, n)).get }
    })
  }

  private def element(a: ArrayData, i: Int): Any = elemType match {
    case _: StringType => a.getUTF8String(i)
    case BinaryType => a.getBinary(i)
    case LongType => a.getLong(i)
    case IntegerType => a.getInt(i)
    case ShortType => a.getShort(i)
    case ByteType => a.getByte(i)
    case DoubleType => a.getDouble(i)
    case FloatType => a.getFloat(i).toDouble
    case dt => throw new SketchException(s"ecm_point: unsupported key element type ${dt.sql}")
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EcmPoint = copy(children = c)
}

/** Point queries of one ECM-sketch over one (range, now): the query's lower bound is resolved
  * (and checked) once, at the first key, and each Count-Min cell's estimate is computed the first time a key maps to
  * it and reused after, so a key costs d column hashes and d array reads. The answer is
  * [[EcmSketch.pointFingerprint]]'s: the minimum over rows of the same cell estimates.
  */
private[spark] final class PointMemo(s: EcmSketch, range: java.lang.Long, now: java.lang.Long) {
  private val d = s.depth
  private val w = s.width
  private val known = new Array[Boolean](d * w)
  private val est = new Array[Double](d * w)
  // resolved at the first key, as pointFingerprint does (so an empty key array checks nothing)
  private var resolved = false
  private var empty = false
  private var lower = 0L

  def apply(fp: Long): Double = {
    if (!resolved) {
      val lo = s.lowerBound(range, now)
      empty = lo == null
      if (!empty) lower = lo.longValue
      resolved = true
    }
    if (empty) return 0.0
    var best = Double.PositiveInfinity
    var j = 0
    while (j < d) {
      val idx = j * w + s.column(fp, j)
      if (!known(idx)) {
        val c = s.cells(idx)
        est(idx) = if (c == null) 0.0 else c.estimateFrom(lower)
        known(idx) = true
      }
      val e = est(idx)
      if (e < best) best = e
      j += 1
    }
    best
  }
}

/** `ecm_inner_product(a, b [, range [, now]])`. */
case class EcmInnerProduct(children: Seq[Expression]) extends SketchScalar with RangeNowArgs with CodegenFallback {
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
abstract class RangeQuery[S <: WindowSketch] extends SketchScalar with RangeNowArgs with CodegenFallback {
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
case class EcmTotal(children: Seq[Expression]) extends RangeQuery[WindowSketch] {
  override def prettyName: String = "ecm_total"
  protected def sketch(b: Array[Byte]): WindowSketch = decode(0, b) match {
    case d @ (_: DyadicSketch | _: QuantileSketch | _: FrequentSketch) => d
    case _ => as(EcmKind, 0, b)
  }
  protected def query(s: WindowSketch, r: java.lang.Long, n: java.lang.Long): Double = s match {
    case d: DyadicSketch => d.total(r, n)
    case e: EcmSketch => e.total(r, n)
    case q: QuantileSketch => q.count(r, n)
    case f: FrequentSketch => f.rangeCount(r, n).estimate
    case other => throw new SketchException(s"ecm_total: expected ${EcmKind.describe}, got ${Families.describe(other)}")
  }
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
case class SketchInfo(children: Seq[Expression]) extends SketchScalar with CodegenFallback {
  override def prettyName: String = "sketch_info"
  override def dataType: DataType = SketchInfo.schema
  // The description of the last sketch object (decode's cache returns the same object for the same bytes).
  @transient private var rowFor: WindowSketch = null
  @transient private var row: InternalRow = null
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val s = decode(0, sk(0))
    if (rowFor ne s) { row = describe(s, sk(0)); rowFor = s }
    row
  }
  private def describe(s: WindowSketch, bytes: Array[Byte]): InternalRow = {
    val m = SketchInfo.describe(s, bytes)
    new GenericInternalRow(Families.infoSchema.map(f => SketchInfo.value(f.tpe, m(f.name))).toArray)
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): SketchInfo = copy(children = c)
}

object SketchInfo {
  /** The STRUCT of `sketch_info`: the fields the registered kinds declare (`Families.infoSchema`). */
  lazy val schema: StructType = StructType(Families.infoSchema.map(f => StructField(f.name, sqlType(f.tpe))))

  def sqlType(t: InfoType): DataType = t match {
    case InfoType.Text => StringType
    case InfoType.Int32 => IntegerType
    case InfoType.Int64 => LongType
    case InfoType.Real => DoubleType
    case InfoType.Flag => BooleanType
  }

  /** A described value as Catalyst holds a field of type `t` (NULL stays null). */
  def value(t: InfoType, v: Any): Any = (t, v) match {
    case (_, null) => null
    case (InfoType.Text, x) => UTF8String.fromString(x.toString)
    case (InfoType.Int32, n: Number) => n.intValue
    case (InfoType.Int64, n: Number) => n.longValue
    case (InfoType.Real, n: Number) => n.doubleValue
    case (_, x) => x
  }

  def describe(s: WindowSketch, bytes: Array[Byte]): Map[String, Any] = Families.info(s, bytes)
}
