package ecmsketch.bench.paper

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.rwave.RwCellKind
import ecmsketch.ecm.{Planner, QueryKind}

/** The pieces PaperBench's numbers rest on: the synthetic streams have the stated shape and are
  * reproducible, the brute-force answers match a direct count, the aggregation tree has the
  * paper's height and loses no events, and the observed errors stay within the certified bounds.
  */
class PaperSuite extends AnyFunSuite {
  private val shape = Streams.Wc98
  private lazy val s = Streams.generate(shape, 20000)

  test("synthetic streams: time order, ranges of keys and sites, seeded") {
    assert(s.size == 20000)
    assert(s.ts.sliding(2).forall(p => p(0) <= p(1)))
    assert(s.ts.head >= 0 && s.lastTs < Streams.Span)
    assert(s.lastTs - s.ts.head > Streams.Window, "the stream spans more than one window")
    assert(s.keys.forall(k => k >= 0 && k < shape.distinct))
    assert(s.site.forall(k => k >= 0 && k < shape.sites))
    assert(s.site.distinct.length > shape.sites / 2)
    val again = Streams.generate(shape, 20000)
    assert(again.keys.sameElements(s.keys) && again.ts.sameElements(s.ts) && again.site.sameElements(s.site))
    assert(!Streams.generate(Streams.Snmp, 20000).keys.sameElements(s.keys))
    // Zipf: the most frequent key takes far more than a uniform share
    val top = s.keys.groupBy(identity).values.map(_.length).max
    assert(top > 20 * s.size / shape.distinct)
  }

  test("exact answers match a direct count per range") {
    val ex = Exact.of(s)
    ex.ranges.indices.foreach { q =>
      val in = s.keys.indices.filter(i => s.ts(i) > ex.now - ex.ranges(q))
      assert(ex.l1(q) == in.size.toLong)
      val direct = in.groupBy(s.keys(_)).map { case (k, v) => k -> v.size.toLong }
      assert(ex.keys(q).zip(ex.counts(q)).toMap == direct)
      assert(ex.f2(q) == direct.values.map(c => c.toDouble * c).sum)
    }
  }

  test("aggregation tree: n - 1 merges, height ceil(log2 n), every event kept, bytes counted") {
    val plan = Planner.plan(0.1, 0.1, QueryKind.Point, 0)
    for (n <- Seq(1, 2, 5, 33)) {
      val sites = PaperBench.bySite(Streams.uniformSites(s, n, 5L), n)
      assert(sites.map(_.length).sum == s.size)
      val leaves = sites.indices.map(k => PaperBench.build(plan, s, sites(k), k.toLong))
      val (root, bytes, merges) = PaperBench.treeMerge(leaves, 3L)
      assert(merges == n - 1)
      assert(root.mergeDepth == (if (n == 1) 0 else 32 - Integer.numberOfLeadingZeros(n - 1)))
      assert(root.count == s.size.toLong)
      assert((bytes > 0) == (n > 1))
    }
  }

  test("observed errors within the certified bounds, centralized and distributed, every cell kind") {
    val ex = Exact.of(s)
    val sites = PaperBench.bySite(s.site, shape.sites)
    for ((_, id) <- PaperBench.Kinds; qk <- Seq(QueryKind.Point, QueryKind.InnerProduct) if !(id == RwCellKind.id && qk == QueryKind.InnerProduct)) {
      val plan = Planner.plan(0.1, 0.1, qk, 0, id)
      val r = PaperBench.compare(s, ex, plan, sites, 1L, None).toMap
      def v(k: String): Double = r(k).asInstanceOf[PaperBench.JNum].x
      assert(v("central_max") <= v("central_bound"), s"$id $qk central")
      assert(v("distributed_max") <= v("distributed_bound"), s"$id $qk distributed")
      assert(v("central_avg") > 0.0)
      // randomized waves merge losslessly; deterministic cells pay for each level of the tree
      if (id == RwCellKind.id) assert(v("distributed_bound") == v("central_bound"))
      else assert(v("distributed_bound") > v("central_bound"))
    }
  }
}
