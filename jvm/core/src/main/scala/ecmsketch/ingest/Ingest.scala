package ecmsketch.ingest

import scala.collection.mutable.ArrayBuffer

import ecmsketch.core.{Annex, Bundle, ByteReader, Codec, CounterSketch, SketchException, SketchKind, WindowSketch}
import ecmsketch.dwave.{DwKind, DwSketch}
import ecmsketch.eh.{EhKind, EhSketch}
import ecmsketch.hash.Hashing

/** How the ingest layer creates, feeds, merges and encodes one kind of sketch. */
trait SketchOps[S <: WindowSketch] extends Serializable {
  def create(): S
  def add(s: S, fp: Long, ts: Long, v: Long): Unit
  /** Adds rows [from, until) of time-sorted parallel arrays (default: one by one). */
  def addSorted(s: S, fps: Array[Long], ts: Array[Long], vs: Array[Long], from: Int, until: Int): Unit = {
    var i = from
    while (i < until) { add(s, fps(i), ts(i), vs(i)); i += 1 }
  }
  /** Takes rows [0, n) of parallel arrays in any time order into `s`, a run that has taken no row, in
    * the state that sorting them by time, stably, and [[addSorted]] give, and returns true; or returns
    * false without taking any (the default), and the caller sorts them.
    */
  def addUnsorted(s: S, fps: Array[Long], ts: Array[Long], vs: Array[Long], n: Int): Boolean = false
  /** n-way order-preserving merge of partial sketches of one stream (count windows allowed). */
  def merge(xs: Seq[S]): S
  /** A fresh fine side run: finer cells whose one merge stays within the main plan's cell epsilon
    * (docs/design/rows-in-any-order.md, "Rows in any order"). None: side runs use the main plan.
    */
  def createSide(): Option[S] = None
  /** n-way merge of runs of the main plan and fine side runs into the main plan (default: [[merge]]). */
  def mergeRuns(xs: Seq[S]): S = merge(xs)
  /** The finished sketch of all the runs of a partial aggregate, once, when it is asked for
    * (default: [[mergeRuns]]). Early merges of runs use [[mergeRuns]].
    */
  def finish(xs: Seq[S]): S = mergeRuns(xs)
  /** Whether merges add no error (randomized waves): side runs may then be merged early. */
  def lossless: Boolean = false
  /** An ingest that has taken `seen` rows collects up to seen >>> lateShift late rows before it
    * builds a side run ([[Ingest.lateCapacity]]): a quarter by default; kinds whose runs hold about
    * as much as their rows may collect more, for fewer runs to merge.
    */
  def lateShift: Int = 2
  /** Rows the reorder buffer holds before its older half goes into the main run when its rows are in
    * no order (before any main run, they are checked each time the buffer fills): [[Ingest.MaxBuffer]]
    * by default, which is also the limit for rows in order or out of order only locally. Kinds whose
    * runs hold about as much as their rows, and which would collect the late rows anyway, or kinds
    * that build a sorted batch much faster than side runs and their fold, may hold up to
    * [[Ingest.MaxLate]] (24 bytes a row), so that up to that many rows of a group in a partition in
    * no order make a single run.
    */
  def bufferRows: Int = Ingest.MaxBuffer
  /** Whether runs take an event-id salt ([[setEventSalt]]: sketches with randomized-wave cells). */
  def eventSalted: Boolean = false
  /** Sets the event-id salt of a new run (docs/design/rwave.md, "Event ids"). */
  def setEventSalt(s: S, salt: Long): Unit = ()
  def encode(s: S): Array[Byte]
  def decode(b: Array[Byte]): S
  /** State kept beside the runs (the candidate keys of a dyadic sketch of strings); null: none. */
  def newAnnex(): Annex = null
  /** Reads an annex written by [[Annex.encode]] (called only when [[newAnnex]] is not null). */
  def decodeAnnex(in: ByteReader): Annex = throw new SketchException("this sketch kind keeps no annex")
  /** Gives the finished sketch its annex (a copy owned by the sketch). */
  def attachAnnex(s: S, a: Annex): Unit = ()
}

object SketchOps {
  /** Stand-alone counters (exponential histogram, deterministic wave) of kind `kind`: the key is
    * ignored. `side` makes a fine side run of a main-plan sketch, `mixed` merges runs of both into
    * the plan of its first argument.
    */
  final class Counter[S <: CounterSketch](factory: () => S, kind: SketchKind[S], side: S => Option[S],
                                          mixed: (S, Seq[S]) => S) extends SketchOps[S] {
    def create(): S = factory()
    def add(s: S, fp: Long, ts: Long, v: Long): Unit = s.add(ts, v)
    def merge(xs: Seq[S]): S = kind.mergeSameStream(xs)
    override def createSide(): Option[S] = side(create())
    override def mergeRuns(xs: Seq[S]): S = mixed(create(), xs)
    def encode(s: S): Array[Byte] = Codec.encode(kind, s)
    def decode(b: Array[Byte]): S = Codec.decodeAs(kind, b)
  }

  /** Exponential histograms (the one-cell kinds need nothing beyond [[Counter]]). */
  def eh(factory: () => EhSketch): Counter[EhSketch] = new Counter(factory, EhKind, EhSketch.sideOf, EhSketch.mergeMixed)
  /** Deterministic waves. */
  def dw(factory: () => DwSketch): Counter[DwSketch] = new Counter(factory, DwKind, DwSketch.sideOf, DwSketch.mergeMixed)
}


/** Builds a sketch from rows in any order (docs/design/rows-in-any-order.md, "Rows in any order").
  *
  *  - A reorder buffer (up to [[Ingest.MaxBuffer]] rows, up to [[SketchOps.bufferRows]] for rows in no
  *    order before the main run starts) absorbs local disorder: when full it is
  *    sorted by timestamp and its older half goes into the main run, so input whose disorder spans
  *    less than half the buffer reaches the main run in order and costs no extra error.
  *  - Rows older than the main run's last timestamp ("late" rows) are collected (up to
  *    [[Ingest.MaxLate]] rows, fewer for small inputs: [[Ingest.lateCapacity]]), radix-sorted and
  *    built into side runs. Where the plan allows, side runs have finer cells
  *    ([[SketchOps.createSide]]): all side runs of this ingest are merged once, into one run S
  *    (cached) whose bound is within the main cell epsilon, so S counts like a run of depth 0 in the
  *    final merge. Side runs are never merged early (except lossless kinds, whose merges add no error).
  *  - Rows at or before (newest row - window) can never fall in a query range and are dropped.
  *  - [[result]] merges all runs (and the runs of other partitions, see [[absorb]]) n-way once,
  *    so any row order gives merge depth 1 (0 for time-ordered rows of one ingest). Over
  *    [[Ingest.MaxForeign]] runs taken over from other partial aggregates are merged early, in
  *    [[absorb]], or in [[serialize]] when this aggregate's own runs would push a bundle past
  *    MaxForeign + 1 runs: one more level, once (a later early merge leaves out the runs earlier
  *    ones made, so the levels do not add up while those fit a bundle).
  *  - [[serialize]] drops the runs taken over that lie a whole window behind the clock (no query
  *    reaches them), so a Structured Streaming state, which takes over the runs of every
  *    micro-batch, holds the runs of the last window (docs/design/streaming.md, "Streaming and late rows").
  * Every merge is counted in the sketch's depth, so the reported bound always holds.
  */
final class Ingest[S <: WindowSketch](val ops: SketchOps[S], window: Long, salt: Long = 0L, prune: Boolean = true) {
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
  private var seen = 0L
  /** Side runs (fine or of the main plan), each of depth 0, and their cached merge when fine. */
  private val sideRuns = ArrayBuffer[S]()
  private var sideFine = false
  private var sideMerged: S = _
  private val foreign = ArrayBuffer[Array[Byte]]()
  /** Whether a run taken over from another partial aggregate may be a fine side run. */
  private var foreignFine = false
  private var _dropped = 0L
  private var _droppedWeight = 0L
  private var _droppedMinTs = Long.MaxValue
  private var _late = 0L
  private var _expiredRuns = 0L
  /** Whether this ingest took over another's runs (a merge buffer: only those drop expired runs). */
  private var absorbed = false
  /** Runs created so far (each takes a different event-id salt, see [[runSalt]]). */
  private var runsMade = 0

  /** State kept beside the runs ([[SketchOps.newAnnex]]), or null. */
  private var _annex: Annex = ops.newAnnex()

  /** The annex of this ingest (null for most kinds): fed by the aggregate beside [[add]]. */
  def annex: Annex = _annex

  /** Rows dropped because they lay a whole window behind the newest row. */
  def dropped: Long = _dropped
  /** Rows that arrived behind the main run (they went into side runs). */
  def late: Long = _late
  /** Runs taken over from other partial aggregates and dropped because they lay a whole window
    * behind the clock (by this ingest, not by those it absorbed).
    */
  def expiredRuns: Long = _expiredRuns
  /** Runs taken over from other partial aggregates and still held (as bytes). */
  def foreignRunCount: Int = foreign.size
  /** Side runs built so far by this ingest (not counting those of absorbed aggregates). */
  def sideRunCount: Int = sideRuns.size
  /** Whether this ingest's side runs have fine cells (false before the first side run). */
  def fineSideRuns: Boolean = sideFine

  /** Whether the runs of this partial aggregate may include a fine side run (its bundle is then version 2). */
  private def holdsFine: Boolean = (sideFine && sideRuns.nonEmpty) || foreignFine

  /** Adds a row; false when it was dropped (a whole window behind the newest row). */
  def add(fp: Long, ts: Long, v: Long): Boolean = {
    if (v < 0) throw new SketchException(s"weight must be non-negative, got $v")
    if (window != Long.MaxValue && maxTs != Long.MinValue && maxTs - window >= ts && maxTs - window <= maxTs) {
      // never in any query range; its weight and time still count in total_weight / first_ts
      _dropped += 1
      if (Long.MaxValue - _droppedWeight < v) throw new SketchException("total weight overflows 2^63 - 1")
      _droppedWeight += v
      if (ts < _droppedMinTs) _droppedMinTs = ts
      return false
    }
    if (ts > maxTs) maxTs = ts
    seen += 1
    // Make room first: a flush advances the main run, which decides whether this row is late.
    if (n == bufTs.length) {
      if (n < MaxBuffer || (n < ops.bufferRows && main == null && disordered())) grow() else flushOlderHalf()
    }
    if (main != null && ts < main.lastTs) addLate(fp, ts, v)
    else { bufTs(n) = ts; bufFp(n) = fp; bufV(n) = v; n += 1 }
    true
  }

  /** Whether the buffered rows are out of order globally rather than locally: at least a quarter of
    * the first half to arrive lies after the buffer's median time (estimated from 255 rows spread
    * over it). Rows in no order give about a half, rows in order or out of order only locally
    * about none.
    */
  private def disordered(): Boolean = {
    val m = 255
    val sample = new Array[Long](m)
    var i = 0
    while (i < m) { sample(i) = bufTs((i.toLong * n / m).toInt); i += 1 }
    java.util.Arrays.sort(sample)
    val median = sample(m / 2)
    val half = n / 2
    var after = 0L
    i = 0
    while (i < half) { if (bufTs(i) > median) after += 1; i += 1 }
    after * 4 >= half
  }

  /** Rows the reorder buffer has room for now. */
  def bufferCapacity: Int = bufTs.length

  private def grow(): Unit = {
    val c = math.min(ops.bufferRows, bufTs.length * 2)
    bufTs = java.util.Arrays.copyOf(bufTs, c); bufFp = java.util.Arrays.copyOf(bufFp, c); bufV = java.util.Arrays.copyOf(bufV, c)
  }

  /** The main run; created with the rows [from, until) of the buffer as its first batch. */
  private def mainRun(from: Int, until: Int): S = {
    if (main == null) { main = ops.create(); saltRun(main, bufTs, bufFp, bufV, from, until) }
    main
  }

  /** Gives a new run its event-id salt (docs/design/rwave.md, "Event ids"): a hash of this ingest's salt
    * (the Spark partition and buffer), the run's number, the rows of its first batch (as a set: their
    * order does not matter) and the runs taken over from other partial aggregates. The same rows in
    * the same partition give the same salts; runs of one ingest, partitions, and groups whose rows
    * differ get different ones.
    */
  private def saltRun(s: S, ts: Array[Long], fp: Array[Long], v: Array[Long], from: Int, until: Int): Unit =
    if (ops.eventSalted) {
      runsMade += 1
      var rowSum = 0L
      var i = from
      while (i < until) { rowSum += Hashing.mix64(Hashing.mix64(fp(i) + ts(i) * 0xC2B2AE3D27D4EB4FL) + v(i)); i += 1 }
      var h = Hashing.mix64(Hashing.mix64(salt + 0x9E3779B97F4A7C15L * runsMade) + rowSum) + (until - from)
      foreign.foreach(b => h = Hashing.mix64(h ^ Hashing.fingerprintBytes(b)))
      ops.setEventSalt(s, Hashing.mix64(h))
    }

  private def flushOlderHalf(): Unit = {
    RadixSort.sortByTs(bufTs, bufFp, bufV, n)
    val half = n / 2
    ops.addSorted(mainRun(0, half), bufFp, bufTs, bufV, 0, half)
    System.arraycopy(bufTs, half, bufTs, 0, n - half)
    System.arraycopy(bufFp, half, bufFp, 0, n - half)
    System.arraycopy(bufV, half, bufV, 0, n - half)
    n -= half
  }

  private def addLate(fp: Long, ts: Long, v: Long): Unit = {
    _late += 1
    if (lateTs == null) { lateTs = new Array[Long](InitialBuffer); lateFp = new Array[Long](InitialBuffer); lateV = new Array[Long](InitialBuffer) }
    if (lateN == lateTs.length) {
      val cap = lateCapacity(seen, ops.lateShift)
      if (lateN < cap) {
        val c = math.min(cap, lateN * 2)
        lateTs = java.util.Arrays.copyOf(lateTs, c); lateFp = java.util.Arrays.copyOf(lateFp, c); lateV = java.util.Arrays.copyOf(lateV, c)
      } else flushLate()
    }
    lateTs(lateN) = ts; lateFp(lateN) = fp; lateV(lateN) = v; lateN += 1
  }

  private def flushLate(): Unit = if (lateN > 0) {
    RadixSort.sortByTs(lateTs, lateFp, lateV, lateN)
    val fine = ops.createSide()
    val s = fine.getOrElse(ops.create())
    saltRun(s, lateTs, lateFp, lateV, 0, lateN)
    // in slices: a batch's scratch space (kept by the run) and its cell walk stay small
    var from = 0
    while (from < lateN) { val u = math.min(lateN, from + Slice); ops.addSorted(s, lateFp, lateTs, lateV, from, u); from = u }
    lateN = 0
    sideFine = fine.isDefined
    sideRuns += s
    sideMerged = null.asInstanceOf[S]
    // merges that add no error may happen early; runs of the main plan beyond half a bundle merge early (one level)
    if ((ops.lossless && sideRuns.size >= Fanout) || (!sideFine && sideRuns.size > MaxForeign / 2)) {
      val m = ops.merge(sideRuns.toSeq)
      sideRuns.clear()
      sideRuns += m
    }
  }

  /** Flushes every buffered row into runs (no error: buffered rows are never older than the main run). */
  private def finishLocal(): Unit = {
    if (n > 0) {
      val fresh = main == null
      val s = mainRun(0, n)
      if (!(fresh && ops.addUnsorted(s, bufFp, bufTs, bufV, n))) {
        RadixSort.sortByTs(bufTs, bufFp, bufV, n)
        ops.addSorted(s, bufFp, bufTs, bufV, 0, n)
      }
      n = 0
    }
    flushLate()
  }

  /** This ingest's own finished runs: the main run, then the side runs' merge S (fine side runs,
    * merged once and cached) or the side runs themselves.
    */
  private def localRuns(): Seq[S] = {
    finishLocal()
    val m = if (main == null) Nil else Seq(main)
    if (sideRuns.isEmpty) m
    else if (!sideFine) m ++ sideRuns
    else {
      if (sideMerged == null) sideMerged = if (sideRuns.size == 1) sideRuns.head else ops.merge(sideRuns.toSeq)
      m :+ sideMerged
    }
  }

  /** All finished runs of this ingest, as bytes (for shuffling a partial aggregate). */
  private def runBytes(): Seq[Array[Byte]] = localRuns().map(ops.encode) ++ foreign

  /** Takes over the runs of another partial aggregate (kept as bytes until [[result]]). */
  def absorb(other: Ingest[S]): Unit = {
    if (other eq this) throw new IllegalArgumentException("an ingest cannot absorb itself")
    absorbed = true
    foreign ++= other.runBytes()
    foreignFine ||= other.holdsFine
    _dropped += other._dropped; _late += other._late
    if (Long.MaxValue - _droppedWeight < other._droppedWeight) throw new SketchException("total weight overflows 2^63 - 1")
    _droppedWeight += other._droppedWeight
    _droppedMinTs = math.min(_droppedMinTs, other._droppedMinTs)
    if (_annex != null) _annex.absorb(other._annex)
    // Too many inputs to hold: drop those out of reach, merge the rest now (one more level, counted in the depth).
    if (foreign.size > MaxForeign) { pruneForeign(); if (foreign.size > MaxForeign) mergeForeign(MaxForeign) }
  }

  /** Drops the runs taken over from other partial aggregates that lie a whole window behind the
    * clock (the newest row of this ingest or last timestamp of any run): every bucket of such a run
    * ends at or before that clock minus the window, so no query of the result reaches it and the
    * final merge would leave it out anyway (docs/design/merging.md, "Time-disjoint merges" and "Streaming
    * and late rows"). Its weight and first timestamp still count in total_weight and first_ts, like
    * a dropped row's. This keeps a streaming state, which takes over the runs of every micro-batch,
    * to the runs of the last window. Decodes every run taken over (their last timestamps).
    */
  private def pruneForeign(): Unit = if (prune && window != Long.MaxValue && foreign.nonEmpty) {
    val runs = foreign.map(ops.decode)
    var clock = maxTs
    if (main != null && !main.isEmpty) clock = math.max(clock, main.lastTs)
    runs.foreach(r => if (!r.isEmpty) clock = math.max(clock, r.lastTs))
    val edge = clock - window
    if (clock != Long.MinValue && edge <= clock) {
      val keep = ArrayBuffer[Array[Byte]]()
      var i = 0
      while (i < runs.size) {
        val r = runs(i)
        if (r.isEmpty || r.lastTs > edge) keep += foreign(i)
        else {
          if (Long.MaxValue - _droppedWeight < r.count) throw new SketchException("total weight overflows 2^63 - 1")
          _droppedWeight += r.count
          _droppedMinTs = math.min(_droppedMinTs, r.firstTs)
          _expiredRuns += 1
        }
        i += 1
      }
      if (keep.size < foreign.size) { foreign.clear(); foreign ++= keep }
    }
  }

  /** Merges the runs taken over from other partial aggregates into one of the main plan (one more
    * level, counted in the depth), leaving `room` runs at most. Runs that an earlier early merge
    * made (runs of the main plan's cells at depth >= 1) are left out while they fit, so that early
    * merges do not compound: every run merged here has depth 0 (or is a fine side run, within
    * depth 0 at the plan's cells), and the result has depth 1, whatever number of early merges
    * came before. A streaming state drops such a run once it lies a window behind
    * ([[pruneForeign]]). When the earlier merged runs alone fill `room`, all runs are merged.
    */
  private def mergeForeign(room: Int): Unit = {
    val runs = foreign.toSeq.map(ops.decode)
    val earlier = runs.indices.filter(i => runs(i).mergeDepth >= 1 && runs(i).cellEpsilon == mainCellEpsilon)
    val fresh = runs.indices.filterNot(earlier.toSet)
    if (fresh.size > 1 && earlier.size + 1 <= room) {
      val merged = ops.mergeRuns(fresh.map(runs))
      val keep = earlier.map(foreign)
      foreign.clear()
      foreign ++= keep
      foreign += ops.encode(merged)
    } else {
      val merged = ops.mergeRuns(runs)
      foreign.clear()
      foreign += ops.encode(merged)
    }
    foreignFine = false
  }

  /** Cell epsilon of the main plan (runs of finer cells are fine side runs). */
  private lazy val mainCellEpsilon: Double = ops.create().cellEpsilon

  /** The sketch of every row added or absorbed: a single n-way merge of all runs. */
  def result(): S = {
    val all: Seq[S] = localRuns() ++ foreign.map(ops.decode)
    // a fresh sketch every time (a merge of one input is a copy): result() may be called again,
    // e.g. by a growing window frame, and must not change the runs
    val s = if (all.isEmpty) ops.create() else ops.finish(all)
    if (_droppedWeight > 0 || _droppedMinTs != Long.MaxValue) {
      s.withDroppedRows(_droppedWeight, _droppedMinTs)
    }
    if (_annex != null) ops.attachAnnex(s, _annex.copy())
    s
  }

  /** Serialized partial state: a bundle of finished runs (docs/FORMAT.md, "partial bundle"). */
  def serialize(): Array[Byte] = {
    val local = localRuns()
    // a merge buffer (a streaming state among them) drops the runs out of reach; a bundle read and
    // written again without taking anything over keeps its bytes
    if (absorbed) pruneForeign()
    // a bundle holds at most MaxForeign + 1 runs (the limit [[Ingest.deserialize]] accepts): when this
    // aggregate's own runs and the runs it took over would exceed it, the latter are merged first
    if (foreign.size > 1 && local.size + foreign.size > MaxForeign + 1) mergeForeign(MaxForeign + 1 - local.size)
    // checksummed; version 4 only when a run may be a fine side run (3 otherwise), as 2 and 1 before
    Bundle.write(BundleMagic, if (holdsFine) BundleVersion else ChecksumVersion, local.map(ops.encode) ++ foreign,
        checksum = true) { out =>
      out.putVarLong(_dropped)
      out.putVarLong(_late)
      out.putVarLong(_droppedWeight)
      out.putLong(_droppedMinTs)
      if (_annex != null) _annex.encode(out)
    }
  }
}

object Ingest {
  final val InitialBuffer = 64
  final val MaxBuffer = 16384
  /** Most late rows collected into one side run. */
  final val MaxLate = 1 << 20
  /** Fewest late rows a side run may collect before [[lateCapacity]] limits it. */
  final val MinLate = 1 << 16
  /** Rows per addSorted call while building a side run. */
  final val Slice = 8192
  /** Side runs of lossless kinds merge this many at a time. */
  final val Fanout = 16
  final val MaxForeign = 4096
  final val BundleMagic: Array[Byte] = "ECMB".getBytes("US-ASCII")
  /** Bundle version written when a run may be a fine side run (else [[ChecksumVersion]]; the layout is
    * the same): a CRC32C of the other bytes ends the bundle. Versions 1 (main plan only) and 2 (fine side
    * runs too), without the checksum, are read as well (streaming state of older releases).
    */
  final val BundleVersion = 4
  /** Bundle version of a checksummed bundle whose runs all have the aggregate's plan. */
  final val ChecksumVersion = 3

  /** Late rows an ingest that has taken `seen` rows collects before building a side run: seen >>>
    * `shift` (a quarter of its rows by default, [[SketchOps.lateShift]]), at least [[MinLate]], at
    * most [[MaxLate]], so that many small groups (GROUP BY) hold late buffers in proportion to their
    * rows (docs/design/rows-in-any-order.md, "Rows in any order").
    */
  def lateCapacity(seen: Long, shift: Int = 2): Int = math.max(MinLate.toLong, math.min(MaxLate.toLong, seen >>> shift)).toInt

  /** Reads a bundle written by [[Ingest.serialize]] into a fresh ingest (runs stay as bytes). Bad
    * bytes fail with a SketchException starting "corrupt partial aggregate: ".
    */
  def deserialize[S <: WindowSketch](ops: SketchOps[S], window: Long, bytes: Array[Byte], salt: Long = 0L,
                                     prune: Boolean = true): Ingest[S] =
    Bundle.relabel(Corrupt)(read(ops, window, bytes, salt, prune))

  private final val Corrupt = "corrupt partial aggregate: "

  private def read[S <: WindowSketch](ops: SketchOps[S], window: Long, bytes: Array[Byte], salt: Long, prune: Boolean): Ingest[S] = {
    val head = new ByteReader(bytes)
    if (!java.util.Arrays.equals(Bundle.readMagic(head, "bundle"), BundleMagic)) throw new SketchException(Corrupt + "bad magic")
    val v = head.getByte("bundle version")
    if (v < 1 || v > BundleVersion)
      throw new SketchException(s"${Corrupt}unknown bundle version $v (this build reads 1 to $BundleVersion" +
        (if (v > BundleVersion) "; it was written by a newer release of ecmsketch)" else ")"))
    // versions 3 and 4 end with a checksum, verified before any other field is read
    val in = new ByteReader(bytes, if (v >= ChecksumVersion) Bundle.checkedEnd(bytes, Corrupt) else bytes.length)
    in.getBytes(5, "bundle magic and version")
    val ing = new Ingest[S](ops, window, salt, prune)
    ing.foreign ++= Bundle.readParts(in, MaxForeign + 1, "run")
    ing.foreignFine = v == 2 || v == BundleVersion
    ing._dropped = in.getVarLong("dropped rows")
    ing._late = in.getVarLong("late rows")
    ing._droppedWeight = in.getVarIn("dropped weight", 0, Long.MaxValue)
    ing._droppedMinTs = in.getLong("dropped min timestamp")
    if (ing._annex != null) ing._annex = ops.decodeAnnex(in)
    in.expectEnd()
    ing
  }
}
