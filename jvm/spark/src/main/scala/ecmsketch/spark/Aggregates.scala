package ecmsketch.spark

import ecmsketch.Families
import ecmsketch.ecm.EcmOps
import ecmsketch.rwave.DistinctOps

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.{ImperativeAggregate, TypedImperativeAggregate}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import ecmsketch.core.{Bounds, Codec, KeyType, Params, SketchException, SketchKind, WindowSketch, WindowSpec}
import ecmsketch.dwave.{DwKind, DwSketch}
import ecmsketch.ecm.{EcmKind, EcmSketch, Planner, QueryKind}
import ecmsketch.format.MergeBuffer
import ecmsketch.hash.Hashing
import ecmsketch.ingest.{Ingest, SketchOps}
import ecmsketch.rwave.{DistinctKind, DistinctSketch}
import ecmsketch.eh.{EhKind, EhSketch}

/** Turns a core [[SketchException]] from parameter validation into an analysis error. */
private[spark] object Checks {
  def apply(body: => Unit): TypeCheckResult =
    try { body; TypeCheckResult.TypeCheckSuccess }
    catch { case e: SketchException => TypeCheckResult.TypeCheckFailure(e.getMessage) }
}

/** Turns a [[SketchException]] raised while processing data (a negative weight, corrupt or
  * mismatched sketch bytes) into Spark's USER_RAISED_EXCEPTION, which reaches SQL and Python users
  * as a one-line error naming the function and the problem instead of a task stack trace.
  */
private[spark] object DataErrors {
  @inline def apply[T](fn: String)(body: => T): T =
    try body
    catch {
      case e: SketchException =>
        val msg = if (e.getMessage.startsWith(fn + ":")) e.getMessage else s"$fn: ${e.getMessage}"
        throw org.apache.spark.sql.ecmsketch.ErrorShim.userError(msg, e)
    }
}

/** Shared plumbing of the aggregates that build a sketch from rows ([[Ingest]] buffers):
  * window and timestamp handling, optional weights, and the Spark buffer life cycle.
  */
abstract class IngestAgg[S <: WindowSketch] extends TypedImperativeAggregate[Ingest[S]] {
  protected def ts: Expression
  protected def window: Expression
  protected def value: Expression
  protected def windowType: Expression
  protected def mergeLevels: Expression
  protected def ops: SketchOps[S]

  protected final def fn: String = prettyName
  override def sql(isDistinct: Boolean): String = Args.callSql(prettyName, children)
  /** Also used by analysis errors: omitted options are not shown as NULLs. */
  override def sql: String = Args.callSql(prettyName, children)
  protected lazy val countWindow: Boolean = WindowSpec.parseType(Args.constString(windowType, fn, "window_type", "time"))
  protected lazy val tsMicros: Boolean = Args.checkTs(ts, fn, countWindow)
  protected lazy val spec: WindowSpec = WindowSpec(countWindow, tsMicros, Args.window(window, fn, tsMicros))
  /** One level for Spark's own merge of partial aggregates, plus the user's cross-site levels. */
  protected lazy val levels: Int = 1 + Args.mergeLevels(mergeLevels, fn)
  private lazy val hasValue = !Args.isDefault(value)

  override def createAggregationBuffer(): Ingest[S] = new Ingest(ops, spec.window, IngestAgg.bufferSalt())

  // How update reads ts and value: straight from the row when they are bound columns (no boxing),
  // else through eval (see [[InputColumn]]).
  @transient private lazy val tsCol = InputColumn.integral(ts)
  @transient private lazy val valueCol = if (hasValue) InputColumn.integral(value) else InputColumn.Absent

  /** Adds the row's timestamp and weight under key fingerprint `fp`; NULL ts or value skips it. */
  protected final def addRow(buffer: Ingest[S], fp: Long, input: InternalRow): Unit = addKeyedRow(buffer, fp, input, null)

  /** [[addRow]]; when the ingest keeps the row and `key` is not null, [[annexAdd]] sees it too. */
  protected final def addKeyedRow(buffer: Ingest[S], fp: Long, input: InternalRow, key: Array[Byte]): Unit =
    if (addRowKept(buffer, fp, input) && key != null) annexAdd(buffer, fp, key, tsCol.long(input), weightOf(input))

  /** [[addRow]], telling whether the ingest kept the row (false: a NULL ts or weight skipped it, or it
    * lay a whole window behind the newest row).
    */
  protected final def addRowKept(buffer: Ingest[S], fp: Long, input: InternalRow): Boolean = {
    val tc = tsCol
    val t = tc.long(input)
    if (t == InputColumn.Null && tc.isNull(input)) return false
    val vc = valueCol
    val v = if (vc eq InputColumn.Absent) 1L else vc.long(input)
    if (v == InputColumn.Null && vc.isNull(input)) return false // (an absent weight reads 1)
    buffer.add(fp, t, v)
  }

  private def weightOf(input: InternalRow): Long = if (valueCol eq InputColumn.Absent) 1L else valueCol.long(input)

  /** [[addRow]] under the fingerprint of the row's key (`kc` = [[InputColumn.key]] of `key`, of key type
    * `keyKind`): read straight from the row when it is a bound integral column, else through eval.
    * A NULL key skips the row. Callers catch SketchException per row with a try (no closure per row).
    */
  protected final def addKeyRow(buffer: Ingest[S], kc: InputColumn, key: Expression, keyKind: Int, input: InternalRow): Unit =
    if (kc.ordinal >= 0) { if (!input.isNullAt(kc.ordinal)) addRow(buffer, Hashing.fingerprintLong(kc.read(input)), input) }
    else { val k = key.eval(input); if (k != null) addRow(buffer, KeyPrint(keyKind, k), input) }

  /** Records a kept row's original key in the ingest's annex (dyadic sketches of string keys). */
  protected def annexAdd(buffer: Ingest[S], fp: Long, key: Array[Byte], ts: Long, v: Long): Unit = ()

  override def merge(buffer: Ingest[S], input: Ingest[S]): Ingest[S] = DataErrors(fn) { buffer.absorb(input); buffer }
  override def eval(buffer: Ingest[S]): Any = DataErrors(fn) { ops.encode(buffer.result()) }
  override def serialize(buffer: Ingest[S]): Array[Byte] = DataErrors(fn) { buffer.serialize() }
  override def deserialize(bytes: Array[Byte]): Ingest[S] = DataErrors(fn) { Ingest.deserialize(ops, spec.window, bytes, IngestAgg.bufferSalt()) }
  override def nullable: Boolean = false
  override def dataType: DataType = BinaryType
  override def defaultResult: Option[Literal] = Option(Literal.create(eval(createAggregationBuffer()), BinaryType))
}

object IngestAgg {
  /** (task attempt id, buffers created by it so far) of the task running on this thread. */
  private val created = ThreadLocal.withInitial[Array[Long]](() => Array(Long.MinValue, 0L))

  /** Event-id salt of a new buffer (randomized-wave cells, docs/design/rwave.md "Event ids"): the task's
    * partition id and the buffer's number among those the task created (one per group and
    * aggregate, in the order the rows reach them). A retry or a speculative copy of the task sees
    * the same rows and gives the same salts; two partitions, or two groups of one task, differ.
    */
  private[spark] def bufferSalt(): Long = {
    val t = org.apache.spark.TaskContext.get()
    if (t == null) return -1L
    val c = created.get()
    if (c(0) != t.taskAttemptId()) { c(0) = t.taskAttemptId(); c(1) = 0L }
    c(1) += 1
    Hashing.mix64(Hashing.mix64(t.partitionId().toLong) + c(1))
  }
}

/** Fingerprint of a STRING, BINARY or integral key value (as Spark holds it). */
private[spark] object KeyPrint {
  @inline def apply(keyKind: Int, k: Any): Long = keyKind match {
    case KeyType.String => Hashing.fingerprintBytes(k.asInstanceOf[UTF8String].getBytes)
    case KeyType.Binary => Hashing.fingerprintBytes(k.asInstanceOf[Array[Byte]])
    case _ => Hashing.fingerprintLong(Args.longOf(k))
  }
}

/** `ecm_agg(key, ts [, window [, epsilon [, delta]]], value =>, window_type =>, seed =>,
  * optimize_for =>, merge_levels =>, cell =>, max_arrivals =>, max_bytes =>)`: builds an ECM-sketch (BINARY)
  * over the rows of a group, with exponential-histogram ('eh', default), deterministic-wave
  * ('dwave') or randomized-wave ('rwave') cells. Rows with a NULL key, ts or value are skipped.
  * Rows may come in any order (see [[Ingest]]). `max_bytes` replaces epsilon by a memory budget:
  * the plan of smallest certified bound whose sketch can never serialize to more ([[Planner.planWithin]]).
  */
case class EcmAgg(key: Expression, ts: Expression, window: Expression, epsilon: Expression, delta: Expression,
                  value: Expression, windowType: Expression, seed: Expression, optimizeFor: Expression,
                  mergeLevels: Expression, cell: Expression, maxArrivals: Expression, maxBytes: Expression = Args.Default,
                  mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends IngestAgg[EcmSketch] {

  override def prettyName: String = "ecm_agg"

  override def children: Seq[Expression] =
    Seq(key, ts, window, epsilon, delta, value, windowType, seed, optimizeFor, mergeLevels, cell, maxArrivals, maxBytes)

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EcmAgg =
    copy(key = c(0), ts = c(1), window = c(2), epsilon = c(3), delta = c(4), value = c(5), windowType = c(6),
      seed = c(7), optimizeFor = c(8), mergeLevels = c(9), cell = c(10), maxArrivals = c(11), maxBytes = c(12))

  private lazy val cellKind = Planner.cellKind(Args.constString(cell, fn, "cell", "eh"))
  private lazy val plan = {
    val d = Args.constDouble(delta, fn, "delta", 0.01)
    val kind = QueryKind.fromName(Args.constString(optimizeFor, fn, "optimize_for", "point"))
    val budget = Args.constLong(maxBytes, fn, "max_bytes", 0L)
    if (Args.isDefault(maxBytes)) Planner.plan(Args.constDouble(epsilon, fn, "epsilon", 0.05), d, kind, levels, cellKind)
    else {
      if (!Args.isDefault(epsilon)) throw new SketchException(s"$fn: give epsilon or max_bytes, not both")
      Planner.planWithin(budget, d, kind, levels, cellKind, spec)
    }
  }
  private lazy val hashSeed = Args.constLong(seed, fn, "seed", EcmSketch.DefaultSeed)
  private lazy val keyKind = Args.keyType(key, fn)
  private lazy val arrivals = Args.maxArrivals(maxArrivals, fn)
  @transient protected lazy val ops: SketchOps[EcmSketch] =
    new EcmOps(() => EcmSketch.create(spec, plan, hashSeed, arrivals), keyKind)

  override def checkInputDataTypes(): TypeCheckResult = Checks {
    keyKind; Args.checkValue(value, fn); spec; plan; hashSeed; arrivals; ops.create()
  }

  @transient private lazy val keyCol = InputColumn.key(key, keyKind)

  override def update(buffer: Ingest[EcmSketch], input: InternalRow): Ingest[EcmSketch] = {
    try addKeyRow(buffer, keyCol, key, keyKind, input)
    catch { case e: SketchException => DataErrors(fn)(throw e) }
    buffer
  }

  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** `eh_agg(ts [, window [, epsilon]], value =>, window_type =>, merge_levels =>)`: an exponential
  * histogram (BINARY) counting rows (or summing `value`) over the sliding window.
  */
case class EhAgg(ts: Expression, window: Expression, epsilon: Expression, value: Expression, windowType: Expression,
                 mergeLevels: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends IngestAgg[EhSketch] {

  override def prettyName: String = "eh_agg"
  override def children: Seq[Expression] = Seq(ts, window, epsilon, value, windowType, mergeLevels)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EhAgg =
    copy(ts = c(0), window = c(1), epsilon = c(2), value = c(3), windowType = c(4), mergeLevels = c(5))

  private lazy val eps = Args.constDouble(epsilon, fn, "epsilon", 0.05)
  @transient protected lazy val ops: SketchOps[EhSketch] = SketchOps.eh(() => EhSketch.create(spec, eps, levels))

  override def checkInputDataTypes(): TypeCheckResult = Checks {
    Args.checkValue(value, fn); spec; Bounds.checkEpsilon(eps); ops.create()
  }

  override def update(buffer: Ingest[EhSketch], input: InternalRow): Ingest[EhSketch] =
    DataErrors(fn) { addRow(buffer, 0L, input); buffer }

  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** `dwave_agg(ts [, window [, epsilon]], value =>, max_arrivals =>, window_type =>, merge_levels =>)`:
  * a deterministic wave (BINARY) counting the rows (or, with `value`, the sum wave of the values)
  * over a sliding window.
  */
case class DwaveAgg(ts: Expression, window: Expression, epsilon: Expression, value: Expression, maxArrivals: Expression,
                    windowType: Expression, mergeLevels: Expression,
                    mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends IngestAgg[DwSketch] {

  override def prettyName: String = "dwave_agg"
  override def children: Seq[Expression] = Seq(ts, window, epsilon, value, maxArrivals, windowType, mergeLevels)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DwaveAgg =
    copy(ts = c(0), window = c(1), epsilon = c(2), value = c(3), maxArrivals = c(4), windowType = c(5), mergeLevels = c(6))

  private lazy val eps = Args.constDouble(epsilon, fn, "epsilon", 0.05)
  private lazy val arrivals = Args.maxArrivals(maxArrivals, fn)
  @transient protected lazy val ops: SketchOps[DwSketch] =
    SketchOps.dw(() => DwSketch.create(spec, eps, levels, arrivals))

  override def checkInputDataTypes(): TypeCheckResult = Checks {
    Args.checkValue(value, fn); spec; Bounds.checkEpsilon(eps); arrivals; ops.create()
  }

  override def update(buffer: Ingest[DwSketch], input: InternalRow): Ingest[DwSketch] =
    DataErrors(fn) { addRow(buffer, 0L, input); buffer }

  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** `distinct_agg(value, ts [, window [, epsilon [, delta]]], window_type =>, seed =>)`: a mergeable
  * sliding-window distinct-count sketch (BINARY, randomized wave over the values). Rows with a NULL
  * value or ts are skipped.
  */
case class DistinctAgg(item: Expression, ts: Expression, window: Expression, epsilon: Expression, delta: Expression,
                       windowType: Expression, seed: Expression,
                       mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends IngestAgg[DistinctSketch] {

  override def prettyName: String = "distinct_agg"
  override def children: Seq[Expression] = Seq(item, ts, window, epsilon, delta, windowType, seed)
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DistinctAgg =
    copy(item = c(0), ts = c(1), window = c(2), epsilon = c(3), delta = c(4), windowType = c(5), seed = c(6))
  // no weights and no merge budget: every row is one occurrence, and merges are lossless
  protected def value: Expression = Args.Default
  protected def mergeLevels: Expression = Args.Default

  private lazy val eps = Args.constDouble(epsilon, fn, "epsilon", DistinctAgg.DefaultEpsilon)
  private lazy val dlt = Args.constDouble(delta, fn, "delta", DistinctAgg.DefaultDelta)
  private lazy val hashSeed = Args.constLong(seed, fn, "seed", EcmSketch.DefaultSeed)
  private lazy val keyKind = Args.keyType(item, fn, "value")
  @transient protected lazy val ops: SketchOps[DistinctSketch] =
    new DistinctOps(() => DistinctSketch.create(spec, eps, dlt, hashSeed), keyKind)

  override def checkInputDataTypes(): TypeCheckResult = Checks {
    keyKind; spec; Bounds.checkEpsilon(eps); hashSeed; ops.create()
  }

  @transient private lazy val itemCol = InputColumn.key(item, keyKind)

  override def update(buffer: Ingest[DistinctSketch], input: InternalRow): Ingest[DistinctSketch] = {
    try addKeyRow(buffer, itemCol, item, keyKind, input)
    catch { case e: SketchException => DataErrors(fn)(throw e) }
    buffer
  }

  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

object DistinctAgg {
  final val DefaultEpsilon = 0.1
  final val DefaultDelta = 0.05
}

/** Shared logic of `ecm_merge` and `eh_merge`: ⊕ of the sketches in a group (NULLs ignored). */
abstract class SketchMergeAgg[S <: WindowSketch] extends TypedImperativeAggregate[MergeBuffer] {
  def child: Expression
  /** The sketch kind this aggregate merges (its codec, merge, parameter check and name in messages). */
  protected def kind: SketchKind[S]
  private def decode(b: Array[Byte]): S = Families.decodeAs(kind, b)
  private def mergeAll(xs: Seq[S]): S = kind.merge(xs)
  private def encode(s: S): Array[Byte] = Codec.encode(kind, s)
  private def diffs(a: S, b: S): Seq[String] = kind.mergeDiffs(a, b)
  private def kindName: String = kind.plural

  override def children: Seq[Expression] = Seq(child)
  override def checkInputDataTypes(): TypeCheckResult =
    if (child.dataType == BinaryType || child.dataType == NullType || (typedInput && TypedSketch.isTyped(child.dataType)))
      TypeCheckResult.TypeCheckSuccess
    else TypeCheckResult.TypeCheckFailure(s"$prettyName: the argument must be ${if (typedInput) "a sketch column (its STRUCT or BINARY)" else "a BINARY sketch column"}, got ${child.dataType.sql}")

  /** Whether the merge takes typed sketch columns ([[TypedSketch]]) too, and returns the type it is given. */
  protected def typedInput: Boolean = false

  override def createAggregationBuffer(): MergeBuffer = new MergeBuffer()

  private def check(buffer: MergeBuffer, s: S): Unit = {
    if (buffer.reference == null) buffer.reference = s
    else {
      Params.requireSame(kindName, diffs(buffer.reference.asInstanceOf[S], s), context = prettyName)
      if (s.spec.countWindow)
        WindowSketch.checkMergeable(Seq(buffer.reference, s), prettyName)
    }
  }

  override def update(buffer: MergeBuffer, input: InternalRow): MergeBuffer = DataErrors(prettyName)(updateRow(buffer, input))

  private def updateRow(buffer: MergeBuffer, input: InternalRow): MergeBuffer = {
    val bytes = TypedSketch.bytes(child.eval(input), child.dataType)
    if (bytes == null) return buffer
    check(buffer, decode(bytes))
    add(buffer, bytes)
    buffer
  }

  private def add(buffer: MergeBuffer, bytes: Array[Byte]): Unit = {
    buffer.parts += bytes
    if (buffer.parts.size > MergeBuffer.MaxParts) {
      val merged = encode(kind.mergeEarly(buffer.parts.toSeq.map(decode)))
      buffer.parts.clear(); buffer.parts += merged
    }
  }

  override def merge(buffer: MergeBuffer, input: MergeBuffer): MergeBuffer = DataErrors(prettyName) {
    input.parts.foreach { p => check(buffer, decode(p)); add(buffer, p) }
    buffer
  }

  override def eval(buffer: MergeBuffer): Any = DataErrors(prettyName) {
    val b = if (buffer.parts.isEmpty) null
      else if (buffer.parts.size == 1) buffer.parts.head
      else encode(mergeAll(buffer.parts.toSeq.map(decode)))
    TypedSketch.value(b, dataType)
  }

  override def serialize(buffer: MergeBuffer): Array[Byte] = MergeBuffer.serialize(buffer)
  override def deserialize(bytes: Array[Byte]): MergeBuffer = DataErrors(prettyName) { MergeBuffer.deserialize(bytes) }
  override def nullable: Boolean = true
  override def dataType: DataType = if (TypedSketch.isTyped(child.dataType)) child.dataType else BinaryType
}

/** `ecm_merge(sketch)`: order-preserving ⊕ of ECM-sketches (same parameters and seed). */
case class EcmMergeAgg(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends SketchMergeAgg[EcmSketch] {
  override def prettyName: String = "ecm_merge"
  protected def kind: SketchKind[EcmSketch] = EcmKind
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EcmMergeAgg = copy(child = c.head)
  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** `eh_merge(sketch)`: order-preserving ⊕ of exponential histograms. */
case class EhMergeAgg(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends SketchMergeAgg[EhSketch] {
  override def prettyName: String = "eh_merge"
  protected def kind: SketchKind[EhSketch] = EhKind
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): EhMergeAgg = copy(child = c.head)
  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** `dwave_merge(sketch)`: order-preserving merge of deterministic waves. */
case class DwaveMergeAgg(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends SketchMergeAgg[DwSketch] {
  override def prettyName: String = "dwave_merge"
  protected def kind: SketchKind[DwSketch] = DwKind
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DwaveMergeAgg = copy(child = c.head)
  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}

/** `distinct_merge(sketch)`: lossless merge of distinct-count sketches (same epsilon, delta, seed). */
case class DistinctMergeAgg(child: Expression, mutableAggBufferOffset: Int = 0, inputAggBufferOffset: Int = 0)
    extends SketchMergeAgg[DistinctSketch] {
  override def prettyName: String = "distinct_merge"
  protected def kind: SketchKind[DistinctSketch] = DistinctKind
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): DistinctMergeAgg = copy(child = c.head)
  override def withNewMutableAggBufferOffset(o: Int): ImperativeAggregate = copy(mutableAggBufferOffset = o)
  override def withNewInputAggBufferOffset(o: Int): ImperativeAggregate = copy(inputAggBufferOffset = o)
}
