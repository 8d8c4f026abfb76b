package ecmsketch.rwave

import ecmsketch.Families
import ecmsketch.bench.CoreBench
import ecmsketch.core.{Codec, WindowSpec}
import ecmsketch.ecm.{EcmSketch, Planner, QueryKind}
import ecmsketch.format.SketchCodec

/** Heap against serialized size of randomized-wave sketches, and ECM-RW update speed (manual
  * benchmark, also used by CoreBench): sbt "bench/runMain ecmsketch.rwave.RwHeapBench".
  *
  * Heap is measured as the used heap after full GCs (System.gc, twice) with the sketch reachable,
  * minus the same before it was built (input arrays allocated before): it counts every object the
  * sketch holds, thread-local scratch space excluded (allocated by a warm-up build).
  */
object RwHeapBench {
  private val mem = java.lang.management.ManagementFactory.getMemoryMXBean
  /** Used heap after full GCs, repeated until it stops falling (at most 8 rounds). */
  private def used(): Long = {
    var prev = Long.MaxValue
    var u = { System.gc(); mem.getHeapMemoryUsage.getUsed }
    var k = 0
    while (u < prev && k < 8) { prev = u; System.gc(); u = mem.getHeapMemoryUsage.getUsed; k += 1 }
    math.min(u, prev)
  }

  /** The heap an object built by `build` retains: used heap after full GCs with it reachable, minus
    * the same with it dropped (so scratch space the build leaves behind, kept per thread, is not
    * counted); and the object's bytes. `build` must return the object after a read (normalized).
    */
  def retainedHeap[T <: AnyRef](build: () => T, encode: T => Array[Byte]): (Long, Array[Byte]) = {
    var x = build()
    val bytes = encode(x)
    val alive = used()
    java.lang.ref.Reference.reachabilityFence(x)
    x = null.asInstanceOf[T]
    (alive - used(), bytes)
  }

  /** (heap bytes, the object built); `build` must return the object after a read (normalized). */
  def heapOf[T <: AnyRef](build: () => T): (Long, T) = {
    val before = used()
    val x = build()
    val after = used()
    (after - before, x)
  }

  val spec: WindowSpec = WindowSpec(countWindow = false, tsMicros = false, window = 1000000L)

  /** ECM-RW (eps = delta = 0.1) over `events` events of CoreBench's Zipf stream. */
  def ecmRw(keys: Array[Long], ts: Array[Long], events: Int): EcmSketch = {
    val s = EcmSketch.create(spec, Planner.plan(0.1, 0.1, QueryKind.Point, 0, RwCellKind.id), 1L)
    var i = 0
    while (i < events) { s.add(keys(i), ts(i), 1L); i += 1 }
    s
  }

  /** distinct sketch (eps 0.1, delta 0.05) over `rows` rows, ts = row / 10, values uniform over 1M. */
  def distinct(fps: Array[Long], ts: Array[Long], rows: Int): DistinctSketch = {
    val d = DistinctSketch.create(spec, 0.1, 0.05, DistinctSketch.DefaultSeed)
    var i = 0
    while (i < rows) { val j = math.min(rows, i + 8192); d.addSortedBatch(fps, ts, i, j); i = j }
    d
  }

  /** Rows (name, value, note) for ECM-RW after `events` events and a distinct sketch of 1M values. */
  def rows(keys: Array[Long], ts: Array[Long], events: Int, distinctRows: Int): Seq[(String, String, String)] = {
    ecmRw(keys, ts, 20000) // warm-up: thread-local scratch space
    val (h1, eb1) = retainedHeap(() => ecmRw(keys, ts, events), (s: EcmSketch) => SketchCodec.encode(s))
    val e = ecmRw(keys, ts, events) // the same stream again (other event ids: another sketch of equal size)
    val b1 = eb1.length
    val rnd = new java.util.SplittableRandom(5)
    val fps = Array.fill(distinctRows)(ecmsketch.hash.Hashing.fingerprintLong(rnd.nextLong(1000000)))
    val dts = Array.tabulate(distinctRows)(i => i / 10L)
    distinct(fps, dts, 300000)
    val (h2, db2) = retainedHeap(() => distinct(fps, dts, distinctRows), (s: DistinctSketch) => Codec.encode(DistinctKind, s))
    val d = distinct(fps, dts, distinctRows)
    val b2 = db2.length
    // the same sketches decoded, and decoded with every wave's levels rebuilt (as while taking rows)
    val eb = SketchCodec.encode(e); val db = Codec.encode(DistinctKind, d)
    val (h3, _) = heapOf { () => SketchCodec.decode(eb) }
    val (h4, _) = heapOf { () => val x = SketchCodec.decode(eb).asInstanceOf[EcmSketch]; x.cells.foreach { case w: RandWave => w.thaw(); case _ => }; x }
    val (h5, _) = heapOf { () => Families.decodeAs(DistinctKind, db) }
    val (h6, _) = heapOf { () => val x = Families.decodeAs(DistinctKind, db); x.wave.thaw(); x }
    def ratio(h: Long, b: Int): String = f"$h%,d / $b%,d B = ${h.toDouble / b}%.2fx"
    // the estimate (sum of array lengths times widths plus headers, RandWave.heapEstimate) of the
    // built-and-encoded sketches, compact, then with their levels rebuilt (the layout before the
    // compact form, trimmed as the encoding left it)
    def ecmEstimate(x: EcmSketch): Long = 16L + 4L * x.cells.length + x.cells.iterator.map { case w: RandWave => w.heapEstimate; case _ => 0L }.sum
    val ecmCompact = ecmEstimate(e); val dCompact = d.wave.heapEstimate
    e.cells.foreach { case w: RandWave => w.thaw(); case _ => }
    d.wave.thaw()
    val ecmLevels = ecmEstimate(e); val dLevels = d.wave.heapEstimate
    Seq(
      (f"ECM-RW heap / serialized after $events%,d events, built and encoded", ratio(h1, b1), "aim <= 2x; used heap after full GCs with the sketch minus without"),
      ("ECM-RW decoded", ratio(h3, eb.length), "levels in the compact (frozen) form"),
      ("ECM-RW decoded, levels rebuilt", ratio(h4, eb.length), "as while the waves take rows"),
      ("ECM-RW estimate, built and encoded: compact / levels", s"${ratio(ecmCompact, eb.length)} / ${ratio(ecmLevels, eb.length)}", "array lengths x widths + headers"),
      (f"distinct sketch heap / serialized, $distinctRows%,d rows ~1M distinct, built and encoded", ratio(h2, b2),
        f"aim <= 2x; estimate ${d.count(null, null)}%.0f"),
      ("distinct decoded", ratio(h5, b2), "levels in the compact (frozen) form"),
      ("distinct decoded, levels rebuilt", ratio(h6, b2), "as while the wave takes rows"),
      ("distinct estimate, built and encoded: compact / levels", s"${ratio(dCompact, b2)} / ${ratio(dLevels, b2)}", "array lengths x widths + headers"))
  }

  def main(args: Array[String]): Unit = {
    val n = 300000
    val keys = CoreBench.zipfKeys(n, 100000, 1.1, 1)
    val ts = CoreBench.timestamps(n, 2)
    val mx = java.lang.management.ManagementFactory.getThreadMXBean
    val rates = (0 until 5).map { _ =>
      val t0 = mx.getCurrentThreadCpuTime
      ecmRw(keys, ts, n)
      n / ((mx.getCurrentThreadCpuTime - t0) / 1e9)
    }
    println(f"ECM-RW updates/s (thread CPU time), $n%,d events: ${rates.map(r => f"$r%,.0f").mkString(" ")}; median ${CoreBench.median(rates)}%,.0f")
    rows(keys, ts, n, if (args.length > 0) args(0).toInt else 10000000).foreach { case (a, b, c) => println(s"$a: $b ($c)") }
  }
}
