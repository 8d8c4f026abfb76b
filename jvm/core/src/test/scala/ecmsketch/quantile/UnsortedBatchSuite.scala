package ecmsketch.quantile

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.core.{Codec, WindowSpec}
import ecmsketch.ingest.{Ingest, RadixSort, SketchOps}

/** [[QuantileSketch.addUnsorted]] against sorting the same rows by time, stably, and
  * [[QuantileSketch.addSorted]]: the same bytes for timestamps spread, with ties within slices, in
  * bursts, reversed, across the whole 64-bit range, and past the window, directly and through the
  * ingest layer; and no row taken when the batch does not qualify (timestamps clustered in one
  * slice, weights other than 1, NaN, count windows, too few rows, a sketch that holds rows).
  */
class UnsortedBatchSuite extends AnyFunSuite {
  private def enc(s: QuantileSketch): Array[Byte] = Codec.encode(QuantileKind, s)
  private def spec(window: Long, count: Boolean = false) = WindowSpec(countWindow = count, tsMicros = false, window = window)

  /** The same bytes as the sorted path; or, for clustered timestamps, no row taken. */
  private def same(ts: Array[Long], bits: Array[Long], eps: Double, window: Long, what: String, taken: Boolean = true): Unit = {
    val n = ts.length
    val a = QuantileSketch.create(spec(window), eps, levels = 1)
    val (t2, b2, w2) = (ts.clone(), bits.clone(), Array.fill(n)(1L))
    RadixSort.sortByTs(t2, b2, w2, n)
    a.addSorted(t2, b2, w2, 0, n)
    val b = QuantileSketch.create(spec(window), eps, levels = 1)
    val empty = enc(b)
    assert(b.addUnsorted(ts, bits, Array.fill(n)(1L), n) == taken, what)
    assert(enc(b).sameElements(if (taken) enc(a) else empty), s"$what: the bytes differ")
  }

  test("the bytes of sorting and sealing, for every shape of timestamps") {
    val rnd = new java.util.SplittableRandom(29)
    def values(n: Int, shape: Int): Array[Long] = Array.fill(n) {
      val v = shape match {
        case 0 => math.round(math.exp(3.0 + gauss(rnd)) * 1000) / 1000.0
        case 1 => rnd.nextInt(7).toDouble
        case _ => if (rnd.nextBoolean()) -0.0 else rnd.nextInt(3) - 1.0
      }
      java.lang.Double.doubleToRawLongBits(v)
    }
    // (name, timestamp of row i, whether the timestamps spread: clustered ones are left to the caller)
    val shapes = Seq[(String, Int => Long, Boolean)](
      ("spread over 2^32", _ => rnd.nextLong(1L << 32), true),
      ("ties within slices", _ => rnd.nextInt(20000).toLong * 7, true), // about 18 timestamps a slice
      ("bursts", _ => 1000L + rnd.nextInt(50), true),
      ("reversed", i => 1000000L - i, true),
      ("ascending", i => i.toLong / 3, true),
      ("the 64-bit range", i => if (i % 2 == 0) Long.MinValue + 1 + rnd.nextInt(1000) else Long.MaxValue - rnd.nextInt(1000), true),
      ("negative", _ => -rnd.nextLong(1L << 20), true),
      ("one timestamp", _ => 77L, false),
      ("a far outlier", i => if (i == 5) 1L << 40 else rnd.nextLong(1000L), false))
    for ((name, tsOf, spread) <- shapes; eps <- Seq(0.05, 0.01); n <- Seq(1600, 1601, 5000, 70000); shape <- Seq(0, 1, 2)) {
      val rawCap = QuantileSketch.create(spec(10L), eps).plan.params(0).rawCapacity
      val m = if (n == 1600) rawCap else if (n == 1601) rawCap + 1 else n
      val ts = Array.tabulate(m)(tsOf)
      same(ts, values(m, shape), eps, Long.MaxValue / 4, s"$name, eps $eps, $m rows, values $shape", taken = spread)
    }
    // windows shorter than the rows' span: the older buckets expire
    for (window <- Seq(1000L, 1L << 20, 1L << 31)) {
      val ts = Array.fill(200000)(rnd.nextLong(1L << 32))
      same(ts, values(200000, 0), 0.01, window, s"window $window")
    }
  }

  test("through the ingest layer: a partition's rows in no order give the bytes of the sorted path") {
    val spec1 = spec(1L << 40)
    def ops(unsorted: Boolean): SketchOps[QuantileSketch] = {
      val q = new QuantileOps(() => QuantileSketch.create(spec1, 0.01, levels = 1))
      if (unsorted) q
      else new SketchOps[QuantileSketch] { // the same, but sorting every batch
        def create(): QuantileSketch = q.create()
        def add(s: QuantileSketch, bits: Long, ts: Long, v: Long): Unit = q.add(s, bits, ts, v)
        override def addSorted(s: QuantileSketch, f: Array[Long], t: Array[Long], v: Array[Long], a: Int, b: Int): Unit = q.addSorted(s, f, t, v, a, b)
        def merge(xs: Seq[QuantileSketch]): QuantileSketch = q.merge(xs)
        override def finish(xs: Seq[QuantileSketch]): QuantileSketch = q.finish(xs)
        override def bufferRows: Int = q.bufferRows
        def encode(s: QuantileSketch): Array[Byte] = q.encode(s)
        def decode(b: Array[Byte]): QuantileSketch = q.decode(b)
      }
    }
    val rnd = new java.util.SplittableRandom(31)
    for (n <- Seq(3000, 100000)) {
      val ts = Array.fill(n)(rnd.nextLong(1L << 32)); val vs = Array.fill(n)(java.lang.Double.doubleToRawLongBits(rnd.nextInt(1000) / 8.0))
      val bytes = Seq(true, false).map { u =>
        val ing = new Ingest(ops(u), 1L << 40)
        (0 until n).foreach(i => ing.add(vs(i), ts(i), 1L))
        enc(ing.result())
      }
      assert(bytes(0).sameElements(bytes(1)), s"$n rows")
    }
  }

  test("a batch that does not qualify is left to the caller, and nothing is taken") {
    val n = 5000
    val ts = Array.tabulate(n)(i => (n - i).toLong); val bits = Array.fill(n)(java.lang.Double.doubleToRawLongBits(1.5))
    def none(s: QuantileSketch, t: Array[Long], b: Array[Long], w: Array[Long], m: Int, what: String): Unit = {
      val before = enc(s)
      assert(!s.addUnsorted(t, b, w, m), what)
      assert(enc(s).sameElements(before), what)
    }
    val w2 = Array.fill(n)(1L); w2(4000) = 2L
    none(QuantileSketch.create(spec(100000L), 0.05), ts, bits, w2, n, "a weight of 2")
    val w0 = Array.fill(n)(1L); w0(10) = 0L
    none(QuantileSketch.create(spec(100000L), 0.05), ts, bits, w0, n, "a weight of 0")
    val nan = bits.clone(); nan(4999) = java.lang.Double.doubleToRawLongBits(Double.NaN)
    none(QuantileSketch.create(spec(100000L), 0.05), ts, nan, Array.fill(n)(1L), n, "a NaN")
    none(QuantileSketch.create(spec(100000L, count = true), 0.05), ts, bits, Array.fill(n)(1L), n, "a count window")
    val small = QuantileSketch.create(spec(100000L), 0.05)
    none(small, ts, bits, Array.fill(n)(1L), small.plan.params(0).rawCapacity - 1, "fewer rows than the raw capacity")
    val taken = QuantileSketch.create(spec(100000L), 0.05)
    taken.add(1L, 2.0)
    none(taken, ts.map(_ + 10), bits, Array.fill(n)(1L), n, "a sketch that holds a row")
  }

  private def gauss(r: java.util.SplittableRandom): Double = {
    val u = 1.0 - r.nextDouble(); val v = r.nextDouble()
    math.sqrt(-2 * math.log(u)) * math.cos(2 * math.Pi * v)
  }
}
