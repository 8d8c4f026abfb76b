package ecmsketch.ingest

import ecmsketch.ecm.EcmOps

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.core.{Bounds, WindowSketch, WindowSpec}
import ecmsketch.dwave.DwSketch
import ecmsketch.ecm.{EcmSketch, QueryKind}
import ecmsketch.hash.Hashing
import ecmsketch.eh.EhSketch

/** A streaming aggregation's state over many micro-batches with late rows (docs/design/streaming.md,
  * "Streaming and late rows"), through the state-store cycle of [[StreamCycle]]: the state's size,
  * its runs and the merge depth stay bounded, the certified bound stays the planned one, and every
  * answer is within it of the brute-force oracle.
  */
class StreamingStateSuite extends AnyFunSuite {
  val ticks = 100L
  val windowBatches = 50L
  val spec = WindowSpec(countWindow = false, tsMicros = false, window = windowBatches * ticks)

  /** Exact weight (all keys, or `key`) in (now - r, now] over `rows`. */
  def exact(rows: Seq[(Long, Long, Long)], now: Long, r: Long, key: Option[Long] = None): Long =
    rows.iterator.filter { case (k, t, _) => t > now - r && t <= now && key.forall(_ == k) }.map(_._3).sum

  test("10,000 micro-batches with 5 % late rows: state bytes, runs and merge depth stay bounded, bound = epsilon, answers within it") {
    val eps = 0.1
    val ops = SketchOps.eh(() => EhSketch.create(spec, eps, 1))
    val c = new StreamCycle(ops, spec.window, ticksPerBatch = ticks, seed = 5)
    val planned = Bounds.compound(EhSketch.create(spec, eps, 1).cellEpsilon, 1)
    var steady = 0 // the largest state over batches 200 to 1,000 (the window is 50 batches, the lag 10)
    var largest = 0
    var last: EhSketch = null
    for (b <- 1 to 10000) {
      last = c.step()
      assert(last.mergeDepth == 1, s"batch $b: depth ${last.mergeDepth}") // two partitions from the first batch on
      assert(last.errorBound == planned && last.errorBound <= eps, s"batch $b")
      if (b >= 200 && b <= 1000) steady = math.max(steady, c.stateBytes)
      if (b > 1000) largest = math.max(largest, c.stateBytes)
      if (b % 1000 == 0) {
        // the state holds the runs of the last window (2 a batch) and those a window behind are gone
        assert(c.stateRuns <= 2 * (windowBatches + 2), s"batch $b: ${c.stateRuns} runs")
      }
    }
    assert(steady > 0 && largest <= steady * 5 / 4, s"state grew from $steady to $largest bytes")
    // every answer within the certified bound of the brute-force oracle over all 10^6 rows
    val rows = c.rows.toSeq
    val now = last.lastTs
    for (r <- Seq(1L, 10L, 99L, 500L, 2000L, spec.window)) {
      val e = exact(rows, now, r)
      assert(math.abs(last.count(r, null) - e) <= last.errorBound * e + 1e-9, s"r=$r")
    }
    assert((last: WindowSketch).count == rows.map(_._3).sum) // runs dropped from the state still count in total_weight
    assert(last.firstTs == rows.map(_._2).min)
  }

  test("dropping runs a window behind from the state: EH and dwave answers unchanged, ECM answers within the bound") {
    val ranges = Seq(1L, 50L, 999L, 3000L, spec.window)
    /** Runs both cycles 160 batches; returns the two emitted sketches and the rows. */
    def both[S <: ecmsketch.core.WindowSketch](name: String, ops: SketchOps[S]): (S, S, Seq[(Long, Long, Long)]) = {
      val pruned = new StreamCycle(ops, spec.window, ticksPerBatch = ticks, seed = 9)
      val kept = new StreamCycle(ops, spec.window, prune = false, ticksPerBatch = ticks, seed = 9)
      var a: S = null.asInstanceOf[S]; var b: S = null.asInstanceOf[S]
      for (_ <- 1 to 160) { a = pruned.step(); b = kept.step() }
      assert(pruned.stateRuns < kept.stateRuns / 2 && pruned.stateBytes < kept.stateBytes / 2, name)
      assert(a.count == b.count && a.firstTs == b.firstTs && a.lastTs == b.lastTs && a.mergeDepth == b.mergeDepth, name)
      (a, b, pruned.rows.toSeq)
    }
    // a counter merge leaves out the runs a window behind the clock anyway: the same sketch
    val (eh1, eh2, _) = both("eh", SketchOps.eh(() => EhSketch.create(spec, 0.1, 1)))
    assert(ranges.map(r => eh1.count(r, null)) == ranges.map(r => eh2.count(r, null)))
    val (dw1, dw2, _) = both("dwave", SketchOps.dw(() => DwSketch.create(spec, 0.1, 1, Long.MaxValue)))
    assert(ranges.map(r => dw1.count(r, null)) == ranges.map(r => dw2.count(r, null)))
    // an ECM merge decides per cell (a cell's own clock can be older than the sketch's), so a run
    // that no query reaches may still shape a cell: the answers differ, and both are within the bound
    val (m1, m2, rows) = both("ecm", new EcmOps(() => EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, 3L),
      ecmsketch.core.KeyType.Long))
    val now = m1.lastTs
    for (m <- Seq(m1, m2); r <- ranges) {
      val total = exact(rows, now, r)
      assert(math.abs(m.total(r, null) - total) <= m.totalErrorBound * total + 1e-9, s"r=$r")
      for (k <- 0L until 5L) {
        val f = exact(rows, now, r, Some(k))
        assert(math.abs(m.pointFingerprint(Hashing.fingerprintLong(k), r, null) - f) <= m.pointErrorBound * total + 1e-9, s"r=$r k=$k")
      }
    }
  }

  test("ECM state over 600 micro-batches with 5 % late rows: bounded, depth 1, points and totals within the bound") {
    val ops = new EcmOps(() => EcmSketch.create(spec, 0.1, 0.05, QueryKind.Point, 1, 11L), ecmsketch.core.KeyType.Long)
    val c = new StreamCycle(ops, spec.window, ticksPerBatch = ticks, seed = 7)
    var steady = 0; var largest = 0
    var last: EcmSketch = null
    for (b <- 1 to 600) {
      last = c.step()
      assert(last.mergeDepth == 1 && last.totalErrorBound <= 0.1, s"batch $b")
      if (b >= 150 && b <= 300) steady = math.max(steady, c.stateBytes)
      if (b > 300) largest = math.max(largest, c.stateBytes)
    }
    assert(largest <= steady * 5 / 4, s"state grew from $steady to $largest bytes")
    val rows = c.rows.toSeq
    val now = last.lastTs
    for (r <- Seq(10L, 300L, spec.window)) {
      val total = exact(rows, now, r)
      assert(math.abs(last.total(r, null) - total) <= last.totalErrorBound * total + 1e-9, s"r=$r")
      for (k <- 0L until 5L) {
        val f = exact(rows, now, r, Some(k))
        assert(math.abs(last.point(k, r, null) - f) <= last.pointErrorBound * total + 1e-9, s"r=$r key=$k")
      }
    }
  }

  test("over 4,096 runs within one window: early merges do not compound, depth 2 at most, merge_levels => 1 keeps epsilon") {
    // 50 input partitions a batch and a window of 200 batches: 10,000 runs reach into the window
    val sp = WindowSpec(countWindow = false, tsMicros = false, window = 200 * ticks)
    val ops = SketchOps.eh(() => EhSketch.create(sp, 0.1, 2)) // merge_levels => 1: two planned levels
    val c = new StreamCycle(ops, sp.window, partitions = 50, ticksPerBatch = ticks, seed = 21)
    var deepest = 0
    var last: EhSketch = null
    for (b <- 1 to 300) {
      last = c.step()
      deepest = math.max(deepest, last.mergeDepth)
      assert(last.mergeDepth <= 2 && last.errorBound <= 0.1, s"batch $b: depth ${last.mergeDepth}")
      if (b % 50 == 0) assert(c.stateRuns <= Ingest.MaxForeign + 1, s"batch $b: ${c.stateRuns} runs")
    }
    assert(deepest == 2) // the early merges happened (from batch 82 on) and cost one level, once
    val rows = c.rows.toSeq
    val now = last.lastTs
    for (r <- Seq(1L, 100L, 5000L, sp.window)) {
      val e = exact(rows, now, r)
      assert(math.abs(last.count(r, null) - e) <= last.errorBound * e + 1e-9, s"r=$r")
    }
  }
}
