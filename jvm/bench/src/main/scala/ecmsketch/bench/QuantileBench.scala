package ecmsketch.bench

import org.apache.datasketches.kll.KllDoublesSketch

import ecmsketch.core.{Codec, WindowSpec, Windows}
import ecmsketch.quantile.{QuantileKind, QuantileSketch}

/** The windowed quantile sketch (docs/design/windowed-quantiles.md) on the shape of "p99 latency
  * over the last r minutes, per site, merged": `rows` rows spread uniformly over one hour of
  * TIMESTAMP microseconds, dealt at random to `sites` sites, log-normal values (mu 3, sigma 1).
  * For each epsilon: the size of each site's sketch and of their merge, single-thread build rows/s
  * beside the KLL sketch of Spark 4's kll_sketch_agg_double (datasketches-java 6.1.1, k = 200) over the
  * same rows (interleaved repetitions, medians), and per range (1 s to the hour) the measured worst
  * rank error of 99 quantiles beside the sketch's certified bounds.
  * Run with sbt "bench/runMain ecmsketch.bench.QuantileBench [rows] [sites] [reps] [epsilons,...]"; writes
  * bench/results/windowed-quantiles.md.
  */
object QuantileBench {
  final val HourUs = 3600L * 1000000L

  def main(args: Array[String]): Unit = {
    val n = if (args.length > 0) args(0).toInt else 1000000
    val sites = if (args.length > 1) args(1).toInt else 3
    val reps = if (args.length > 2) args(2).toInt else 3
    val epsilons = if (args.length > 3) args(3).split(',').toSeq.map(_.toDouble) else Seq(0.05, 0.01, 0.001)
    val rnd = new java.util.SplittableRandom(17)
    val ts = Array.fill(n)((rnd.nextDouble() * HourUs).toLong)
    java.util.Arrays.sort(ts)
    val vs = Array.fill(n)(math.exp(3.0 + gaussian(rnd)))
    val site = Array.fill(n)(rnd.nextInt(sites))
    val bySite = (0 until sites).map(s => (0 until n).filter(i => site(i) == s).toArray)
    val spec = WindowSpec(countWindow = false, tsMicros = true, window = HourUs)
    val now = ts(n - 1)
    val out = new StringBuilder
    def say(s: String): Unit = { println(s); out ++= s; out += '\n' }

    say("# Windowed quantile sketch: size, build speed, rank error")
    say("")
    say(s"Set-up: $n rows uniform over one hour (TIMESTAMP microseconds), dealt at random to $sites sites; values " +
      "log-normal (mu 3, sigma 1); each site's sketch built by `add` in time order (single thread), then merged. " +
      s"Build speed: median of $reps interleaved repetitions, beside `KllDoublesSketch` (datasketches-java 6.1.1, " +
      "k = 200: the sketch of Spark 4's `kll_sketch_agg_double`) fed the same rows per site. delta = 0.01, merge_levels = 1. " +
      s"Machine load at start: ${loadAvg()}.")
    say("")
    say("| epsilon | bytes per site (max) | merged bytes | runs, buckets, stored entries | build rows/s | KLL rows/s | ratio |")
    say("|---|---|---|---|---|---|---|")
    val errors = new StringBuilder
    for (eps <- epsilons) {
      var sketches: Seq[QuantileSketch] = Nil
      val ours = new Array[Long](reps); val kll = new Array[Long](reps)
      var kllBytes = 0
      for (r <- 0 until reps) {
        val t0 = System.nanoTime()
        sketches = bySite.map { idx =>
          val s = QuantileSketch.create(spec, eps, levels = 1)
          var i = 0
          while (i < idx.length) { val k = idx(i); s.add(ts(k), vs(k)); i += 1 }
          s
        }
        ours(r) = System.nanoTime() - t0
        val t1 = System.nanoTime()
        val ks = bySite.map { idx =>
          val k = KllDoublesSketch.newHeapInstance(200)
          var i = 0
          while (i < idx.length) { k.update(vs(idx(i))); i += 1 }
          k
        }
        kll(r) = System.nanoTime() - t1
        kllBytes = ks.map(_.toByteArray.length).max
      }
      val merged = QuantileSketch.merge(sketches)
      val mBytes = Codec.encode(QuantileKind, merged).length
      val siteBytes = sketches.map(s => Codec.encode(QuantileKind, s).length).max
      val oursRate = n / (median(ours) / 1e9); val kllRate = n / (median(kll) / 1e9)
      say(f"| $eps | $siteBytes%,d | $mBytes%,d | ${merged.runCount}, ${merged.bucketCount}, ${merged.storedEntries}%,d | ${oursRate}%,.0f | ${kllRate}%,.0f | ${oursRate / kllRate}%.2f |")
      errors ++= errorTable(merged, eps, ts, vs, now)
    }
    say("")
    say("Rank error per range of the merged sketch: the worst over q = 0.01 .. 0.99 of |rank(returned value) - q n| / n " +
      "(the returned value's exact rank interval against the target), beside the ledger's bound for that range " +
      "(`rankErrorBound` / n, which holds with probability 1 - delta) and epsilon, the bound for every range.")
    say("")
    say("| epsilon | range | rows n | measured worst | ledger bound | epsilon |")
    say("|---|---|---|---|---|---|")
    say(errors.toString.stripSuffix("\n"))
    val dir = new java.io.File("bench/results"); dir.mkdirs()
    val w = new java.io.PrintWriter(new java.io.File(dir, "windowed-quantiles.md"), "UTF-8")
    try w.print(out.toString) finally w.close()
  }

  private def errorTable(m: QuantileSketch, eps: Double, ts: Array[Long], vs: Array[Double], now: Long): String = {
    val b = new StringBuilder
    for ((name, r) <- Seq("1 s" -> 1000000L, "10 s" -> 10000000L, "1 min" -> 60000000L, "5 min" -> 300000000L,
                          "30 min" -> 1800000000L, "1 h" -> HourUs)) {
      val lo = Windows.lowerBound(now, r)
      val from = { var a = 0; var z = ts.length; while (a < z) { val mid = (a + z) >>> 1; if (ts(mid) < lo) a = mid + 1 else z = mid }; a }
      val in = java.util.Arrays.copyOfRange(vs, from, vs.length)
      java.util.Arrays.sort(in)
      val nn = in.length.toDouble
      var worst = 0.0
      val qs = Array.tabulate(99)(i => (i + 1) / 100.0)
      val answers = m.quantiles(qs, r, now)
      var k = 0
      while (k < qs.length) {
        val q = qs(k); val v = answers(k).doubleValue
        val less = lowerIdx(in, v).toDouble; val leq = upperIdx(in, v).toDouble
        val err = if (q * nn < less) less - q * nn else if (q * nn > leq) q * nn - leq else 0.0
        worst = math.max(worst, err / nn)
        k += 1
      }
      b ++= f"| $eps | $name | ${in.length}%,d | $worst%.5f | ${m.rankErrorBound(r, now) / nn}%.5f | $eps |\n"
    }
    b.toString
  }

  private def lowerIdx(a: Array[Double], x: Double): Int = { var lo = 0; var hi = a.length; while (lo < hi) { val m = (lo + hi) >>> 1; if (a(m) < x) lo = m + 1 else hi = m }; lo }
  private def upperIdx(a: Array[Double], x: Double): Int = { var lo = 0; var hi = a.length; while (lo < hi) { val m = (lo + hi) >>> 1; if (a(m) <= x) lo = m + 1 else hi = m }; lo }

  private def median(xs: Array[Long]): Double = { val s = xs.sorted; s(s.length / 2).toDouble }

  private def gaussian(r: java.util.SplittableRandom): Double = {
    var u = 0.0
    while (u == 0.0) u = r.nextDouble()
    math.sqrt(-2.0 * math.log(u)) * math.cos(2 * math.Pi * r.nextDouble())
  }

  private def loadAvg(): String =
    try scala.io.Source.fromFile("/proc/loadavg").mkString.split(' ').take(3).mkString(" ") catch { case _: Throwable => "unknown" }
}
