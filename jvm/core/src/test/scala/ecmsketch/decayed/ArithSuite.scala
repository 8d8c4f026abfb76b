package ecmsketch.decayed

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/** MinHit, the floor sum, RangeSample and the expiry search against brute force (CTX §3.3, Algorithms 4-5; docs/design/decayed.md). */
class ArithSuite extends AnyFunSuite {
  /** A random hash (a in [1, p), b in [0, p)) and a range start with 5,000 integers after it below p. */
  private def hashAndStart(rnd: Random): (Long, Long, Long) =
    (1 + (rnd.nextLong() & Long.MaxValue) % (Arith.P - 1), (rnd.nextLong() & Long.MaxValue) % Arith.P,
      (rnd.nextLong() & Long.MaxValue) % (Arith.P - 5000))

  def bruteMinHit(m: Long, a: Long, u: Long, n: Long, L: Long): Long = {
    var j = 0L
    while (j <= n) { if (java.lang.Math.floorMod(u + j * a, m) <= L) return j; j += 1 }
    -1L
  }

  test("MinHit equals brute force on 100,000 random instances (moduli up to 10^6, n <= 3000)") {
    val rnd = new Random(11)
    var found = 0
    (0 until 100000).foreach { _ =>
      val m = 1L + rnd.nextInt(if (rnd.nextBoolean()) 1000 else 1000000)
      val a = (rnd.nextLong() & Long.MaxValue) % m
      val u = (rnd.nextLong() & Long.MaxValue) % m
      val n = rnd.nextInt(3001).toLong
      val L = (rnd.nextLong() & Long.MaxValue) % math.max(1L, m / (1L << rnd.nextInt(12)))
      val want = bruteMinHit(m, a, u, n, L)
      assert(Arith.minHit(m, a, u, n, L) == want, s"m=$m a=$a u=$u n=$n L=$L")
      if (want > 0) found += 1
    }
    assert(found > 20000) // the instances exercise the recursion, not only line 1
  }

  test("MinHit with the sketch's prime p = 2^61 - 1 (124-bit products) equals brute force") {
    val rnd = new Random(12)
    (0 until 20000).foreach { _ =>
      val a = 1 + (rnd.nextLong() & Long.MaxValue) % (Arith.P - 1)
      val u = (rnd.nextLong() & Long.MaxValue) % Arith.P
      val n = rnd.nextInt(5000).toLong
      val L = Arith.levelBound(rnd.nextInt(14))
      val want = {
        var j = 0L; var r = -1L; var x = u
        while (r < 0 && j <= n) { if (x <= L) r = j; x = ecmsketch.hash.Hashing.modP(x + a); j += 1 }
        r
      }
      assert(Arith.minHit(Arith.P, a, u, n, L) == want, s"a=$a u=$u n=$n L=$L")
    }
  }

  test("firstHit (a scan of the next offsets, then MinHit) equals brute force from any start, levels 0..14") {
    val rnd = new Random(16)
    (0 until 20000).foreach { c =>
      val (a, b, lo) = hashAndStart(rnd)
      // ranges shorter and longer than the scan, starting anywhere in them
      val last = if (c % 2 == 0) rnd.nextInt(2 * Arith.ScanSteps).toLong else rnd.nextInt(3000).toLong
      val from = rnd.nextInt(last.toInt + 2).toLong // from = last + 1: the empty range
      val L = Arith.levelBound(rnd.nextInt(15))
      val want = (from to last).find(j => Arith.hash(a, b, lo + j) <= L).getOrElse(-1L)
      assert(Arith.firstHit(a, Arith.hash(a, b, lo + from), from, last, L) == want, s"a=$a b=$b lo=$lo from=$from last=$last L=$L")
    }
  }

  test("floorSum equals the direct sum (differences exact mod 2^64)") {
    val rnd = new Random(13)
    (0 until 20000).foreach { _ =>
      val m = 1L + rnd.nextInt(100000)
      val a = rnd.nextInt(300000).toLong; val b = rnd.nextInt(300000).toLong
      val n = rnd.nextInt(500).toLong
      val want = (0L until n).map(i => (a * i + b) / m).sum
      assert(Arith.floorSum(n, m, a, b) == want)
    }
  }

  test("RangeSample equals brute-force counting of selected integers (p = 2^61 - 1, levels 0..14)") {
    val rnd = new Random(14)
    (0 until 20000).foreach { _ =>
      val (a, b, lo) = hashAndStart(rnd)
      val n = rnd.nextInt(3000).toLong
      val lv = rnd.nextInt(15)
      val L = Arith.levelBound(lv)
      val want = (0L to n).count(j => Arith.hash(a, b, lo + j) <= L).toLong
      assert(Arith.rangeSample(a, b, lo, n, lv) == want, s"a=$a b=$b lo=$lo n=$n level=$lv")
      // and the first selected offset (Delta_e^i) is MinHit's
      val first = (0L to n).find(j => Arith.hash(a, b, lo + j) <= L).getOrElse(-1L)
      assert(Arith.firstSelected(a, b, lo, n, lv) == first)
    }
  }

  test("RangeSample of a range of 2^40 integers has the sampling rate of its level (Fact 3.1)") {
    val rnd = new Random(15)
    (0 until 50).foreach { _ =>
      val a = 1 + (rnd.nextLong() & Long.MaxValue) % (Arith.P - 1)
      val b = (rnd.nextLong() & Long.MaxValue) % Arith.P
      val lv = 5 + rnd.nextInt(20)
      val n = (1L << 40) - 1
      val c = Arith.rangeSample(a, b, 12345L, n, lv)
      val expect = (n + 1).toDouble * Arith.levelProbability(lv)
      assert(math.abs(c - expect) <= 0.001 * expect + 2, s"level $lv: $c vs $expect")
    }
  }

  test("the expiry search is min{x : f(W, x) <= Delta} (Lemma 3.5, Algorithm 4 returning r), against a linear scan") {
    val rnd = new Random(16)
    val decays = Seq(new IntegralDecay(Decay.Exp(3.5), 1), new IntegralDecay(Decay.Exp(0.7), 1),
      new IntegralDecay(Decay.Poly(1.0), 1), new IntegralDecay(Decay.Poly(2.5), 1), new IntegralDecay(Decay.Window(17), 1),
      new IntegralDecay(Decay.Exp(2e-5), 1000000L), new IntegralDecay(Decay.Window(0.5), 1000000L))
    decays.foreach { f =>
      (0 until 300).foreach { _ =>
        val w = 1L + rnd.nextInt(5000)
        val d = rnd.nextInt(w.toInt).toLong
        var x = 0L
        while (f.f(w, x) > d) x += 1
        assert(f.minAge(w, d) == x, s"${f.decay} w=$w delta=$d")
        // f is non-increasing
        assert(f.f(w, x + 1) <= f.f(w, x))
      }
    }
    // the memos of (W, Delta) -> expiry (direct tables for the first 16 W up to 8,192 asked, a hashed
    // memo for the others): every Delta of W above 8,192 and of more than 16 small W, more pairs than
    // the hashed memo has slots (so pairs share slots), asked in random order, equals a fresh
    // instance's answer (computed)
    Seq(Decay.Exp(3.5), Decay.Poly(1.5)).foreach { d =>
      val f = new IntegralDecay(d, 1)
      val ws = Array(1024L, 3000L, 777L, 9000L, 20011L) ++ (100L until 120L)
      val pool = for (w <- ws; dl <- 0L until w) yield (w, dl)
      (0 until 30000).foreach { _ =>
        val (w, dl) = pool(rnd.nextInt(pool.length))
        assert(f.minAge(w, dl) == new IntegralDecay(d, 1).minAge(w, dl), s"$d w=$w delta=$dl")
      }
    }
    // exponential closed form of the spec (base 2): floor(h log2(W / (Delta + 1))) + 1
    val e = new IntegralDecay(Decay.Exp(4.0), 1)
    assert(e.minAge(1000, 9) == math.floor(4.0 * math.log(1000.0 / 10) / math.log(2)).toLong + 1)
    // the window: t + W whenever the range has a selected integer
    assert(new IntegralDecay(Decay.Window(30), 1).minAge(7, 3) == 30)
  }
}
