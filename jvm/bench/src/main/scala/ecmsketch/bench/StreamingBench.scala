package ecmsketch.bench

import ecmsketch.ecm.EcmOps

import ecmsketch.core.{WindowSketch, WindowSpec}
import ecmsketch.ecm.{EcmSketch, QueryKind}
import ecmsketch.ingest.{SketchOps, StreamCycle}
import ecmsketch.eh.EhSketch

/** A streaming aggregation's state over 10,000 micro-batches with 5 % late rows (docs/design/streaming.md,
  * "Streaming and late rows"): the state-store cycle of [[StreamCycle]] (the serialize /
  * deserialize / merge calls of Spark's StateStoreRestore and StateStoreSave), with runs a window
  * behind the clock dropped from the state (now) and kept (before). After 1, 10, 100, 1,000 and
  * 10,000 batches: the state's bytes and runs, the time of one batch's cycle (median over the
  * batches since the previous mark, at most the last 200), the merge depth and the certified bound
  * of the sketch the batch emits. Writes bench/results/streaming.md.
  * Run with sbt "bench/runMain ecmsketch.bench.StreamingBench [batches] [out]".
  */
object StreamingBench {
  final val Ticks = 100L
  final val WindowBatches = 50L

  final case class Row(batches: Long, bytes: Int, runs: Int, micros: Double, depth: Int, bound: Double)

  /** One configuration's cycle and its rows at the marks. */
  final class Track[S <: WindowSketch](ops: SketchOps[S], prune: Boolean, bound: S => Double) {
    val cycle = new StreamCycle(ops, WindowBatches * Ticks, prune = prune, ticksPerBatch = Ticks)
    private val times = scala.collection.mutable.ArrayBuffer[Long]()
    var spent = 0L
    val rows = Seq.newBuilder[Row]
    def step(marks: Set[Long]): Unit = {
      val t0 = System.nanoTime()
      val s = cycle.step()
      val dt = System.nanoTime() - t0
      times += dt; spent += dt
      if (marks(cycle.batches)) {
        val recent = times.takeRight(200).sorted
        rows += Row(cycle.batches, cycle.stateBytes, cycle.stateRuns, recent(recent.size / 2) / 1e3, s.mergeDepth, bound(s))
        times.clear()
      }
    }
  }

  /** Both configurations (runs a window behind dropped, and kept) step in turn, batch by batch, so
    * that the machine's load and the JIT treat them alike; the one that keeps every run stops after
    * `budgetNanos` of its own cycles.
    */
  def compare[S <: WindowSketch](ops: SketchOps[S], batches: Long, bound: S => Double, budgetNanos: Long): (Seq[Row], Seq[Row], Long) = {
    // warm-up (JIT): a few hundred batches of both, discarded
    val w1 = new Track(ops, true, bound); val w2 = new Track(ops, false, bound)
    for (_ <- 1 to 300) { w1.step(Set.empty); w2.step(Set.empty) }
    val marks = Iterator.iterate(1L)(_ * 10).takeWhile(_ <= batches).toSet
    val now = new Track(ops, true, bound); val before = new Track(ops, false, bound)
    var b = 0L
    while (b < batches) {
      now.step(marks)
      if (before.spent < budgetNanos) before.step(marks)
      b += 1
    }
    (now.rows.result(), before.rows.result(), before.cycle.batches)
  }

  def main(args: Array[String]): Unit = {
    val batches = if (args.length > 0) args(0).toLong else 10000L
    val outPath = if (args.length > 1) args(1) else "bench/results/streaming.md"
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = WindowBatches * Ticks)
    val eh = SketchOps.eh(() => EhSketch.create(spec, 0.1, 1))
    val ecm = new EcmOps(() => EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, 7L), ecmsketch.core.KeyType.Long)
    // the runs kept before make a batch slower and slower: that configuration stops after this long
    val budget = 150L * 1000 * 1000 * 1000
    val cases: Seq[(String, () => (Seq[Row], Seq[Row], Long))] = Seq(
      ("EH", () => compare(eh, batches, (s: EhSketch) => s.errorBound, budget)),
      ("ECM", () => compare(ecm, batches, (s: EcmSketch) => s.totalErrorBound, budget)))
    val sb = new StringBuilder
    sb ++= "# Streaming state over many micro-batches with 5 % late rows\n\n"
    sb ++= "`sbt \"bench/runMain ecmsketch.bench.StreamingBench\"` (`jvm/bench/src/main/scala/ecmsketch/bench/StreamingBench.scala`):\n"
    sb ++= s"the state-store cycle of `StreamCycle` (Spark's serialize / deserialize / merge calls of a streaming\n"
    sb ++= s"aggregation, Partial -> PartialMerge -> StateStoreRestore -> PartialMerge -> StateStoreSave -> Final) for one\n"
    sb ++= s"group: 2 input partitions, 100 rows a batch over $Ticks ticks, 5 % of them late (up to 10 batches behind),\n"
    sb ++= s"window ${WindowBatches * Ticks} ticks ($WindowBatches batches), epsilon 0.1 (ECM: delta 0.1, 50 keys). Time: one batch's\n"
    sb ++= "cycle including the Final evaluation, median over the batches since the previous row (at most the last 200),\n"
    sb ++= "both configurations stepped in turn after 300 warm-up batches of each,\n"
    sb ++= "one JVM thread on a loaded 2-core machine (absolute numbers are noisy). Bound: the certified relative error\n"
    sb ++= "of counts (`sketch_info.error_bound`) of the sketch that batch emits.\n"
    def table(rows: Seq[Row]): Unit = {
      sb ++= "| batches | state bytes | state runs | ms per batch | merge depth | certified bound |\n|---:|---:|---:|---:|---:|---:|\n"
      rows.foreach { r => sb ++= f"| ${r.batches}%d | ${r.bytes}%d | ${r.runs}%d | ${r.micros / 1e3}%.3f | ${r.depth}%d | ${r.bound}%.4f |\n" }
    }
    for ((name, f) <- cases) {
      val (now, before, beforeDone) = f()
      sb ++= s"\n## $name: runs a window behind dropped from the state (now)\n\n"
      table(now)
      sb ++= s"\n## $name: every run kept (before)\n\n"
      table(before)
      if (beforeDone < batches) sb ++= s"\nStopped after $beforeDone batches (${budget / 1000000000} s of its cycles).\n"
      println(name); now.foreach(println); println("before"); before.foreach(println)
    }
    val f = new java.io.File(outPath)
    Option(f.getParentFile).foreach(_.mkdirs())
    val w = new java.io.PrintWriter(f, "UTF-8")
    try w.write(sb.toString) finally w.close()
    println(s"wrote $outPath")
  }
}
