package ecmsketch.bench

import ecmsketch.core.{Codec, WindowSpec}
import ecmsketch.ecm.EcmSketch
import ecmsketch.ecm.dyadic.{DyadicKind, DyadicPlanner, DyadicSketch, DyadicUniverse}

/** Single-thread update throughput of the dyadic sketch for universe_bits 16 and 32 beside a plain
  * ECM-sketch of the same level plan (so the ratio is the cost of the bits + 1 levels), row by row
  * (`add`) and in sorted batches of universe indexes (`addSortedBatch`, the path of dyadic_agg), interleaved
  * repetitions, medians. Run with sbt "bench/runMain ecmsketch.bench.DyadicBench [events] [reps]".
  */
object DyadicBench {
  def main(args: Array[String]): Unit = {
    val n = if (args.length > 0) args(0).toInt else 200000
    val reps = if (args.length > 1) args(1).toInt else 5
    val keys = CoreBench.zipfKeys(n, 60000, 1.1, 1L).map(_ - 30000L) // fits universe_bits 16
    val ts = CoreBench.timestamps(n, 2L)
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = 1000000L)
    val eps = 0.05; val delta = 0.01
    def dyadic(bits: Int): () => Long = () => {
      val s = DyadicSketch.create(spec, eps, delta, universeBits = bits)
      val t0 = System.nanoTime(); var i = 0
      while (i < n) { s.add(keys(i), ts(i), 1L); i += 1 }
      val dt = System.nanoTime() - t0
      sizes(s"dyadic-$bits") = Codec.encode(DyadicKind, s).length
      dt
    }
    // the path of dyadic_agg: universe indexes in sorted batches (Ingest hands over up to half its buffer)
    def batched(bits: Int): () => Long = () => {
      val s = DyadicSketch.create(spec, eps, delta, universeBits = bits)
      val us = keys.map(DyadicUniverse.longIndex(_, bits)); val vs = Array.fill(n)(1L)
      val t0 = System.nanoTime(); var i = 0
      while (i < n) { val e = math.min(n, i + 4096); s.addSortedBatch(us, ts, vs, i, e); i = e }
      val dt = System.nanoTime() - t0
      sizes(s"batch-$bits") = Codec.encode(DyadicKind, s).length
      dt
    }
    def plain(bits: Int): () => Long = () => {
      val s = EcmSketch.create(spec, DyadicPlanner.plan(eps, delta, 1, ecmsketch.eh.EhCellKind.id, bits))
      val t0 = System.nanoTime(); var i = 0
      while (i < n) { s.add(keys(i), ts(i), 1L); i += 1 }
      System.nanoTime() - t0
    }
    lazy val sizes = scala.collection.mutable.Map[String, Int]()
    val cases = Seq("dyadic-16" -> dyadic(16), "batch-16" -> batched(16), "ecm-level-16" -> plain(16),
      "dyadic-32" -> dyadic(32), "batch-32" -> batched(32), "ecm-level-32" -> plain(32))
    val times = cases.map(_._1 -> scala.collection.mutable.ArrayBuffer[Long]()).toMap
    cases.foreach { case (_, f) => f() } // warm-up
    for (_ <- 0 until reps; (name, f) <- cases) times(name) += f()
    def med(name: String): Double = { val t = times(name).sorted; t(t.size / 2).toDouble }
    cases.foreach { case (name, _) => println(f"$name%-14s ${n / (med(name) / 1e9)}%12.0f rows/s") }
    println(f"speed-up batch / row by row: 16 bits ${med("dyadic-16") / med("batch-16")}%.1fx, 32 bits ${med("dyadic-32") / med("batch-32")}%.1fx")
    println(f"ratio dyadic-16 / one level: ${med("dyadic-16") / med("ecm-level-16")}%.1f, dyadic-32 / one level: ${med("dyadic-32") / med("ecm-level-32")}%.1f")
    println(s"sizes (bytes): ${sizes.toSeq.sorted.mkString(", ")}")
  }
}
