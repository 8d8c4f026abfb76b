package ecmsketch.bench

import ecmsketch.dwave.DwCellKind
import ecmsketch.rwave.RwCellKind
import ecmsketch.ecm.EcmOps

import java.nio.file.{Files, Paths}

import ecmsketch.core.WindowSpec
import ecmsketch.dwave.{DetWave, DwConfig}
import ecmsketch.ecm.{EcmSketch, Planner, QueryKind}
import ecmsketch.format.SketchCodec
import ecmsketch.eh.{EhConfig, ExpHistogram}

/** Single-thread throughput and size of the core (paper Table 3 setting: eps = 0.1, delta = 0.1,
  * window 10^6 time units). Prints a table and writes bench/results/core.{md,json}. Run with
  * `make bench` (sbt "bench/runMain ecmsketch.bench.CoreBench [events] [reps]"; "CoreBench order
  * [rows] [reps]" runs only the row-order rows).
  */
object CoreBench {
  def zipfKeys(n: Int, distinct: Int, s: Double, seed: Long): Array[Long] = {
    val rnd = new java.util.SplittableRandom(seed)
    val cdf = new Array[Double](distinct)
    var acc = 0.0
    var i = 0
    while (i < distinct) { acc += 1.0 / math.pow(i + 1, s); cdf(i) = acc; i += 1 }
    Array.tabulate(n) { _ =>
      var k = java.util.Arrays.binarySearch(cdf, rnd.nextDouble() * acc)
      if (k < 0) k = -k - 1
      math.min(k, distinct - 1).toLong
    }
  }

  /** Bursty non-decreasing timestamps: ~10 events per time unit on average, bursts of equal stamps. */
  def timestamps(n: Int, seed: Long): Array[Long] = {
    val rnd = new java.util.SplittableRandom(seed)
    val ts = new Array[Long](n)
    var t = 0L
    var i = 0
    while (i < n) { if (rnd.nextInt(10) == 0) t += rnd.nextInt(1, 20); ts(i) = t; i += 1 }
    ts
  }

  def median(xs: Seq[Double]): Double = { val s = xs.sorted; s(s.size / 2) }

  /** ECM-EH (eps = delta = 0.1, 1 planned merge level, as ecm_agg plans it) with `window`, built
    * through the ingest layer from `n` rows of range(n) (key = ts) in time order, reversed and
    * shuffled, the three interleaved in each of `reps` rounds (plus one warm-up): median ns/row,
    * depth and bound.
    */
  def orderRows(n: Int, reps: Int, window: Long): Seq[(String, String, String)] = {
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = window)
    val wName = if (window >= n) "all rows" else f"${window.toDouble}%.0e"
    val ops = new EcmOps(() => EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, 1L), ecmsketch.core.KeyType.Long)
    val inTs = Array.tabulate(n)(_.toLong)
    val inFp = inTs.map(ecmsketch.hash.Hashing.fingerprintLong)
    val rvTs = inTs.reverse; val rvFp = inFp.reverse
    val perm = Array.tabulate(n)(identity)
    val rnd = new java.util.SplittableRandom(7)
    var k = n - 1
    while (k > 0) { val j = rnd.nextInt(k + 1); val x = perm(k); perm(k) = perm(j); perm(j) = x; k -= 1 }
    val shTs = perm.map(inTs(_)); val shFp = perm.map(inFp(_))
    val orders = Seq(("in order", inTs, inFp), ("reversed", rvTs, rvFp), ("shuffled", shTs, shFp))
    val times = orders.map(_._1 -> scala.collection.mutable.ArrayBuffer[Double]()).toMap
    val info = scala.collection.mutable.Map[String, String]()
    for (rep <- 0 to reps; (name, ts, fp) <- orders) {
      val ing = new ecmsketch.ingest.Ingest(ops, spec.window)
      val t0 = System.nanoTime()
      var i = 0
      while (i < n) { ing.add(fp(i), ts(i), 1L); i += 1 }
      val r = ing.result()
      val dt = System.nanoTime() - t0
      if (rep > 0) times(name) += dt.toDouble / n
      info(name) = f"depth ${r.mergeDepth}, bound ${r.pointErrorBound}%.4f, ${ing.late}%,d late, ${ing.dropped}%,d dropped, ${ing.sideRunCount} side runs"
    }
    val base = median(times("in order").toSeq)
    orders.map { case (name, _, _) =>
      val m = median(times(name).toSeq)
      (s"ECM-EH via ingest, $name, window $wName (ns/row)", f"$m%.1f", s"${info(name)}; ${"%.2f".format(m / base)}x in order; $n rows, eps=delta=0.1")
    }
  }

  /** Heap of 10,000 ECM-EH sketches (eps = delta = 0.1) of 1,000 rows each, as a GROUP BY holds
    * them (one batch of sorted rows each, timestamps spread over 10^7 with window 10^6), against
    * their serialized bytes.
    */
  def manySmallSketches(): (String, String, String) = {
    val groups = 10000; val rows = 1000
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = 1000000L)
    val rnd = new java.util.SplittableRandom(1)
    val fp = new Array[Long](rows); val ts = new Array[Long](rows); val vs = Array.fill(rows)(1L)
    def build(): Array[EcmSketch] = Array.tabulate(groups) { g =>
      var i = 0
      while (i < rows) { fp(i) = rnd.nextLong(); ts(i) = i.toLong * 10000 + g; i += 1 }
      val s = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, 1L)
      s.addSortedBatch(fp, ts, vs, 0, rows)
      s
    }
    build() // warm-up: thread-local scratch space is allocated here, not counted below
    val (heap, sketches) = ecmsketch.rwave.RwHeapBench.heapOf(() => build())
    val bytes = sketches.map(s => SketchCodec.encode(s).length.toLong).sum
    ("10,000 ECM-EH sketches of 1,000 rows (a GROUP BY's buffers): heap per sketch / serialized",
      f"${heap / 1e3 / groups}%.1f KB / ${bytes / 1e3 / groups}%.2f KB",
      "eps = delta = 0.1; 58.3 KB before per-thread batch scratch (one run, same session)")
  }

  def main(args: Array[String]): Unit = {
    // `small`: only the heap of many small sketches, printed
    if (args.headOption.contains("small")) { val (a, b, c) = manySmallSketches(); println(s"| $a | $b | $c |"); return }
    // `order [rows] [reps]`: only the row-order rows, printed
    if (args.headOption.contains("order")) {
      val n = if (args.length > 1) args(1).toInt else 10000000
      val reps = if (args.length > 2) args(2).toInt else 5
      (orderRows(n, reps, 1000000L) ++ orderRows(n, reps, 1L << 40)).foreach { case (a, b, c) => println(s"| $a | $b | $c |") }
      return
    }
    val n = if (args.length > 0) args(0).toInt else 10000000
    val reps = if (args.length > 1) args(1).toInt else 5
    val keys = zipfKeys(n, 100000, 1.1, 1)
    val ts = timestamps(n, 2)
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = 1000000L)
    /** `runs` timed builds of an ECM-sketch with `plan` over the first `events` events: the rates
      * (updates/s) and the last sketch built.
      */
    def ecmRuns(plan: ecmsketch.ecm.EcmPlan, events: Int, runs: Int): (Seq[Double], EcmSketch) = {
      var last: EcmSketch = null
      val rates = (0 until runs).map { _ =>
        val s = EcmSketch.create(spec, plan, 1L)
        val t0 = System.nanoTime()
        var i = 0
        while (i < events) { s.add(keys(i), ts(i), 1L); i += 1 }
        val dt = (System.nanoTime() - t0) / 1e9
        last = s
        events / dt
      }
      (rates, last)
    }
    val rows = scala.collection.mutable.ArrayBuffer[(String, String, String)]()

    // ECM-EH updates/s (Table 3: 1,486,314/s on wc'98 at eps = 0.1)
    val (ecmRates, last) = ecmRuns(Planner.plan(0.1, 0.1, QueryKind.Point, 0), n, reps)
    val bytes = SketchCodec.encode(last)
    rows += (("ECM-EH updates/s (eps=0.1, delta=0.1)", f"${median(ecmRates)}%,.0f", "paper 1,486,314; aim >= 3,000,000"))
    rows += (("ECM-EH updates/s, min..max of runs", f"${ecmRates.min}%,.0f .. ${ecmRates.max}%,.0f", s"$reps runs of $n"))
    rows += ((f"ECM-EH serialized bytes after $n%,d events", f"${bytes.length}%,d", "paper: < 1 MB"))
    rows += (("ECM-EH array", s"${last.width} x ${last.depth}, cell eps ${"%.4f".format(last.cellEpsilon)}", "journal split, 0 merge levels"))

    // The same stream through the ingest layer (reorder buffer), as the SQL aggregate feeds it
    val ops = new EcmOps(() => EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 0, 1L), ecmsketch.core.KeyType.Long)
    val fps = keys.map(ecmsketch.hash.Hashing.fingerprintLong)
    val ingestRates = (0 until reps).map { _ =>
      val ing = new ecmsketch.ingest.Ingest(ops, spec.window)
      val t0 = System.nanoTime()
      var i = 0
      while (i < n) { ing.add(fps(i), ts(i), 1L); i += 1 }
      ing.result()
      n / ((System.nanoTime() - t0) / 1e9)
    }
    rows += (("ECM-EH via ingest (reorder buffer) updates/s", f"${median(ingestRates)}%,.0f", "sorted input, as ecm_agg feeds it"))

    // Rows in any order (docs/design/rows-in-any-order.md, "Rows in any order"): ecm_agg's plan (one merge level),
    // window 1e6, ts = 0 .. n-1 (range(n)) in time order, reversed and shuffled, interleaved per rep
    orderRows(n, reps, 1000000L).foreach(rows += _)
    // ... and with a window covering every row (no row is dropped: every late row goes into side runs)
    orderRows(n, reps, 1L << 40).foreach(rows += _)

    // EH alone
    val ehRates = (0 until reps).map { _ =>
      val h = new ExpHistogram(EhConfig(0.1, 1000000L))
      val t0 = System.nanoTime()
      var i = 0
      while (i < n) { h.add(ts(i)); i += 1 }
      n / ((System.nanoTime() - t0) / 1e9)
    }
    rows += (("EH updates/s (eps=0.1)", f"${median(ehRates)}%,.0f", "single counter"))

    // Deterministic waves: ECM-DW (Table 3: 1,167,704/s) and a wave alone
    val dwPlan = Planner.plan(0.1, 0.1, QueryKind.Point, 0, DwCellKind.id)
    val (dwRates, lastDw) = ecmRuns(dwPlan, n, reps)
    rows += (("ECM-DW updates/s (eps=0.1, delta=0.1)", f"${median(dwRates)}%,.0f", f"paper 1,167,704; ratio to ECM-EH ${median(dwRates) / median(ecmRates)}%.2f"))
    rows += ((f"ECM-DW serialized bytes after $n%,d events", f"${SketchCodec.encode(lastDw).length}%,d", f"ECM-EH: ${bytes.length}%,d"))
    val waveRates = (0 until reps).map { _ =>
      val w = new DetWave(DwConfig(0.1, 1000000L, DwConfig.Unbounded))
      val t0 = System.nanoTime()
      var i = 0
      while (i < n) { w.add(ts(i)); i += 1 }
      n / ((System.nanoTime() - t0) / 1e9)
    }
    rows += (("DW updates/s (eps=0.1)", f"${median(waveRates)}%,.0f", f"single counter; EH/DW ${median(ehRates) / median(waveRates)}%.2f"))

    // Randomized waves: ECM-RW (Table 3: 177,149/s). Its memory grows as 1/eps^2 per level and
    // instance (the paper's run took 400 MB), so it runs on the first rwEvents events, beside ECM-EH
    // and ECM-DW on the same prefix.
    val rwEvents = math.min(n, 300000)
    val rwPlan = Planner.plan(0.1, 0.1, QueryKind.Point, 0, RwCellKind.id)
    val (rwRates, lastRw) = ecmRuns(rwPlan, rwEvents, math.min(reps, 3))
    def prefixBytes(plan: ecmsketch.ecm.EcmPlan): Int = SketchCodec.encode(ecmRuns(plan, rwEvents, 1)._2).length
    val ehPrefix = prefixBytes(Planner.plan(0.1, 0.1, QueryKind.Point, 0))
    val dwPrefix = prefixBytes(dwPlan)
    val rwBytes = SketchCodec.encode(lastRw).length
    rows += (("ECM-RW updates/s (eps=0.1, delta=0.1)", f"${median(rwRates)}%,.0f",
      f"paper 177,149; ${rwEvents}%,d events; ratio to ECM-EH ${median(rwRates) / median(ecmRates)}%.3f"))
    rows += ((f"serialized bytes after ${rwEvents}%,d events: EH / DW / RW", f"$ehPrefix%,d / $dwPrefix%,d / $rwBytes%,d",
      f"RW/EH = ${rwBytes.toDouble / ehPrefix}%.0fx (paper: RW >= 10x); RW ${lastRw.width} x ${lastRw.depth}, " +
        f"${rwPlan.cellDelta}%.4f cell delta"))
    // heap against serialized size: ECM-RW after rwEvents events, a distinct sketch of ~1M values
    rows ++= ecmsketch.rwave.RwHeapBench.rows(keys, ts, rwEvents, 10000000)
    rows += manySmallSketches()

    // Merge of 33 site sketches (order-preserving, n-way)
    val sites = (0 until 33).map { site =>
      val s = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, 1L)
      var i = site
      while (i < n) { s.add(keys(i), ts(i), 1L); i += 33 }
      s
    }
    val mergeTimes = (0 until reps).map { _ =>
      val t0 = System.nanoTime(); EcmSketch.merge(sites); (System.nanoTime() - t0) / 1e6
    }
    val merged = EcmSketch.merge(sites)
    rows += (("merge of 33 site sketches (ms)", f"${median(mergeTimes)}%.1f", s"merged ${SketchCodec.encode(merged).length} bytes, depth ${merged.mergeDepth}"))
    // query latency
    val qTimes = (0 until reps).map { _ =>
      val t0 = System.nanoTime(); var k = 0L; var acc = 0.0
      while (k < 10000) { acc += merged.point(k, 1000L, null); k += 1 }
      (System.nanoTime() - t0) / 1e3 / 10000
    }
    rows += (("point query latency (us)", f"${median(qTimes)}%.2f", "range 1000 on the merged sketch"))

    val w1 = rows.map(_._1.length).max; val w2 = rows.map(_._2.length).max
    val table = (Seq(s"| ${"measure".padTo(w1, ' ')} | ${"median".padTo(w2, ' ')} | note |", s"|${"-" * (w1 + 2)}|${"-" * (w2 + 2)}|------|") ++
      rows.map { case (a, b, c) => s"| ${a.padTo(w1, ' ')} | ${b.padTo(w2, ' ')} | $c |" }).mkString("\n")
    println(table)
    val dir = Paths.get("bench", "results")
    Files.createDirectories(dir)
    val env = s"java ${System.getProperty("java.version")}, ${Runtime.getRuntime.availableProcessors()} cores"
    Files.writeString(dir.resolve("core.md"), s"# Core benchmark ($env, $n events, $reps runs, medians)\n\n$table\n")
    val json = rows.map { case (a, b, c) => s"""  {"measure": "$a", "median": "$b", "note": "$c"}""" }.mkString("[\n", ",\n", "\n]\n")
    Files.writeString(dir.resolve("core.json"), json)
  }
}
