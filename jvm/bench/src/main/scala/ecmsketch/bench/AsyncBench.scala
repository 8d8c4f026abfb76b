package ecmsketch.bench

import ecmsketch.asynchronous.{AsyncKind, AsyncSketch}
import ecmsketch.core.{Codec, WindowSpec, Windows}
import ecmsketch.ingest.{Ingest, SketchOps}
import ecmsketch.eh.{EhKind, EhSketch}

/** The async sketches (docs/design/async.md, "Asynchronous streams"): single-thread updates/s of the sum,
  * count and quantile sketches for sorted, shuffled and 10 %-late input (and the trade-off levels
  * L = 62 and L = 0), beside an exponential histogram fed through Ingest (the path of eh_agg, which
  * buffers and reorders) and directly (sorted input only); interleaved repetitions, medians. Then, on
  * one stream with 10 % late rows, the error and size of the async count and of the EH beside the
  * exact count, for ranges 10^1..10^6.
  * Run with sbt "bench/runMain ecmsketch.bench.AsyncBench [rows] [reps]".
  */
object AsyncBench {
  final val Window = 1000000L

  /** Time-sorted ticks over [0, Window) (about `n / Window` rows a tick), and a permutation that
    * moves 10 % of the rows to later arrival positions (each lands 1..50,000 rows later).
    */
  def lateOrder(n: Int, seed: Long): Array[Int] = {
    val rnd = new java.util.SplittableRandom(seed)
    val key = Array.tabulate(n)(i => if (rnd.nextInt(10) == 0) i + 1.0 + rnd.nextInt(50000) else i.toDouble)
    (0 until n).sortBy(key).toArray
  }

  def main(args: Array[String]): Unit = {
    val n = if (args.length > 0) args(0).toInt else 1000000
    val reps = if (args.length > 1) args(1).toInt else 5
    val rnd = new java.util.SplittableRandom(3)
    val ts = Array.tabulate(n)(i => i.toLong * Window / n)
    val vs = Array.fill(n)(1L + rnd.nextInt(1000))
    val xs = Array.fill(n)(math.exp(rnd.nextDouble() * 5))
    val shuffled = { val a = (0 until n).toArray; var i = n - 1; while (i > 0) { val j = rnd.nextInt(i + 1); val t = a(i); a(i) = a(j); a(j) = t; i -= 1 }; a }
    val late = lateOrder(n, 4L)
    val sorted = (0 until n).toArray
    val eps = 0.1; val delta = 0.05
    val sizes = scala.collection.mutable.Map[String, Int]()

    def sum(order: Array[Int], l: Int, name: String): () => Long = () => {
      val s = AsyncSketch.create(AsyncSketch.Sum, Window, eps, delta, tradeoff = l)
      val t0 = System.nanoTime(); var i = 0
      while (i < n) { val k = order(i); s.addWeight(vs(k), ts(k)); i += 1 }
      val dt = System.nanoTime() - t0
      sizes(name) = Codec.encode(AsyncKind, s).length
      dt
    }
    def count(order: Array[Int], name: String): () => Long = () => {
      val s = AsyncSketch.create(AsyncSketch.Count, Window, eps, delta, withIds = true)
      val t0 = System.nanoTime(); var i = 0
      while (i < n) { val k = order(i); s.addWeightWithId(1L, ts(k), k.toLong); i += 1 }
      val dt = System.nanoTime() - t0
      sizes(name) = Codec.encode(AsyncKind, s).length
      dt
    }
    def quantile(order: Array[Int], name: String): () => Long = () => {
      val s = AsyncSketch.create(AsyncSketch.Quantile, Window, eps, delta)
      val t0 = System.nanoTime(); var i = 0
      while (i < n) { val k = order(i); s.addValue(xs(k), ts(k)); i += 1 }
      val dt = System.nanoTime() - t0
      sizes(name) = Codec.encode(AsyncKind, s).length
      dt
    }
    val spec = WindowSpec(countWindow = false, tsMicros = false, window = Window)
    def ehIngest(order: Array[Int], name: String): () => Long = () => {
      val in = new Ingest(SketchOps.eh(() => EhSketch.create(spec, eps, 1)), Window)
      val t0 = System.nanoTime(); var i = 0
      while (i < n) { val k = order(i); in.add(0L, ts(k), 1L); i += 1 }
      val s = in.result()
      val dt = System.nanoTime() - t0
      sizes(name) = Codec.encode(EhKind, s).length
      dt
    }
    def ehDirect(): () => Long = () => {
      val s = EhSketch.create(spec, eps, 1)
      val t0 = System.nanoTime(); var i = 0
      while (i < n) { s.add(ts(i), 1L); i += 1 }
      System.nanoTime() - t0
    }
    val cases = Seq(
      "sum-sorted" -> sum(sorted, AsyncSketch.DefaultTradeoff, "sum-sorted"),
      "sum-shuffled" -> sum(shuffled, AsyncSketch.DefaultTradeoff, "sum-shuffled"),
      "sum-late10" -> sum(late, AsyncSketch.DefaultTradeoff, "sum-late10"),
      "sum-L0-shuffled" -> sum(shuffled, 0, "sum-L0-shuffled"),
      "count-id-shuffled" -> count(shuffled, "count-id-shuffled"),
      "quantile-sorted" -> quantile(sorted, "quantile-sorted"),
      "quantile-shuffled" -> quantile(shuffled, "quantile-shuffled"),
      "quantile-late10" -> quantile(late, "quantile-late10"),
      "eh-ingest-late10" -> ehIngest(late, "eh-ingest-late10"),
      "eh-ingest-shuffled" -> ehIngest(shuffled, "eh-ingest-shuffled"),
      "eh-direct-sorted" -> ehDirect())
    val times = cases.map(_._1 -> scala.collection.mutable.ArrayBuffer[Long]()).toMap
    cases.foreach { case (_, f) => f() } // warm-up
    for (_ <- 0 until reps; (name, f) <- cases) times(name) += f()
    def med(name: String): Double = { val t = times(name).sorted; t(t.size / 2).toDouble }
    println(s"updates/s, $n rows, window $Window, epsilon $eps, delta $delta, medians of $reps interleaved runs")
    cases.foreach { case (name, _) =>
      println(f"  $name%-20s ${n / (med(name) / 1e9)}%12.0f rows/s   ${sizes.get(name).map(b => s"$b bytes").getOrElse("")}")
    }

    // error and size on the 10 %-late stream: async count (ids) vs EH through Ingest vs exact
    val ac = AsyncSketch.create(AsyncSketch.Count, Window, eps, delta, withIds = true)
    val in = new Ingest(SketchOps.eh(() => EhSketch.create(spec, eps, 1)), Window)
    late.foreach { k => ac.addWeightWithId(1L, ts(k), k.toLong); in.add(0L, ts(k), 1L) }
    val bufferBytes = in.serialize().length
    val eh = in.result()
    val now = ts(n - 1)
    println(s"10 %-late stream: async count ${Codec.encode(AsyncKind, ac).length} bytes (${ac.retained} elements, " +
      s"${ac.levelCount} levels); eh_agg partial buffer $bufferBytes bytes, EH result ${Codec.encode(EhKind, eh).length} bytes " +
      s"(merge depth ${eh.mergeDepth}, certified bound ${eh.errorBound})")
    println("  range      exact   async rel.err   EH rel.err")
    for (r <- Seq(10L, 100L, 1000L, 10000L, 100000L, 1000000L)) {
      val lo = Windows.lowerBound(now, r)
      val exact = n - lowerIndex(ts, lo)
      val a = ac.sum(r, null); val e = eh.count(r, null)
      println(f"  $r%8d $exact%10d   ${(a - exact) / exact}%+12.5f   ${(e - exact) / exact}%+10.5f")
    }
  }

  /** First index with ts >= lo in sorted `ts`. */
  private def lowerIndex(ts: Array[Long], lo: Long): Int = {
    var a = 0; var b = ts.length
    while (a < b) { val m = (a + b) >>> 1; if (ts(m) < lo) a = m + 1 else b = m }
    a
  }
}
