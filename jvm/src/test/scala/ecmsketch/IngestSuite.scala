package ecmsketch

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.ecm.{EcmSketch, QueryKind}
import ecmsketch.format.SketchCodec
import ecmsketch.ingest.{Ingest, SketchOps}
import ecmsketch.window.EhSketch

import scala.util.Random

/** Rows in any order: sorted and nearly sorted input costs nothing, any other order stays within
  * the bound the result reports.
  */
class IngestSuite extends AnyFunSuite {
  val spec = WindowSpec(countWindow = false, tsMicros = false, window = 50000)

  def rows(rnd: Random, n: Int): IndexedSeq[(Long, Long, Long)] = {
    var t = 0L
    (0 until n).map { _ => t += rnd.nextInt(3); (rnd.nextInt(200).toLong, t, 1L + (if (rnd.nextInt(10) == 0) rnd.nextInt(9) else 0)) }
  }

  def ecmOps(seed: Long) = new SketchOps.Ecm(() => EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, seed), ecm.KeyType.Long)

  def ingest(ops: SketchOps.Ecm, data: Seq[(Long, Long, Long)]): Ingest[EcmSketch] = {
    val ing = new Ingest(ops, spec.window)
    data.foreach { case (k, t, w) => ing.add(hash.Hashing.fingerprintLong(k), t, w) }
    ing
  }

  def direct(data: Seq[(Long, Long, Long)], seed: Long): EcmSketch = {
    val s = EcmSketch.create(spec, 0.1, 0.1, QueryKind.Point, 1, seed)
    data.sortBy(_._2).foreach { case (k, t, w) => s.add(k, t, w) }
    s
  }

  test("sorted and nearly sorted input give exactly the sketch of the sorted stream (depth 0)") {
    val rnd = new Random(1)
    val data = rows(rnd, 60000)
    val expected = SketchCodec.encode(direct(data, 9))
    val sorted = ingest(ecmOps(9), data).result()
    assert(sorted.mergeDepth == 0)
    assert(java.util.Arrays.equals(SketchCodec.encode(sorted), expected))
    // disorder: every row displaced by up to 4000 positions
    val noisy = data.zipWithIndex.map { case (r, i) => (i + rnd.nextInt(4000), r) }.sortBy(_._1).map(_._2)
    val ing = ingest(ecmOps(9), noisy)
    val nearly = ing.result()
    assert(ing.late == 0, s"${ing.late} late rows")
    assert(nearly.mergeDepth == 0)
    assert(java.util.Arrays.equals(SketchCodec.encode(nearly), expected))
  }

  test("shuffled and late input: every answer within the reported bound") {
    val rnd = new Random(2)
    for (mode <- Seq("shuffled", "late")) {
      val data = rows(rnd, 40000)
      val input = mode match {
        case "shuffled" => rnd.shuffle(data)
        case "late" =>
          val (late, rest) = data.partition(_ => rnd.nextInt(50) == 0)
          rest ++ late
      }
      val hOps = SketchOps.eh(() => EhSketch.create(spec, 0.05, 1))
      val hIng = new Ingest(hOps, spec.window)
      input.foreach { case (_, t, w) => hIng.add(0, t, w) }
      val h = hIng.result()
      assert(hIng.late > 0)
      val o = new Oracle
      data.foreach { case (k, t, w) => o.add(k, t, w) }
      val now = o.ts.max
      for (r <- Seq(1L, 10L, 100L, 1000L, 10000L, 50000L)) {
        val exact = o.after(now - r).toDouble
        val est = h.count(r, null)
        assert(math.abs(est - exact) <= h.errorBound * exact + 1e-9, s"$mode r=$r est=$est exact=$exact bound=${h.errorBound}")
      }
      val e = ingest(ecmOps(4), input).result()
      var v = 0; var q = 0
      for (r <- Seq(10L, 1000L, 50000L)) {
        val f = o.freqsAfter(now - r); val a = f.values.sum.toDouble
        f.foreach { case (k, c) =>
          val est = e.point(k, r, null)
          assert(est >= (1 - e.cellBound) * c - 1e-9)
          if (math.abs(est - c) > e.pointErrorBound * a) v += 1
          q += 1
        }
      }
      assert(v.toDouble / q <= 0.1, s"$mode: $v of $q")
      info(f"$mode: EH depth ${h.mergeDepth} (bound ${h.errorBound}%.4f), ECM depth ${e.mergeDepth}, point violations $v/$q")
    }
  }

  test("rows a whole window behind the newest row are dropped without changing any answer") {
    val ops = SketchOps.eh(() => EhSketch.create(WindowSpec(false, false, 100), 0.1, 1))
    val ing = new Ingest(ops, 100)
    (1000L until 2000L).foreach(t => ing.add(0, t, 1))
    (0L until 500L).foreach(t => ing.add(0, t, 1)) // all older than 1999 - 100
    assert(ing.dropped == 500)
    val h = ing.result()
    assert(h.mergeDepth == 0)
    assert(math.abs(h.count(100, null) - 100) <= 0.1 * 100)
  }

  test("200 time-ordered partitions merged as Spark does (pairwise, serialized) report depth 1") {
    val rnd = new Random(3)
    val data = rows(rnd, 100000)
    val parts = data.grouped(500).toSeq // each partition in time order
    val ops = ecmOps(5)
    val partials = parts.map(p => Ingest.deserialize(ops, spec.window, ingest(ops, p).serialize()))
    // an arbitrary merge tree of partial buffers
    var level = partials
    while (level.size > 1) level = level.grouped(3).map { g => val b = g.head; g.tail.foreach(b.absorb); b }.toSeq
    val s = level.head.result()
    assert(s.mergeDepth == 1)
    assert(math.abs(s.pointErrorBound - 0.1) < 1e-9)
    assert(s.count == data.map(_._3).sum)
  }
}
