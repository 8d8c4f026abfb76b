package ecmsketch.asynchronous

import java.nio.{ByteBuffer, ByteOrder}

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.Families
import ecmsketch.core.{Codec, SketchException, Windows}

/** The XTB async sketches (XTB §2-4) against a brute-force oracle over the distinct elements. */
class AsyncSuite extends AnyFunSuite {
  import AsyncSuite._

  def enc(s: AsyncSketch): Array[Byte] = Codec.encode(AsyncKind, s)
  def dec(b: Array[Byte]): AsyncSketch = Families.decodeAs(AsyncKind, b)

  def sumSketch(es: Seq[(Long, Long)], window: Long = Long.MaxValue, eps: Double = 0.2, delta: Double = 0.05,
                seed: Long = 7L, tradeoff: Int = -1): AsyncSketch = {
    val s = AsyncSketch.create(AsyncSketch.Sum, window, eps, delta, seed, tradeoff = tradeoff)
    es.foreach { case (v, t) => s.addWeight(v, t) }
    s
  }

  def qSketch(es: Seq[(Double, Long)], window: Long = Long.MaxValue, eps: Double = 0.2, delta: Double = 0.05, seed: Long = 7L): AsyncSketch = {
    val s = AsyncSketch.create(AsyncSketch.Quantile, window, eps, delta, seed)
    es.foreach { case (v, t) => s.addValue(v, t) }
    s
  }

  test("alpha is 12 ln(8/delta)/eps^2 (sum) and 96 ln(8/delta)/eps^2 (quantile), the squared form of the proofs") {
    for (eps <- Seq(0.05, 0.1, 0.3); delta <- Seq(0.01, 0.05, 0.2)) {
      val a = AsyncSketch.create(AsyncSketch.Sum, epsilon = eps, delta = delta).alpha
      assert(a == math.ceil(12 * math.log(8 / delta) / (eps * eps)).toInt)
      assert(a > math.ceil(12 / eps * math.log(8 / delta))) // not the printed (square-less) formula
      assert(AsyncSketch.create(AsyncSketch.Quantile, epsilon = eps, delta = delta).alpha ==
        math.ceil(96 * math.log(8 / delta) / (eps * eps)).toInt)
    }
  }

  test("the coins follow Definition 3: Pr[top >= i] = v / 2^i for i >= l, and every level below l always") {
    val n = 400000
    for (v <- Seq(1L, 3L, 5L, 1000L, (1L << 40) + 12345L, Long.MaxValue)) {
      val l = 64 - java.lang.Long.numberOfLeadingZeros(v)
      val cnt = new Array[Int](AsyncSketch.TopLevel + 2)
      (0 until n).foreach { i =>
        val top = AsyncSketch.sumTop(v, AsyncSketch.identityHash(11L, v, i.toLong, withId = false, 0L))
        assert(top >= l - 1 && top <= AsyncSketch.TopLevel)
        cnt(top) += 1
      }
      for (i <- l until math.min(l + 5, AsyncSketch.TopLevel + 1)) {
        val atLeast = cnt.drop(i).sum.toDouble / n
        val p = v.toDouble / math.pow(2, i)
        assert(math.abs(atLeast - p) < 5 * math.sqrt(p * (1 - p) / n) + 1e-9, s"v=$v level $i: $atLeast vs $p")
      }
    }
    // quantile levels: Pr[top >= i] = 2^-i
    val cnt = new Array[Int](AsyncSketch.TopLevel + 1)
    (0 until n).foreach(i => cnt(AsyncSketch.quantileTop(AsyncSketch.identityHash(3L, i.toLong, 0L, withId = false, 0L))) += 1)
    for (i <- 0 until 6) {
      val p = math.pow(2, -i); val got = cnt.drop(i).sum.toDouble / n
      assert(math.abs(got - p) < 5 * math.sqrt(p * (1 - p) / n) + 1e-9)
    }
  }

  test("Lemma 4 and Lemma 14: exact answers when the range holds at most alpha distinct elements") {
    val rnd = new Random(1)
    val s0 = sumSketch(Nil)
    val a = s0.alpha
    val es = Seq.tabulate(a)(i => (1L + rnd.nextInt(1 << 20), rnd.nextInt(1000000).toLong))
    val s = sumSketch(rnd.shuffle(es))
    val dist = es.distinct
    for (r <- Seq(1L, 10L, 1000L, 500000L, 1000001L)) {
      val lo = Windows.lowerBound(999999L, r)
      assert(s.sum(r, 999999L) == dist.filter(_._2 >= lo).map(_._1).sum.toDouble)
    }
    val q = qSketch(Nil)
    val qes = Seq.tabulate(q.alpha)(i => (rnd.nextGaussian() * 100, i.toLong * 3))
    val qs = qSketch(rnd.shuffle(qes))
    for (r <- Seq(5L, 100L, 3000L, Long.MaxValue); p <- Seq(0.0, 0.1, 0.5, 0.99, 1.0)) {
      val lo = Windows.lowerBound(qes.last._2, r)
      val vals = qes.filter(_._2 >= lo).map(_._1).sorted
      assert(qs.quantile(p, r, null) == Some(vals(AsyncSketch.rankIndex(p, vals.size))))
    }
  }

  test("sorted, reversed, shuffled and adversarially late orders give the same bytes and answers within epsilon") {
    val rnd = new Random(2)
    val n = 60000
    val es = Seq.tabulate(n)(i => (1L + rnd.nextInt(50), i.toLong + rnd.nextInt(2)))
    // adversarial: the newest half first, then the oldest rows, so every late row is behind the clock
    val late = es.drop(n / 2) ++ es.take(n / 2).reverse
    val orders = Seq(es, es.reverse, rnd.shuffle(es), late)
    for (window <- Seq(Long.MaxValue, 20000L)) {
      val sks = orders.map(o => sumSketch(o, window = window, eps = 0.2, delta = 0.01))
      val b0 = enc(sks.head)
      sks.foreach(s => assert(java.util.Arrays.equals(enc(s), b0)))
      val s = sks.head
      assert(s.retained < n / 2, s.retained) // it samples
      val now = es.map(_._2).max
      assert(s.levels.exists(_.hasDisc)) // and discards
      for (r <- Seq(100L, 1000L, 5000L, 19999L)) {
        val lo = Windows.lowerBound(now, r)
        val exact = es.distinct.filter(_._2 >= lo).map(_._1).sum.toDouble
        val est = s.sum(r, null)
        assert(math.abs(est - exact) <= 0.2 * exact, s"window $window range $r: $est vs $exact")
      }
    }
    val qes = Seq.tabulate(n)(i => (rnd.nextGaussian(), i.toLong))
    val qlate = qes.drop(n / 2) ++ qes.take(n / 2).reverse
    val qsk = Seq(qes, qes.reverse, rnd.shuffle(qes), qlate).map(o => qSketch(o, eps = 0.2, delta = 0.05))
    assert(qsk.head.levels.head.hasDisc)
    qsk.foreach(s => assert(java.util.Arrays.equals(enc(s), enc(qsk.head))))
    for (r <- Seq(2000L, 30000L); p <- Seq(0.1, 0.5, 0.9)) {
      val lo = Windows.lowerBound(n - 1L, r)
      val vals = qes.filter(_._2 >= lo).map(_._1).sorted
      val x = qsk.head.quantile(p, r, null).get
      assert(rankOk(vals, x, p, 0.2), s"range $r q $p")
    }
  }

  test("the window drops elements a whole window behind the newest, and ranges count only theirs") {
    val s = sumSketch(Seq((5L, 100L), (7L, 50L), (11L, 10L)), window = 60)
    assert(s.sum(null, null) == 12.0) // 10 is outside (100 - 60, 100]
    assert(s.sum(51L, null) == 12.0)
    assert(s.sum(50L, null) == 5.0)
    s.addWeight(13L, 30L) // late, and before every future window: dropped, but counted in total weight
    assert(s.sum(null, null) == 12.0 && s.count == 36L)
    assert(s.sum(null, 140L) == 5.0) // now later than the last row
    val e = intercept[SketchException](s.sum(61L, null))
    assert(e.getMessage.contains("exceeds the sketch window"))
  }

  test("weights up to 2^63 - 1 have a level; sums beyond 2^53 are exact while few enough to be stored") {
    val big = Seq((1L << 61, 1L), ((1L << 61) + 1, 2L), (1L << 60, 3L), (3L, 4L))
    val s = sumSketch(big)
    assert(s.sum(2L, null) == ((1L << 60) + 3L).toDouble)
    assert(s.sum(1L, null) == 3.0)
    val e = intercept[SketchException](s.addWeight(Long.MaxValue, 5L))
    assert(e.getMessage.contains("overflows"))
    val one = sumSketch(Seq((Long.MaxValue, 1L)))
    assert(one.sum(null, null) == Long.MaxValue.toDouble)
    assert(intercept[SketchException](one.addWeight(0L, 1L)).getMessage.contains("positive"))
    val c = AsyncSketch.create(AsyncSketch.Count)
    assert(intercept[SketchException](c.addWeight(2L, 1L)).getMessage.contains("weight 1"))
  }

  test("duplicates: equal identities are one element; ids make equal (value, ts) rows distinct") {
    val s = sumSketch(Seq((5L, 1L), (5L, 1L), (5L, 2L)))
    assert(s.sum(null, null) == 10.0 && s.count == 15L)
    val w = AsyncSketch.create(AsyncSketch.Sum, withIds = true)
    w.addWeightWithId(5L, 1L, 1L); w.addWeightWithId(5L, 1L, 2L); w.addWeightWithId(5L, 1L, 2L)
    assert(w.sum(null, null) == 10.0)
    assert(intercept[SketchException](w.addWeight(1L, 1L)).getMessage.contains("needs an id"))
    assert(intercept[SketchException](s.addWeightWithId(1L, 1L, 3L)).getMessage.contains("takes no id"))
    assert(intercept[SketchException](AsyncSketch.merge(Seq(s, w))).getMessage.contains("identity"))
  }

  test("union of 2..256 sites gives the bytes of one sketch over the union, also with sites sharing elements") {
    val rnd = new Random(3)
    val es = Seq.tabulate(40000)(i => (1L + rnd.nextInt(1000), rnd.nextInt(100000).toLong))
    val qes = es.map { case (v, t) => (v * 0.5 - 100, t) }
    val one = enc(sumSketch(es, window = 50000, eps = 0.15))
    val qOne = enc(qSketch(qes, window = 50000, eps = 0.25))
    for (sites <- Seq(2, 3, 16, 256)) {
      val parts = es.indices.groupBy(_ => rnd.nextInt(sites)).values.toSeq
      val sks = parts.map(ix => sumSketch(ix.map(es), window = 50000, eps = 0.15))
      assert(java.util.Arrays.equals(enc(AsyncSketch.merge(sks)), one), s"$sites sites")
      // hierarchical: merge of merges of decoded bytes
      val tree = AsyncSketch.merge(sks.grouped(5).map(g => dec(enc(AsyncSketch.merge(g)))).toSeq)
      assert(java.util.Arrays.equals(enc(tree), one))
      val qs = parts.map(ix => qSketch(ix.map(qes), window = 50000, eps = 0.25))
      assert(java.util.Arrays.equals(enc(AsyncSketch.merge(qs)), qOne))
    }
    // overlapping sites: every element seen by one to three sites; the union counts each once
    val over = Seq.fill(4)(AsyncSketch.create(AsyncSketch.Sum, 50000, 0.15, seed = 7L))
    val all = AsyncSketch.create(AsyncSketch.Sum, 50000, 0.15, seed = 7L)
    es.foreach { case (v, t) =>
      val k = 1 + rnd.nextInt(3)
      rnd.shuffle((0 until 4).toList).take(k).foreach { i => over(i).addWeight(v, t); all.addWeight(v, t) }
    }
    assert(java.util.Arrays.equals(enc(AsyncSketch.merge(over)), enc(all)))
    assert(AsyncSketch.merge(over).sum(null, null) == sumSketch(es, window = 50000, eps = 0.15).sum(null, null))
    // an empty site changes nothing
    val e = AsyncSketch.create(AsyncSketch.Sum, 50000, 0.15, seed = 7L)
    assert(java.util.Arrays.equals(enc(AsyncSketch.merge(Seq(e, dec(one)))), one))
    val bad = intercept[SketchException](AsyncSketch.merge(Seq(e, AsyncSketch.create(AsyncSketch.Sum, 50000, 0.2))))
    assert(bad.getMessage.contains("epsilon 0.15 vs 0.2"))
    assert(intercept[SketchException](AsyncSketch.merge(Seq(e, AsyncSketch.create(AsyncSketch.Count, 50000, 0.15))))
      .getMessage.contains("measure sum vs count"))
  }

  test("the trade-off level L: every L answers within epsilon, L = 0 and L = M - 1 bracket the storage") {
    val rnd = new Random(4)
    val es = Seq.tabulate(20000)(i => (1L + rnd.nextInt(200), rnd.nextInt(40000).toLong))
    val exactAll = es.distinct.map(_._1).sum.toDouble
    val byL = Seq(0, 1, 3, 8, AsyncSketch.DefaultTradeoff).map { l =>
      val s = sumSketch(rnd.shuffle(es), eps = 0.1, delta = 0.01, tradeoff = l)
      for (r <- Seq(500L, 5000L, 40001L)) {
        val lo = Windows.lowerBound(es.map(_._2).max, r)
        val exact = es.distinct.filter(_._2 >= lo).map(_._1).sum.toDouble
        assert(math.abs(s.sum(r, null) - exact) <= 0.1 * exact, s"L=$l r=$r")
      }
      assert(java.util.Arrays.equals(enc(dec(enc(s))), enc(s)))
      assert(math.abs(s.sum(null, null) - exactAll) <= 0.1 * exactAll)
      l -> s.retained
    }.toMap
    assert(byL(0) >= byL(AsyncSketch.DefaultTradeoff))
    intercept[SketchException](AsyncSketch.create(AsyncSketch.Sum, tradeoff = 63))
  }

  test("failure rate of the sum estimate over many seeds is at most delta") {
    val rnd = new Random(5)
    val n = 20000
    val es = Seq.tabulate(n)(i => (1L + rnd.nextInt(1000), i.toLong))
    val order = rnd.shuffle(es)
    val eps = 0.5; val delta = 0.2
    val lo = Windows.lowerBound(n - 1L, 12000L)
    val exact = es.filter(_._2 >= lo).map(_._1).sum.toDouble
    val seeds = 300
    var fails = 0; var sumEst = 0.0
    (0 until seeds).foreach { seed =>
      val s = sumSketch(order, eps = eps, delta = delta, seed = seed.toLong)
      assert(s.retained < n / 4)
      val est = s.sum(12000L, null)
      sumEst += est
      if (math.abs(est - exact) > eps * exact) fails += 1
    }
    assert(fails.toDouble / seeds <= delta, s"$fails failures in $seeds")
    assert(math.abs(sumEst / seeds - exact) < 0.05 * exact) // unbiased (Lemma 1)
  }

  test("failure rate of the median and of other quantiles over many seeds is at most delta") {
    val rnd = new Random(6)
    val n = 12000
    val es = Seq.tabulate(n)(i => (rnd.nextGaussian(), i.toLong))
    val order = rnd.shuffle(es)
    val eps = 0.45; val delta = 0.3
    val vals = es.filter(_._2 >= 2000L).map(_._1).sorted
    val seeds = 120
    var fails = 0
    (0 until seeds).foreach { seed =>
      val s = qSketch(order, eps = eps, delta = delta, seed = seed.toLong)
      assert(s.retained < 2L * n)
      val got = s.quantiles(Array(0.5, 0.25), 10000L, null)
      if (!rankOk(vals, got(0).get, 0.5, eps)) fails += 1
      if (!rankOk(vals, got(1).get, 0.25, eps)) fails += 1
    }
    assert(fails.toDouble / (2 * seeds) <= delta, s"$fails failures")
  }

  test("round trips keep bytes and answers; sketch_info fields") {
    val rnd = new Random(7)
    val s = sumSketch(Seq.fill(5000)((1L + rnd.nextInt(9), rnd.nextInt(3000).toLong)), window = 2000, eps = 0.3)
    val b = enc(s)
    val d = dec(b)
    assert(java.util.Arrays.equals(enc(d), b))
    assert(d.sum(700L, null) == s.sum(700L, null))
    val info = Families.info(d, b)
    assert(info("kind") == "async" && info("measure") == "sum" && info("sample_capacity") == s.alpha && info("merge_depth") == 0)
    assert(info.keySet == Families.infoFields.toSet)
    val empty = AsyncSketch.create(AsyncSketch.Quantile, 10L)
    assert(java.util.Arrays.equals(enc(dec(enc(empty))), enc(empty)))
    assert(empty.quantile(0.5, null, null).isEmpty)
  }

  test("hostile bytes: truncation, bad fields and random damage fail with a SketchException naming the problem") {
    val rnd = new Random(8)
    val s = sumSketch(Seq.fill(3000)((1L + rnd.nextInt(9), rnd.nextInt(3000).toLong)), eps = 0.4)
    val q = qSketch(Seq.fill(3000)((rnd.nextDouble(), rnd.nextInt(3000).toLong)), eps = 0.45)
    for (b <- Seq(enc(s), enc(q))) {
      ((0 until 300) ++ Seq.fill(300)(rnd.nextInt(b.length))).filter(_ < b.length).foreach { n =>
        val e = intercept[SketchException](dec(java.util.Arrays.copyOf(b, n)))
        assert(e.getMessage.startsWith("corrupt sketch") || e.getMessage.startsWith("not an ecmsketch"), e.getMessage)
      }
      assert(intercept[SketchException](dec(ecmsketch.format.GoldenInputs.withoutChecksum(b) ++ Array[Byte](0))).getMessage.contains("trailing"))
      (0 until 1500).foreach { _ =>
        val c = b.clone(); val i = rnd.nextInt(c.length); c(i) = (c(i) ^ (1 << rnd.nextInt(8))).toByte
        try { val d = dec(c); assert(java.util.Arrays.equals(enc(d), c)) }
        catch { case _: SketchException => () }
      }
    }
    def patch(b: Array[Byte], off: Int)(f: ByteBuffer => Unit): Array[Byte] = {
      val c = b.clone(); val bb = ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN); bb.position(off); f(bb); c
    }
    val b = ecmsketch.format.GoldenInputs.withoutChecksum(enc(s)) // field checks: no checksum
    val H = Codec.HeaderSize
    def msg(c: Array[Byte]): String = intercept[SketchException](dec(c)).getMessage
    assert(msg(patch(b, H)(_.put(2.toByte))).contains("async body version 2"))
    assert(msg(patch(b, H + 1)(_.put(3.toByte))).contains("async measure 3"))
    assert(msg(patch(b, H + 2)(_.putDouble(1.5))).contains("delta"))
    assert(msg(patch(b, H + 18)(_.put(2.toByte))).contains("identity 2"))
    assert(msg(patch(b, H + 19)(_.put(63.toByte))).contains("tradeoff"))
    assert(msg(patch(b, H + 20)(_.putInt(12345))).contains("alpha 12345"))
    assert(msg(patch(b, H + 24)(_.put(65.toByte))).contains("65 levels"))
    assert(msg(patch(b, 6)(_.put(1.toByte))).contains("cannot hold cells of kind 1"))
    assert(msg(patch(b, 34)(_.putShort(1.toShort))).contains("merge depth"))
    assert(msg(patch(b, H + 10)(_.putLong(99L))).contains("identity hash"))
    // an element moved to another level: its coins say where it belongs
    val one = sumSketch(Seq((1L, 5L)))
    val ob = ecmsketch.format.GoldenInputs.withoutChecksum(enc(one))
    val lv = ob(H + 24)
    val moved = patch(ob, H + 24)(_.put((lv + 1).toByte))
    val extra = moved.take(H + 25) ++ Array[Byte](0, 0) ++ moved.drop(H + 25)
    assert(msg(extra).contains("belongs at level"))
  }
}

object AsyncSuite {
  /** Whether x's rank in sorted `vals` is within [(q - eps) n, (q + eps) n] (Definition 2). */
  def rankOk(vals: Seq[Double], x: Double, q: Double, eps: Double): Boolean = {
    val n = vals.size
    val below = vals.count(_ < x); val atMost = vals.count(_ <= x)
    atMost >= (q - eps) * n && below <= (q + eps) * n
  }
}
