package ecmsketch.ingest

import scala.collection.mutable.ArrayBuffer

import ecmsketch.core.{Bundle, ByteReader, Codec, CounterSketch, SketchException, SketchKind, WindowSketch}
import ecmsketch.dwave.{DwKind, DwSketch}
import ecmsketch.ecm.{EcmKind, EcmSketch}
import ecmsketch.rwave.{DistinctKind, DistinctSketch}
import ecmsketch.window.{EhKind, EhSketch}

/** How the ingest layer creates, feeds, merges and encodes one kind of sketch. */
trait SketchOps[S <: WindowSketch] extends Serializable {
  def create(): S
  def add(s: S, fp: Long, ts: Long, v: Long): Unit
  /** Adds rows [from, until) of time-sorted parallel arrays (default: one by one). */
  def addSorted(s: S, fps: Array[Long], ts: Array[Long], vs: Array[Long], from: Int, until: Int): Unit = {
    var i = from
    while (i < until) { add(s, fps(i), ts(i), vs(i)); i += 1 }
  }
  /** n-way order-preserving merge of partial sketches of one stream (count windows allowed). */
  def merge(xs: Seq[S]): S
  def encode(s: S): Array[Byte]
  def decode(b: Array[Byte]): S
}

object SketchOps {
  /** ECM-sketches of one plan and seed; `keyType` is recorded on every run. */
  final class Ecm(factory: () => EcmSketch, keyType: Int) extends SketchOps[EcmSketch] {
    def create(): EcmSketch = { val s = factory(); s.setKeyType(keyType); s }
    def add(s: EcmSketch, fp: Long, ts: Long, v: Long): Unit = s.addFingerprint(fp, ts, v)
    override def addSorted(s: EcmSketch, fps: Array[Long], ts: Array[Long], vs: Array[Long], from: Int, until: Int): Unit =
      s.addSortedBatch(fps, ts, vs, from, until)
    def merge(xs: Seq[EcmSketch]): EcmSketch = EcmKind.mergeSameStream(xs)
    def encode(s: EcmSketch): Array[Byte] = Codec.encode(EcmKind, s)
    def decode(b: Array[Byte]): EcmSketch = Codec.decodeAs(EcmKind, b)
  }

  /** Distinct-count sketches: `fp` is the value's fingerprint; every row has weight 1. */
  final class Distinct(factory: () => DistinctSketch, keyType: Int) extends SketchOps[DistinctSketch] {
    def create(): DistinctSketch = { val s = factory(); s.setKeyType(keyType); s }
    def add(s: DistinctSketch, fp: Long, ts: Long, v: Long): Unit = s.addFingerprint(fp, ts)
    /** Only the last occurrence of a value in a sorted batch changes the state (docs/rwave.md). */
    override def addSorted(s: DistinctSketch, fps: Array[Long], ts: Array[Long], vs: Array[Long], from: Int, until: Int): Unit =
      s.addSortedBatch(fps, ts, from, until)
    def merge(xs: Seq[DistinctSketch]): DistinctSketch = DistinctKind.mergeSameStream(xs)
    def encode(s: DistinctSketch): Array[Byte] = Codec.encode(DistinctKind, s)
    def decode(b: Array[Byte]): DistinctSketch = Codec.decodeAs(DistinctKind, b)
  }

  /** Stand-alone counters (exponential histogram, deterministic wave) of kind `kind`: the key is ignored. */
  final class Counter[S <: CounterSketch](factory: () => S, kind: SketchKind[S]) extends SketchOps[S] {
    def create(): S = factory()
    def add(s: S, fp: Long, ts: Long, v: Long): Unit = s.add(ts, v)
    def merge(xs: Seq[S]): S = kind.mergeSameStream(xs)
    def encode(s: S): Array[Byte] = Codec.encode(kind, s)
    def decode(b: Array[Byte]): S = Codec.decodeAs(kind, b)
  }

  def eh(factory: () => EhSketch): Counter[EhSketch] = new Counter(factory, EhKind)
  def dw(factory: () => DwSketch): Counter[DwSketch] = new Counter(factory, DwKind)
}

/** Builds a sketch from rows in any order (docs/DESIGN.md, "Rows in any order").
  *
  *  - A reorder buffer (up to [[Ingest.MaxBuffer]] rows) absorbs local disorder: when full it is
  *    sorted by timestamp and its older half goes into the main run, so input whose disorder spans
  *    less than half the buffer reaches the main run in order and costs no extra error.
  *  - Rows older than the main run's last timestamp ("late" rows) are collected, sorted and built
  *    into side runs of their own; side runs of equal depth are merged [[Ingest.Fanout]] at a time.
  *  - Rows at or before (newest row - window) can never fall in a query range and are dropped.
  *  - [[result]] merges all runs (and the runs of other partitions, see [[absorb]]) n-way once,
  *    so a sketch built from 200 time-ordered partitions has merge depth 1. Over [[Ingest.MaxForeign]]
  *    runs taken over from other partial aggregates are merged early, in [[absorb]], or in
  *    [[serialize]] when this aggregate's own runs would push a bundle past MaxForeign + 1 runs.
  * Every merge is counted in the sketch's depth, so the reported bound always holds.
  */
final class Ingest[S <: WindowSketch](val ops: SketchOps[S], window: Long) {
  import Ingest._

  private var bufTs = new Array[Long](InitialBuffer)
  private var bufFp = new Array[Long](InitialBuffer)
  private var bufV = new Array[Long](InitialBuffer)
  private var n = 0
  private var lateTs: Array[Long] = null
  private var lateFp: Array[Long] = null
  private var lateV: Array[Long] = null
  private var lateN = 0
  private var main: S = _
  private var maxTs = Long.MinValue
  private val runs = ArrayBuffer[S]()
  private val foreign = ArrayBuffer[Array[Byte]]()
  private var _dropped = 0L
  private var _droppedWeight = 0L
  private var _droppedMinTs = Long.MaxValue
  private var _late = 0L

  /** Rows dropped because they lay a whole window behind the newest row. */
  def dropped: Long = _dropped
  /** Rows that arrived behind the main run (they cost merge depth). */
  def late: Long = _late

  def add(fp: Long, ts: Long, v: Long): Unit = {
    if (v < 0) throw new SketchException(s"weight must be non-negative, got $v")
    if (window != Long.MaxValue && maxTs != Long.MinValue && maxTs - window >= ts && maxTs - window <= maxTs) {
      // never in any query range; its weight and time still count in total_weight / first_ts
      _dropped += 1
      if (Long.MaxValue - _droppedWeight < v) throw new SketchException("total weight overflows 2^63 - 1")
      _droppedWeight += v
      if (ts < _droppedMinTs) _droppedMinTs = ts
      return
    }
    if (ts > maxTs) maxTs = ts
    // Make room first: a flush advances the main run, which decides whether this row is late.
    if (n == bufTs.length) {
      if (n < MaxBuffer) grow() else flushOlderHalf()
    }
    if (main != null && ts < main.lastTs) addLate(fp, ts, v)
    else { bufTs(n) = ts; bufFp(n) = fp; bufV(n) = v; n += 1 }
  }

  private def grow(): Unit = {
    val c = math.min(MaxBuffer, bufTs.length * 2)
    bufTs = java.util.Arrays.copyOf(bufTs, c); bufFp = java.util.Arrays.copyOf(bufFp, c); bufV = java.util.Arrays.copyOf(bufV, c)
  }

  private def mainRun(): S = { if (main == null) main = ops.create(); main }

  private def flushOlderHalf(): Unit = {
    Sorting.sortByTs(bufTs, bufFp, bufV, n)
    val half = n / 2
    ops.addSorted(mainRun(), bufFp, bufTs, bufV, 0, half)
    System.arraycopy(bufTs, half, bufTs, 0, n - half)
    System.arraycopy(bufFp, half, bufFp, 0, n - half)
    System.arraycopy(bufV, half, bufV, 0, n - half)
    n -= half
  }

  private def addLate(fp: Long, ts: Long, v: Long): Unit = {
    _late += 1
    if (lateTs == null) { lateTs = new Array[Long](InitialBuffer); lateFp = new Array[Long](InitialBuffer); lateV = new Array[Long](InitialBuffer) }
    if (lateN == lateTs.length) {
      if (lateN < MaxLate) {
        val c = math.min(MaxLate, lateN * 2)
        lateTs = java.util.Arrays.copyOf(lateTs, c); lateFp = java.util.Arrays.copyOf(lateFp, c); lateV = java.util.Arrays.copyOf(lateV, c)
      } else flushLate()
    }
    lateTs(lateN) = ts; lateFp(lateN) = fp; lateV(lateN) = v; lateN += 1
  }

  private def flushLate(): Unit = if (lateN > 0) {
    Sorting.sortByTs(lateTs, lateFp, lateV, lateN)
    val s = ops.create()
    ops.addSorted(s, lateFp, lateTs, lateV, 0, lateN)
    lateN = 0
    runs += s
    compact()
  }

  /** Merges runs of equal depth once `Fanout` of them exist (a binomial schedule: depth grows
    * logarithmically in the number of late chunks).
    */
  private def compact(): Unit = {
    var again = true
    while (again) {
      again = false
      val byDepth = runs.groupBy(_.mergeDepth)
      byDepth.find(_._2.size >= Fanout).foreach { case (_, group) =>
        val merged = ops.merge(group.toSeq)
        runs --= group
        runs += merged
        again = true
      }
    }
  }

  /** Flushes every buffered row into runs (no error: buffered rows are never older than the main run). */
  private def finishLocal(): Unit = {
    if (n > 0) {
      Sorting.sortByTs(bufTs, bufFp, bufV, n)
      ops.addSorted(mainRun(), bufFp, bufTs, bufV, 0, n)
      n = 0
    }
    flushLate()
  }

  /** All finished runs of this ingest, as bytes (for shuffling a partial aggregate). */
  private def runBytes(): Seq[Array[Byte]] = {
    finishLocal()
    val local = (if (main == null) Nil else Seq(main)) ++ runs
    local.map(ops.encode) ++ foreign
  }

  /** Takes over the runs of another partial aggregate (kept as bytes until [[result]]). */
  def absorb(other: Ingest[S]): Unit = {
    if (other eq this) throw new IllegalArgumentException("an ingest cannot absorb itself")
    foreign ++= other.runBytes()
    _dropped += other._dropped; _late += other._late
    if (Long.MaxValue - _droppedWeight < other._droppedWeight) throw new SketchException("total weight overflows 2^63 - 1")
    _droppedWeight += other._droppedWeight
    _droppedMinTs = math.min(_droppedMinTs, other._droppedMinTs)
    // Too many inputs to hold: merge them now (one more level, counted in the depth).
    if (foreign.size > MaxForeign) mergeForeign()
  }

  /** Merges the runs taken over from other partial aggregates into one (one more level, counted in the depth). */
  private def mergeForeign(): Unit = {
    val merged = ops.merge(foreign.toSeq.map(ops.decode))
    foreign.clear()
    foreign += ops.encode(merged)
  }

  /** The sketch of every row added or absorbed: a single n-way merge of all runs. */
  def result(): S = {
    finishLocal()
    val all: Seq[S] = (if (main == null) Nil else Seq(main)) ++ runs ++ foreign.map(ops.decode)
    // a fresh sketch every time (a merge of one input is a copy): result() may be called again,
    // e.g. by a growing window frame, and must not change the runs
    val s = if (all.isEmpty) ops.create() else ops.merge(all)
    if (_droppedWeight > 0 || _droppedMinTs != Long.MaxValue) {
      s.withDroppedRows(_droppedWeight, _droppedMinTs)
    }
    s
  }

  /** Serialized partial state: a bundle of finished runs (docs/FORMAT.md, "partial bundle"). */
  def serialize(): Array[Byte] = {
    finishLocal()
    // a bundle holds at most MaxForeign + 1 runs (the limit [[Ingest.deserialize]] accepts): when this
    // aggregate's own runs and the runs it took over would exceed it, the latter are merged first
    val local = (if (main == null) 0 else 1) + runs.size
    if (foreign.size > 1 && local + foreign.size > MaxForeign + 1) mergeForeign()
    Bundle.write(BundleMagic, runBytes()) { out =>
      out.putVarLong(_dropped)
      out.putVarLong(_late)
      out.putVarLong(_droppedWeight)
      out.putLong(_droppedMinTs)
    }
  }
}

object Ingest {
  final val InitialBuffer = 64
  final val MaxBuffer = 16384
  final val MaxLate = 65536
  final val Fanout = 16
  final val MaxForeign = 4096
  final val BundleMagic: Array[Byte] = "ECMB".getBytes("US-ASCII")

  /** Reads a bundle written by [[Ingest.serialize]] into a fresh ingest (runs stay as bytes). Bad
    * bytes fail with a SketchException starting "corrupt partial aggregate: ".
    */
  def deserialize[S <: WindowSketch](ops: SketchOps[S], window: Long, bytes: Array[Byte]): Ingest[S] =
    Bundle.relabel(Corrupt)(read(ops, window, bytes))

  private final val Corrupt = "corrupt partial aggregate: "

  private def read[S <: WindowSketch](ops: SketchOps[S], window: Long, bytes: Array[Byte]): Ingest[S] = {
    val in = new ByteReader(bytes)
    if (!java.util.Arrays.equals(Bundle.readMagic(in, "bundle"), BundleMagic)) throw new SketchException(Corrupt + "bad magic")
    val v = in.getByte("bundle version")
    if (v != Bundle.Version) throw new SketchException(s"${Corrupt}version $v")
    val ing = new Ingest[S](ops, window)
    ing.foreign ++= Bundle.readParts(in, MaxForeign + 1, "run")
    ing._dropped = in.getVarLong("dropped rows")
    ing._late = in.getVarLong("late rows")
    ing._droppedWeight = in.getVarIn("dropped weight", 0, Long.MaxValue)
    ing._droppedMinTs = in.getLong("dropped min timestamp")
    in.expectEnd()
    ing
  }
}

/** Stable sort of parallel arrays by timestamp (merge sort on an index permutation). */
object Sorting {
  def sortByTs(ts: Array[Long], a: Array[Long], b: Array[Long], n: Int): Unit = {
    var sorted = true
    var i = 1
    while (sorted && i < n) { if (ts(i) < ts(i - 1)) sorted = false; i += 1 }
    if (sorted) return
    var idx = Array.tabulate(n)(identity)
    var tmp = new Array[Int](n)
    var width = 1
    while (width < n) {
      var lo = 0
      while (lo < n) {
        val mid = math.min(lo + width, n); val hi = math.min(lo + 2 * width, n)
        var p = lo; var q = mid; var o = lo
        while (p < mid && q < hi) {
          if (ts(idx(q)) < ts(idx(p))) { tmp(o) = idx(q); q += 1 } else { tmp(o) = idx(p); p += 1 }
          o += 1
        }
        while (p < mid) { tmp(o) = idx(p); p += 1; o += 1 }
        while (q < hi) { tmp(o) = idx(q); q += 1; o += 1 }
        lo += 2 * width
      }
      val t = idx; idx = tmp; tmp = t
      width *= 2
    }
    permute(ts, idx, n); permute(a, idx, n); permute(b, idx, n)
  }

  private def permute(x: Array[Long], idx: Array[Int], n: Int): Unit = {
    val c = java.util.Arrays.copyOf(x, n)
    var i = 0
    while (i < n) { x(i) = c(idx(i)); i += 1 }
  }
}
