package ecmsketch.bench.sliding

import org.scalatest.funsuite.AnyFunSuite

/** The Sl-CM benchmark baseline on tiny streams against answers worked out by hand (with one
  * bucket per array every key collides, so the answer is the count of the bucket's fields).
  */
class SlidingCMSuite extends AnyFunSuite {

  test("k = 2, one bucket, N = 10: the scans at t = 10, 20 leave [10, 25] in the fields at t = 25") {
    // zone length N / (k - 1) = 10; the pointer reaches the single bucket at t = 10, 20, 30, ...
    val s = new SlidingCM(width = 1, depth = 1, window = 10)
    (1L to 25L).foreach(t => s.add(7L, t))
    // fields: [10, 20) and [20, 25]: 16 arrivals, the window (15, 25] holds 10
    assert(s.query(7L) == 16L)
    assert(s.query(12345L) == 16L) // every key shares the one bucket
    s.advance(30L) // the scan at 30 clears the field of [10, 20)
    assert(s.query(7L) == 6L)
  }

  test("k = 3, one bucket, N = 10: zones of 5, the oldest kept field starts at the scan two before the last") {
    val s = new SlidingCM(width = 1, depth = 1, window = 10, fields = 3)
    (1L to 27L).foreach(t => s.add(1L, t))
    // scans at 5, 10, ..., 25: fields [15, 20), [20, 25), [25, 27] = 13 arrivals (window (17, 27] = 10)
    assert(s.query(1L) == 13L)
  }

  test("two buckets: the pointer reaches bucket j at (j + 1) / width of each zone") {
    // width 2, N = 4 (zone 4): bucket 0 is scanned at t = 2, 6, 10, ..., bucket 1 at t = 4, 8, ...
    val byCol = (0L until 50L).groupBy(bucketOf)
    val k0 = byCol(0).head; val k1 = byCol(1).head
    val s = new SlidingCM(width = 2, depth = 1, window = 4)
    (0L to 9L).foreach { t => s.add(k0, t); s.add(k1, t) }
    assert(s.query(k0) == 8L) // bucket 0: fields [2, 6), [6, 9]
    assert(s.query(k1) == 6L) // bucket 1: fields [4, 8), [8, 9]
  }

  /** The bucket of `k` in a width-2, N = 4 Sl-CM: an arrival at t = 0 sits in the field that the
    * bucket's 2nd scan clears, at t = 6 for bucket 0 and t = 8 for bucket 1.
    */
  private def bucketOf(k: Long): Int = {
    val p = new SlidingCM(2, 1, 4)
    p.add(k, 0L)
    p.advance(6L)
    if (p.query(k) == 0L) 0 else 1
  }

  test("a jump of more than k zones clears every field; depth takes the minimum over the arrays") {
    val s = new SlidingCM(width = 1, depth = 3, window = 10)
    (1L to 5L).foreach(t => s.add(3L, t))
    s.add(3L, 100L)
    assert(s.query(3L) == 1L)
    assert(s.bytesHeld == 3L * 1 * 2 * 4)
    assert(SlidingCM.withinBytes(16384, depth = 3, window = 10).bytesHeld <= 16384)
  }

  test("time never goes back") {
    val s = new SlidingCM(4, 2, 10)
    s.add(1L, 5L)
    assertThrows[IllegalArgumentException](s.add(1L, 4L))
  }
}
