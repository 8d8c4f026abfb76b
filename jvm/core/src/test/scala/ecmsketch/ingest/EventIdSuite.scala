package ecmsketch.ingest

import ecmsketch.rwave.RwCellKind
import ecmsketch.ecm.EcmOps

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.core.{KeyType, WindowSpec}
import ecmsketch.ecm.{EcmSketch, Planner, QueryKind}
import ecmsketch.format.SketchCodec
import ecmsketch.hash.Hashing
import ecmsketch.rwave.{RandWave, RwConfig}

import scala.util.Random

/** Event ids of randomized-wave cells (docs/design/rwave.md, "Event ids"): the same rows with the same salt
  * give identical bytes, and the events of different partitions, groups, runs, merge results and
  * copies never share ids, even when their rows are identical. The checks are exact: every cell
  * holds fewer live events than its wave capacity, so its shared level 0 holds them all and a point
  * query equals the Count-Min estimate over the exact frequencies (min over rows of the summed
  * frequencies of the keys in the key's cell). Events that shared an id would be counted once.
  */
class EventIdSuite extends AnyFunSuite {
  val window = 1500L
  val spec = WindowSpec(countWindow = false, tsMicros = false, window = window)
  // eps 0.1: capacity 3600 per cell, more than all live events of every test below
  val plan = Planner.plan(0.1, 0.1, QueryKind.Point, 0, RwCellKind.id)
  val seed = 11L
  def ops = new EcmOps(() => EcmSketch.create(spec, plan, seed), KeyType.Long)

  type Row = (Long, Long, Long) // key, ts, weight

  /** 20,000 rows of weight 1. In order: at ts 0, 2, 4, ..., keys 0..39 (750 live at the end).
    * Otherwise 20 rows a tick (all live), keys 0..1999 (so that three such streams put fewer events
    * than the capacity into every cell), in four blocks of 5,000 rows, newest block first: the
    * oldest block's last rows arrive behind the main run (a side run).
    */
  def rows(rnd: Random, late: Boolean): IndexedSeq[Row] =
    if (!late) (0 until 20000).map(i => (rnd.nextInt(40).toLong, 2L * i, 1L))
    else (0 until 20000).map(i => (rnd.nextInt(2000).toLong, i / 20L, 1L)).grouped(5000).toIndexedSeq.reverse.flatten

  def feed(ing: Ingest[EcmSketch], data: Seq[Row]): Ingest[EcmSketch] = {
    data.foreach { case (k, t, w) => ing.add(Hashing.fingerprintLong(k), t, w) }
    ing
  }
  def ingest(salt: Long, data: Seq[Row]): Ingest[EcmSketch] = feed(new Ingest(ops, window, salt), data)

  /** Checks every key's point query over several ranges against the exact Count-Min estimate. */
  def checkExact(s: EcmSketch, data: Seq[Row], what: String): Unit = {
    val now = s.lastTs
    val keys = data.map(_._1).distinct.take(150)
    for (r <- Seq(10L, 100L, 700L, window)) {
      val f = data.filter(_._2 > now - r).groupBy(_._1).map { case (k, rs) => k -> rs.map(_._3).sum } // (2.12 has no groupMapReduce)
      for (k <- keys) {
        val fp = Hashing.fingerprintLong(k)
        val cm = (0 until s.depth).map { j =>
          val c = s.column(fp, j)
          f.iterator.filter { case (k2, _) => s.column(Hashing.fingerprintLong(k2), j) == c }.map(_._2).sum
        }.min
        assert(s.point(k, r, null) == cm.toDouble, s"$what: key $k range $r: ${s.point(k, r, null)} vs exact $cm")
      }
    }
  }

  test("the same rows with the same salt give identical bytes (in order, with late rows, after a serialize)") {
    for (late <- Seq(false, true)) {
      val data = rows(new Random(if (late) 1 else 0), late)
      val a = ingest(7L, data)
      if (late) assert(a.late > 0, "no late rows: the side runs are not exercised")
      val b = ingest(7L, data)
      val ea = SketchCodec.encode(a.result()); val eb = SketchCodec.encode(b.result())
      assert(java.util.Arrays.equals(ea, eb), s"late rows $late: two builds differ")
      // the salt matters: another partition gives other ids, hence other bytes
      assert(!java.util.Arrays.equals(ea, SketchCodec.encode(ingest(8L, data).result())))
      // a partial aggregate serialized mid-way, read back and fed on (Spark's sort-based fallback)
      def viaBytes(): Array[Byte] = {
        val (first, rest) = data.splitAt(9000)
        val back = Ingest.deserialize(ops, window, ingest(7L, first).serialize(), 7L)
        val fresh = new Ingest(ops, window, 9L)
        fresh.absorb(back)
        SketchCodec.encode(feed(fresh, rest).result())
      }
      assert(java.util.Arrays.equals(viaBytes(), viaBytes()), s"late rows $late: serialized builds differ")
    }
  }

  test("partitions with identical rows never share event ids: their merge counts every event") {
    for (late <- Seq(false, true)) {
      val data = rows(new Random(if (late) 4 else 3), late)
      val parts = (0 until 3).map(p => ingest(p.toLong, data))
      if (late) assert(parts.forall(_.late > 0), "no late rows: the side runs are not exercised")
      val fin = new Ingest(ops, window, 99L)
      parts.foreach(fin.absorb)
      checkExact(fin.result(), Seq.fill(3)(data).flatten, s"3 identical partitions, late rows $late")
    }
  }

  test("groups of one task (one salt) with different rows, and sites built apart, never share event ids") {
    val rnd = new Random(5)
    // one salt, rows that differ: the run salts differ through the rows of the first batch
    val a = rows(rnd, late = false); val b = rows(rnd, late = false)
    val ga = ingest(1L, a).result(); val gb = ingest(1L, b).result()
    checkExact(EcmSketch.merge(Seq(ga, gb)), a ++ b, "two groups of one task")
    // the check is sensitive: the same salt and the same rows give the same ids, merged once
    val twin = EcmSketch.merge(Seq(ingest(1L, a).result(), ingest(1L, a).result()))
    assert(twin.point(a.last._1, window, null) == ga.point(a.last._1, window, null))
    // sites of the core API: a new sketch draws a random salt
    val sites = (0 until 3).map { _ =>
      val s = EcmSketch.create(spec, plan, seed)
      a.foreach { case (k, t, w) => s.add(k, t, w) }
      s
    }
    checkExact(EcmSketch.merge(sites), Seq.fill(3)(a).flatten, "three core sketches of the same rows")
  }

  test("runs of one ingest with identical rows (main and side runs) never share event ids") {
    // the same 8,192 rows twice: the second copy arrives behind the main run and becomes a side run
    val rnd = new Random(9)
    val base = (0 until 8192).map(i => (rnd.nextInt(40).toLong, 20000L + i / 11, 1L))
    val tail = (0 until 8192).map(i => (rnd.nextInt(40).toLong, 20745L + i / 11, 1L))
    val data = base ++ tail ++ base
    val ing = ingest(3L, data)
    val res = ing.result()
    assert(ing.late > 0 && ing.sideRunCount > 0)
    checkExact(res, data, "main run and a side run of identical rows")
  }

  test("a merged sketch fed on, merged with an input fed on: shared history once, new events all") {
    val rnd = new Random(13)
    // 2,000 rows within 1,000 ticks: all of them stay in the window
    val all = (0 until 2000).map(i => (rnd.nextInt(40).toLong, 5000L + i / 2, 1L))
    val (a1, rest) = all.splitAt(500)
    val (b1, rest2) = rest.splitAt(500)
    val (m2, a2) = rest2.splitAt(500)
    def build(salt: Long, d: Seq[Row]): EcmSketch = {
      val s = EcmSketch.create(spec, plan, seed); s.setEventSalt(salt)
      d.foreach { case (k, t, w) => s.add(k, t, w) }
      s
    }
    val a = build(1L, a1); val b = build(2L, b1)
    val m = EcmSketch.merge(Seq(a, b))
    // identical rows after the merge, into the merge result and into one of its inputs
    m2.foreach { case (k, t, w) => m.add(k, t, w); a.add(k, t, w) }
    a2.foreach { case (k, t, w) => a.add(k, t, w) }
    checkExact(EcmSketch.merge(Seq(m, a)), a1 ++ b1 ++ m2 ++ m2 ++ a2, "merge of (a + b, fed on) and (a, fed on)")
    // the order of a merge's inputs does not change its ids
    val ba = EcmSketch.merge(Seq(b, a)); val ab = EcmSketch.merge(Seq(a, b))
    m2.take(50).foreach { case (k, t, w) => ab.add(k, t + 20000, w); ba.add(k, t + 20000, w) }
    assert(java.util.Arrays.equals(SketchCodec.encode(ab), SketchCodec.encode(ba)))
  }

  test("copies of a wave give their new events ids of their own; salts decide the ids") {
    val cfg = RwConfig(0.3, 0.05, Long.MaxValue, 1L) // capacity 400
    val w = RandWave.salted(cfg, 5L)
    (0 until 100).foreach(_ => w.add(3))
    val c1 = w.copy(); val c2 = w.copy()
    Seq(w, c1, c2).foreach(x => (0 until 50).foreach(_ => x.add(4)))
    assert(RandWave.merge(Seq(w, c1, c2), cfg).estimateFrom(0) == 250.0)
    // the same salt and the same events: the same ids (one stream, counted once); another salt: other ids
    val v = RandWave.salted(cfg, 5L)
    (0 until 100).foreach(_ => v.add(3))
    (0 until 50).foreach(_ => v.add(4))
    val u = RandWave.salted(cfg, 5L)
    (0 until 150).foreach(i => u.add(if (i < 100) 3 else 4))
    assert(RandWave.merge(Seq(v, u), cfg).estimateFrom(0) == 150.0)
    val o = RandWave.salted(cfg, 6L)
    (0 until 150).foreach(i => o.add(if (i < 100) 3 else 4))
    assert(RandWave.merge(Seq(v, o), cfg).estimateFrom(0) == 300.0)
  }
}
