package ecmsketch.ingest

import scala.util.Random

import ecmsketch.core.WindowSketch

/** The state-store cycle of a Structured Streaming aggregation over one group, without Spark
  * (docs/design/streaming.md, "Streaming and late rows"). Spark plans a streaming aggregate as
  * Partial -> shuffle -> PartialMerge -> StateStoreRestore -> PartialMerge -> StateStoreSave -> Final,
  * and every step hands the aggregation buffer on as bytes through TypedImperativeAggregate's
  * serialize / deserialize / merge. Per micro-batch this replays exactly those calls:
  *
  *  1. one partial aggregate per input partition takes the batch's rows (in file order) and is
  *     serialized (the shuffle);
  *  2. a fresh buffer absorbs the deserialized partials and is serialized (PartialMerge);
  *  3. a fresh buffer absorbs the deserialized state of the previous batch (StateStoreRestore) and
  *     the bytes of step 2, and is serialized: the new state (StateStoreSave);
  *  4. a fresh buffer absorbs the state and evaluates the sketch (Final; complete and update modes
  *     emit it every batch).
  *
  * Rows: batch k holds `rowsPerBatch` rows with ticks in [k T, (k + 1) T) (T = `ticksPerBatch`),
  * of which a fraction `lateFraction` is late: ticks up to `lateLag` batches behind the batch,
  * older than the newest row already in the state. Keys are drawn from 0 until `keys`.
  */
final class StreamCycle[S <: WindowSketch](ops: SketchOps[S], window: Long, prune: Boolean = true,
                                           partitions: Int = 2, rowsPerBatch: Int = 100,
                                           ticksPerBatch: Long = 100, lateFraction: Double = 0.05,
                                           lateLag: Int = 10, keys: Int = 50, seed: Long = 1) {
  private val rnd = new Random(seed)
  private var state: Array[Byte] = null
  private var k = 0L
  /** Every row so far as (key, tick, weight), for the brute-force oracle. */
  val rows = scala.collection.mutable.ArrayBuffer[(Long, Long, Long)]()

  def batches: Long = k
  def stateBytes: Int = if (state == null) 0 else state.length

  private def fp(key: Long): Long = ecmsketch.hash.Hashing.fingerprintLong(key)

  /** The rows of the next micro-batch, in file order (shuffled). */
  private def nextRows(): IndexedSeq[(Long, Long, Long)] = {
    val nLate = if (k == 0) 0 else math.round(rowsPerBatch * lateFraction).toInt
    val onTime = (0 until rowsPerBatch - nLate).map(_ => k * ticksPerBatch + rnd.nextInt(ticksPerBatch.toInt))
    val lo = math.max(0L, (k - lateLag) * ticksPerBatch)
    val late = (0 until nLate).map(_ => lo + (rnd.nextLong() & Long.MaxValue) % (k * ticksPerBatch - lo))
    rnd.shuffle(onTime ++ late).map(t => (rnd.nextInt(keys).toLong, t, 1L + rnd.nextInt(3)))
  }

  private def deser(b: Array[Byte]): Ingest[S] = Ingest.deserialize(ops, window, b, prune = prune)

  /** Runs one micro-batch; returns the sketch the Final step evaluates. */
  def step(): S = {
    val batch = nextRows()
    rows ++= batch
    val partial = (0 until partitions).map { p =>
      val ing = new Ingest(ops, window, p.toLong, prune)
      batch.indices.filter(_ % partitions == p).foreach { i => val (key, t, v) = batch(i); ing.add(fp(key), t, v) }
      ing.serialize()
    }
    val merged = new Ingest(ops, window, prune = prune)
    partial.foreach(b => merged.absorb(deser(b)))
    val shuffled = merged.serialize()
    val restored = new Ingest(ops, window, prune = prune)
    if (state != null) restored.absorb(deser(state))
    restored.absorb(deser(shuffled))
    state = restored.serialize()
    val fin = new Ingest(ops, window, prune = prune)
    fin.absorb(deser(state))
    k += 1
    fin.result()
  }

  /** The runs the state holds (a bundle's run count). */
  def stateRuns: Int = if (state == null) 0 else deser(state).foreignRunCount
}
