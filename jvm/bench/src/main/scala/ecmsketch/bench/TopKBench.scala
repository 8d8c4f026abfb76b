package ecmsketch.bench

import scala.collection.mutable

import org.apache.datasketches.frequencies.{ErrorType, ItemsSketch, LongsSketch}

import ecmsketch.core.{Codec, WindowSpec, Windows}
import ecmsketch.frequent.{FrequentKind, FrequentSketch}

/** The frequent-items sketch on the shape of the windowed top-k question: one hour (ticks are
  * seconds), `rows` requests spread over 3 sites, Zipf(1.1) page ids over 100,000 pages.
  *   - sizes of the per-site and the merged sketch at epsilon 0.01 and 0.001 (merge_levels 1);
  *   - single-thread build rate beside DataSketches' ItemsSketch / LongsSketch (the sketch behind
  *     Spark's approx_top_k, maxItemsTracked 10,000 = a map of 16,384), interleaved, medians;
  *   - measured against certified error over ranges of the merged sketch, top-10 recall, heavy hitters.
  * Run with sbt "bench/runMain ecmsketch.bench.TopKBench [rows] [reps]".
  */
object TopKBench {
  def main(args: Array[String]): Unit = {
    val n = if (args.length > 0) args(0).toInt else 1000000
    val reps = if (args.length > 1) args(1).toInt else 3
    val hour = 3600L
    val keys = CoreBench.zipfKeys(n, 100000, 1.1, 7L)
    val ts = Array.tabulate(n)(i => i.toLong * hour / n)
    val site = { val r = new java.util.SplittableRandom(8L); Array.fill(n)(r.nextInt(3)) }
    val names = keys.map(k => s"/page/$k")
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = hour)
    println(s"rows $n over $hour s at 3 sites, Zipf(1.1) over 100,000 pages; ${Runtime.getRuntime.availableProcessors} cores")

    // ---- sizes and errors ----
    for (eps <- Seq(0.01, 0.001); strings <- Seq(false, true)) {
      val sites = Array.fill(3)(FrequentSketch.create(spec, eps, 1))
      var i = 0
      while (i < n) {
        if (strings) sites(site(i)).addKey(names(i), ts(i), 1L) else sites(site(i)).addKey(keys(i), ts(i), 1L)
        i += 1
      }
      val merged = FrequentSketch.merge(sites.toSeq)
      val siteBytes = sites.map(s => Codec.encode(FrequentKind, s).length)
      val mBytes = Codec.encode(FrequentKind, merged).length
      println(f"eps $eps%-6s ${if (strings) "string" else "bigint"}%-6s site bytes ${siteBytes.mkString("/")}%-22s merged $mBytes%9d bytes " +
        f"(${mBytes / 1048576.0}%.3f MB), scales ${merged.scaleCount}, entries ${merged.storedEntries}, keys ${merged.keysHeld}, bound ${merged.errorBound}%.5f")
      if (!strings) errors(merged, keys, ts, hour)
    }

    // ---- build rates, interleaved ----
    def ours(strings: Boolean, eps: Double): () => Long = () => {
      val s = FrequentSketch.create(spec, eps, 1)
      val t0 = System.nanoTime(); var i = 0
      if (strings) while (i < n) { s.addKey(names(i), ts(i), 1L); i += 1 }
      else while (i < n) { s.addKey(keys(i), ts(i), 1L); i += 1 }
      System.nanoTime() - t0
    }
    val longs: () => Long = () => {
      val s = new LongsSketch(16384)
      val t0 = System.nanoTime(); var i = 0
      while (i < n) { s.update(keys(i)); i += 1 }
      System.nanoTime() - t0
    }
    val items: () => Long = () => {
      val s = new ItemsSketch[String](16384)
      val t0 = System.nanoTime(); var i = 0
      while (i < n) { s.update(names(i)); i += 1 }
      System.nanoTime() - t0
    }
    val cases = Seq("frequent bigint eps 0.01" -> ours(false, 0.01), "frequent bigint eps 0.001" -> ours(false, 0.001),
      "datasketches LongsSketch" -> longs,
      "frequent string eps 0.01" -> ours(true, 0.01), "frequent string eps 0.001" -> ours(true, 0.001),
      "datasketches ItemsSketch<String>" -> items)
    val times = cases.map(_._1 -> mutable.ArrayBuffer[Long]()).toMap
    cases.foreach { case (_, f) => f() } // warm-up
    for (_ <- 0 until reps; (name, f) <- cases) times(name) += f()
    def med(name: String): Double = { val t = times(name).sorted; t(t.size / 2).toDouble }
    cases.foreach { case (name, _) => println(f"$name%-34s ${n / (med(name) / 1e9)}%14.0f rows/s") }
    println(f"ratio to DataSketches: bigint 0.01 ${med("datasketches LongsSketch") / med("frequent bigint eps 0.01")}%.2f, " +
      f"bigint 0.001 ${med("datasketches LongsSketch") / med("frequent bigint eps 0.001")}%.2f, " +
      f"string 0.01 ${med("datasketches ItemsSketch<String>") / med("frequent string eps 0.01")}%.2f, " +
      f"string 0.001 ${med("datasketches ItemsSketch<String>") / med("frequent string eps 0.001")}%.2f")
    val ds = new ItemsSketch[String](16384); names.foreach(ds.update)
    println(s"DataSketches ItemsSketch<String>(16384) over the hour: ${ds.toByteArray(new org.apache.datasketches.common.ArrayOfStringsSerDe).length} bytes, " +
      s"max error ${ds.getMaximumError} (${ds.getMaximumError.toDouble / n} of n), ${ds.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES).length} items reported")
  }

  /** Measured error (largest |estimate - f| / n over every key) beside the certified bound, top-10
    * recall and heavy hitters at phi = 0.01, for ranges ending at the last row.
    */
  private def errors(s: FrequentSketch, keys: Array[Long], ts: Array[Long], hour: Long): Unit = {
    val now = ts.last
    Seq(1L, 10L, 60L, 300L, 600L, 1800L, hour).foreach { r =>
      val t0 = Windows.lowerBound(now, r)
      val exact = mutable.HashMap[Long, Long]()
      var i = ts.length - 1
      while (i >= 0 && ts(i) >= t0) { exact(keys(i)) = exact.getOrElse(keys(i), 0L) + 1; i -= 1 }
      val nr = exact.values.sum
      var worst = 0.0
      val held = s.topK(Int.MaxValue, r, now).map(x => x.key.asInstanceOf[Long] -> x.estimate).toMap
      val absent = s.estimate(java.lang.Long.valueOf(-1L), r, now).estimate // every key the sketch does not hold
      exact.foreach { case (k, f) => worst = math.max(worst, math.abs(held.getOrElse(k, absent) - f)) }
      val top10 = exact.toSeq.sortBy(-_._2).take(10).map(_._1).toSet
      val got = s.topK(10, r, now).map(_.key.asInstanceOf[Long]).toSet
      val hh = s.heavyHitters(0.01, r, now).map(_.key.asInstanceOf[Long]).toSet
      val trueHH = exact.filter(_._2 >= 0.01 * nr).keySet
      val c = s.rangeCount(r, now)
      println(f"  range $r%5d s: n $nr%8d (count in [${c.lower}, ${c.upper}]), max error ${worst / nr}%.6f of n (certified ${s.errorBound}%.5f), " +
        f"top-10 recall ${(top10 & got).size / 10.0}%.1f, phi 0.01: ${trueHH.size} true, ${hh.size} reported, ${trueHH.count(k => !hh(k))} missed")
    }
  }
}
