package ecmsketch.frequent

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.Oracle
import ecmsketch.core.{Codec, SketchException, WindowSpec}

/** Merges against exact answers of the union: order-preserving merges of 2 to 33 sites, merge trees,
  * time-disjoint roll-ups over days; merge laws and refusals.
  */
class FrequentMergeSuite extends AnyFunSuite {
  import FreqKit._

  private def split(rows: Seq[Row], m: Int, seed: Long): Seq[Seq[Row]] = {
    val r = new Random(seed)
    val parts = Array.fill(m)(Vector.newBuilder[Row])
    rows.foreach(x => parts(r.nextInt(m)) += x)
    parts.map(_.result()).toSeq
  }

  private def bytes(s: FrequentSketch): Seq[Byte] = Codec.encode(FrequentKind, s).toSeq

  test("order-preserving merges of 2 to 33 sites hold the certified bound of depth 1") {
    val rows = zipf(60000, 4000, 1.1, 2, 11L)
    val window = 40000L
    val o = oracle(rows)
    Seq(2, 3, 5, 12, 33).foreach { m =>
      val sites = split(rows, m, m.toLong).map(p => build(p, window, 0.02, levels = 1))
      val merged = FrequentSketch.merge(sites)
      assert(merged.mergeDepth == 1)
      assert(merged.errorBound <= 0.02)
      val now = rows.last.ts
      val worst = check(merged, o, window, now, ranges(rows, window, now, 25, m.toLong))
      info(f"$m sites: scales ${merged.scaleCount}, entries ${merged.storedEntries}, worst error $worst%.5f, bound ${merged.errorBound}%.5f")
      roundTrip(merged)
    }
  }

  test("a merge tree of 8 sites (depth 3) holds the bound of depth 3") {
    val rows = zipf(40000, 3000, 1.0, 2, 12L)
    val window = 30000L
    var level = split(rows, 8, 13L).map(p => build(p, window, 0.05, levels = 3))
    while (level.size > 1) level = level.grouped(2).map(g => FrequentSketch.merge(g)).toSeq
    val m = level.head
    assert(m.mergeDepth == 3 && m.errorBound <= 0.05)
    val now = rows.last.ts + 1
    check(m, oracle(rows), window, now, ranges(rows, window, now, 25, 14L))
  }

  test("merges are order-free and a merge of one sketch is a copy") {
    val rows = zipf(20000, 2000, 1.1, 2, 15L)
    val sites = split(rows, 4, 16L).map(p => build(p, 15000L, 0.03, levels = 1))
    val a = bytes(FrequentSketch.merge(sites))
    assert(bytes(FrequentSketch.merge(sites.reverse)) == a)
    assert(bytes(FrequentSketch.merge(Seq(sites(2), sites(0), sites(3), sites(1)))) == a)
    assert(bytes(FrequentSketch.merge(Seq(sites(1)))) == bytes(sites(1)))
    // associativity of the bound (not of the bytes): ((a b) c) d answers within depth 2
    val nested = FrequentSketch.merge(Seq(FrequentSketch.merge(Seq(FrequentSketch.merge(sites.take(2)), sites(2))), sites(3)))
    assert(nested.mergeDepth == 3)
    val now = rows.last.ts
    check(nested, oracle(rows), 15000L, now, ranges(rows, 15000L, now, 10, 17L))
  }

  test("time-disjoint roll-ups over days keep depth 0 and the single-sketch bound") {
    // ticks are minutes; hourly sketches over three days, a window of one day
    val window = 1440L
    val r = new Random(18L)
    val hours = (0 until 72).map { h =>
      (0 until 600).map(i => Row(if (r.nextInt(3) == 0) r.nextInt(5).toLong else r.nextInt(3000).toLong, h * 60L + i / 10, 1L))
    }
    val hourly = hours.map(rows => build(rows, window, 0.02))
    val rolled = FrequentSketch.merge(hourly)
    assert(rolled.mergeDepth == 0, "hourly sketches are time-disjoint: the roll-up costs no merge level")
    val days = hourly.grouped(24).map(g => FrequentSketch.merge(g)).toSeq
    val rolled2 = FrequentSketch.merge(days)
    assert(rolled2.mergeDepth == 0)
    val all = hours.flatten
    val now = all.last.ts
    Seq(rolled, rolled2).foreach(s => check(s, oracle(all), window, now, ranges(all, window, now, 30, 19L)))
    assert(bytes(rolled) == bytes(rolled2), "a roll-up of roll-ups equals the roll-up of the parts")
  }

  test("the union of overlapping sketches equals one sketch when it is one stream cut in time") {
    val rows = zipf(20000, 1000, 1.2, 1, 20L)
    val (a, b) = rows.splitAt(12000)
    val one = build(rows, 100000L, 0.03)
    val two = FrequentSketch.merge(Seq(build(a, 100000L, 0.03), build(b, 100000L, 0.03)))
    val now = rows.last.ts
    val rs = ranges(rows, 100000L, now, 20, 21L)
    rs.foreach { r =>
      assert(one.rangeCount(r, now).lower <= two.rangeCount(r, now).upper)
      check(two, oracle(rows), 100000L, now, Seq(r))
    }
  }

  test("rows in any order: shuffled rows cut into partitions, each sorted, merged as one stream") {
    // what an aggregate over unordered rows does: partial sketches of one stream, merged once
    val rows = zipf(30000, 2000, 1.1, 2, 22L)
    val shuffled = new Random(23L).shuffle(rows)
    val parts = shuffled.grouped(7000).map(p => build(p.sortBy(_.ts), 20000L, 0.03, levels = 1)).toSeq
    val m = FrequentSketch.mergeSameStream(parts)
    assert(m.mergeDepth == 1 && m.errorBound <= 0.03)
    val now = rows.last.ts
    check(m, oracle(rows), 20000L, now, ranges(rows, 20000L, now, 20, 24L))
    // reversed: the same rows cut in time, handed over newest first, are time-disjoint (depth 0)
    val slices = rows.grouped(5000).map(p => build(p, 20000L, 0.03, levels = 1)).toSeq.reverse
    val r = FrequentSketch.merge(slices)
    assert(r.mergeDepth == 0)
    check(r, oracle(rows), 20000L, now, ranges(rows, 20000L, now, 20, 25L))
  }

  test("refusals: parameters, key types, count windows; empty inputs") {
    val sp = spec(100L)
    val a = FrequentSketch.create(sp, 0.05); a.addKey(1L, 1L, 1L)
    val b = FrequentSketch.create(sp, 0.04); b.addKey(1L, 1L, 1L)
    assert(intercept[SketchException](FrequentSketch.merge(Seq(a, b))).getMessage.contains("epsilon 0.05 vs 0.04"))
    val c = FrequentSketch.create(spec(200L), 0.05)
    assert(intercept[SketchException](FrequentSketch.merge(Seq(a, c))).getMessage.contains("window 100 vs 200"))
    val d = FrequentSketch.create(sp, 0.05, 1)
    assert(intercept[SketchException](FrequentSketch.merge(Seq(a, d))).getMessage.contains("merge_levels 0 vs 1"))
    val e = FrequentSketch.create(sp, 0.05); e.addKey("x", 1L, 1L)
    assert(intercept[SketchException](FrequentSketch.merge(Seq(a, e))).getMessage.contains("bigint keys and string keys"))
    val cw = WindowSpec(countWindow = true, tsMicros = false, window = 100L)
    val f = FrequentSketch.create(cw, 0.05); val g = FrequentSketch.create(cw, 0.05)
    assert(intercept[SketchException](FrequentSketch.merge(Seq(f, g))).getMessage.contains("count-based sketches cannot be merged"))
    assert(intercept[SketchException](FrequentSketch.merge(Nil)).getMessage.contains("at least one sketch"))
    val empty = FrequentSketch.create(sp, 0.05)
    val m = FrequentSketch.merge(Seq(empty, a, FrequentSketch.create(sp, 0.05)))
    assert(m.mergeDepth == 0 && bytes(m) == bytes(a))
  }

  test("an input a whole window behind the merged clock neither contributes nor deepens the merge") {
    val sp = spec(100L)
    val old = FrequentSketch.create(sp, 0.05); (0 until 50).foreach(i => old.addKey(9L, i.toLong, 1L))
    val fresh = FrequentSketch.create(sp, 0.05); (1000 until 1050).foreach(i => fresh.addKey(3L, i.toLong, 1L))
    val m = FrequentSketch.merge(Seq(old, fresh))
    assert(m.mergeDepth == 0 && m.topK(5, null, null).map(_.key) == Seq(3L))
    assert(m.count == 100L)
    val u = Oracle.union(Seq(oracle((0 until 50).map(i => Row(9L, i.toLong, 1L))), oracle((1000 until 1050).map(i => Row(3L, i.toLong, 1L)))))
    assert(u.after(1049L - 100L) == 50L && m.rangeCount(null, null).lower == 50L)
  }
}
