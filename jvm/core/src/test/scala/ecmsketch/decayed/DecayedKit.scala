package ecmsketch.decayed

import scala.util.Random

/** Test streams for the decayed sketch: distinct elements, about 30 % duplicate rows (exact copies
  * of earlier elements, often sent to another site), spread over `sites`, each site's rows shuffled
  * (so late and out of order); and the brute-force decayed aggregates over the distinct elements.
  */
object DecayedKit {
  final case class Elem(id: Long, w: Long, v: Double, t: Long)

  final case class Stream(distinct: Seq[Elem], sites: Seq[Seq[Elem]]) {
    def rows: Seq[Elem] = sites.flatten
  }

  def stream(seed: Long, n: Int, sites: Int, horizon: Long, maxW: Int = 10, values: Int = 50, dupFrac: Double = 0.3): Stream = {
    val rnd = new Random(seed)
    val distinct = (0 until n).map { k =>
      // skewed values (value 1 is frequent), weights in [1, maxW], timestamps in [0, horizon)
      val v = if (rnd.nextDouble() < 0.2) 1.0 else (1 + rnd.nextInt(values)).toDouble
      Elem(rnd.nextLong(), 1 + rnd.nextInt(maxW), v, (rnd.nextDouble() * rnd.nextDouble() * horizon).toLong.min(horizon - 1).max(0L) match {
        case t => horizon - 1 - t // more recent elements are denser
      })
    }
    val dups = (0 until (n * dupFrac / (1 - dupFrac)).toInt).map(_ => distinct(rnd.nextInt(n)))
    val rows = rnd.shuffle(distinct ++ dups)
    val buckets = Array.fill(sites)(Seq.newBuilder[Elem])
    rows.foreach(e => buckets(rnd.nextInt(sites)) += e)
    Stream(distinct, buckets.map(b => rnd.shuffle(b.result())).toSeq)
  }

  def idHash(e: Elem): Long = DecayedSketch.idOfLong(e.id)

  def build(s: Seq[Elem], mk: => DecayedSketch): DecayedSketch = {
    val sk = mk
    s.foreach(e => sk.add(idHash(e), e.w, e.v, e.t))
    sk
  }

  /** Exact real-valued decayed sum over distinct elements with t <= c and p(v). */
  def exact(es: Seq[Elem], d: Decay, c: Long, unit: Long = 1L, p: Double => Boolean = _ => true): Double =
    es.iterator.filter(e => e.t <= c && p(e.v)).map(e => e.w * d.g(c - e.t, unit)).sum

  /** Exact integral decayed sum (the fixed sketch's target V, CTX §1.2) in weight units. */
  def exactIntegral(es: Seq[Elem], f: IntegralDecay, res: Long, c: Long, p: Double => Boolean = _ => true): Double =
    es.iterator.filter(e => e.t <= c && p(e.v)).map(e => f.f(e.w * res, c - e.t).toDouble / res).sum
}
