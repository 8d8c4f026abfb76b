package ecmsketch.hash

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.hash.Hashing

/** Golden vectors: hashing must never change across JVMs and versions (sketches from different
  * sites and releases must agree). XXH64 vectors come from the reference implementation.
  */
class HashingSuite extends AnyFunSuite {
  private def h(b: Array[Byte]) = Hashing.xxh64(b, 0, b.length, 0L)

  test("XXH64 matches the reference implementation") {
    assert(h(Array.emptyByteArray) == 0xef46db3751d8e999L)
    assert(h("a".getBytes) == 0xd24ec4f1a98c6e5bL)
    assert(h("abc".getBytes) == 0x44bc2cf5ad770999L)
    assert(h("hello world".getBytes) == 0x45ab6734b21e6968L)
    assert(h(Array.tabulate(40)(_.toByte)) == 0xf5da40f1b11741e9L)
    assert(h(Array.tabulate(100)(_.toByte)) == 0x6ac1e58032166597L)
  }

  test("Mersenne arithmetic agrees with BigInt") {
    val rnd = new scala.util.Random(1)
    val p = BigInt(Hashing.MersenneP)
    for (_ <- 0 until 10000) {
      val a = (rnd.nextLong() >>> 3) % Hashing.MersenneP
      val b = (rnd.nextLong() >>> 3) % Hashing.MersenneP
      assert(Hashing.mulModP(a, b) == ((BigInt(a) * BigInt(b)) mod p).toLong)
      val x = rnd.nextLong()
      assert(Hashing.modP(x) == ((BigInt(x) + (if (x < 0) BigInt(2).pow(64) else 0)) mod p).toLong)
    }
  }

  test("row hashes of the default seed are stable (golden columns)") {
    val co = Hashing.rowCoefficients(0x5EED5EEDL, 3)
    val cols = for (k <- Seq("a", "b", "url/index.html"); j <- 0 until 3)
      yield Hashing.column(Hashing.fingerprintString(k), co(2 * j), co(2 * j + 1), 1000)
    val longs = for (k <- Seq(0L, 1L, -1L, 123456789L); j <- 0 until 3)
      yield Hashing.column(Hashing.fingerprintLong(k), co(2 * j), co(2 * j + 1), 1000)
    assert(cols == HashingSuite.goldenStrings, s"got $cols")
    assert(longs == HashingSuite.goldenLongs, s"got $longs")
  }

  test("rows are close to uniform and pairwise spread (chi-square sanity)") {
    val co = Hashing.rowCoefficients(42L, 1)
    val w = 50
    val counts = new Array[Int](w)
    for (k <- 0 until 100000) counts(Hashing.column(Hashing.fingerprintLong(k), co(0), co(1), w)) += 1
    val expected = 100000.0 / w
    val chi2 = counts.map(c => (c - expected) * (c - expected) / expected).sum
    assert(chi2 < 100, s"chi2 $chi2 with 49 degrees of freedom")
  }
}

object HashingSuite {
  // Recorded from version 0.1.0; a change here breaks merging with sketches of earlier releases.
  val goldenStrings: Seq[Int] = Seq(549, 514, 936, 126, 663, 199, 766, 818, 829)
  val goldenLongs: Seq[Int] = Seq(878, 156, 323, 381, 181, 800, 493, 451, 177, 775, 709, 988)
}
