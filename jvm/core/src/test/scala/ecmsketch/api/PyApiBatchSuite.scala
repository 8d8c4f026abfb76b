package ecmsketch.api

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.core.{Codec, CounterSketch, SketchException, WindowSketch}

import scala.util.Random

/** The batch paths of the Python bytes API give the state of adding the rows one by one: the same
  * bytes for ECM-sketches in chunks of 2^16 rows (unit and explicit weights, EH and deterministic-
  * wave cells, windows that expire buckets inside a batch) and for stand-alone counters, whose
  * unit-weight runs go to the counter as sorted runs; a refused row is refused with the message of
  * a single add, the rows before it kept.
  */
class PyApiBatchSuite extends AnyFunSuite {
  private def enc(s: WindowSketch): String = Codec.encodeAny(s).map(b => f"${b & 0xFF}%02x").mkString

  /** Sorted timestamps with bursts and gaps; weights 1, with some 0 and heavier ones when `weighted`. */
  private def batch(rnd: Random, n: Int, start: Long, weighted: Boolean): (Array[Long], Array[Long]) = {
    var t = start
    val ts = Array.fill(n) { t += (rnd.nextInt(6) match { case 0 | 1 => 0; case 2 => rnd.nextInt(50); case _ => 1 }); t }
    val vs = Array.fill(n)(if (!weighted) 1L else rnd.nextInt(12) match { case 0 => 0L; case 1 => 1L + rnd.nextInt(40); case _ => 1L })
    (ts, vs)
  }

  test("ECM batches in chunks equal adds one by one (EH, deterministic- and randomized-wave cells, unit and explicit weights)") {
    for (cell <- Seq("eh", "dwave", "rwave"); window <- Seq(500L, 20000L, Long.MaxValue); weighted <- Seq(false, true)) {
      val rnd = new Random(window.hashCode + cell.hashCode)
      val a = PyApi.ecmCreateCell(false, false, window, 0.1, 0.1, "point", 1, 7L, cell, 0L)
      val b = PyApi.ecmCreateCell(false, false, window, 0.1, 0.1, "point", 1, 7L, cell, 0L)
      // randomized-wave cells name each arrival by a salted counter: the same salt on both
      a.setEventSalt(99L); b.setEventSalt(99L)
      var start = 0L
      // below the batch threshold, over two chunks, one chunk and a bit (randomized waves: smaller batches)
      for (n <- if (cell == "rwave") Seq(100, 6000, 3000) else Seq(100, 150000, 70000)) {
        val (ts, vs) = batch(rnd, n, start, weighted)
        val keys = Array.fill(n)((rnd.nextInt(30) * rnd.nextInt(30)).toLong)
        PyApi.ecmAddLongs(a, keys, ts, if (weighted) vs else null)
        var i = 0; while (i < n) { b.add(keys(i), ts(i), vs(i)); i += 1 }
        start = ts(n - 1)
        assert(enc(a) == enc(b), s"cell=$cell window=$window weighted=$weighted n=$n")
      }
    }
  }

  test("counter batches (EH, deterministic wave) equal adds one by one; a refused row fails as a single add would") {
    def counters(window: Long): Seq[() => CounterSketch] = Seq(
      () => PyApi.ehCreate(false, false, window, 0.05, 1), () => PyApi.dwCreate(false, false, window, 0.05, 1, 0L),
      () => PyApi.ehCreate(true, false, window, 0.05, 1))
    for (window <- Seq(300L, 100000L, Long.MaxValue); mk <- counters(window); weighted <- Seq(false, true)) {
      val rnd = new Random(window.hashCode + (if (weighted) 1 else 0))
      val a = mk(); val b = mk()
      var start = 0L
      for (n <- Seq(3, 5000, 40000)) {
        val (ts0, vs) = batch(rnd, n, start, weighted)
        // a count-based window takes unique sequence numbers
        val ts = if (a.spec.countWindow) Array.tabulate(n)(i => start + 1 + i) else ts0
        PyApi.addMany(a, ts, if (weighted) vs else null)
        var i = 0; while (i < n) { b.add(ts(i), vs(i)); i += 1 }
        start = ts(n - 1)
        assert(enc(a) == enc(b), s"${a.getClass.getSimpleName} window=$window weighted=$weighted n=$n")
      }
      // a batch whose third row goes back in time: the first two are added, the third refused with add's message
      val before = (a: WindowSketch).count // the weight ever added (2.12 finds a.count ambiguous)
      val bad = Array(start + 1, start + 2, start)
      val m = intercept[SketchException](PyApi.addMany(a, bad, null)).getMessage
      val expected = intercept[SketchException] { val c = mk(); c.add(10L); c.add(9L) }.getMessage.takeWhile(_ != ':')
      assert(m.startsWith(expected) && (a: WindowSketch).count == before + 2 && a.lastTs == start + 2, m)
    }
  }
}
