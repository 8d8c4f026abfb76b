package ecmsketch.ecm.dyadic

import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.Families
import ecmsketch.core.{Codec, KeyType, SketchException, WindowSpec}
import ecmsketch.hash.Hashing

import scala.collection.mutable
import scala.util.Random

/** Dyadic sketches of string and binary keys (docs/design/string-keys.md, "String and binary keys"): heavy
  * hitters and top-k return the original keys; against a brute-force oracle on Zipf streams whose
  * popular keys drift over several windows, every key above max((phi + gap) A, the candidate recall
  * floor) is reported; the candidate table keeps its Misra-Gries guarantee through merges of up to
  * 64 sites; the format round-trips and refuses tampered tables.
  */
class DyadicStringSuite extends AnyFunSuite {
  import DyadicStringSuite._

  val W = 2000L
  val spec = WindowSpec(countWindow = false, tsMicros = false, window = W)

  def build(rows: Seq[Row], m: Int, seed: Long = 7L, bits: Int = 32, levels: Int = 0): DyadicSketch = {
    val s = DyadicSketch.create(spec, 0.05, 0.05, mergeLevels = levels, universeBits = bits, seed = seed, candidates = m)
    rows.foreach(r => s.add(r.key.getBytes(UTF_8), KeyType.String, r.ts, r.w))
    s
  }

  /** Checks every heavy-hitter and top-k answer against the oracle; returns (recall num, den) above phi + eps. */
  def check(s: DyadicSketch, rows: Seq[Row], what: String, violations: Array[Int]): (Int, Int) = {
    val now = s.lastTs
    var num = 0; var den = 0
    val floor = s.keyRecallFloor
    for (r <- Seq(20L, 200L, 1000L, W)) {
      val f = freqs(rows, now - r, now)
      val a = f.values.sum.toDouble
      val range = java.lang.Long.valueOf(r)
      for (phi <- Seq(0.01, 0.05, 0.2)) {
        val hh = s.heavyHitters(phi, range, null)
        val got = hh.map(k => new String(k.bytes, UTF_8))
        assert(got.distinct.size == got.size, s"$what: a key reported twice")
        got.foreach(k => assert(k.startsWith("page-"), s"$what: $k is not an original key"))
        val must = f.filter { case (_, c) => c >= (phi + s.heavyHitterGap(phi)) * a && c > floor }.keySet
        assert(must.subsetOf(got.toSet), s"$what r=$r phi=$phi: missed ${must -- got} (floor $floor, A $a)")
        hh.foreach(k => assert(k.upper >= f.getOrElse(new String(k.bytes, UTF_8), 0L) - 1e-9))
        if (got.exists(k => f.getOrElse(k, 0L) < phi * a)) violations(0) += 1
        val above = f.filter(_._2 >= (phi + s.epsilon) * a).keySet
        num += (above & got.toSet).size; den += above.size
      }
      // top-k: returned keys by estimate; a key left out beats a returned one by more than the
      // top-k bound only if it is below the recall floor
      val k = 5
      val top = s.topK(k, range, null)
      assert(top.map(_.estimate) == top.map(_.estimate).sorted.reverse)
      val names = top.map(x => new String(x.bytes, UTF_8))
      if (a > 0) {
        assert(top.size == math.min(k, f.size), s"$what r=$r: top-$k returned ${top.size}")
        val minRet = names.map(f.getOrElse(_, 0L)).min
        val beaten = (f -- names).filter(_._2 - minRet > s.topKErrorBound * a + 1e-9)
        if (beaten.exists(_._2 > floor)) violations(0) += 1
      }
    }
    (num, den)
  }

  test("string keys: heavy hitters and top-k return the original keys; recall above max((phi + gap) A, floor)") {
    val viol = Array(0)
    for (seed <- 1 to 3; m <- Seq(16, 256)) {
      val rows = driftingZipf(new Random(seed), 12000, 2000, W, 3.5)
      val s = build(rows, m, seed.toLong)
      val (num, den) = check(s, rows, s"seed $seed m $m", viol)
      assert(den > 0)
      // with 256 candidates the floor is below every heavy hitter of these streams
      if (m == 256) assert(num == den, s"seed $seed: recall $num/$den")
      info(f"seed $seed candidates $m: HH recall above phi+eps $num/$den, recall floor ${s.keyRecallFloor}%.1f rows, " +
        f"A(window) ${s.total(null, null)}%.0f, table ${s.keys.get.size} keys")
    }
    assert(viol(0) <= 1, s"${viol(0)} heavy-hitter / top-k answers outside the bound")
  }

  test("binary keys, point queries, and what a string sketch refuses") {
    val s = DyadicSketch.create(spec, 0.05, 0.05, universeBits = 24, candidates = 8)
    val keys = (0 until 20).map(i => Array[Byte](0, i.toByte, -1))
    (0 until 2000).foreach(i => s.add(keys(i % 3 + (if (i % 10 == 0) i % 20 else 0)), KeyType.Binary, i.toLong / 4, 1))
    val hh = s.heavyHitters(0.2, null, null)
    assert(hh.map(_.bytes.toSeq).toSet == Set(keys(0), keys(1), keys(2)).map(_.toSeq))
    assert(s.point(keys(1), null, null) >= 600)
    val e = intercept[SketchException](s.rangeCount(0L, 10L, null, null))
    assert(e.getMessage.contains("binary keys") && e.getMessage.contains("no meaningful order"))
    assert(intercept[SketchException](s.quantileIndex(0.5, null, null)).getMessage.contains("quantile"))
    assert(intercept[SketchException](s.rank(1.0, null, null)).getMessage.contains("rank"))
    assert(intercept[SketchException](s.point(1L, null, null)).getMessage.contains("key type mismatch"))
    assert(intercept[SketchException](s.add("x".getBytes(UTF_8), KeyType.String, 1000, 1)).getMessage.contains("binary keys"))
    assert(intercept[SketchException](s.add(new Array[Byte](KeyTable.MaxKeyBytes + 1), KeyType.Binary, 1000, 1))
      .getMessage.contains("at most"))
    val l = DyadicSketch.create(spec, 0.05, 0.05, universeBits = 24, candidates = 8); l.add(5L, 0, 1)
    assert(intercept[SketchException](DyadicSketch.merge(Seq(s, l))).getMessage.contains("key type"))
    val other = DyadicSketch.create(spec, 0.05, 0.05, universeBits = 24, candidates = 9); other.add(keys(0), KeyType.Binary, 0, 1)
    assert(intercept[SketchException](DyadicSketch.merge(Seq(s, other))).getMessage.contains("candidates 8 vs 9"))
    assert(intercept[SketchException](DyadicSketch.create(spec, 0.05, 0.05, candidates = 0)).getMessage.contains("candidates"))
  }

  test("candidate table: every key above the recall floor is held, for one table and merges of 2-64 sites") {
    val rnd = new Random(3)
    for (sites <- Seq(1, 2, 8, 64); m <- Seq(4, 32)) {
      val all = driftingZipf(new Random(sites * 7 + m), 6000, 500, W, 4.0)
      // rows dealt to sites at random; each site's table sees its rows in time order
      val bySite = all.groupBy(_ => rnd.nextInt(sites)).values.toSeq
      val tables = bySite.map { rs =>
        val t = new KeyTable(m, W)
        rs.foreach(r => { val b = r.key.getBytes(UTF_8); t.add(Hashing.fingerprintBytes(b), b, r.ts, r.w) })
        t
      }
      val t = tables.head.copy(); tables.tail.foreach(t.absorb)
      val now = all.map(_.ts).max
      val held = t.candidates.values.map(x => new String(x._1, UTF_8)).toSet
      assert(t.candidates.size <= 2 * m)
      for (r <- Seq(1L, 100L, W)) {
        val f = freqs(all, now - r, now)
        val missed = f.filter(_._2 > t.recallFloor).keySet -- held
        assert(missed.isEmpty, s"$sites sites m $m r $r: keys above the floor ${t.recallFloor} missing: $missed")
      }
      // the floor is at most the Misra-Gries bound (N_cur + N_prev) / (m + 1)
      val e = t.epochOf(now)
      val n2 = all.count(r => t.epochOf(r.ts) >= e - 1).toDouble // weights are 1 in these streams
      assert(t.recallFloor <= n2 / (m + 1) + 1e-9)
    }
  }

  test("empty sketches whose key domain is set (as dyadic_agg creates them) round-trip, for every domain") {
    for (d <- Seq(KeyType.Long, DyadicSketch.DoubleKeys, KeyType.String, KeyType.Binary)) {
      val s = DyadicSketch.create(spec, 0.1, 0.1, universeBits = 8, candidates = 4)
      s.setKeyDomain(d)
      val b = Codec.encode(DyadicKind, s)
      val back = Families.decodeAs(DyadicKind, b)
      assert(back.keyDomain == d && back.isEmpty && java.util.Arrays.equals(Codec.encode(DyadicKind, back), b))
      assert(back.total(null, null) == 0.0)
    }
  }

  test("round trip and hostile bytes of the candidate table") {
    val rows = driftingZipf(new Random(9), 3000, 300, W, 3.0)
    val s = build(rows, 16, bits = 20)
    val empty = DyadicSketch.create(spec, 0.05, 0.05, mergeLevels = 0, universeBits = 20, seed = 7L, candidates = 16); empty.setKeyDomain(KeyType.String)
    val merged = DyadicSketch.merge(Seq(s, build(rows.take(100), 16, bits = 20), empty))
    for (x <- Seq(s, empty, merged)) {
      val b = Codec.encode(DyadicKind, x)
      val d = Families.decodeAs(DyadicKind, b)
      assert(java.util.Arrays.equals(Codec.encode(DyadicKind, d), b))
      assert(d.keyDomain == KeyType.String && d.candidates == 16)
      assert(d.heavyHitters(0.05, null, null).map(k => (k.bytes.toSeq, k.estimate)) == x.heavyHitters(0.05, null, null).map(k => (k.bytes.toSeq, k.estimate)))
      assert(d.keyRecallFloor == x.keyRecallFloor)
    }
    val info = Families.info(s)
    assert(info("key_type") == "string" && info("candidates") == 16 && info("candidate_recall_floor") == s.keyRecallFloor)
    // tamper: the first candidate key's last byte (the table ends with the previous epoch's entries)
    val b = Codec.encode(DyadicKind, s)
    val key = s.keys.get.candidates.values.head._1
    val at = indexOf(b, key)
    assert(at > 0)
    val bad = b.clone(); bad(at + key.length - 1) = (bad(at + key.length - 1) ^ 1).toByte
    val e = intercept[SketchException](Families.decodeAs(DyadicKind, bad))
    assert(e.getMessage.contains("fingerprint") || e.getMessage.contains("checksum"), e.getMessage)
    // random damage of the table's region: SketchException only
    val rnd = new Random(1)
    val tableStart = b.length - 200
    for (_ <- 0 until 300) {
      val x = b.clone(); val i = tableStart + rnd.nextInt(200); x(i) = (x(i) ^ (1 << rnd.nextInt(8))).toByte
      try Families.decodeAs(DyadicKind, x) catch { case _: SketchException => () }
    }
    for (cut <- Seq(1, 9, 40)) intercept[SketchException](Families.decodeAs(DyadicKind, b.dropRight(cut)))
  }
}

object DyadicStringSuite {
  final case class Row(key: String, ts: Long, w: Long)

  /** A Zipf(1) stream over `keys` string keys whose ranking is reshuffled every half window, with
    * bursty timestamps spanning about `windows` windows.
    */
  def driftingZipf(rnd: Random, n: Int, keys: Int, window: Long, windows: Double): Seq[Row] = {
    val weights = (1 to keys).map(i => 1.0 / i)
    val cdf = weights.scanLeft(0.0)(_ + _).tail.map(_ / weights.sum).toArray
    val step = windows * window / n
    var perm = rnd.shuffle((0 until keys).toIndexedSeq)
    var lastShuffle = 0L
    var t = 0.0
    (0 until n).map { _ =>
      t += step * 2 * rnd.nextDouble()
      if (t.toLong - lastShuffle >= window / 2) { perm = rnd.shuffle((0 until keys).toIndexedSeq); lastShuffle = t.toLong }
      var i = java.util.Arrays.binarySearch(cdf, rnd.nextDouble()); if (i < 0) i = -i - 1
      Row(s"page-${perm(math.min(i, keys - 1))}", t.toLong, 1L)
    }
  }

  /** Exact weights of the keys with ts in (from, to]. */
  def freqs(rows: Seq[Row], from: Long, to: Long): Map[String, Long] = {
    val m = mutable.HashMap[String, Long]()
    rows.foreach(r => if (r.ts > from && r.ts <= to) m(r.key) = m.getOrElse(r.key, 0L) + r.w)
    m.toMap
  }

  def indexOf(hay: Array[Byte], needle: Array[Byte]): Int =
    (0 to hay.length - needle.length).find(i => (0 until needle.length).forall(j => hay(i + j) == needle(j))).getOrElse(-1)
}
