package ecmsketch.frequent

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.Families
import ecmsketch.core.{Codec, SketchException}

/** Encoding: round trips, one encoding per sketch, every body field validated (behind a resealed
  * checksum), sketch_info.
  */
class FrequentCodecSuite extends AnyFunSuite {
  import FreqKit._

  private def resealed(b: Array[Byte]): Array[Byte] = {
    val c = b.clone()
    val crc = Codec.checksum(c)
    (0 until 4).foreach(i => c(Codec.ChecksumOffset + i) = (crc >>> (8 * i)).toByte)
    c
  }

  private val sketches: Seq[(String, FrequentSketch)] = {
    val z = build(zipf(20000, 2000, 1.1, 2, 31L), 15000L, 0.03)
    val w = build(zipf(8000, 500, 1.0, 0, 32L, weights = true), 50L, 0.05, levels = 1)
    val s = FrequentSketch.create(spec(1000L), 0.05)
    zipf(5000, 300, 1.1, 1, 33L).foreach(r => s.addKey(s"page-${r.key}", r.ts, r.w))
    val m = FrequentSketch.merge(Seq(w, build(zipf(8000, 500, 1.0, 0, 34L), 50L, 0.05, levels = 1)))
    Seq("zipf" -> z, "weighted" -> w, "string" -> s, "merged" -> m)
  }

  test("round trips keep the bytes and the answers") {
    sketches.foreach { case (name, s) =>
      val d = roundTrip(s)
      val now = s.lastTs
      Seq[java.lang.Long](null, 1L, 17L).foreach { r =>
        assert(d.rangeCount(r, now) == s.rangeCount(r, now), name)
        assert(d.topK(20, r, now).map(x => (x.key, x.lower, x.upper)) == s.topK(20, r, now).map(x => (x.key, x.lower, x.upper)), name)
      }
      assert(d.mergeDepth == s.mergeDepth && d.scaleCount == s.scaleCount && d.storedEntries == s.storedEntries, name)
    }
  }

  test("behind a resealed checksum, mutated bodies are refused with a SketchException or decode to a valid sketch") {
    val r = new Random(35L)
    var refused = 0; var total = 0
    sketches.foreach { case (name, s) =>
      val b = Codec.encode(FrequentKind, s)
      (0 until 300).foreach { _ =>
        val c = b.clone()
        val at = Codec.ChecksumHeaderSize + r.nextInt(b.length - Codec.ChecksumHeaderSize)
        c(at) = (c(at) ^ (1 << r.nextInt(8))).toByte
        total += 1
        try {
          val d = Codec.decodeAs(FrequentKind, resealed(c))
          // an accepted mutant is a sketch in its own right: it re-encodes to itself
          val again = Codec.encode(FrequentKind, d); val want = resealed(c)
          if (!java.util.Arrays.equals(again, want)) {
            val i = again.indices.find(i => (i < 60 || i > 63) && (i >= want.length || again(i) != want(i))).getOrElse(again.length)
            fail(s"$name: an accepted mutant at byte $at (of ${b.length}) re-encodes differently from byte $i: " +
              s"${want.slice(i - 4, i + 8).toSeq} vs ${again.slice(i - 4, i + 8).toSeq}")
          }
          d.topK(5, null, null)
        } catch { case _: SketchException => refused += 1 }
      }
    }
    info(s"$refused of $total single-bit mutants refused")
    assert(refused > total / 2)
    // truncations are refused
    val b = Codec.encode(FrequentKind, sketches.head._2)
    (1 until 40).foreach { cut =>
      val c = java.util.Arrays.copyOf(b, b.length - cut)
      assert(intercept[SketchException](Families.decode(resealed(c))).getMessage.startsWith("corrupt sketch"))
    }
  }

  test("targeted corruptions name the field") {
    val s = sketches.head._2
    val b = Codec.encode(FrequentKind, s)
    val body = Codec.ChecksumHeaderSize
    def refusal(c: Array[Byte]): String = intercept[SketchException](Families.decode(resealed(c))).getMessage
    val v = b.clone(); v(body) = 4
    assert(refusal(v).contains("frequent-items body version 4"))
    val t = b.clone(); t(body + 1) = 9
    assert(refusal(t).contains("key type 9"))
    val q = b.clone(); q(body + 2) = (q(body + 2) + 1).toByte
    assert(refusal(q).contains("plan (q"))
  }

  test("body version 3: keys out of order, a repeated key and unknown scale flags are refused") {
    // two keys of one length with the same rows, so the same number of entries: "ka" goes first
    val s = FrequentSketch.create(spec(1000L), 0.05)
    (1 to 400).foreach { i => s.addKey("ka", i.toLong, 1L); s.addKey("kb", i.toLong, 1L) }
    val b = Codec.encode(FrequentKind, s)
    def refusal(c: Array[Byte]): String = intercept[SketchException](Families.decode(resealed(c))).getMessage
    val in = new ecmsketch.core.ByteReader(b)
    in.getBytes(Codec.ChecksumHeaderSize, "header")
    assert(in.getByte("body version") == 3)
    in.getByte("key type"); in.getVarLong("q"); in.getVarLong("k")
    val nKeys = in.getVarLong("keys").toInt
    val at = (0 until nKeys).map { _ => val len = in.getVarLong("length").toInt; val p = in.position; in.getBytes(len, "key"); p }
    assert(nKeys == 2 && b(at(0) + 1) == 'a' && b(at(1) + 1) == 'b')
    val swapped = b.clone(); swapped(at(0) + 1) = 'b'; swapped(at(1) + 1) = 'a'
    assert(refusal(swapped).contains("key 1 is out of order"))
    val repeated = b.clone(); repeated(at(1) + 1) = 'a'
    assert(refusal(repeated).contains("key 1 repeats an earlier key"))
    // scale 0: drop mark, total residual (and its span), pending decrement, partial counts, then the flags
    in.getByte("scales"); in.getVarLong("drop mark")
    if (in.getVarLong("total residual") > 0) in.getVarLong("its span")
    in.getVarLong("pending decrement")
    (0 until in.getVarLong("partial counts").toInt).foreach(_ => (0 until 3).foreach(_ => in.getVarLong("count field")))
    val flagsAt = in.position
    val unknown = b.clone(); unknown(flagsAt) = (b(flagsAt) | 4).toByte
    assert(refusal(unknown).contains("flags of scale 0 are"))
  }

  test("a scale the window emptied round-trips (its totals flag is set, as the decoder requires)") {
    val s = FrequentSketch.create(spec(100L), 0.05)
    s.addKey(1L, 0L, 1L)
    s.addKey(1L, 1000L, 0L) // a row of weight 0 a window later: the window rule empties the scale
    s.flush()
    assert(s.scales.nonEmpty && s.scales.forall(_.size == 0))
    val b = Codec.encode(FrequentKind, s)
    val d = Codec.decodeAs(FrequentKind, b)
    assert(java.util.Arrays.equals(Codec.encode(FrequentKind, d), b))
    assert(d.rangeCount(null, null) == s.rangeCount(null, null))
  }

  test("body version 3: a default weight of 2 lambda that passes 2^63 - 1 (scale 62) is refused") {
    // the bytes of a real one-key sketch up to its scale count, then 62 empty scales and a scale 62
    // whose only entry takes the default weight 2^63
    val s = FrequentSketch.create(spec(1000L), 0.05)
    s.addKey(7L, 5L, 1L)
    val b = Codec.encode(FrequentKind, s)
    val in = new ecmsketch.core.ByteReader(b)
    in.getBytes(Codec.ChecksumHeaderSize, "header")
    in.getByte("body version"); in.getByte("key type"); in.getVarLong("q"); in.getVarLong("k")
    assert(in.getVarLong("keys") == 1L)
    in.getLong("key")
    val out = new ecmsketch.core.ByteWriter(b.length + 512)
    out.putBytes(b.take(in.position))
    out.putByte(63)
    (0 until 62).foreach { _ => out.putVarLong(0L); out.putVarLong(0L); out.putVarLong(0L); out.putVarLong(0L); out.putByte(1); out.putVarLong(0L) }
    // scale 62: no drop mark, residual, decrement or partial counts; flags: default 2 lambda; one
    // entry at the first timestamp, key index 0, weight and span left out
    out.putVarLong(0L); out.putVarLong(0L); out.putVarLong(0L); out.putVarLong(0L); out.putByte(2)
    out.putVarLong(1L); out.putVarLong(0L); out.putVarLong(4L)
    val crafted = out.toByteArray
    val msg = intercept[SketchException](Families.decode(resealed(crafted))).getMessage
    assert(msg.contains("scale 62's default weight 2 lambda exceeds 2^63 - 1"), msg)
  }

  /** A sketch of rows of weight 2^s and 2^(s-1) whose coarsest scale (the one that answers the
    * whole window) has been given, as crafted bytes could give it, a partial count of 2^s for the key
    * of its 2^s entry, and a decrement of the total weight on each of its two total entries and
    * pending: each field is within the total weight, so the bytes decode.
    */
  private def craftedHeavy(shift: Int): FrequentSketch = {
    val s = FrequentSketch.create(spec(1000L), 0.5)
    s.addKey(1L, 10L, 1L << shift); s.addKey(2L, 11L, 1L << (shift - 1))
    s.flush()
    val sc = s.scales.last
    val id = (sc.start until sc.end).collectFirst { case i if sc.ekey(i) != Scale.Total && sc.ew(i) == (1L << shift) => sc.ekey(i) }.get
    sc.setResiduals(Array(id), Array(1L << shift), Array(10L), 1)
    val totals = (sc.start until sc.end).filter(sc.ekey(_) == Scale.Total)
    assert(totals.size == 2)
    totals.foreach(sc.edec(_) = s.count)
    sc.pendDec = s.count
    Codec.decodeAs(FrequentKind, Codec.encode(FrequentKind, s))
  }

  test("query sums past 2^63 - 1 (crafted bytes) stop at 2^63 - 1: no upper bound wraps") {
    val d = craftedHeavy(62)
    // key 1: entry 2^62 plus partial count 2^62 (both in the range); decrements 3 (2^62 + 2^61)
    val x = d.estimate(java.lang.Long.valueOf(1L), null, null)
    assert(x.lower == Long.MaxValue && x.upper == Long.MaxValue, x)
    val absent = d.estimate(java.lang.Long.valueOf(3L), null, null)
    assert(absent.lower == 0L && absent.upper == Long.MaxValue, absent)
    (Seq(x, absent) ++ d.topK(5, null, null) ++ d.heavyHitters(0.1, null, null)).foreach { i =>
      assert(i.upper >= i.lower && i.lower >= 0L && i.lower.toDouble <= i.estimate && i.estimate <= i.upper.toDouble, i)
    }
    val c = d.rangeCount(null, null)
    assert(c.lower == (1L << 62) + (1L << 61) && c.upper == c.lower, c)
  }

  test("a row added to a crafted partial count near 2^63 makes no entry of negative weight") {
    val s = FrequentSketch.create(spec(1000L), 0.5)
    s.addKey(1L, 10L, 1L << 62); s.addKey(2L, 11L, (1L << 62) - 3)
    s.flush()
    val sc = s.scales.last
    assert(sc.lambda >= 8, sc.lambda) // so that partial count + lambda - 1 passes 2^63 - 1
    val id = (sc.start until sc.end).collectFirst { case i if sc.ekey(i) != Scale.Total && sc.ew(i) == (1L << 62) => sc.ekey(i) }.get
    sc.setResiduals(Array(id), Array(s.count - 1), Array(10L), 1) // within the total weight: decodes
    val d = Codec.decodeAs(FrequentKind, Codec.encode(FrequentKind, s))
    d.addKey(1L, 12L, 1L)
    d.flush()
    for (x <- d.scales; i <- x.start until x.end) assert(x.ew(i) >= 0L, s"entry $i of scale ${x.lambda}: weight ${x.ew(i)}")
    val e = d.estimate(java.lang.Long.valueOf(1L), null, null)
    assert(e.lower >= 0L && e.lower <= e.upper, e)
  }

  test("a merge whose inputs' sums pass 2^63 - 1 (crafted bytes) is refused by name") {
    // total weight 3 2^60 in all, but decrements 9 2^60
    val a = craftedHeavy(60); val b = craftedHeavy(60)
    val msg = intercept[SketchException](FrequentSketch.merge(Seq(a, b))).getMessage
    assert(msg.contains("add up past 2^63 - 1"), msg)
    // total weight 2^63 - 1 in all; each scale's key weights, totals and decrements are each within
    // its sketch's weight, but decrements raised to that weight (pending ones crafted) and key
    // weights together are not, and a fold adds its leftover key units to the decrements
    def pendingHeavy(big: Row, units: Seq[Row]): FrequentSketch = {
      val s = FrequentSketch.create(spec(1000L), 0.5)
      (big +: units).foreach(r => s.addKey(r.key, r.ts, r.w))
      s.flush()
      s.scales.foreach(sc => sc.pendDec = s.count - (sc.start until sc.end).map(sc.edec(_)).sum)
      Codec.decodeAs(FrequentKind, Codec.encode(FrequentKind, s))
    }
    val ones = (0 until 100).map(i => Row(3L + i, 20L + 2 * i, 1L))
    val pa = pendingHeavy(Row(1L, 10L, (1L << 62) - 100), ones)
    val pb = pendingHeavy(Row(2L, 12L, (1L << 62) - 101), ones.map(r => r.copy(ts = r.ts + 1)))
    assert(pa.count + pb.count == Long.MaxValue)
    val msg2 = intercept[SketchException](FrequentSketch.merge(Seq(pa, pb))).getMessage
    assert(msg2.contains("add up past 2^63 - 1"), msg2)
    // sketches of real rows merge up to a total weight of exactly 2^63 - 1, time-disjoint or not
    for (rows <- Seq(Seq(Row(1L, 10L, 1L << 62), Row(2L, 11L, (1L << 62) - 1)),
                     Seq(Row(1L, 10L, 1L << 61), Row(2L, 11L, (1L << 62) - 1), Row(1L, 12L, 1L << 61)))) {
      val sites = rows.groupBy(_.key).values.toSeq.map(rs => build(rs, 1000L, 0.5))
      val m = FrequentSketch.merge(sites)
      assert(m.count == Long.MaxValue)
      check(m, oracle(rows), 1000L, rows.map(_.ts).max, Seq(1L, 2L, 3L, 1000L))
    }
    // inputs whose total weight passes 2^63 - 1 are refused by that name
    val big = Seq(0, 1).map(i => build(Seq(Row(1L, 10L + i, 1L << 62)), 1000L, 0.5))
    assert(intercept[SketchException](FrequentSketch.merge(big)).getMessage.contains("total weight overflows 2^63 - 1"))
  }

  test("sketch_info reports the key type, the bound and what the sketch holds") {
    val (_, s) = sketches(2)
    val d = Families.info(s)
    assert(d("kind") == "frequent" && d("key_type") == "string" && d("cell_kind") == null)
    assert(d("heavy_hitter_error_bound") == s.errorBound && d("error_bound") == s.errorBound)
    assert(d("candidates") == s.keysHeld && d("stored_entries") == s.storedEntries)
  }
}
