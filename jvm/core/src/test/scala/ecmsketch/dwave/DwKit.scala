package ecmsketch.dwave

import scala.util.Random

/** Streams and a brute-force oracle for the wave suites. */
object DwKit {
  val Epsilons: Seq[Double] = Seq(0.5, 1.0 / 3, 0.25, 0.2, 0.125, 0.1, 0.05, 0.01)

  /** A stream as parallel arrays of non-decreasing timestamps and weights. */
  final case class Stream(ts: Array[Long], ws: Array[Long]) {
    def n: Int = ts.length
    /** Weight with timestamps >= lo. */
    lazy val suffix: Array[Long] = { val s = new Array[Long](n + 1); var i = n - 1; while (i >= 0) { s(i) = s(i + 1) + ws(i); i -= 1 }; s }
    def from(lo: Long): Long = {
      var a = 0; var b = n
      while (a < b) { val m = (a + b) >>> 1; if (ts(m) >= lo) b = m else a = m + 1 }
      suffix(a)
    }
  }

  def union(ss: Seq[Stream]): Stream = {
    val all = ss.flatMap(s => s.ts.indices.map(i => (s.ts(i), s.ws(i)))).sortBy(_._1)
    Stream(all.map(_._1).toArray, all.map(_._2).toArray)
  }

  /** kind: 0 random, 1 bursty (many equal timestamps), 2 adversarial (bursts, gaps, zero runs,
    * mixed 1/huge weights), 3 count-based (unique sequence numbers). weighted: non-unit weights.
    */
  def stream(rnd: Random, n: Int, kind: Int, weighted: Boolean, start: Long = 0L): Stream = {
    val ts = new Array[Long](n); val ws = new Array[Long](n)
    var t = start
    var i = 0
    while (i < n) {
      kind match {
        case 0 => t += rnd.nextInt(4)
        case 1 => if (rnd.nextInt(12) == 0) t += 1 + rnd.nextInt(30)
        case 2 =>
          val phase = (i / 40) % 4
          t += (phase match { case 0 => 0; case 1 => if (rnd.nextInt(5) == 0) 50 + rnd.nextInt(400) else 0; case 2 => 1; case _ => rnd.nextInt(3) })
        case _ => t += 1 + (if (rnd.nextInt(10) == 0) rnd.nextInt(5) else 0)
      }
      ts(i) = t
      ws(i) =
        if (!weighted) 1L
        else if (kind == 2) {
          val phase = (i / 25) % 5
          phase match {
            case 0 => 0L
            case 1 => if (rnd.nextBoolean()) 1L else 1L << (10 + rnd.nextInt(12))
            case 2 => (1L << rnd.nextInt(14)) - rnd.nextInt(2) // around powers of two
            case 3 => rnd.nextInt(3).toLong
            case _ => 1L + rnd.nextInt(1000)
          }
        } else if (rnd.nextInt(10) == 0) rnd.nextInt(500).toLong else rnd.nextInt(4).toLong
      i += 1
    }
    Stream(ts, ws)
  }

  def build(cfg: DwConfig, s: Stream, check: Boolean = false): DetWave = {
    val w = new DetWave(cfg)
    var i = 0
    while (i < s.n) {
      w.add(s.ts(i), s.ws(i))
      if (check) { checkInvariants(w); assert(w.itemCount <= cfg.maxItems) }
      i += 1
    }
    w
  }

  /** Query starts to test at clock `now`: every distinct timestamp t and t + 1 (t - 1 and t as
    * exclusive boundaries), and the window start, restricted to legal starts.
    */
  def starts(s: Stream, now: Long, window: Long): Array[Long] = {
    val lowest = if (window == Long.MaxValue) Long.MinValue else now - window + 1
    val b = Array.newBuilder[Long]
    b += lowest
    var i = 0
    while (i < s.n) { val t = s.ts(i); if (i == 0 || t != s.ts(i - 1)) { b += t; b += t + 1 }; i += 1 }
    b.result().filter(x => x >= lowest && x <= now + 1).distinct
  }

  /** Worst |est - truth| / (bound * truth) over every legal start; asserts it is <= 1 and that the
    * bounds contain the truth. Starts at or before the wave's overflowTs must throw.
    */
  def worst(w: DetWave, s: Stream, bound: Double, now: Long, window: Long, what: => String, sound: Boolean = true): Double = {
    var worst = 0.0
    val ss = starts(s, now, window)
    var i = 0
    while (i < ss.length) {
      val lo = ss(i)
      val truth = s.from(lo)
      if (w.overflowTs != Long.MinValue && lo <= w.overflowTs) {
        val e = refused(w.estimateFrom(lo))
        assert(e.getMessage.contains("max_arrivals"), e.getMessage)
      } else {
        val est = w.estimateFrom(lo)
        val err = math.abs(est - truth)
        if (err > bound * truth + 1e-9)
          throw new AssertionError(s"$what: lo=$lo est=$est truth=$truth bound=$bound bounds=${w.boundsFrom(lo)} wave=$w")
        if (truth > 0) worst = math.max(worst, err / (bound * truth))
        val (a, b) = w.boundsFrom(lo)
        if (sound && (truth < a || truth > b)) throw new AssertionError(s"$what: lo=$lo truth $truth outside [$a, $b]")
      }
      i += 1
    }
    worst
  }

  def refused(f: => Any): ecmsketch.core.SketchException =
    try { f; throw new AssertionError("expected a SketchException") }
    catch { case e: ecmsketch.core.SketchException => e }

  /** Node slots allocated (memory is proportional to the items held, at most config.maxItems). */
  def allocatedNodes(w: DetWave): Int = w.pPos.length

  /** Throws AssertionError if an internal invariant fails. */
  def checkInvariants(w: DetWave): Unit = {
    val v = w.violation()
    if (v != null) throw new AssertionError(s"deterministic wave invariant: $v")
  }
}
