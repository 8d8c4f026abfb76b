package ecmsketch.decayed

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.Families
import ecmsketch.core.{Bounds, Codec, SketchException}

/** The decayed sketch against brute force over the distinct elements of streams with 30 %
  * duplicates over 2..64 sites, shuffled and late; failure rates over many seeds against delta;
  * merges equal to one sketch over the union (same bytes); the query-time decay rules.
  */
class DecayedSuite extends AnyFunSuite {
  // Ordering.Double.TotalOrdering (java.lang.Double.compare), spelled so that Scala 2.12 compiles it too
  private val DoubleTotal: Ordering[Double] = new Ordering[Double] { def compare(a: Double, b: Double): Int = java.lang.Double.compare(a, b) }

  import DecayedKit._

  val eps = 0.1
  val delta = 0.05
  val fixed: Seq[Decay] = Seq(Decay.Window(300), Decay.Exp(150), Decay.Poly(1.0))

  def mk(d: Option[Decay], seed: Long): DecayedSketch = DecayedSketch.create(d, eps, delta, seed = seed, maxWeight = 10)

  def merged(st: Stream, d: Option[Decay], seed: Long): DecayedSketch =
    DecayedSketch.merge(st.sites.map(s => build(s, mk(d, seed))))

  def relErr(est: Double, exact: Double): Double = math.abs(est - exact) / exact

  test("fixed decays: sums of the merged per-site sketches are within epsilon of the exact integral decayed sum, failure rate <= delta") {
    val seeds = 40
    fixed.foreach { d =>
      var failures = 0
      var worst = 0.0
      (0 until seeds).foreach { k =>
        val st = stream(1000 + k, 3000, 2 + (k * 7) % 63, 2000)
        val s = merged(st, Some(d), k)
        val c = 1999L
        val want = exactIntegral(st.distinct, s.params.integral.get, s.params.resolution, c)
        val e = relErr(s.sum(d, c), want)
        worst = math.max(worst, e)
        if (e > eps) failures += 1
        // the integral decay is within the resolution's truncation of the real-valued decay
        val real = exact(st.distinct, d, c)
        assert(math.abs(real - want) <= st.distinct.size.toDouble / s.params.resolution + 1e-9 * real)
      }
      info(s"$d: $failures failures in $seeds seeds, worst relative error $worst")
      assert(failures.toDouble / seeds <= delta, s"$d: $failures failures")
    }
  }

  test("general sketch: window and decomposable decays chosen at query time, failure rate <= delta") {
    val seeds = 30
    val qs: Seq[Decay] = Seq(Decay.Window(100), Decay.Window(1500), Decay.Exp(60), Decay.Exp(400), Decay.Poly(0.5), Decay.Poly(1.5))
    val fails = Array.fill(qs.size)(0)
    val worst = Array.fill(qs.size)(0.0)
    (0 until seeds).foreach { k =>
      val st = stream(2000 + k, 3000, 2 + (k * 11) % 63, 2000)
      val s = merged(st, None, k)
      qs.indices.foreach { q =>
        val c = 1999L
        val want = exact(st.distinct, qs(q), c)
        val e = relErr(s.sum(qs(q), c), want)
        worst(q) = math.max(worst(q), e)
        if (e > eps) fails(q) += 1
      }
    }
    qs.indices.foreach { q =>
      info(s"${qs(q)}: ${fails(q)} failures in $seeds seeds, worst ${worst(q)}")
      assert(fails(q).toDouble / seeds <= delta, s"${qs(q)}: ${fails(q)} failures")
    }
  }

  test("duplicates count once: the same ids at one site or many give the bytes of the distinct stream") {
    val st = stream(7, 1500, 8, 1000)
    Seq(Some(Decay.Exp(50.0)), None).foreach { d =>
      val once = build(st.distinct, mk(d, 3))
      val dup = build(st.rows ++ st.rows.reverse, mk(d, 3))
      val sites = merged(st, d, 3)
      val b = Codec.encode(DecayedKind, once)
      // the header's total weight counts every row; the levels are identical
      val (_, bodyOnce) = b.splitAt(Codec.ChecksumHeaderSize)
      assert(java.util.Arrays.equals(Codec.encode(DecayedKind, dup).drop(Codec.ChecksumHeaderSize), bodyOnce))
      assert(java.util.Arrays.equals(Codec.encode(DecayedKind, sites).drop(Codec.ChecksumHeaderSize), bodyOnce))
      assert(dup.count == 2 * st.rows.map(_.w).sum)
    }
  }

  test("merge equals one sketch over the union (Lemmas 3.2, 3.3): same bytes, in any order, overlapping streams") {
    val rnd = new Random(5)
    Seq(Some(Decay.Window(200.0)), Some(Decay.Poly(2.0)), None).foreach { d =>
      val st = stream(9, 2500, 16, 1500)
      val parts = st.sites
      val one = build(rnd.shuffle(st.rows), mk(d, 1))
      val m1 = DecayedSketch.merge(parts.map(p => build(p, mk(d, 1))))
      // overlapping inputs: every site also sees a random half of another's rows
      val m2 = DecayedSketch.merge(parts.indices.map(i => build(parts(i) ++ parts((i + 1) % parts.size).filter(_ => rnd.nextBoolean()), mk(d, 1))))
      val tree = DecayedSketch.merge(Seq(DecayedSketch.merge(parts.take(5).map(p => build(p, mk(d, 1)))),
        DecayedSketch.merge(parts.drop(5).map(p => build(p, mk(d, 1)))), mk(d, 1)))
      val b = Codec.encode(DecayedKind, one)
      assert(java.util.Arrays.equals(Codec.encode(DecayedKind, m1), b))
      assert(java.util.Arrays.equals(Codec.encode(DecayedKind, tree), b))
      assert(java.util.Arrays.equals(Codec.encode(DecayedKind, m2).drop(Codec.ChecksumHeaderSize), b.drop(Codec.ChecksumHeaderSize)))
      val r = Families.decodeAs(DecayedKind, b)
      assert(java.util.Arrays.equals(Codec.encode(DecayedKind, r), b))
    }
  }

  test("pending observations: any row order, flushes mid-stream and reads between adds give the bytes of one pass") {
    // epsilon 0.3: tau = 45, so about 2,900 observations wait before a flush and 12,000 rows flush
    // several times; reading after every add inserts each row alone (nothing waits)
    val st = stream(21, 9000, 1, 20000, dupFrac = 0.25)
    val rows = st.rows
    Seq(Some(Decay.Exp(400.0)), Some(Decay.Window(3000.0)), None).foreach { d =>
      def mk0() = DecayedSketch.create(d, 0.3, 0.05, maxWeight = 10, seed = 4)
      val one = { val s = mk0(); rows.foreach { e => s.add(idHash(e), e.w, e.v, e.t); s.storedEntries }; s }
      val want = Codec.encode(DecayedKind, one)
      val byTime = rows.sortBy(_.t)
      Seq("shuffled" -> rows, "time order" -> byTime, "newest first" -> byTime.reverse).foreach { case (name, rs) =>
        assert(java.util.Arrays.equals(Codec.encode(DecayedKind, build(rs, mk0())), want), s"$d, $name")
      }
      // queries between batches of adds
      val q = d.getOrElse(Decay.Exp(400.0))
      val s = mk0()
      byTime.grouped(1000).foreach { g => g.foreach(e => s.add(idHash(e), e.w, e.v, e.t)); s.sum(q, null) }
      assert(java.util.Arrays.equals(Codec.encode(DecayedKind, s), want), s"$d, reads between adds")
      assert(s.sum(q, null) == one.sum(q, null))
    }
  }

  /** Every level of every copy of `s` (built from `rs`) against the set rule over the distinct
    * elements computed from scratch, an oracle independent of the insert loop (its upper bounds,
    * thresholds, reused offsets and pending rows): per copy and level, each id's winning version among
    * the rows selected there (MinHit per row), then the overflow rule of CTX §3.2.
    */
  def assertSetRule(s: DecayedSketch, rs: Seq[Elem], what: String): Unit = {
    s.storedEntries
    val pr = s.params
    (0 until pr.copies).foreach { j =>
      val a = pr.coefficients(2 * j); val b = pr.coefficients(2 * j + 1)
      (0 to pr.topLevel).foreach { i =>
        // (id, key, ts, w, v) of every row selected at level i
        val offers = rs.flatMap { e =>
          val id = s.idOf(idHash(e)); val w = e.w * pr.resolution
          val dd = Arith.firstSelected(a, b, pr.wMax * id, w - 1, i)
          if (dd < 0) None
          else Some((id, pr.integral.fold(e.t)(f => Bounds.satAdd(e.t, f.minAge(w, dd))), e.t, e.w, e.v))
        }
        val winners = offers.groupBy(_._1).values.map(_.max(Ordering.by((x: (Long, Long, Long, Long, Double)) =>
          (x._2, x._3, x._4, x._5))(Ordering.Tuple4(Ordering.Long, Ordering.Long, Ordering.Long, DoubleTotal)))).toSeq
        val keys = winners.map(_._2).sorted(Ordering[Long].reverse)
        val (disc, ti) = if (keys.size > pr.tau) (true, keys(pr.tau)) else (false, Long.MinValue)
        val held = winners.filter(x => !disc || x._2 > ti).map(x => (x._1, x._2)).toSet
        val l = s.levels(j)(i)
        if (l == null) assert(winners.isEmpty, s"$what copy $j level $i")
        else {
          assert(l.discarded == disc && (!disc || l.tI == ti), s"$what copy $j level $i: t_i")
          assert(l.entries.map(e => (e.id, e.key)).toSet == held, s"$what copy $j level $i: entries")
        }
      }
    }
  }

  test("every level of every copy equals the set rule over the distinct elements, computed from scratch (MinHit per row)") {
    val rnd = new Random(23)
    val st = stream(24, 3000, 1, 6000, dupFrac = 0.2)
    // conflicting versions: the same id with another timestamp, weight or value
    val rows = st.rows ++ st.distinct.take(600).map(e => e.copy(t = e.t + rnd.nextInt(50) - 25, w = 1 + rnd.nextInt(10),
      v = rnd.nextInt(5).toDouble))
    Seq(Some(Decay.Exp(300.0)), Some(Decay.Poly(1.5)), Some(Decay.Window(1000.0)), None).foreach { d =>
      Seq("shuffled" -> rnd.shuffle(rows), "time order" -> rows.sortBy(_.t)).foreach { case (name, rs) =>
        assertSetRule(build(rs, DecayedSketch.create(d, 0.3, 0.05, maxWeight = 10, seed = 8)), rs, s"$d, $name")
      }
    }
  }

  test("sketches of one decay share its expiry tables: threads building at once agree, and the tables hold what a private instance computes") {
    assert(IntegralDecay.of(Decay.Exp(77.0), 1L) eq IntegralDecay.of(Decay.Exp(77.0), 1L))
    assert(!(IntegralDecay.of(Decay.Exp(77.0), 1L) eq IntegralDecay.of(Decay.Exp(77.0), 1000000L)))
    assert(!(IntegralDecay.of(Decay.Exp(77.0), 1L) eq IntegralDecay.of(Decay.Poly(77.0), 1L)))
    // weights 1..10 at resolution 1,024: ten direct tables filled by racing threads; the decay is
    // new to this JVM, so the tables start empty
    val st = stream(25, 6000, 1, 5000, dupFrac = 0.2)
    Seq(Decay.Exp(123.25), Decay.Poly(1.375)).foreach { d =>
      def mk0() = DecayedSketch.create(Some(d), 0.2, 0.05, maxWeight = 10, seed = 9)
      val pool = java.util.concurrent.Executors.newFixedThreadPool(4)
      val raced = try {
        (0 until 8).map(k => pool.submit(new java.util.concurrent.Callable[Seq[Byte]] {
          def call(): Seq[Byte] = Codec.encode(DecayedKind, build(if (k % 2 == 0) st.rows else st.rows.reverse, mk0())).toSeq
        })).map(_.get())
      } finally pool.shutdown()
      raced.foreach(b => assert(b == raced.head, s"$d"))
      // and every expiry the racing threads left in the shared tables is the one a private instance
      // computes alone
      val shared = IntegralDecay.of(d, 1L); val fresh = new IntegralDecay(d, 1L)
      (1L to 10L).foreach { w =>
        val sw = w * 1024
        (0L until sw).foreach(dl => assert(shared.minAge(sw, dl) == fresh.minAge(sw, dl), s"$d W=$sw Delta=$dl"))
      }
    }
  }

  test("pending observations at the ends of the timestamp range (a batch spanning more than 2^62 ticks; t_i = Long.MinValue)") {
    val rnd = new Random(22)
    val ts = Seq(Long.MinValue, Long.MinValue + 1, -5L, 0L, 7L, Long.MaxValue - 1, Long.MaxValue)
    val rows = (0 until 4000).map(k => Elem(rnd.nextLong(), 1 + rnd.nextInt(3), rnd.nextInt(9).toDouble, ts(rnd.nextInt(ts.size))))
    Seq(Some(Decay.Window(10.0)), None).foreach { d =>
      def mk0() = DecayedSketch.create(d, 0.3, 0.05, maxWeight = 10, seed = 6)
      val one = { val s = mk0(); rows.foreach { e => s.add(idHash(e), e.w, e.v, e.t); s.storedEntries }; s }
      val want = Codec.encode(DecayedKind, one)
      Seq(rows, rows.sortBy(_.t), rnd.shuffle(rows)).foreach { rs =>
        assert(java.util.Arrays.equals(Codec.encode(DecayedKind, build(rs, mk0())), want), s"$d")
      }
      assertSetRule(one, rows, s"$d")
    }
  }

  test("Level (lazy compaction) equals the set rule of CTX §3.2 computed from scratch, under random offers, repeats and raises") {
    val rnd = new Random(42)
    (0 until 300).foreach { round =>
      val tau = 1 + rnd.nextInt(40)
      val l = new Level(tau)
      // the model: every offer's version per id (the largest key wins; here t, w and v follow the key
      // and the id) and every raise, the state derived from them afresh at each step
      val best = scala.collection.mutable.HashMap[Long, Long]()
      var raised = Option.empty[Long]
      val idRange = 1 + rnd.nextInt(200); val keyRange = 1 + rnd.nextInt(100)
      def ver(id: Long, key: Long) = new Entry(id, 1L + id % 7, id * 0.5, key - 3, key, id * 11)
      (0 until 1 + rnd.nextInt(600)).foreach { _ =>
        if (rnd.nextInt(50) == 0) {
          val t = rnd.nextInt(keyRange).toLong
          l.raise(t)
          raised = Some(raised.fold(t)(math.max(_, t)))
        } else {
          val id = rnd.nextInt(idRange).toLong; val key = rnd.nextInt(keyRange).toLong
          l.offer(ver(id, key))
          if (best.get(id).forall(_ < key)) best(id) = key
        }
        if (rnd.nextInt(4) == 0) { // read the level now and then (a read compacts), else let offers pile up
          val kth = if (best.size > tau) Some(best.values.toSeq.sorted.reverse.apply(tau)) else None
          val ti: Option[Long] = (raised.toSeq ++ kth.toSeq).reduceOption((x: Long, y: Long) => math.max(x, y))
          val model = best.filter { case (_, k) => ti.forall(k > _) }
          assert(l.size == model.size, s"round $round")
          assert(l.discarded == ti.isDefined && (ti.isEmpty || l.tI == ti.get), s"round $round")
          val es = l.entries
          assert(es.map(_.id).toSeq == model.keys.toSeq.sorted, s"round $round")
          es.foreach { e =>
            val v = ver(e.id, model(e.id))
            assert(e.key == v.key && e.t == v.t && e.w == v.w && e.v == v.v && e.rs == v.rs)
            assert(l.contains(e.id) && l.get(e.id).key == e.key)
          }
          (0 until idRange).foreach(id => assert(l.contains(id.toLong) == model.contains(id.toLong), s"round $round id $id"))
        }
      }
    }
  }

  test("threads sharing a freshly built or decoded sketch query and encode it alike (compaction is synchronized)") {
    val st = stream(77, 4000, 1, 3000, dupFrac = 0.3)
    Seq(Some(Decay.Exp(300.0)), None).foreach { d =>
      def fresh() = build(st.rows, DecayedSketch.create(d, 0.1, 0.05, maxWeight = 10))
      val q = d.getOrElse(Decay.Exp(300.0))
      val ref = fresh()
      val refBytes = Codec.encode(DecayedKind, ref).toSeq
      val refSum = ref.sum(q, null)
      (0 until 10).foreach { round =>
        val shared = if (round % 2 == 0) fresh() else Families.decodeAs(DecayedKind, refBytes.toArray)
        val pool = java.util.concurrent.Executors.newFixedThreadPool(4)
        try {
          val fs = (0 until 8).map { k =>
            pool.submit(new java.util.concurrent.Callable[(Seq[Byte], Double)] {
              def call(): (Seq[Byte], Double) =
                if (k % 2 == 0) (Codec.encode(DecayedKind, shared).toSeq, shared.sum(q, null))
                else { val x = shared.sum(q, null); (Codec.encode(DecayedKind, shared).toSeq, x) }
            })
          }
          fs.foreach { f => val (b, x) = f.get(); assert(b == refBytes && x == refSum, s"$d round $round") }
        } finally pool.shutdown()
      }
    }
  }

  test("Level.select: the k-th smallest, against a sort, on runs of equal, sorted and random keys") {
    val rnd = new Random(5)
    (0 until 2400).foreach { r =>
      // above 600 keys the selection first recurses into a sample: sizes up to 6,000 reach it (twice, nested)
      val m = 1 + (if (r % 3 == 0) rnd.nextInt(6000) else rnd.nextInt(300))
      val a = Array.fill(m)(r % 4 match {
        case 0 => rnd.nextInt(3).toLong
        case 1 => rnd.nextLong()
        case _ => rnd.nextInt(1000).toLong
      })
      if (r % 4 == 3) java.util.Arrays.sort(a)
      val sorted = a.sorted
      val k = rnd.nextInt(m)
      assert(Level.select(a.clone(), m, k) == sorted(k), s"case $r")
      // the sorting fallback, reached before the first cut or after one or two
      assert(Level.select(a.clone(), m, k, maxCuts = r % 3) == sorted(k), s"case $r, fallback")
    }
  }

  test("the same id with another value or timestamp counts once: the latest version, whatever the order") {
    val a = DecayedSketch.idOfString("a"); val b = DecayedSketch.idOfString("b")
    val rows = Seq((a, 5L, 1.0, 10L), (a, 7L, 2.0, 20L), (b, 3L, 1.0, 20L), (a, 7L, 3.0, 20L), (b, 3L, 1.0, 20L))
    Seq(Some(Decay.Window(100)), Some(Decay.Exp(50)), None).foreach { d =>
      val bytes = rows.permutations.map { p =>
        val s = DecayedSketch.create(d, 0.1, 0.05)
        p.foreach { case (id, w, v, t) => s.add(id, w, v, t) }
        // levels 0 hold everything (exact): a counts once, as its latest version (ts 20; then the
        // larger value 3.0), and b once
        if (!d.exists(_.isInstanceOf[Decay.Exp])) assert(s.sum(Decay.Window(100), 20L) == 10.0, s"$d $p")
        assert(s.quantile(1.0, d.getOrElse(Decay.Window(100)), 20L).contains(3.0), s"$d $p")
        Codec.encode(DecayedKind, s).toSeq
      }.toSet
      assert(bytes.size == 1, s"$d: the bytes depend on the order")
    }
  }

  test("selectivity, quantiles and frequent items within epsilon of the exact decayed answers, failure rate <= delta") {
    val seeds = 20
    var fails = 0; var checks = 0
    (0 until seeds).foreach { k =>
      val st = stream(3000 + k, 3000, 2 + k * 3, 2000)
      Seq(Some(Decay.Exp(200.0)), None).foreach { dd =>
        val d = dd.getOrElse(Decay.Poly(1.0))
        val s = merged(st, dd, k)
        val c = 1999L
        val f: (Double => Boolean) => Double = dd match {
          case Some(_) => p => exactIntegral(st.distinct, s.params.integral.get, s.params.resolution, c, p)
          case None => p => exact(st.distinct, d, c, 1L, p)
        }
        val tot = f(_ => true)
        def sel(lo: Double, hi: Double) = f(v => v >= lo && v <= hi) / tot
        Seq((1.0, 1.0), (2.0, 20.0), (10.0, 50.0)).foreach { case (lo, hi) =>
          checks += 1
          if (math.abs(s.selectivity(lo, hi, d, c) - sel(lo, hi)) > eps) fails += 1
        }
        Seq(0.25, 0.5, 0.9).foreach { q =>
          checks += 1
          val x = s.quantile(q, d, c).get
          // an epsilon-approximate quantile: rank(x) >= q - eps and rank(x - 1) < q + eps
          if (!(sel(Double.NegativeInfinity, x) >= q - eps && sel(Double.NegativeInfinity, x - 1e-9) < q + eps)) fails += 1
        }
        checks += 1
        val fr = s.frequent(0.15, d, c)
        val share = (x: Double) => sel(x, x)
        // value 1 holds about 20 % of the weight: reported; nothing below phi - eps reported
        if (!fr.exists(_._1 == 1.0) || fr.exists(x => share(x._1) < 0.15 - eps)) fails += 1
      }
    }
    info(s"$fails failures in $checks checks")
    assert(fails.toDouble / checks <= delta)
  }

  test("query decay rules: a fixed sketch takes its own decay or none; the general sketch needs one") {
    val s = DecayedSketch.create(Some(Decay.Exp(10)), 0.1, 0.05)
    s.add(1L, 1, 1.0, 0)
    assert(s.queryDecay(null, null) == Decay.Exp(10))
    assert(s.queryDecay("EXP", 10.0) == Decay.Exp(10))
    assert(intercept[SketchException](s.queryDecay("exp", 11.0)).getMessage.contains("was built with decay => 'exp', decay_param => 10.0"))
    assert(intercept[SketchException](s.queryDecay("window", 10.0)).getMessage.contains("was built with"))
    val g = DecayedSketch.create(None, 0.1, 0.05)
    assert(intercept[SketchException](g.queryDecay(null, null)).getMessage.contains("built without a decay"))
    assert(intercept[SketchException](g.queryDecay("exp", null)).getMessage.contains("needs a decay_param"))
    assert(intercept[SketchException](g.queryDecay("linear", 1.0)).getMessage.contains("decay must be 'window', 'exp' or 'poly'"))
    assert(intercept[SketchException](g.queryDecay("exp", -1.0)).getMessage.contains("positive half-life"))
    assert(intercept[SketchException](g.add(1L, 11 * 1024, 1.0, 0)).getMessage.contains("max_weight"))
    assert(intercept[SketchException](g.add(1L, -1, 1.0, 0)).getMessage.contains("weight -1"))
    assert(intercept[SketchException](DecayedSketch.merge(Seq(s, g))).getMessage.contains("different parameters: decay"))
    assert(g.sum(Decay.Exp(5), null) == 0.0 && g.quantile(0.5, Decay.Exp(5), null).isEmpty)
  }

  test("sketch_info describes fixed and general decayed sketches with every field (no cells: cell_kind null)") {
    val s = DecayedSketch.create(Some(Decay.Exp(10)), 0.1, 0.05)
    s.add(1L, 1, 1.0, 0); s.add(2L, 3, 2.0, 5)
    val g = DecayedSketch.create(None, 0.1, 0.05)
    Seq(s -> "exp", g -> "general").foreach { case (x, name) =>
      val d = Families.info(x)
      assert(d.keySet == Families.infoFields.toSet)
      assert(d("kind") == "decayed" && d("decay") == name && d("cell_kind") == null && d("error_bound") == 0.1)
      assert(d("tau") == x.params.tau && d("stored_entries") == x.storedEntries)
    }
    assert(Families.info(s)("decay_param") == 10.0 && Families.info(g)("decay_param") == null)
  }

  test("hostile bytes: truncations, flipped bytes and tampered fields fail with a SketchException") {
    val st = stream(21, 400, 4, 500)
    Seq(Some(Decay.Exp(30.0)), Some(Decay.Window(50)), None).foreach { d =>
      val b = Codec.encode(DecayedKind, merged(st, d, 2))
      // every cut in the header and the first entries, then 300 more spread over the body
      ((0 until math.min(b.length, 400)) ++ (0 until 300).map(k => 400 + (k.toLong * math.max(0, b.length - 400) / 300).toInt)).distinct.foreach { n =>
        val e = intercept[SketchException](Families.decode(b.take(n)))
        assert(e.getMessage.startsWith("corrupt sketch") || e.getMessage.startsWith("not an ecmsketch"), e.getMessage)
      }
      val rnd = new Random(3)
      var refused = 0
      (0 until 1000).foreach { _ =>
        val x = b.clone()
        val k = rnd.nextInt(x.length)
        x(k) = (x(k) ^ (1 << rnd.nextInt(8))).toByte
        try { Families.decode(x); () } catch { case _: SketchException => refused += 1 }
      }
      assert(refused > 300) // flips in ids, weights, levels and keys are caught; values and some timestamps change validly
      // the header's cell kind must be 0 and the cell epsilon the epsilon
      val y = ecmsketch.format.GoldenInputs.withoutChecksum(b); y(6) = 1
      assert(intercept[SketchException](Families.decode(y)).getMessage.contains("cannot hold cells"))
    }
  }
}
