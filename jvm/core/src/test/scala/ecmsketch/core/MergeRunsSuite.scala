package ecmsketch.core

import org.scalatest.funsuite.AnyFunSuite

/** [[Windows.mergeRunsInto]] against a stable sort of the concatenated runs by timestamp: 1 to 40
  * runs (odd and even numbers), empty runs, ties within and across runs, with and without the second
  * payload, runs that start past 0 (what lies before the first run is left alone, in the given and
  * the scratch arrays), and the result found where the returned flag says.
  */
class MergeRunsSuite extends AnyFunSuite {
  test("a merge of sorted runs is a stable sort by timestamp, and touches only its own range") {
    val rnd = new java.util.SplittableRandom(37)
    for (trial <- 0 until 400) {
      val runs = 1 + rnd.nextInt(40)
      val from = if (trial % 2 == 0) 0 else rnd.nextInt(50)
      val lengths = Array.fill(runs)(if (rnd.nextInt(5) == 0) 0 else rnd.nextInt(120))
      val n = from + lengths.sum
      val range = if (trial % 3 == 0) 20L else 1L << 40
      val ts = new Array[Long](n); val ws = new Array[Long](n); val vs = new Array[Long](n)
      (0 until from).foreach { i => ts(i) = -1L; ws(i) = -2L; vs(i) = -3L }
      val starts = new Array[Int](runs + 1)
      var p = from
      for (r <- 0 until runs) {
        starts(r) = p
        val run = Array.fill(lengths(r))(rnd.nextLong(range)).sorted
        run.foreach { t => ts(p) = t; ws(p) = p.toLong; vs(p) = p.toLong * 7; p += 1 }
      }
      starts(runs) = n
      val want = (from until n).sortBy(ts(_)) // stable: earlier runs first on ties
      val withV = trial % 4 != 1
      val t2 = Array.fill(n)(-5L); val w2 = Array.fill(n)(-6L); val v2 = if (withV) Array.fill(n)(-7L) else null
      val (t0, w0, v0) = (ts.clone(), ws.clone(), vs.clone())
      val swapped = Windows.mergeRunsInto(ts, ws, if (withV) vs else null, starts, runs, n, t2, w2, v2)
      val (rt, rw, rv) = if (swapped) (t2, w2, v2) else (ts, ws, if (withV) vs else null)
      val what = s"trial $trial: $runs runs from $from"
      assert((from until n).map(rt(_)) == want.map(t0(_)), s"$what: timestamps")
      assert((from until n).map(rw(_)) == want.map(w0(_)), s"$what: first payload")
      if (withV) assert((from until n).map(rv(_)) == want.map(v0(_)), s"$what: second payload")
      (0 until from).foreach { i =>
        assert(ts(i) == -1L && ws(i) == -2L && t2(i) == -5L && w2(i) == -6L, s"$what: position $i before the runs")
      }
    }
  }
}
