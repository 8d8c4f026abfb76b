package ecmsketch.spark

import ecmsketch.ecm.dyadic.DyadicOps

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.expressions.aggregate.ImperativeAggregate
import org.apache.spark.sql.catalyst.util.{ArrayData, GenericArrayData}
import org.apache.spark.sql.types._

import org.apache.spark.unsafe.types.UTF8String

import ecmsketch.Families
import ecmsketch.core.{KeyType, SketchException, SketchKind, WindowSketch}
import ecmsketch.frequent.{FrequentItem, FrequentKind, FrequentSketch}
import ecmsketch.quantile.QuantileKind
import ecmsketch.ecm.{EcmSketch, Planner}
import ecmsketch.ecm.dyadic.{DyadicKind, DyadicSketch, DyadicUniverse, Estimate, KeyEstimate, KeyTable}
import ecmsketch.hash.Hashing
import ecmsketch.ingest.{Ingest, SketchOps}

private[spark] object DyadicArgs {
  /** Key domain of a dyadic_agg key column: integral types, FLOAT/DOUBLE, STRING or BINARY. */
  def domain(dt: DataType, fn: String): Int = dt match {
    case t if Args.isIntegral(t) => KeyType.Long
    case FloatType | DoubleType => DyadicSketch.DoubleKeys
    case _: StringType => KeyType.String
    case BinaryType => KeyType.Binary
    case t => throw new SketchException(
      s"$fn: key must be TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, STRING or BINARY, got ${t.sql}")
  }

  def isNumeric(dt: DataType): Boolean =
    Args.isIntegral(dt) || dt == FloatType || dt == DoubleType || dt == NullType || dt.isInstanceOf[DecimalType]

  def toDouble(v: Any): Double = v match {
    case d: Double => d
    case f: Float => f.toDouble
    case d: Decimal => d.toDouble
    case other => Args.longOf(other).toDouble
  }
}

/** `dyadic_agg(key, ts [, window [, epsilon [, delta]]], universe_bits =>, value =>, window_type =>,
  * seed =>, merge_levels =>, cell =>, candidates =>, phi_min =>)`: a dyadic ECM-sketch (BINARY) of
  * integer, double, string or binary keys. Defaults: unbounded window, epsilon 0.05 (Theorem 5's
  * heavy-hitter gap), delta 0.01, universe_bits 32, cell 'eh', candidates 1024, phi_min 1. Rows with
  * a NULL key, ts or value are skipped; a key outside the universe fails.
  */
case class DyadicAgg(key: Expression, ts: Expression, window: Expression, epsilon: Expression, delta: Expression,
                     universeBits: Expression, value: Expression, windowType: Expression, seed: Expression,
                     mergeLevels: Expression, cell: Expression, candidates: Expression, phiMin: Expression,
                     mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends IngestAgg[DyadicSketch] {

  override def prettyName: String = "dyadic_agg"
  override def children: Seq[Expression] =
    Seq(key, ts, window, epsilon, delta, universeBits, value, windowType, seed, mergeLevels, cell, candidates, phiMin)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DyadicAgg =
    copy(key = c(0), ts = c(1), window = c(2), epsilon = c(3), delta = c(4), universeBits = c(5), value = c(6),
      windowType = c(7), seed = c(8), mergeLevels = c(9), cell = c(10), candidates = c(11), phiMin = c(12))

  private lazy val bits: Int = {
    val b = Args.constLong(universeBits, fn, "universe_bits", DyadicSketch.DefaultUniverseBits.toLong)
    if (b < DyadicSketch.MinUniverseBits || b > DyadicSketch.MaxUniverseBits)
      throw new SketchException(s"$fn: universe_bits must be in [${DyadicSketch.MinUniverseBits}, ${DyadicSketch.MaxUniverseBits}], got $b")
    b.toInt
  }
  private lazy val eps = Args.constDouble(epsilon, fn, "epsilon", 0.05)
  // phi_min folds into the delta the sketch is built with (docs/design/dyadic.md, "Heavy-hitter precision")
  private lazy val dlt = DyadicSketch.deltaFor(Args.constDouble(delta, fn, "delta", 0.01), Args.constDouble(phiMin, fn, "phi_min", 1.0))
  private lazy val cellKind = Planner.cellKind(Args.constString(cell, fn, "cell", "eh"))
  private lazy val hashSeed = Args.constLong(seed, fn, "seed", EcmSketch.DefaultSeed)
  private lazy val domain = DyadicArgs.domain(key.dataType, fn)
  private lazy val candidateCount: Int = {
    val m = Args.constLong(candidates, fn, "candidates", KeyTable.DefaultCapacity.toLong)
    if (m < 1 || m > KeyTable.MaxCapacity) throw new SketchException(s"$fn: candidates must be in [1, ${KeyTable.MaxCapacity}], got $m")
    m.toInt
  }
  @transient protected lazy val ops: SketchOps[DyadicSketch] =
    new DyadicOps(() => DyadicSketch.create(spec, eps, dlt, levels, cellKind, bits, hashSeed, candidates = candidateCount), domain)

  override def checkInputDataTypes(): TypeCheckResult = Checks {
    domain; Args.checkValue(value, fn); spec; bits; candidateCount; ops.create()
  }

  override def update(buffer: Ingest[DyadicSketch], input: InternalRow): Ingest[DyadicSketch] = DataErrors(fn) {
    val k = key.eval(input)
    if (k != null) domain match {
      case KeyType.Long => addRow(buffer, DyadicUniverse.longIndex(Args.longOf(k), bits), input)
      case DyadicSketch.DoubleKeys => addRow(buffer, DyadicUniverse.doubleIndex(DyadicArgs.toDouble(k), bits), input)
      case _ =>
        val b = if (domain == KeyType.String) k.asInstanceOf[UTF8String].getBytes else k.asInstanceOf[Array[Byte]]
        KeyTable.checkKey(b)
        val fp = Hashing.fingerprintBytes(b)
        addKeyedRow(buffer, DyadicSketch.bytesIndex(fp, bits), input, b)
    }
    buffer
  }

  override protected def annexAdd(buffer: Ingest[DyadicSketch], u: Long, key: Array[Byte], ts: Long, v: Long): Unit =
    buffer.annex.asInstanceOf[KeyTable].add(Hashing.fingerprintBytes(key), key, ts, v)

  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** `dyadic_merge(sketch)`: order-preserving merge of dyadic ECM-sketches, level by level. */
case class DyadicMergeAgg(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends SketchMergeAgg[DyadicSketch] {
  override def prettyName: String = "dyadic_merge"
  protected def kind: SketchKind[DyadicSketch] = DyadicKind
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DyadicMergeAgg = copy(child = c.head)
  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** A query `f(sketch, arg [, range [, now]])` of a dyadic sketch, or of the family that shares it: a
  * windowed quantile sketch (ranks, ranges, quantiles) or a frequent-items sketch (top-k, heavy hitters).
  */
abstract class DyadicQuery extends SketchScalar with RangeNowArgs with CodegenFallback {
  protected def rangeAt = 2
  protected def dyadic(b: Array[Byte]): DyadicSketch = as(DyadicKind, 0, b)
  protected def isDouble(s: DyadicSketch): Boolean = s.keyDomain == DyadicSketch.DoubleKeys
  /** The sketch, if its keys are ordered (ranges, ranks and quantiles refuse string / binary keys). */
  protected def ordered(s: DyadicSketch): DyadicSketch = {
    if (s.bytesKeys) throw new SketchException(
      s"$prettyName: this dyadic sketch holds ${DyadicSketch.domainName(s.keyDomain)} keys, counted by fingerprint: ranges, ranks " +
        "and quantiles of them have no meaningful order (use ecm_heavy_hitters, ecm_top_k or ecm_point)")
    s
  }
  /** Argument 0 as a sketch of `other`'s kind, or a dyadic sketch ("expected one of them" otherwise). */
  protected def sketchOr[S <: WindowSketch](other: SketchKind[S], b: Array[Byte]): Either[S, DyadicSketch] = decode(0, b) match {
    case d: DyadicSketch => Right(d)
    case s => other.cast(s).map(Left(_)).getOrElse(throw new SketchException(
      s"$prettyName: expected ${other.describe} or ${DyadicKind.describe}, got ${Families.describe(s)}"))
  }
  protected def numericArg(i: Int, what: String): Unit =
    if (!DyadicArgs.isNumeric(children(i).dataType))
      throw new SketchException(s"$prettyName: $what must be a number, got ${children(i).dataType.sql}")
}

/** `ecm_range_count(sketch, lo, hi [, range [, now]])`: estimated weight of keys (values) in [lo, hi]. */
case class EcmRangeCount(children: Seq[Expression]) extends DyadicQuery {
  override def prettyName: String = "ecm_range_count"
  override protected def rangeAt = 3
  override def dataType: DataType = DoubleType
  override protected def checkArgs(): Unit = { numericArg(1, "lo"); numericArg(2, "hi"); checkRangeNow() }
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val lo = children(1).eval(input); val hi = children(2).eval(input)
    if (lo == null || hi == null) return null
    sketchOr(QuantileKind, sk(0)) match {
      case Left(q) => val (r, n) = rangeNow(q, input); QuantileQueries.rangeCount(q, lo, hi, r, n, prettyName)
      case Right(d) =>
        val s = ordered(d)
        val (r, n) = rangeNow(s, input)
        val e: Estimate =
          if (isDouble(s)) s.rangeCount(DyadicArgs.toDouble(lo), DyadicArgs.toDouble(hi), r, n)
          else {
            if (!Args.isIntegral(children(1).dataType) || !Args.isIntegral(children(2).dataType))
              throw new SketchException(s"$prettyName: this sketch holds integer keys; lo and hi must be integers")
            s.rangeCount(Args.longOf(lo), Args.longOf(hi), r, n)
          }
        e.estimate
    }
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EcmRangeCount = copy(children = c)
}

/** `ecm_rank(sketch, x [, range [, now]])`: estimated weight of keys (values) <= x. */
case class EcmRank(children: Seq[Expression]) extends DyadicQuery {
  override def prettyName: String = "ecm_rank"
  override def dataType: DataType = DoubleType
  override protected def checkArgs(): Unit = { numericArg(1, "x"); checkRangeNow() }
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val x = children(1).eval(input)
    if (x == null) return null
    sketchOr(QuantileKind, sk(0)) match {
      case Left(q) => val (r, n) = rangeNow(q, input); QuantileQueries.rank(q, x, r, n, prettyName)
      case Right(d) =>
        val s = ordered(d)
        val (r, n) = rangeNow(s, input)
        if (isDouble(s)) s.rank(DyadicArgs.toDouble(x), r, n).estimate
        else {
          if (!Args.isIntegral(children(1).dataType)) throw new SketchException(s"$prettyName: this sketch holds integer keys; x must be an integer")
          s.rank(Args.longOf(x), r, n).estimate
        }
    }
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EcmRank = copy(children = c)
}

/** `ecm_quantile(sketch, q [, range [, now]])`: the q-quantile (DOUBLE; integer keys as DOUBLE), or an
  * ARRAY<DOUBLE> for an ARRAY of q. NULL for an empty range.
  */
case class EcmQuantile(children: Seq[Expression]) extends DyadicQuery {
  override def prettyName: String = "ecm_quantile"
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
  private def one(s: DyadicSketch, q: Double, r: java.lang.Long, n: java.lang.Long): Any =
    if (isDouble(s)) s.quantileDouble(q, r, n).map(Double.box).orNull
    else s.quantile(q, r, n).map(x => Double.box(x.toDouble)).orNull
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val q = children(1).eval(input)
    if (q == null) return null
    val qs: Array[java.lang.Double] =
      if (!qArray) Array(Double.box(DyadicArgs.toDouble(q)))
      else {
        val a = q.asInstanceOf[ArrayData]
        val et = children(1).dataType.asInstanceOf[ArrayType].elementType
        Array.tabulate(a.numElements())(i => if (a.isNullAt(i)) null else Double.box(DyadicArgs.toDouble(a.get(i, et))))
      }
    val answers: Array[Any] = sketchOr(QuantileKind, sk(0)) match {
      case Left(s) => val (r, n) = rangeNow(s, input); QuantileQueries.quantiles(s, qs, r, n)
      case Right(d) =>
        val s = ordered(d)
        val (r, n) = rangeNow(s, input)
        qs.map(x => if (x == null) null else one(s, x.doubleValue, r, n))
    }
    if (qArray) new GenericArrayData(answers) else answers(0)
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EcmQuantile = copy(children = c)
}

/** Heavy hitters and top-k: ARRAY<STRUCT<key, estimate, lower, upper>> ordered by estimate. The key
  * type is the one a typed sketch column carries ([[TypedSketch]]: the STRUCT of top_k_agg); for a
  * BINARY sketch, BIGINT or the type `key_type => 'int'|'double'|'string'|'binary'` names (a SQL type
  * must be known before a row is read); it must be the type the sketch was built from.
  */
abstract class DyadicKeysQuery extends DyadicQuery {
  protected def keyTypeArg: Expression = children(4)
  /** The SQL type of the keys returned. */
  @transient private lazy val keyDt: DataType = {
    val named: Option[DataType] =
      if (Args.isDefault(keyTypeArg)) None
      else Some(Args.constString(keyTypeArg, prettyName, "key_type", "bigint").trim.toLowerCase match {
        case "bigint" => LongType
        case "int" => IntegerType
        case "double" => DoubleType
        case "string" => StringType
        case "binary" => BinaryType
        case other => throw new SketchException(s"$prettyName: key_type must be 'bigint', 'int', 'double', 'string' or 'binary', got '$other'")
      })
    (TypedSketch.keyTypeOf(children(0).dataType), named) match {
      case (Some(t), Some(n)) if t != n => throw new SketchException(
        s"$prettyName: key_type '${n.simpleString}' does not match the sketch column, whose keys are ${t.sql} (leave key_type out)")
      case (Some(t), _) => t
      case (None, n) => n.getOrElse(LongType)
    }
  }
  override def dataType: DataType = ArrayType(StructType(Seq(
    StructField("key", keyDt), StructField("estimate", DoubleType),
    StructField("lower", DoubleType), StructField("upper", DoubleType))), containsNull = false)
  /** The dyadic key domain of the keys returned. */
  private def wanted: Int = keyDt match {
    case LongType => KeyType.Long
    case DoubleType => DyadicSketch.DoubleKeys
    case _: StringType => KeyType.String
    case BinaryType => KeyType.Binary
    case t => throw new SketchException(s"$prettyName: a dyadic sketch answers BIGINT, DOUBLE, STRING or BINARY keys, not ${t.sql}")
  }
  protected def result(s: DyadicSketch, ks: Seq[KeyEstimate]): Any = {
    val w = wanted
    val have = if (s.keyDomain == KeyType.Unset) w else s.keyDomain
    if (have != w) throw new SketchException(
      s"$prettyName: this sketch holds ${DyadicSketch.domainName(s.keyDomain)} keys; call it with key_type => " +
        s"'${DyadicSketch.domainName(s.keyDomain)}'")
    new GenericArrayData(ks.map { k =>
      val key: Any = w match {
        case DyadicSketch.DoubleKeys => k.doubleKey
        case KeyType.String => UTF8String.fromBytes(k.bytes)
        case KeyType.Binary => k.bytes
        case _ => k.key
      }
      new GenericInternalRow(Array[Any](key, k.estimate, k.lower, k.upper))
    }.toArray[Any])
  }
  protected def result(s: FrequentSketch, items: Seq[FrequentItem]): Any = TopKKeys.rows(s, items, keyDt, prettyName)
}

/** `ecm_heavy_hitters(sketch, phi [, range [, now]] [, key_type => ...])`: Theorem 5 for a dyadic
  * sketch; the frequent-items sketch's certified heavy hitters.
  */
case class EcmHeavyHitters(children: Seq[Expression]) extends DyadicKeysQuery {
  override def prettyName: String = "ecm_heavy_hitters"
  override protected def checkArgs(): Unit = { numericArg(1, "phi"); checkRangeNow(); dataType }
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val phi = children(1).eval(input)
    if (phi == null) return null
    sketchOr(FrequentKind, sk(0)) match {
      case Left(f) => val (r, n) = rangeNow(f, input); result(f, f.heavyHitters(DyadicArgs.toDouble(phi), r, n))
      case Right(s) => val (r, n) = rangeNow(s, input); result(s, s.heavyHitters(DyadicArgs.toDouble(phi), r, n))
    }
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EcmHeavyHitters = copy(children = c)
}

/** `ecm_top_k(sketch, k [, range [, now]] [, key_type => ...])`. */
case class EcmTopK(children: Seq[Expression]) extends DyadicKeysQuery {
  override def prettyName: String = "ecm_top_k"
  override protected def checkArgs(): Unit = {
    if (!Args.isIntegral(children(1).dataType)) throw new SketchException(s"$prettyName: k must be an integer, got ${children(1).dataType.sql}")
    checkRangeNow(); dataType
  }
  protected def compute(sk: Array[Array[Byte]], input: InternalRow): Any = {
    val k = children(1).eval(input)
    if (k == null) return null
    val kk = Args.longOf(k)
    if (kk < 1 || kk > DyadicSketch.MaxTopK) throw new SketchException(s"$prettyName: k must be in [1, ${DyadicSketch.MaxTopK}], got $kk")
    sketchOr(FrequentKind, sk(0)) match {
      case Left(f) => val (r, n) = rangeNow(f, input); result(f, f.topK(kk.toInt, r, n))
      case Right(s) => val (r, n) = rangeNow(s, input); result(s, s.topK(kk.toInt, r, n))
    }
  }
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EcmTopK = copy(children = c)
}

/** ecm_point / ecm_total of a dyadic sketch (called by EcmPoint and EcmTotal when the sketch is one). */
private[spark] object DyadicPoint {
  def point(s: WindowSketch, key: Any, keyType: DataType, r: java.lang.Long, n: java.lang.Long): Option[Double] = s match {
    case d: DyadicSketch =>
      Some(if (d.keyDomain == DyadicSketch.DoubleKeys) d.point(DyadicArgs.toDouble(key), r, n)
      else if (d.bytesKeys) key match {
        case u: UTF8String => d.point(u.getBytes, r, n)
        case b: Array[Byte] => d.point(b, r, n)
        case _ => throw new SketchException(s"ecm_point: this dyadic sketch holds ${DyadicSketch.domainName(d.keyDomain)} keys; " +
          s"the key must be a STRING or BINARY, got ${keyType.sql}")
      }
      else if (Args.isIntegral(keyType)) d.point(Args.longOf(key), r, n)
      else throw new SketchException(s"ecm_point: this dyadic sketch holds integer keys; the key must be an integer, got ${keyType.sql}"))
    case _ => None
  }
}

/** The expressions of the dyadic ECM-sketch's functions ([[ecmsketch.ecm.dyadic.DyadicFunctions]]). */
private[spark] object DyadicFunctionImpls {
  import SqlFunctions.impl

  val all: Seq[SqlFunctions.Impl] = Seq(
    impl("dyadic_agg", classOf[DyadicAgg])(a => DyadicAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8), a(9), a(10), a(11), a(12))),
    impl("dyadic_merge", classOf[DyadicMergeAgg])(a => DyadicMergeAgg(a(0))),
    impl("ecm_heavy_hitters", classOf[EcmHeavyHitters])(a => EcmHeavyHitters(a)),
    impl("ecm_top_k", classOf[EcmTopK])(a => EcmTopK(a)),
    impl("ecm_range_count", classOf[EcmRangeCount])(a => EcmRangeCount(a)),
    impl("ecm_rank", classOf[EcmRank])(a => EcmRank(a)),
    impl("ecm_quantile", classOf[EcmQuantile])(a => EcmQuantile(a)))
}
