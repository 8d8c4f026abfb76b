package ecmsketch.api

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.core.SketchException
import ecmsketch.hash.Hashing

import scala.util.Random

/** PyApi.ecmMatrix (the plain Count-Min matrix of one range, for the Python threshold monitor) agrees
  * with the sketch's own queries: the self-join is the least row sum of squares, the total the mean
  * row sum, a point estimate the least of the key's cells (found with ecmColumns).
  */
class PyApiMatrixSuite extends AnyFunSuite {
  private def sketch(cell: String) = PyApi.ecmCreateCell(false, false, 1000L, 0.1, 0.05, "inner_product", 0, 7L, cell, 0L)
  private def L(x: Long): java.lang.Long = java.lang.Long.valueOf(x)

  test("the matrix of a range matches self-join, total and point queries") {
    for (cell <- Seq("eh", "dwave")) {
      val s = sketch(cell)
      assert(PyApi.ecmMatrix(s, L(100), L(5)).forall(_ == 0.0)) // empty: zeros
      val rnd = new Random(5)
      val n = 6000
      val keys = Array.fill(n)((rnd.nextInt(40) * rnd.nextInt(40) % 300).toLong)
      val ts = Array.tabulate(n)(i => i / 2L)
      PyApi.addLongs(s, keys, ts, null)
      for ((r, now) <- Seq((1000L, 2999L), (150L, 3100L), (1L, 2999L))) {
        val m = PyApi.ecmMatrix(s, L(r), L(now))
        assert(m.length == s.width * s.depth && m.forall(_ >= 0.0))
        val rows = m.grouped(s.width).toSeq
        assert(math.abs(rows.map(_.map(x => x * x).sum).min - s.selfJoin(L(r), L(now))) <= 1e-9 * (1 + s.selfJoin(L(r), L(now))))
        assert(math.abs(m.sum / s.depth - s.total(L(r), L(now))) <= 1e-9 * (1 + m.sum))
        for (k <- Seq(0L, 1L, 12L, 299L)) {
          val cols = PyApi.ecmColumns(s, Hashing.fingerprintLong(k))
          val est = cols.indices.map(j => m(j * s.width + cols(j))).min
          assert(est == s.point(k, L(r), L(now)), s"$cell key $k range $r")
        }
      }
      assert(intercept[SketchException](PyApi.ecmMatrix(s, L(5000), L(2999))).getMessage.nonEmpty)
    }
  }
}
