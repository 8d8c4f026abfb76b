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
    for (m <- Seq(2, 3, 5, 12, 33); sorted <- Seq(false, true)) {
      val sites = split(rows, m, m.toLong).map(p => if (sorted) buildSorted(p, window, 0.02, levels = 1) else build(p, window, 0.02, levels = 1))
      val merged = FrequentSketch.merge(sites)
      assert(merged.mergeDepth == 1)
      assert(merged.errorBound <= 0.02)
      val now = rows.last.ts
      val worst = check(merged, o, window, now, ranges(rows, window, now, 25, m.toLong))
      info(f"$m sites${if (sorted) " (sorted batches)" else ""}: scales ${merged.scaleCount}, entries ${merged.storedEntries}, worst error $worst%.5f, bound ${merged.errorBound}%.5f")
      roundTrip(merged)
    }
  }

  test("folds: sites over the same time fold into about one sketch's entries, with many distinct keys") {
    // heavy keys beside a flood of distinct ones (Misra-Gries decrements on every scale), bursts
    val rows = adversarial(40000, 41L).zip(zipf(40000, 3000, 1.1, 0, 42L)).flatMap { case (a, b) => Seq(a, b.copy(ts = a.ts)) }
    val window = 50000L
    val o = oracle(rows)
    val now = rows.last.ts
    val sizes = Seq(2, 5, 12, 33).map { m =>
      val sites = split(rows, m, 43L + m).map(p => build(p, window, 0.02, levels = 1))
      val merged = FrequentSketch.merge(sites)
      assert(merged.mergeDepth == 1 && merged.errorBound <= 0.02)
      val worst = check(merged, o, window, now, ranges(rows, window, now, 30, 44L + m))
      roundTrip(merged)
      info(f"$m sites: entries ${merged.storedEntries} (inputs ${sites.map(_.storedEntries).sum}), worst error $worst%.5f, bound ${merged.errorBound}%.5f")
      merged.storedEntries
    }
    assert(sizes.last <= 1.5 * sizes.head, s"a fold of 33 sites holds about what a fold of 2 holds: $sizes")
  }

  test("a fold's steps, checked against its inputs and exact counts at every start of every scale") {
    // docs/design/windowed-top-k.md, "Folds": (1) a scale l >= 1 serves only starts with n(t0) >= q 2^l / 2;
    // (2) an input's chosen scale l_j >= 1 has lambda < 2 n_j(B_l + 1) / (q - 1) (unit rows; inputs of one
    // stream by Lemma 3, folds by their drop marks' lower bound);
    // (3) the fold's bounds hold the exact counts; (4) a key's width (upper - lower) grows by at most
    // 3 (b - 1) + lambda / 4 over the sum of the inputs' widths, the total's by 2 (b - 1)
    val r = new Random(56L)
    (0 until 8).foreach { trial =>
      val m = 2 + r.nextInt(5)
      val base = zipf(6000, 40, 1.0, r.nextInt(3), 57L + trial)
      val rows = base.zipWithIndex.map { case (x, i) => if (i % 4 == 0) x.copy(key = 1000L + i) else x } // many keys seen once
      val window = 100000L
      val levels = 1 + r.nextInt(2)
      // half the trials build the sites from one sorted batch each, as the ingest layer does
      val sites = split(rows, m, 58L + trial).map(p => if (trial % 4 < 2) buildSorted(p, window, 0.2, levels) else build(p, window, 0.2, levels))
      val inputs = if (trial % 2 == 0) sites else sites.grouped(2).map(g => FrequentSketch.merge(g)).toSeq
      val f = FrequentSketch.merge(inputs)
      assert(f.mergeDepth >= 1)
      val siteRows = split(rows, m, 58L + trial)
      val inputRows = if (trial % 2 == 0) siteRows else siteRows.grouped(2).map(_.flatten).toSeq
      val exact = oracle(rows)
      val keys = rows.map(_.key).distinct.take(60) :+ -1L
      val starts = rows.map(_.ts).distinct.flatMap(t => Seq(t, t + 1)).distinct
      val q = f.plan.q
      f.scales.zipWithIndex.foreach { case (out, l) =>
        val lambda = 1L << l
        val b = FrequentFold.blockSize(l)
        val low = out.dropped
        val chosen = inputs.map(scaleRead(_, low))
        inputs.indices.foreach { j => // (2): inputs of one stream, and folds of two (odd trials)
          if (chosen(j) >= 1) {
            val nj = inputRows(j).filter(_.ts > low).map(_.w).sum
            assert((1L << chosen(j)) < 2.0 * nj / (q - 1), s"trial $trial scale $l input $j: scale ${chosen(j)} for n_j $nj")
          }
        }
        starts.filter(t0 => t0 > low && (l == 0 || t0 <= f.scales(l - 1).dropped)).foreach { t0 =>
          val n = exact.after(t0 - 1)
          if (l >= 1) assert(n >= q * lambda / 2, s"trial $trial scale $l start $t0: n $n < q lambda / 2") // (1)
          val (lo, hi, d) = out.totals(t0)
          assert(lo <= n && n <= hi, s"trial $trial scale $l start $t0: n $n outside [$lo, $hi]") // (3)
          val ins = inputs.indices.map(j => inputs(j).scales(chosen(j)).totals(t0))
          assert(hi - lo <= ins.map(x => x._2 - x._1).sum + 2 * (b - 1), s"trial $trial scale $l start $t0: total width") // (4)
          keys.foreach { k =>
            val f0 = exact.after(t0 - 1, Some(k))
            val (klo, khi) = if (f.dict.findLong(k) < 0) (0L, 0L) else out.keyBound(f.dict.findLong(k), t0)
            assert(klo <= f0 && f0 <= khi + d, s"trial $trial scale $l start $t0 key $k: $f0 outside [$klo, ${khi + d}]")
            val inWidth = inputs.indices.map { j =>
              val s = inputs(j); val sc = s.scales(chosen(j)); val id = s.dict.findLong(k)
              val (a, z) = if (id < 0) (0L, 0L) else sc.keyBound(id, t0)
              z + ins(j)._3 - a
            }.sum
            assert(khi + d - klo <= inWidth + 3 * (b - 1) + lambda / 4, s"trial $trial scale $l start $t0 key $k: width ${khi + d - klo} over inputs' $inWidth, b $b")
          }
        }
      }
    }
  }

  test("folds of folds: random trees over shuffled partitions, weighted rows and bursts, depth 1 to 3") {
    val r = new Random(45L)
    (0 until 12).foreach { trial =>
      val rows = zipf(12000, 1500, 0.9 + r.nextDouble() * 0.4, r.nextInt(3), 46L + trial, weights = trial % 2 == 0)
      val window = 5000L + r.nextInt(20000)
      val levels = 1 + r.nextInt(4)
      var level = split(rows, 2 + r.nextInt(7), 47L + trial).map(p => build(p, window, 0.05, levels))
      while (level.size > 1) level = r.shuffle(level).grouped(2 + r.nextInt(2)).map(g => FrequentSketch.merge(g)).toSeq
      val m = level.head
      val now = rows.last.ts + r.nextInt(3)
      check(m, oracle(rows), window, now, ranges(rows, window, now, 15, 48L + trial))
      roundTrip(m)
    }
  }

  test("a fold's decrement steps sit on total entries of their own time: weightless ones round-trip") {
    val rows = adversarial(30000, 49L)
    val sites = split(rows, 6, 50L).map(p => build(p, 40000L, 0.02, levels = 1))
    val m = FrequentSketch.merge(sites)
    val weightless = m.scales.map(sc => (sc.start until sc.end).count(i => sc.ekey(i) == Scale.Total && sc.ew(i) == 0L)).sum
    assert(weightless > 0, "the decrement steps of 6 sites do not all fall on block times")
    val d = roundTrip(m)
    val now = rows.last.ts
    check(d, oracle(rows), 40000L, now, ranges(rows, 40000L, now, 30, 51L))
  }

  test("weights near 2^63: a sketch and a fold keep their horizons (no overflow) and their keys") {
    val rows = (0 until 40).map(i => Row(if (i % 3 == 0) 0L else (1 + i % 7).toLong, 100L + i, 1L << 57))
    Seq(0.9, 0.3, 0.05).foreach { eps =>
      val one = build(rows, Long.MaxValue, eps, 1)
      check(one, oracle(rows), Long.MaxValue, rows.last.ts, Seq(Long.MaxValue, 1L, 7L))
      val m = FrequentSketch.merge(Seq(build(rows.filter(_.ts % 2 == 0), Long.MaxValue, eps, 1),
        build(rows.filter(_.ts % 2 == 1), Long.MaxValue, eps, 1)))
      check(m, oracle(rows), Long.MaxValue, rows.last.ts, Seq(Long.MaxValue, 1L, 7L))
      roundTrip(m)
    }
  }

  test("a sketch merged 70 times in turn (a collector folding in each period's site) still decodes") {
    var c = FrequentSketch.create(spec(1000000L), 0.5, 0)
    val all = Vector.newBuilder[Row]
    (0 until 70).foreach { e =>
      c.addKey(1L, e * 10L, 1L); all += Row(1L, e * 10L, 1L)
      val s = FrequentSketch.create(spec(1000000L), 0.5, 0); s.addKey(2L, e * 10L + 1, 1L); all += Row(2L, e * 10L + 1, 1L)
      c.addKey(3L, e * 10L + 2, 1L); all += Row(3L, e * 10L + 2, 1L)
      c = FrequentSketch.merge(Seq(c, s))
    }
    assert(c.mergeDepth == 70)
    val d = roundTrip(c)
    checkSums(d) // 70 folds add their leftovers to the decrements, and take them from the keys
    val rows = all.result()
    rows.map(_.ts).distinct.foreach { t =>
      val r = rows.last.ts - t + 1
      Seq(1L, 2L, 3L).foreach { k =>
        val f = rows.count(x => x.key == k && x.ts >= t).toLong
        val x = d.estimate(java.lang.Long.valueOf(k), r, null)
        assert(x.lower <= f && f <= x.upper, s"range $r key $k: $f outside [${x.lower}, ${x.upper}]")
      }
    }
  }

  test("rows in any order through the ingest: up to 2^20 rows of a group make one run") {
    // a run of fewer rows than about 2q holds an entry per row: the ingest keeps the rows in its
    // reorder buffer instead of starting a main run and a side run of late rows
    val rows = zipf(300000, 5000, 1.1, 1, 53L)
    val window = 400000L
    val ops = new FrequentOps(() => FrequentSketch.create(spec(window), 0.02, 1), FreqKeys.BigInt, null)
    val g = new ecmsketch.ingest.Ingest(ops, window)
    new Random(54L).shuffle(rows).foreach(x => g.add(x.key, x.ts, x.w))
    val s = g.result()
    assert(g.late == 0 && g.sideRunCount == 0, (g.late, g.sideRunCount))
    assert(s.mergeDepth == 0 && s.errorBound <= 0.02)
    val now = rows.map(_.ts).max
    check(s, oracle(rows), window, now, ranges(rows, window, now, 15, 55L))
  }

  test("rows in order, or out of order only locally, start the main run after 16,384 rows") {
    // the reorder buffer grows past Ingest.MaxBuffer only for rows in no order: rows in order keep
    // little memory however many there are
    val rows = zipf(300000, 5000, 1.1, 1, 59L)
    val window = 400000L
    val r = new Random(60L)
    Seq("in order" -> rows, "shuffled within blocks of 2,000" -> rows.grouped(2000).flatMap(r.shuffle(_)).toSeq).foreach { case (name, order) =>
      val ops = new FrequentOps(() => FrequentSketch.create(spec(window), 0.02, 1), FreqKeys.BigInt, null)
      val g = new ecmsketch.ingest.Ingest(ops, window)
      var most = 0
      order.foreach { x => g.add(x.key, x.ts, x.w); most = math.max(most, g.bufferCapacity) }
      val s = g.result()
      assert(most <= ecmsketch.ingest.Ingest.MaxBuffer, s"$name: the buffer grew to $most")
      assert(g.sideRunCount == 0 && s.mergeDepth == 0, s"$name: ${g.sideRunCount} side runs, depth ${s.mergeDepth}")
      val now = rows.map(_.ts).max
      check(s, oracle(rows), window, now, ranges(rows, window, now, 10, 61L))
    }
  }

  test("beyond 2^20 rows, late rows up to as many as taken make one side run") {
    val n = ecmsketch.ingest.Ingest.MaxLate + 250000
    val r = new Random(56L)
    // one row per timestamp, Zipf-like keys, in no order
    val rows = (0 until n).map(i => Row((math.pow(1.0 - r.nextDouble(), -1.0 / 1.1).toLong - 1) % 5000, i + 1L, 1L))
    val window = 2000000L
    val ops = new FrequentOps(() => FrequentSketch.create(spec(window), 0.02, 1), FreqKeys.BigInt, null)
    val g = new ecmsketch.ingest.Ingest(ops, window)
    new Random(57L).shuffle(rows).foreach(x => g.add(x.key, x.ts, x.w))
    val s = g.result()
    assert(g.late > 0 && g.sideRunCount == 1, (g.late, g.sideRunCount))
    assert(s.mergeDepth == 1 && s.errorBound <= 0.02)
    check(s, oracle(rows), window, n.toLong, ranges(rows, window, n.toLong, 10, 58L))
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

  test("roll-ups of folds: an older fold's pending decrements reach no range after it") {
    // a fold's scales keep the leftover key units of its blocks as a pending decrement (no partial
    // counts, no total residual); rolled up under a newer sketch, they must stay at the older sketch's
    // last timestamp: a range after it counts the newer sketch's decrements only
    val window = 1000000L
    val r = new Random(60L)
    (0 until 6).foreach { trial =>
      val older = zipf(9000, 2000, 1.0, 2, 61L + trial).map(x => if (x.ts % 3 == 0) x.copy(key = 5000L + x.ts) else x)
      val gap = older.last.ts + 1 + r.nextInt(50)
      val newer = zipf(3000 + 1000 * trial, 300, 1.1, 2, 71L + trial).map(x => x.copy(ts = x.ts + gap))
      val f1 = FrequentSketch.merge(split(older, 3, 62L + trial).map(p => build(p, window, 0.05, levels = 1)))
      val f2 = if (trial % 2 == 0) FrequentSketch.merge(split(newer, 2, 72L + trial).map(p => build(p, window, 0.05, levels = 1)))
               else build(newer, window, 0.05, levels = 1)
      assert(f1.mergeDepth == 1 && f1.scales.exists(_.pendDec > 0), s"trial $trial: the older fold leaves units over")
      val rolled = FrequentSketch.merge(Seq(f2, f1))
      assert(rolled.mergeDepth == 1)
      var checked = 0
      rolled.scales.zipWithIndex.foreach { case (sc, l) =>
        val cut = sc.dropped
        val in2 = f2.scales(scaleRead(f2, cut, l))
        newer.map(_.ts).distinct.filter(t0 => t0 > cut && t0 > f1.lastTs).foreach { t0 =>
          assert(sc.totals(t0)._3 <= in2.totals(t0)._3,
            s"trial $trial scale $l start $t0: decrements ${sc.totals(t0)._3} over the newer sketch's ${in2.totals(t0)._3}")
          checked += 1
        }
      }
      assert(checked > 0)
      val all = older ++ newer
      check(rolled, oracle(all), window, all.last.ts, ranges(all, window, all.last.ts, 20, 63L + trial))
      roundTrip(rolled)
    }
  }

  test("roll-ups of body version 1 sketches keep an older one's pending decrements pending") {
    // version 1 has no total entries of weight 0: an older sketch's decrements pending without a
    // residual (a state its merges reach) stay pending as they always did, so the roll-up is written
    // and read again and its intervals hold, but later ranges count them (wider than its bound)
    val window = 100000L
    def v1(rows: Seq[Row]): FrequentSketch = {
      val s = new FrequentSketch(spec(window), 0.05, 0, FreqPlan.legacy(0.05, 0))
      rows.foreach(x => s.addKey(x.key, x.ts, x.w)); s.flush(); s
    }
    // rows of weight 64: the scales of lambda <= 64 cut every row's total units into whole blocks; a
    // newer sketch of fewer units than the horizon, so that the merged scales cut inside the older one
    val older = zipf(4000, 800, 1.0, 2, 80L).map(_.copy(w = 64L))
    val newer = zipf(20, 10, 1.1, 2, 81L).map(x => x.copy(ts = x.ts + older.last.ts + 5))
    val a = v1(older)
    a.scales.filter(_.totR == 0).foreach(_.pendDec += 1) // one more unit pending: the bounds only widen
    val rolled = FrequentSketch.merge(Seq(a, v1(newer)))
    assert(!rolled.plan.folds)
    assert(rolled.scales.zipWithIndex.exists { case (sc, l) =>
      val in = a.scales(scaleRead(a, sc.dropped, l)); a.lastTs > sc.dropped && in.totR == 0 && in.pendDec > 0
    }, "a merged scale reads an older scale with decrements pending and no residual")
    val d = roundTrip(rolled)
    assert(!d.plan.folds)
    val all = older ++ newer
    val o = oracle(all)
    ranges(all, window, all.last.ts, 10, 82L).foreach { r =>
      val exact = o.freqsAfter(all.last.ts - r)
      (exact.keys ++ Seq(-1L)).foreach { k =>
        val x = d.estimate(java.lang.Long.valueOf(k), r, all.last.ts)
        assert(x.lower <= exact.getOrElse(k, 0L) && exact.getOrElse(k, 0L) <= x.upper, s"range $r key $k: $x")
      }
    }
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
