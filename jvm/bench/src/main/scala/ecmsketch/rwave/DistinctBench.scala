package ecmsketch.rwave

import ecmsketch.core.{KeyType, WindowSpec}
import ecmsketch.hash.Hashing
import ecmsketch.ingest.Ingest

/** Manual benchmark (not a test) of the distinct_agg path without Spark: `parts` partitions of a
  * time-ordered stream (ts = row / 10, values uniform over 1M), each built through the ingest layer
  * and serialized, then the final merge (deserialize, merge, encode), as Spark runs it.
  * sbt "bench/runMain ecmsketch.rwave.DistinctBench [rows] [parts] [reps]".
  */
object DistinctBench {
  def main(args: Array[String]): Unit = {
    val rows = if (args.length > 0) args(0).toInt else 10000000
    val parts = if (args.length > 1) args(1).toInt else 8
    val reps = if (args.length > 2) args(2).toInt else 3
    val rnd = new java.util.SplittableRandom(5)
    val fps = Array.fill(rows)(Hashing.fingerprintLong(rnd.nextLong(1000000)))
    val ts = Array.tabulate(rows)(i => i / 10L)
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = 1000000L)
    val ops = new DistinctOps(() => DistinctSketch.create(spec, 0.1, 0.05, DistinctSketch.DefaultSeed), KeyType.Long)
    val mx = java.lang.management.ManagementFactory.getThreadMXBean
    // thread CPU time: the machine is shared, wall time is not
    def now(): Long = mx.getCurrentThreadCpuTime
    for (rep <- 0 until reps) {
      val t0 = now()
      val per = rows / parts
      val bundles = (0 until parts).map { p =>
        val ing = new Ingest(ops, spec.window)
        var i = p * per
        while (i < (p + 1) * per) { ing.add(fps(i), ts(i), 1L); i += 1 }
        ing.serialize()
      }
      val t1 = now()
      val fin = Ingest.deserialize(ops, spec.window, bundles.head)
      bundles.tail.foreach(b => fin.absorb(Ingest.deserialize(ops, spec.window, b)))
      val res = fin.result()
      val bytes = ops.encode(res)
      val t2 = now()
      println(f"rep $rep (thread CPU time): partitions ${(t1 - t0) / 1e6}%.0f ms (${(t1 - t0) / 1e6 / parts}%.0f ms each, ${bundles.map(_.length).sum / parts}%,d B each), " +
        f"final merge ${(t2 - t1) / 1e6}%.0f ms, sketch ${bytes.length}%,d B, estimate ${res.count(null, null)}%.0f, " +
        f"total ${(t2 - t0) / 1e6}%.0f ms")
    }
  }
}
