package ecmsketch.quantile

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/** [[Samples.sort]] against a reference sort of (value, timestamp) pairs, on values that round to one
  * float (many of them, out of order), duplicates, signs, infinities and every length around the
  * switches from comparison sorting to key sorting and to radix sorting of the keys.
  */
class SamplesSuite extends AnyFunSuite {
  private def values(r: Random, n: Int, shape: Int): Array[Double] = Array.fill(n) {
    shape match {
      case 0 => r.nextGaussian() * 100
      case 1 => 1.0 + r.nextInt(1000) * 1e-12 // thousands of values on one float
      case 2 => r.nextInt(5).toDouble // duplicates
      case 3 => Seq(Double.NegativeInfinity, Double.PositiveInfinity, -1e300, 1e300, 1e-300, -1e-300, 0.0, Double.MinPositiveValue)(r.nextInt(8))
      case _ => math.round(math.exp(r.nextGaussian() + 3.0) * 1000) / 1000.0 // latencies of 3 decimals
    }
  }

  test("sorts by (value, timestamp) like a reference sort") {
    val r = new Random(81L)
    for (shape <- 0 to 4; n <- Seq(0, 1, 2, 10, 47, 48, 49, 100, 1000, 1023, 1024, 1025, 5000, 20000)) {
      val vs = values(r, n, shape)
      // timestamps mostly ascending (as sealed rows are), some not, with ties
      val ts = Array.tabulate(n)(i => if (r.nextInt(10) == 0) r.nextInt(n + 1).toLong else i.toLong / 2)
      val want = vs.zip(ts).sortWith { case ((v1, t1), (v2, t2)) => Samples.less(v1, t1, v2, t2) }
      val from = if (n > 2) 1 else 0
      val until = if (n > 2) n - 1 else n
      val (v, t) = (vs.clone(), ts.clone())
      Samples.sort(v, t, from, until)
      val expect = vs.take(from).zip(ts.take(from)) ++
        vs.slice(from, until).zip(ts.slice(from, until)).sortWith { case ((v1, t1), (v2, t2)) => Samples.less(v1, t1, v2, t2) } ++
        vs.drop(until).zip(ts.drop(until))
      assert(v.zip(t).toSeq == expect.toSeq, s"shape $shape n $n")
      if (from == 0 && until == n) assert(v.zip(t).toSeq == want.toSeq)
    }
  }

  test("decimal codes: every m / 10^c with |m| < 2^51 gets the fewest digits that write it") {
    // brute force of the 3/8 argument behind the 2^51 limit (docs/FORMAT.md): near the limit the
    // double product v 10^c must still round to m, and the code is c less m's trailing zeros
    val r = new Random(83L)
    val limit = 1L << 51
    for (c <- 0 to DecimalValues.MaxDecimals; _ <- 0 until 4000) {
      val mag = if (r.nextBoolean()) limit - 1 - r.nextInt(1 << 20) else 1L + (r.nextLong() >>> 14) % (limit - 1)
      val m = if (r.nextBoolean()) mag else -mag
      val v = m.toDouble / math.pow(10.0, c.toDouble)
      var mm = m; var want = c
      while (want > 0 && mm % 10 == 0) { mm /= 10; want -= 1 }
      assert(DecimalValues.scaleOf(Array(v), 0, 1) == want, s"m $m c $c: v $v")
      assert(DecimalValues.value(mm, want) == v)
    }
    // at 2^51 and beyond there is no code, whatever the digits
    assert(DecimalValues.scaleOf(Array(limit.toDouble), 0, 1) == DecimalValues.Doubles)
    assert(DecimalValues.scaleOf(Array(1.0, limit.toDouble / 10), 0, 2) == DecimalValues.Doubles)
  }
}
