package ecmsketch.ingest

import org.scalatest.funsuite.AnyFunSuite

/** [[RadixSort.sortByTs]] against a stable sort of the row indices by timestamp: sizes within and
  * above the per-thread scratch space (Ingest.MaxBuffer rows), ranges needing 1 to 6 digit passes,
  * ranges beyond 2^63 (unsigned), and a third column that is all equal (not moved by the sort), all
  * equal but one, or distinct.
  */
class RadixSortSuite extends AnyFunSuite {

  private def check(ts0: Array[Long], label: String): Unit = {
    val n = ts0.length
    val rnd = new java.util.SplittableRandom(n.toLong * 31 + 7)
    val odd = if (n > 0) rnd.nextInt(n) else 0
    for ((kind, b0) <- Seq("distinct" -> Array.tabulate(n)(i => i.toLong * 3 + 1), "equal" -> Array.fill(n)(1L),
                           "equal but one" -> Array.tabulate(n)(i => if (i == odd) 2L else 1L)))
      checkWith(ts0, Array.fill(n)(rnd.nextLong()), b0, s"$label, third column $kind")
  }

  private def checkWith(ts0: Array[Long], a0: Array[Long], b0: Array[Long], label: String): Unit = {
    val n = ts0.length
    // reference: a stable sort of the indices by timestamp
    val order = (0 until n).map(Int.box).toArray
    java.util.Arrays.sort(order, (x: Integer, y: Integer) => java.lang.Long.compare(ts0(x), ts0(y)))
    val ts = ts0.clone(); val a = a0.clone(); val b = b0.clone()
    RadixSort.sortByTs(ts, a, b, n)
    var i = 0
    while (i < n) {
      val j = order(i).intValue
      assert(ts(i) == ts0(j) && a(i) == a0(j) && b(i) == b0(j), s"$label: row $i differs (n = $n)")
      i += 1
    }
  }

  test("random timestamps with ties, every size class and range") {
    val rnd = new java.util.SplittableRandom(11)
    val ranges = Seq(1L, 5L, 255L, 256L, 2048L, 2049L, 4096L, 1L << 22, (1L << 22) + 1, 1L << 24, (1L << 24) + 3,
                     1L << 40, 1L << 44, Long.MaxValue)
    // every range at every size up to 70,000 rows; 300,000 rows (the reference sort of boxed indices
    // takes most of this test's time) at six ranges: 1 to 4 digit passes and the unsigned 64-bit range
    val sizes = Seq(0, 1, 2, 3, 100, Ingest.MaxBuffer, Ingest.MaxBuffer + 1, 70000).map(_ -> ranges) :+
      (300000 -> Seq(5L, 4096L, (1L << 22) + 1, (1L << 24) + 3, 1L << 44, Long.MaxValue))
    for ((n, rs) <- sizes; range <- rs) {
      val base = rnd.nextLong(-1000000L, 1000000L)
      check(Array.fill(n)(base + rnd.nextLong(range)), s"range $range")
    }
  }

  test("timestamps spanning more than 2^63 (the unsigned range), negative ones, and reversed input") {
    val rnd = new java.util.SplittableRandom(5)
    for (n <- Seq(1000, 40000)) {
      check(Array.fill(n)(if (rnd.nextBoolean()) Long.MinValue + rnd.nextInt(100) else Long.MaxValue - rnd.nextInt(100)), "extremes")
      check(Array.tabulate(n)(i => -i.toLong * 7), "reversed")
      check(Array.tabulate(n)(i => (n - i).toLong / 3), "reversed with ties")
    }
  }

  test("sortKeys: the top digit first on long inputs, even, skewed and sparse, like a stable sort") {
    val rnd = new java.util.SplittableRandom(19)
    // (label, n, bits sorted, a key's sort field): lo = 20 bits below the field hold the position
    val cases = Seq[(String, Int, Int, Int => Long)](
      ("even over 2^32", 200000, 32, _ => rnd.nextLong(1L << 32)),
      ("ties over 2^12", 70000, 12, _ => rnd.nextLong(1L << 12)),
      ("one far outlier", 100000, 40, i => if (i == 777) (1L << 40) - 1 else rnd.nextLong(1L << 20)),
      ("buckets of a few keys", 65536, 43, _ => rnd.nextLong(1L << 43)),
      ("reversed", 90000, 24, i => (90000 - i).toLong * 100))
    for ((label, n, bits, field) <- cases) {
      val f = Array.tabulate(n)(field)
      val keys = Array.tabulate(n)(i => (f(i) << 20) | i.toLong)
      val want = keys.clone(); java.util.Arrays.sort(want) // fields of at most 43 bits: no sign bit
      val got = RadixSort.sortKeys(keys, new Array[Long](n), n, 20, bits)
      assert(got.toSeq == want.toSeq, label)
    }
  }

  test("sortKeys reads only its field: bits above it do not take part, at every field width") {
    val rnd = new java.util.SplittableRandom(23)
    for (n <- Seq(5000, 70000); bits <- Seq(1, 11, 12, 13, 23, 33)) {
      // the field [20, 20 + bits), noise above it, the position below it
      val keys = Array.tabulate(n)(i => (rnd.nextLong() << (20 + bits)) | (rnd.nextLong(1L << bits) << 20) | i.toLong)
      val field = (x: Long) => (x >>> 20) & ((1L << bits) - 1)
      val want = keys.map(Long.box).sortWith((x, y) => field(x) < field(y) || (field(x) == field(y) && (x & 0xFFFFF) < (y & 0xFFFFF)))
      val got = RadixSort.sortKeys(keys.clone(), new Array[Long](n), n, 20, bits)
      assert(got.toSeq == want.toSeq.map(_.longValue), s"n $n, field of $bits bits")
    }
  }
}
