package ecmsketch.rwave

import org.scalatest.funsuite.AnyFunSuite
import ecmsketch.core.{ByteReader, ByteWriter, SketchException}
import ecmsketch.hash.Hashing

import scala.util.Random

class RwCodecSuite extends AnyFunSuite {
  import RwTestUtil._

  def encode(w: RandWave, base: Long): Array[Byte] = { val o = new ByteWriter(); new RwCells(w.config).write(w, o, base); o.toByteArray }
  def decode(cfg: RwConfig, b: Array[Byte], base: Long, lastTs: Long): RandWave = {
    val in = new ByteReader(b)
    val w = new RwCells(cfg).read(in, base, lastTs).asInstanceOf[RandWave]
    in.expectEnd()
    w
  }

  def streams(rnd: Random): Seq[(String, RwConfig, Stream)] = Seq(
    ("tiny", RwConfig(0.3, 0.1, 1000, rnd.nextLong()), random(rnd, 50, 20)),
    ("random", RwConfig(0.3, 0.1, Long.MaxValue, rnd.nextLong()), random(rnd, 20000, 8000)),
    ("bursty", RwConfig(0.3, 0.05, 5000, rnd.nextLong()), bursty(rnd, 20000)),
    ("positions", RwConfig(0.5, 0.1, 3000, rnd.nextLong()), allDistinct(30000, -5000)),
    ("negative-ts", RwConfig(0.5, 0.1, Long.MaxValue, rnd.nextLong()), allDistinct(3000, Long.MinValue))
  )

  test("round trip: identical bytes and answers; decoding at a later clock expires") {
    val rnd = new Random(1)
    for ((name, cfg, s) <- streams(rnd)) {
      val w = build(cfg, s)
      val base = s.head._2
      val b = encode(w, base)
      val d = decode(cfg, b, base, w.lastTs)
      checkInvariants(d)
      assert(java.util.Arrays.equals(encode(d, base), b), name)
      for (lo <- boundaries(s, w.lastTs, cfg.window)) assert(d.estimateFrom(lo) == w.estimateFrom(lo), s"$name lo=$lo")
      if (cfg.window != Long.MaxValue) {
        val later = w.lastTs + cfg.window / 2
        val d2 = decode(cfg, b, base, later)
        val w2 = w.copy(); w2.advanceTo(later)
        assert(java.util.Arrays.equals(encode(d2, base), encode(w2, base)), name)
        assert(decode(cfg, b, base, w.lastTs + cfg.window) == null, name) // all expired: an empty cell
      }
      info(s"$name: ${s.length} items, ${w.entryCount} entries, ${b.length} bytes")
    }
    assert(java.util.Arrays.equals(encode(new RandWave(RwConfig(0.3, 0.1, 10, 1)), 0), Array[Byte](0)))
    assert(new RwCells(RwConfig(0.3, 0.1, 10, 1)).read(new ByteReader(Array[Byte](0)), 0, 5) == null)
  }

  test("the compact (frozen) form of encoded and decoded waves answers, copies, merges and takes items like the levels") {
    val rnd = new Random(17)
    for ((name, cfg, s) <- streams(rnd)) {
      val (first, rest) = s.splitAt(s.length * 2 / 3)
      val base = s.head._2
      val live = build(cfg, first) // never encoded: levels stay materialized
      val enc = build(cfg, first)
      val b = encode(enc, base) // frozen by the encoding
      val fullLevel0 = live.level0Count == cfg.capacity
      assert(enc.frozenTs != null && enc.levels == null, name)
      val dec = decode(cfg, b, base, live.lastTs)
      assert(dec.frozenTs != null && dec.levels == null, s"$name: decoded waves start frozen")
      assert(java.util.Arrays.equals(encode(dec, base), b), s"$name: re-encoding the frozen form")
      val copy = dec.copy()
      assert(copy.frozenTs != null, name)
      val lows = boundaries(s, live.lastTs, cfg.window)
      for (w <- Seq(enc, dec, copy)) {
        for (lo <- lows) {
          assert(w.estimateFrom(lo) == live.estimateFrom(lo), s"$name lo=$lo")
          var i = 0
          while (i < cfg.instances) {
            assert(RwTestUtil.coveringLevel(w, i, lo) == RwTestUtil.coveringLevel(live, i, lo) && RwTestUtil.instanceEstimateFrom(w, i, lo) == RwTestUtil.instanceEstimateFrom(live, i, lo), s"$name i=$i lo=$lo")
            i += 1
          }
        }
        if (fullLevel0) assert(w.frozenTs == null, s"$name: a query above level 0 rebuilds the levels")
      }
      // frozen inputs of a merge, and frozen waves taking more items
      val merged = RandWave.merge(Seq(decode(cfg, b, base, live.lastTs), build(cfg, rest)), cfg)
      val all = build(cfg, s)
      assert(java.util.Arrays.equals(encode(merged, base), encode(all, base)), s"$name: merge of a frozen wave")
      for (w <- Seq(decode(cfg, b, base, live.lastTs), decode(cfg, b, base, live.lastTs).copy())) {
        rest.foreach { case (id, t) => w.addItem(id, t) }
        checkInvariants(w)
        assert(java.util.Arrays.equals(encode(w, base), encode(all, base)), s"$name: items added to a frozen wave")
      }
    }
  }

  def expectCorrupt(f: => Any): SketchException = {
    val e = intercept[SketchException](f)
    assert(e.getMessage.startsWith("corrupt sketch: "), e.getMessage)
    e
  }

  /** A wave whose level 0 is full, so per-instance lists are present. */
  def fullWave(cfg: RwConfig, n: Int = 5000): (RandWave, Stream) = { val s = allDistinct(n, 0); (build(cfg, s), s) }

  test("encoding trims every level to its live entries; adding after encoding matches a wave never encoded") {
    val rnd = new Random(7)
    for ((name, cfg, s) <- streams(rnd)) {
      val half = s.length / 2
      val w = build(cfg, s.take(half)); val plain = build(cfg, s.take(half))
      val base = s.head._2
      encode(w, base)
      def slack(lv: Level): Int = lv.ts.length - math.max(4, lv.n)
      assert(slack(w.level0) == 0, s"$name level 0")
      var extra = 0
      w.foreachLevel((_, _, lv) => extra += slack(lv))
      assert(extra == 0, s"$name: $extra spare entries after encoding")
      s.drop(half).foreach { case (id, t) => w.addItem(id, t); plain.addItem(id, t) }
      checkInvariants(w)
      assert(java.util.Arrays.equals(encode(w, base), encode(plain, base)), name)
      for (lo <- boundaries(s, w.lastTs, cfg.window)) assert(w.estimateFrom(lo) == plain.estimateFrom(lo), s"$name lo=$lo")
    }
  }

  test("fuzzed, truncated and tampered bytes only throw 'corrupt sketch: ...'") {
    val rnd = new Random(2)
    var accepted = 0; var rejected = 0
    for ((_, cfg, s) <- streams(rnd).take(4)) {
      val w = build(cfg, s)
      val base = s.head._2
      val b = encode(w, base)
      for (trial <- 0 until 300) {
        val f = b.clone()
        val mutated = trial % 3 match {
          case 0 => f(rnd.nextInt(f.length)) = (f(rnd.nextInt(f.length)) ^ (1 << rnd.nextInt(8))).toByte; f
          case 1 => java.util.Arrays.copyOf(f, rnd.nextInt(f.length))
          case _ => val k = rnd.nextInt(f.length); (f.take(k) ++ Array.fill(1 + rnd.nextInt(9))(rnd.nextInt(256).toByte) ++ f.drop(k))
        }
        try {
          val d = decode(cfg, mutated, base, w.lastTs)
          if (d != null) { checkInvariants(d); decode(cfg, encode(d, base), base, w.lastTs) }
          accepted += 1
        } catch {
          case e: SketchException => assert(e.getMessage.startsWith("corrupt sketch: "), e.getMessage); rejected += 1
        }
      }
    }
    info(s"fuzz: $rejected rejected, $accepted accepted (every accepted one is a valid canonical state)")
  }

  test("hostile counts cannot allocate; structural violations are named") {
    val cfg = RwConfig(0.3, 0.1, Long.MaxValue, 9)
    val cap = cfg.capacity
    // a level-0 count larger than the capacity, and one the bytes cannot hold
    expectCorrupt(decode(cfg, { val o = new ByteWriter(); o.putVarLong(cap + 1L); o.toByteArray }, 0, 100))
    val e = expectCorrupt(decode(cfg, { val o = new ByteWriter(); o.putVarLong(cap); o.toByteArray }, 0, 100))
    assert(e.getMessage.contains("needs at least"))
    expectCorrupt(decode(cfg, { val o = new ByteWriter(); o.putVarLong(Long.MaxValue); o.toByteArray }, 0, 100))
    // instance counts
    val (w, s) = fullWave(cfg)
    val o0 = new ByteWriter(); o0.putVarLong(cap)
    var prev = 0L
    val l0 = s.takeRight(cap)
    l0.foreach { case (id, t) => o0.putVarLong(t - prev); o0.putLong(id); prev = t }
    val head = o0.toByteArray
    expectCorrupt(decode(cfg, head ++ { val o = new ByteWriter(); o.putVarLong(1L << 40); o.toByteArray }, 0, w.lastTs))
    expectCorrupt(decode(cfg, head ++ { val o = new ByteWriter(); o.putVarLong(60L * cap); o.toByteArray }, 0, w.lastTs))
    // items after the last timestamp
    expectCorrupt(decode(cfg, encode(w, 0), 0, w.lastTs - 1))
    // unsorted / duplicate ids in level 0
    def level0(items: Seq[(Long, Long)]): Array[Byte] = {
      val o = new ByteWriter(); o.putVarLong(items.size); var p = 0L
      items.foreach { case (id, t) => o.putVarLong(t - p); o.putLong(id); p = t }; o.toByteArray
    }
    assert(decode(cfg, level0(Seq((5L, 1L), (3L, 2L), (4L, 2L))), 0, 10).estimateFrom(0) == 3.0)
    expectCorrupt(decode(cfg, level0(Seq((5L, 1L), (4L, 2L), (3L, 2L))), 0, 10))
    expectCorrupt(decode(cfg, level0(Seq((5L, 1L), (5L, 2L))), 0, 10))
    expectCorrupt(decode(cfg, level0(Seq((5L, 1L), (6L, 1L), (5L, 3L))), 0, 10))
    // timestamp overflow
    expectCorrupt(decode(cfg, { val o = new ByteWriter(); o.putVarLong(1); o.putVarLong(-1L); o.putLong(1); o.toByteArray }, 5, Long.MaxValue))
  }

  test("non-canonical per-instance items are rejected") {
    val cfg = RwConfig(0.5, 0.1, Long.MaxValue, 5)
    val cap = cfg.capacity
    val (w, _) = fullWave(cfg, 3000)
    val good = encode(w, 0)
    assert(java.util.Arrays.equals(encode(decode(cfg, good, 0, w.lastTs), 0), good))
    // rebuild the encoding with one extra (old) item added to instance 0
    def withExtra(id: Long, ts: Long): Array[Byte] = {
      val o = new ByteWriter()
      val l0 = w.level0
      o.putVarLong(l0.n); var p = 0L
      (0 until l0.n).foreach { j => o.putVarLong(l0.ts(j) - p); o.putLong(l0.ids(j)); p = l0.ts(j) }
      val set = new ecmsketch.core.LongHashMap; set.reset(l0.n); (0 until l0.n).foreach(j => set.add(l0.ids(j)))
      for (i <- 0 until cfg.instances) {
        val items = scala.collection.mutable.TreeSet[(Long, Long)]()
        for (l <- 1 to 60) { val lv = w.levelAt(i, l); if (lv != null) (0 until lv.n).foreach(j => if (!set.contains(lv.ids(j))) items += ((lv.ts(j), lv.ids(j)))) }
        if (i == 0) items += ((ts, id))
        o.putVarLong(items.size); p = 0L
        items.foreach { case (t, x) => o.putVarLong(t - p); o.putLong(x); p = t }
      }
      o.toByteArray
    }
    // an id of level 0 in instance 0 belongs to no level above 0
    val id0 = Iterator.from(100000).map(_.toLong).find(x => w.levelOf(0, Hashing.modP(x)) == 0).get
    val e = expectCorrupt(decode(cfg, withExtra(id0, 0), 0, w.lastTs))
    assert(e.getMessage.contains("no level"))
    // an old item of level 1 when level 1 is already full of newer items
    assert(RwTestUtil.levelSize(w, 0, 1) == cap)
    val id1 = Iterator.from(100000).map(_.toLong).find(x => w.levelOf(0, Hashing.modP(x)) == 1).get
    expectCorrupt(decode(cfg, withExtra(id1, 0), 0, w.lastTs))
    // an extra that repeats a level-0 id, and one newer than level 0
    expectCorrupt(decode(cfg, withExtra(w.level0.ids(5), 0), 0, w.lastTs))
    expectCorrupt(decode(cfg, withExtra(id1, w.lastTs), 0, w.lastTs))
  }
}
