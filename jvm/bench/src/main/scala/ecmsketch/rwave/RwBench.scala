package ecmsketch.rwave

/** Manual micro-benchmark (not a test): sbt "bench/runMain ecmsketch.rwave.RwBench". */
object RwBench {
  def main(args: Array[String]): Unit = {
    for ((eps, delta) <- Seq((0.1, 0.5), (0.1, 0.05), (0.05, 0.05), (0.2, 0.01))) {
      val cfg = RwConfig(eps, delta, 1000000, 1)
      for (rep <- 0 until 2) {
        val w = new RandWave(cfg)
        val rnd = new java.util.SplittableRandom(rep)
        val n = 2000000
        val t0 = System.nanoTime()
        var i = 0
        while (i < n) { w.addItem(rnd.nextLong(1000000), i / 3); i += 1 }
        val t1 = System.nanoTime()
        var s = 0.0; var q = 0
        while (q < 2000) { s += w.estimateFrom(n / 3 - 1 - rnd.nextInt(300000)); q += 1 }
        val t2 = System.nanoTime()
        val c = new RandWave(cfg)
        i = 0
        while (i < n) { c.add(i / 5); i += 1 }
        val t3 = System.nanoTime()
        val o = new ecmsketch.core.ByteWriter(); new RwCells(cfg).write(w, o, 0)
        val t4 = System.nanoTime()
        val m = RandWave.merge(Seq(w, c), cfg)
        val t5 = System.nanoTime()
        println(f"eps $eps delta $delta r ${cfg.instances} C ${cfg.capacity}: addItem ${(t1 - t0) / n.toDouble}%.0f ns, add(ts) ${(t3 - t2) / n.toDouble}%.0f ns, query ${(t2 - t1) / 2000e3}%.1f us, entries ${w.entryCount}, encode ${(t4 - t3) / 1e6}%.1f ms ${o.size} B, merge ${(t5 - t4) / 1e6}%.1f ms ($s%.0f ${m.entryCount})")
      }
    }
  }
}
