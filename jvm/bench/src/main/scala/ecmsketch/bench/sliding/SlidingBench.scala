package ecmsketch.bench.sliding

import java.nio.file.{Files, Paths}

import scala.collection.mutable.ArrayBuffer

import ecmsketch.bench.CoreBench
import ecmsketch.core.{Codec, KeyType, WindowSpec}
import ecmsketch.ecm.{EcmKind, EcmSketch, QueryKind}
import ecmsketch.hash.Hashing
import ecmsketch.eh.ExpHistogram

/** ECM-EH beside Sl-CM (the Sliding sketch's Count-Min, [[SlidingCM]]) and HSS-CM (the Half Sliding
  * Sketch's Count-Min, [[HalfSlidingCM]]) at equal memory.
  *
  * Memory is counted as what each structure really holds: Sl-CM and HSS-CM their 32-bit counters
  * ([[SlidingCM.bytesHeld]], [[HalfSlidingCM.bytesHeld]]), ECM-EH its serialized bytes, the largest size it reaches at
  * any checkpoint. For every budget, ECM's epsilon is the smallest (found by bisection) whose
  * sketch stays within the budget on that stream; both use 3 rows (ECM delta = 0.05, no merge
  * budget: Sl-CM does not merge); HSS-CM has the 6 arrays and 3 queried of its prototype. At each checkpoint every key seen so far is queried over the full
  * window (Sl-CM's only query): error |estimate - true| over the window's L1 (average and maximum),
  * the average relative error over keys present in the window (the Sliding sketch paper's ARE),
  * and the share of answers beyond ECM's certified point bound (epsilon x L1, probability 1 - delta).
  * Ranges r < N are then answered by ECM only. Updates/s come from interleaved runs.
  *
  *   sbt "bench/runMain ecmsketch.bench.sliding.SlidingBench [events] [reps]"
  * writes bench/results/sliding.{md,json}; bench/sliding_figures.py draws docs/figures/sliding_*.png.
  */
object SlidingBench {
  final case class Stream(name: String, countWindow: Boolean, window: Long, keys: Array[Long], ts: Array[Long]) {
    def windowType: String = if (countWindow) "count" else "time"
    def label: String = s"$name, $windowType window"
  }

  final case class Errors(avg: Double, max: Double, are: Double, beyond: Double, queries: Int)

  val Budgets: Seq[Long] = Seq(16L << 10, 64L << 10, 256L << 10, 1L << 20, 4L << 20)
  val Depth = 3
  val EcmDelta = 0.05 // ceil(ln 20) = 3 rows
  val Ranges: Seq[Double] = Seq(0.1, 0.5) // fractions of the window

  /** Zipf keys (s = 1.1 over 100,000 keys). */
  def zipf(n: Int, seed: Long): Array[Long] = CoreBench.zipfKeys(n, 100000, 1.1, seed)

  /** Bursty keys: Zipf background; in 30% of the segments of 10,000 events a fresh key takes half the events. */
  def bursty(n: Int, seed: Long): Array[Long] = {
    val base = zipf(n, seed)
    val rnd = new java.util.SplittableRandom(seed ^ 0xB0B5L)
    var seg = 0
    while (seg * 10000 < n) {
      if (rnd.nextInt(10) < 3) {
        val k = 1000000L + seg
        var i = seg * 10000
        while (i < math.min(n, (seg + 1) * 10000)) { if (rnd.nextBoolean()) base(i) = k; i += 1 }
      }
      seg += 1
    }
    base
  }

  def streams(n: Int, window: Long): Seq[Stream] = {
    val seq = Array.tabulate(n)(i => i + 1L)
    val times = CoreBench.timestamps(n, 21L) // bursts of equal stamps, about one event per tick
    val perTick = n.toDouble / (times.last + 1)
    val tw = math.max(1L, (window / perTick).toLong)
    val z = zipf(n, 11L); val b = bursty(n, 12L)
    Seq(Stream("zipf", countWindow = true, window, z, seq), Stream("zipf", countWindow = false, tw, z, times),
      Stream("bursty", countWindow = true, window, b, seq), Stream("bursty", countWindow = false, tw, b, times))
  }

  def checkpoints(n: Int): Seq[Int] = Seq(0.55, 0.7, 0.85, 1.0).map(f => (n * f).toInt - 1)

  def ecm(st: Stream, eps: Double): EcmSketch = {
    val s = EcmSketch.create(WindowSpec(st.countWindow, tsMicros = false, st.window), eps, EcmDelta, QueryKind.Point, 0, 1L)
    s.setKeyType(KeyType.Long)
    s
  }

  def ecmBytes(s: EcmSketch): Int = Codec.encode(EcmKind, s).length

  /** The size of a sketch: its serialized bytes, or (`heap`) its estimated heap bytes ([[heapEstimate]]). */
  def size(s: EcmSketch, heap: Boolean): Long = if (heap) heapEstimate(s) else ecmBytes(s).toLong

  /** Builds ECM with `eps` over the stream; its largest size at the checkpoints. */
  def ecmMaxBytes(st: Stream, eps: Double, fps: Array[Long], ones: Array[Long], heap: Boolean = false): Long = {
    val s = ecm(st, eps)
    var from = 0
    var maxB = 0L
    checkpoints(st.keys.length).foreach { c =>
      s.addSortedBatch(fps, st.ts, ones, from, c + 1); from = c + 1
      maxB = math.max(maxB, size(s, heap))
    }
    maxB
  }

  /** The smallest epsilon whose ECM stays within `budget` on the stream, in serialized or (`heap`)
    * heap bytes (None: not even eps = 0.9).
    */
  def fitEps(st: Stream, budget: Long, fps: Array[Long], ones: Array[Long], heap: Boolean = false): Option[Double] = {
    var hi = 0.9
    if (ecmMaxBytes(st, hi, fps, ones, heap) > budget) return None
    var lo = ecmsketch.core.Bounds.MinEpsilon
    if (ecmMaxBytes(st, lo, fps, ones, heap) <= budget) return Some(lo)
    var it = 0
    while (it < 9 && hi / lo > 1.02) {
      val mid = math.sqrt(lo * hi)
      if (ecmMaxBytes(st, mid, fps, ones, heap) <= budget) hi = mid else lo = mid
      it += 1
    }
    Some(hi)
  }

  /** Exact weights of the keys with ts in (ts(c) - r, ts(c)] among events [0, c]. */
  def exact(st: Stream, c: Int, r: Long): java.util.HashMap[Long, Long] = {
    val m = new java.util.HashMap[Long, Long]()
    val lo = st.ts(c) - r
    var i = c
    while (i >= 0 && st.ts(i) > lo) { m.merge(st.keys(i), 1L, (a: Long, b: Long) => a + b); i -= 1 }
    m
  }

  final class Acc {
    private val rows = ArrayBuffer[Errors]()
    def add(est: Array[Double], truth: Array[Long], l1: Long, bound: Double): Unit = {
      var sum = 0.0; var mx = 0.0; var are = 0.0; var present = 0; var beyond = 0
      var i = 0
      while (i < est.length) {
        val e = math.abs(est(i) - truth(i))
        sum += e; mx = math.max(mx, e)
        if (truth(i) > 0) { are += e / truth(i); present += 1 }
        if (e > bound * l1 + 1e-9) beyond += 1
        i += 1
      }
      rows += Errors(sum / est.length / l1, mx / l1, are / math.max(1, present), beyond.toDouble / est.length, est.length)
    }
    def result: Errors = Errors(rows.map(_.avg).sum / rows.size, rows.map(_.max).max, rows.map(_.are).sum / rows.size,
      rows.map(_.beyond).sum / rows.size, rows.map(_.queries).sum)
  }

  final case class Row(st: Stream, budget: Long, eps: Option[Double], ecmBytes: Long, ecmBound: Double, ecmShape: String,
                       slBytes: Long, slShape: String, ecmFull: Option[Errors], slFull: Errors,
                       ecmRanges: Seq[(Double, Errors)], hsBytes: Long, hsShape: String, hsFull: Errors,
                       ecmHeap: Long, ecmBuckets: Long)

  def evaluate(st: Stream, budget: Long, fps: Array[Long], ones: Array[Long]): Row = {
    val n = st.keys.length
    val eps = fitEps(st, budget, fps, ones)
    val e = eps.map(ecm(st, _))
    val sl = SlidingCM.withinBytes(budget, Depth, st.window)
    val hs = HalfSlidingCM.withinBytes(budget, st.window)
    val bound = e.map(_.pointErrorBound).getOrElse(Double.NaN)
    val accE = new Acc; val accS = new Acc; val accH = new Acc
    val accR = Ranges.map(_ -> new Acc)
    val seen = new java.util.HashSet[Long]()
    var maxB = 0L
    var heapAtMax = 0L; var bucketsAtMax = 0L
    var from = 0
    checkpoints(n).foreach { c =>
      var i = from
      while (i <= c) { sl.add(st.keys(i), st.ts(i)); hs.add(st.keys(i), st.ts(i)); seen.add(st.keys(i)); i += 1 }
      e.foreach { s =>
        s.addSortedBatch(fps, st.ts, ones, from, c + 1)
        val b = ecmBytes(s).toLong
        if (b > maxB) { maxB = b; heapAtMax = heapEstimate(s); bucketsAtMax = bucketCount(s) }
      }
      from = c + 1
      val keys = seen.toArray(new Array[java.lang.Long](0)).map(_.longValue)
      val ex = exact(st, c, st.window)
      val truth = keys.map(k => ex.getOrDefault(k, 0L))
      val l1 = truth.sum
      accS.add(keys.map(k => sl.query(k).toDouble), truth, l1, bound)
      accH.add(keys.map(k => hs.query(k).toDouble), truth, l1, bound)
      e.foreach { s =>
        accE.add(keys.map(k => s.pointFingerprint(Hashing.fingerprintLong(k), null, null)), truth, l1, bound)
        accR.foreach { case (f, acc) =>
          val r = math.max(1L, (st.window * f).toLong)
          val exR = exact(st, c, r)
          val tR = keys.map(k => exR.getOrDefault(k, 0L))
          acc.add(keys.map(k => s.pointFingerprint(Hashing.fingerprintLong(k), java.lang.Long.valueOf(r), null)), tR,
            math.max(1L, tR.sum), bound)
        }
      }
    }
    Row(st, budget, eps, maxB, bound, e.map(s => s"${s.plan.width}x${s.plan.depth}, cell eps ${fmt(s.plan.cellEpsilon)}").getOrElse("-"),
      sl.bytesHeld, s"${sl.width}x${sl.depth}x${sl.fields}", e.map(_ => accE.result), accS.result,
      if (e.isEmpty) Nil else accR.map { case (f, a) => f -> a.result },
      hs.bytesHeld, s"${hs.width}x${hs.depth}, ${hs.queried} queried", accH.result, heapAtMax, bucketsAtMax)
  }

  final case class HeapRow(eps: Option[Double], heap: Long, serialized: Long, bound: Double, shape: String, full: Option[Errors])

  /** ECM-EH sized by its estimated heap instead of its serialized bytes: the smallest epsilon whose
    * heap stays within `budget`, and its full-window errors (the same queries as [[evaluate]]).
    */
  def evaluateHeap(st: Stream, budget: Long, fps: Array[Long], ones: Array[Long]): HeapRow = {
    val eps = fitEps(st, budget, fps, ones, heap = true)
    eps match {
      case None => HeapRow(None, 0L, 0L, Double.NaN, "-", None)
      case Some(x) =>
        val s = ecm(st, x)
        val acc = new Acc
        val seen = new java.util.HashSet[Long]()
        var maxH = 0L; var ser = 0L
        var from = 0
        checkpoints(st.keys.length).foreach { c =>
          var i = from
          while (i <= c) { seen.add(st.keys(i)); i += 1 }
          s.addSortedBatch(fps, st.ts, ones, from, c + 1); from = c + 1
          val h = heapEstimate(s)
          if (h > maxH) { maxH = h; ser = ecmBytes(s).toLong }
          val keys = seen.toArray(new Array[java.lang.Long](0)).map(_.longValue)
          val ex = exact(st, c, st.window)
          val truth = keys.map(k => ex.getOrDefault(k, 0L))
          acc.add(keys.map(k => s.pointFingerprint(Hashing.fingerprintLong(k), null, null)), truth, truth.sum, s.pointErrorBound)
        }
        HeapRow(eps, maxH, ser, s.pointErrorBound, s"${s.plan.width}x${s.plan.depth}", Some(acc.result))
    }
  }

  private def ehCells(s: EcmSketch): Seq[ExpHistogram] = s.cells.toSeq.collect { case h: ExpHistogram => h }

  /** EH buckets held by the sketch's cells. */
  def bucketCount(s: EcmSketch): Long = ehCells(s).map(_.bucketCount.toLong).sum

  /** Estimated heap bytes of the sketch's cells as held today (64-bit JVM, compressed references):
    * per cell its object (96 bytes with its fields), its level arrays (heads, sizes: 16 + 4 per
    * level; the ring references: 16 + 4 per level) and each level's ring of 8-byte bucket end
    * timestamps (16 + 8 per slot); plus the array of cells (16 + 4 per cell). Segment arrays are
    * left out (these sketches are not concatenations).
    */
  def heapEstimate(s: EcmSketch): Long = {
    val cells = ehCells(s)
    16L + 4L * s.plan.width * s.plan.depth + cells.map { h =>
      val lv = h.allocatedLevels.toLong
      96L + 3L * (16L + 4L * lv) + 16L * h.ringCount + 8L * h.allocatedSlots
    }.sum
  }

  /** Updates/s of Sl-CM, ECM one add at a time and ECM fed in sorted batches, at `budget`
    * (interleaved, `reps` rounds after a warm-up; medians).
    */
  def throughput(st: Stream, budget: Long, reps: Int, fps: Array[Long], ones: Array[Long]): Seq[(String, Double)] = {
    val eps = fitEps(st, budget, fps, ones).getOrElse(0.9)
    val n = st.keys.length
    val runs: Seq[(String, () => Unit)] = Seq(
      "Sl-CM add" -> (() => { val s = SlidingCM.withinBytes(budget, Depth, st.window); var i = 0; while (i < n) { s.add(st.keys(i), st.ts(i)); i += 1 } }),
      "HSS-CM add" -> (() => { val s = HalfSlidingCM.withinBytes(budget, st.window); var i = 0; while (i < n) { s.add(st.keys(i), st.ts(i)); i += 1 } }),
      "ECM-EH add" -> (() => { val s = ecm(st, eps); var i = 0; while (i < n) { s.addFingerprint(fps(i), st.ts(i), 1L); i += 1 } }),
      "ECM-EH sorted batches (as ecm_agg)" -> (() => { val s = ecm(st, eps); var i = 0; while (i < n) { val u = math.min(n, i + 4096); s.addSortedBatch(fps, st.ts, ones, i, u); i = u } }))
    runs.foreach(_._2())
    val times = runs.map(_._1 -> ArrayBuffer[Double]()).toMap
    (1 to reps).foreach { _ => runs.foreach { case (name, f) => val t0 = System.nanoTime(); f(); times(name) += (System.nanoTime() - t0) / 1e9 } }
    runs.map { case (name, _) => name -> n / CoreBench.median(times(name).toSeq) }
  }

  def fmt(x: Double): String = if (x.isNaN) "-" else if (x == 0) "0" else if (x >= 0.01) f"$x%.4f" else f"$x%.2e"
  def kb(b: Long): String = if (b >= (1L << 20)) s"${b >> 20} MB" else s"${b >> 10} KB"

  def errJson(e: Errors): String =
    s"""{"avg": ${e.avg}, "max": ${e.max}, "are": ${e.are}, "beyond_bound": ${e.beyond}, "queries": ${e.queries}}"""

  def main(args: Array[String]): Unit = {
    val n = if (args.length > 0) args(0).toInt else 600000 // the size behind docs/design/EXPERIMENTS.md and bench/results/sliding.md
    val reps = if (args.length > 1) args(1).toInt else 3
    val window = math.max(1000L, n / 10L)
    val rows = ArrayBuffer[Row]()
    val heapRows = scala.collection.mutable.Map[Row, HeapRow]()
    val md = new StringBuilder
    md ++= s"# ECM-EH vs Sl-CM and HSS-CM at equal memory ($n events, window ${window} events or the time span holding about as many; " +
      s"java ${System.getProperty("java.version")}, ${Runtime.getRuntime.availableProcessors} cores)\n\n"
    md ++= "Errors over the window's L1 (avg / max over all keys seen, averaged / maxed over 4 checkpoints); ARE: average relative " +
      "error over keys in the window; beyond: share of answers beyond ECM's certified bound.\n\n"
    md ++= "| stream | budget | ECM eps (array) | ECM bytes | ECM avg | ECM max | ECM ARE | ECM beyond | Sl-CM (w x d x k) | Sl-CM bytes | Sl-CM avg | Sl-CM max | Sl-CM ARE | Sl-CM beyond | HSS-CM (w x d) | HSS-CM avg | HSS-CM max | HSS-CM ARE | HSS-CM beyond |\n"
    md ++= "|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n"
    val all = streams(n, window)
    val tp = ArrayBuffer[(String, String, Seq[(String, Double)])]()
    all.foreach { st =>
      val fps = st.keys.map(Hashing.fingerprintLong)
      val ones = Array.fill(n)(1L)
      Budgets.foreach { b =>
        val r = evaluate(st, b, fps, ones)
        rows += r
        heapRows(r) = evaluateHeap(st, b, fps, ones)
        def c(e: Option[Errors], f: Errors => Double) = e.map(x => fmt(f(x))).getOrElse("-")
        val line = s"| ${st.label} | ${kb(b)} | ${r.eps.map(fmt).getOrElse("does not fit")} (${r.ecmShape}) | ${r.ecmBytes} | " +
          s"${c(r.ecmFull, _.avg)} | ${c(r.ecmFull, _.max)} | ${c(r.ecmFull, _.are)} | ${c(r.ecmFull, _.beyond)} | ${r.slShape} | ${r.slBytes} | " +
          s"${fmt(r.slFull.avg)} | ${fmt(r.slFull.max)} | ${fmt(r.slFull.are)} | ${fmt(r.slFull.beyond)} | " +
          s"${r.hsShape} | ${fmt(r.hsFull.avg)} | ${fmt(r.hsFull.max)} | ${fmt(r.hsFull.are)} | ${fmt(r.hsFull.beyond)} |"
        println(line); md ++= line + "\n"
      }
      if (st.name == "zipf") Seq(64L << 10, 1L << 20).foreach { b => tp += ((st.label, kb(b), throughput(st, b, reps, fps, ones))) }
    }
    md ++= "\n## ECM-EH in memory: estimated heap beside serialized bytes\n\n" +
      "Heap as held today (8-byte bucket end timestamps in per-level rings, see SlidingBench.heapEstimate) at the checkpoint " +
      "of largest serialized size; bytes per bucket show what delta-coding the timestamps in memory could save.\n\n" +
      "| stream | budget | buckets | serialized | heap (est.) | heap / serialized | serialized per bucket | heap per bucket |\n|---|---|---:|---:|---:|---:|---:|---:|\n"
    rows.filter(_.ecmBuckets > 0).foreach { r =>
      md ++= f"| ${r.st.label} | ${kb(r.budget)} | ${r.ecmBuckets} | ${r.ecmBytes} | ${r.ecmHeap} | ${r.ecmHeap.toDouble / r.ecmBytes}%.2f | " +
        f"${r.ecmBytes.toDouble / r.ecmBuckets}%.2f | ${r.ecmHeap.toDouble / r.ecmBuckets}%.2f |\n"
    }
    md ++= "\n## ECM-EH sized by its heap instead of its serialized bytes\n\n" +
      "The smallest epsilon whose estimated heap stays within the budget (the bytes it really holds in memory, as Sl-CM's and " +
      "HSS-CM's counters are), full-window errors over L1 as above.\n\n" +
      "| stream | budget | ECM eps (array) | heap (est.) | serialized | certified bound | ECM avg | ECM max | ECM ARE | ECM beyond | Sl-CM avg | HSS-CM avg |\n" +
      "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    rows.foreach { r =>
      val h = heapRows(r)
      def c(f: Errors => Double) = h.full.map(x => fmt(f(x))).getOrElse("-")
      md ++= s"| ${r.st.label} | ${kb(r.budget)} | ${h.eps.map(fmt).getOrElse("does not fit")} (${h.shape}) | ${h.heap} | ${h.serialized} | " +
        s"${fmt(h.bound)} | ${c(_.avg)} | ${c(_.max)} | ${c(_.are)} | ${c(_.beyond)} | ${fmt(r.slFull.avg)} | ${fmt(r.hsFull.avg)} |\n"
    }
    md ++= "\n## Ranges r < N (ECM only: Sl-CM and HSS-CM answer only the full window)\n\n| stream | budget | r / N | avg / L1(r) | max / L1(r) | ARE | beyond bound |\n|---|---|---:|---:|---:|---:|---:|\n"
    rows.foreach { r => r.ecmRanges.foreach { case (f, e) =>
      md ++= s"| ${r.st.label} | ${kb(r.budget)} | $f | ${fmt(e.avg)} | ${fmt(e.max)} | ${fmt(e.are)} | ${fmt(e.beyond)} |\n" } }
    md ++= s"\n## Updates/s (median of $reps interleaved runs)\n\n| stream | budget | structure | M updates/s |\n|---|---|---|---:|\n"
    tp.foreach { case (l, b, xs) => xs.foreach { case (name, v) => md ++= f"| $l | $b | $name | ${v / 1e6}%.2f |\n" } }
    print("#" + md.toString.split("\n## Ranges")(1))
    val json = rows.map { r =>
      s"""{"stream": "${r.st.name}", "window_type": "${r.st.windowType}", "window": ${r.st.window}, "budget": ${r.budget}, """ +
        s""""ecm_eps": ${r.eps.getOrElse("null")}, "ecm_bound": ${if (r.ecmBound.isNaN) "null" else r.ecmBound}, "ecm_bytes": ${r.ecmBytes}, """ +
        s""""ecm_shape": "${r.ecmShape}", "sl_bytes": ${r.slBytes}, "sl_shape": "${r.slShape}", """ +
        s""""ecm": ${r.ecmFull.map(errJson).getOrElse("null")}, "slcm": ${errJson(r.slFull)}, """ +
        s""""hss_bytes": ${r.hsBytes}, "hss_shape": "${r.hsShape}", "hsscm": ${errJson(r.hsFull)}, """ +
        s""""ecm_heap_est": ${r.ecmHeap}, "ecm_buckets": ${r.ecmBuckets}, """ +
        { val h = heapRows(r); s""""ecm_by_heap": {"eps": ${h.eps.getOrElse("null")}, "heap": ${h.heap}, "serialized": ${h.serialized}, """ +
          s""""bound": ${if (h.bound.isNaN) "null" else h.bound}, "errors": ${h.full.map(errJson).getOrElse("null")}}, """ } +
        s""""ecm_ranges": {${r.ecmRanges.map { case (f, e) => s""""$f": ${errJson(e)}""" }.mkString(", ")}}}"""
    }.mkString("[\n  ", ",\n  ", "\n]")
    val tpJson = tp.flatMap { case (l, b, xs) => xs.map { case (name, v) => s"""{"stream": "$l", "budget": "$b", "structure": "$name", "updates_per_s": $v}""" } }
      .mkString("[\n  ", ",\n  ", "\n]")
    val dir = Paths.get("bench", "results")
    Files.createDirectories(dir)
    Files.writeString(dir.resolve("sliding.md"), md.toString)
    Files.writeString(dir.resolve("sliding.json"), s"""{"events": $n, "window": $window, "depth": $Depth, "rows": $json, "throughput": $tpJson}\n""")
  }
}
