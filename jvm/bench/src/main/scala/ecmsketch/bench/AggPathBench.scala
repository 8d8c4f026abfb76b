package ecmsketch.bench

import ecmsketch.ecm.EcmOps

import ecmsketch.core.{KeyType, WindowSpec}
import ecmsketch.ecm.{EcmSketch, Planner, QueryKind}
import ecmsketch.hash.Hashing
import ecmsketch.ingest.Ingest

/** The work of `ecm_agg(key, ts, 1000000, eps, eps)` over the Spark benchmark's rows without Spark:
  * `parts` partial aggregates (one Ingest per partition, rows in time order or shuffled in each partition, one merge level planned
  * as in Spark), their serialization, and the final n-way merge and encoding. Prints the seconds of
  * each phase (medians of `reps`). Run with sbt "bench/runMain ecmsketch.bench.AggPathBench [rows] [reps] [eps,eps] [in|shuffled]".
  */
object AggPathBench {
  def main(args: Array[String]): Unit = {
    val n = if (args.length > 0) args(0).toInt else 10000000
    val reps = if (args.length > 1) args(1).toInt else 5
    val parts = 8
    val keys = CoreBench.zipfKeys(n, 100000, 1.1, 3)
    val fps = keys.map(Hashing.fingerprintLong)
    val ts = Array.tabulate(n)(i => (i / 10).toLong)
    // "shuffled": every partition's rows in a seeded random order (as after a shuffle or a join)
    val order = if (args.length > 3) args(3) else "in"
    if (order == "shuffled") {
      val rnd = new java.util.Random(11)
      for (p <- 0 until parts) {
        val lo = p * (n / parts); var i = (p + 1) * (n / parts) - 1
        while (i > lo) {
          val j = lo + rnd.nextInt(i - lo + 1)
          val t = ts(i); ts(i) = ts(j); ts(j) = t; val f = fps(i); fps(i) = fps(j); fps(j) = f
          i -= 1
        }
      }
    } else require(order == "in", s"order must be in or shuffled, got $order")
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = 1000000L)
    val epsList = if (args.length > 2) args(2).split(",").toSeq.map(_.toDouble) else Seq(0.1, 0.01)
    for (eps <- epsList) {
      val plan = Planner.plan(eps, eps, QueryKind.Point, 1)
      val ops = new EcmOps(() => EcmSketch.create(spec, plan, EcmSketch.DefaultSeed), KeyType.Long)
      val ingestT, serT, finalT, readT, mergeT, encT = new Array[Double](reps)
      var bytes = 0
      var depth = -1; var bound = 0.0
      for (r <- 0 until reps) {
        val t0 = System.nanoTime()
        val bundles = (0 until parts).map { p =>
          val ing = new Ingest(ops, spec.window)
          var i = p * (n / parts); val end = (p + 1) * (n / parts)
          while (i < end) { ing.add(fps(i), ts(i), 1L); i += 1 }
          ing
        }
        val t1 = System.nanoTime()
        val ser = bundles.map(_.serialize())
        val t2 = System.nanoTime()
        val fin = new Ingest(ops, spec.window)
        ser.foreach(b => fin.absorb(Ingest.deserialize(ops, spec.window, b)))
        val t3 = System.nanoTime()
        val res = fin.result()
        val t4 = System.nanoTime()
        bytes = ops.encode(res).length
        depth = res.mergeDepth; bound = res.pointErrorBound
        val t5 = System.nanoTime()
        ingestT(r) = (t1 - t0) / 1e9; serT(r) = (t2 - t1) / 1e9; finalT(r) = (t5 - t2) / 1e9
        readT(r) = (t3 - t2) / 1e9; mergeT(r) = (t4 - t3) / 1e9; encT(r) = (t5 - t4) / 1e9
      }
      def med(a: Array[Double]) = CoreBench.median(a.toSeq)
      println(f"eps=$eps%.2f ${plan.width}x${plan.depth} cellEps=${plan.cellEpsilon}%.4f: ingest ${med(ingestT)}%.3f s " +
        f"(${n / med(ingestT) / 1e6}%.1f M rows/s), serialize ${med(serT)}%.3f s, final merge+encode ${med(finalT)}%.3f s " +
        f"(read ${med(readT)}%.3f, merge ${med(mergeT)}%.3f, encode ${med(encT)}%.3f), $bytes bytes, depth $depth, point bound $bound%.4f")
    }
  }
}
