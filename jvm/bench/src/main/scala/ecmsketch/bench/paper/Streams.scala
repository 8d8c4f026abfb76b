package ecmsketch.bench.paper

/** Seeded synthetic streams with the published shape of the ECM-sketch paper's data sets ([ECM]
  * §7: wc'98, 1.089 billion requests over 92 days to 33 mirrors, key = page; snmp, 134 million
  * records from 535 access points, key = client MAC). Neither data set ships here, so the streams
  * only imitate their shape: Zipf-distributed keys whose ranking drifts daily, sites of Zipf-skewed
  * load, and bursty arrivals (a daily cycle, random bursts of 5-20x lasting up to a few hours, and
  * clumps of requests a few seconds apart), over a span of 1.5 windows of 10^6 s, so that the
  * window is full and older events expire.
  */
object Streams {
  final val Window: Long = 1000000L
  final val Span: Long = 1500000L

  /** A stream shape: `sites` sources, `distinct` keys drawn Zipf(`zipf`), site loads Zipf(`siteZipf`). */
  final case class Shape(name: String, label: String, sites: Int, distinct: Int, zipf: Double, siteZipf: Double, seed: Long)

  val Wc98: Shape = Shape("wc98", "synthetic WorldCup'98-shaped stream", 33, 90000, 1.0, 1.0, 98L)
  val Snmp: Shape = Shape("snmp", "synthetic snmp-shaped stream", 535, 7000, 0.8, 0.8, 3L)
  val all: Seq[Shape] = Seq(Wc98, Snmp)

  /** Events in time order: key, timestamp (seconds), site. */
  final case class Stream(shape: Shape, keys: Array[Long], ts: Array[Long], site: Array[Int]) {
    def size: Int = keys.length
    def lastTs: Long = ts(ts.length - 1)
  }

  private def zipfCdf(n: Int, s: Double): Array[Double] = {
    val cdf = new Array[Double](n)
    var acc = 0.0
    var i = 0
    while (i < n) { acc += 1.0 / math.pow(i + 1.0, s); cdf(i) = acc; i += 1 }
    var k = 0
    while (k < n) { cdf(k) /= acc; k += 1 }
    cdf
  }

  private def draw(cdf: Array[Double], u: Double): Int = {
    var k = java.util.Arrays.binarySearch(cdf, u)
    if (k < 0) k = -k - 1
    math.min(k, cdf.length - 1)
  }

  /** `n` events of `shape` (seeded by the shape's seed and `salt`). */
  def generate(shape: Shape, n: Int, salt: Long = 0L): Stream = {
    val rnd = new java.util.SplittableRandom(shape.seed * 1000003L + salt)
    // arrival intensity per 1000 s bucket: daily cycle times bursts times noise
    val buckets = (Span / 1000).toInt
    val rate = new Array[Double](buckets)
    var b = 0
    var burst = 1.0; var burstLeft = 0
    while (b < buckets) {
      if (burstLeft == 0 && rnd.nextInt(100) < 2) { burst = 5.0 + 15.0 * rnd.nextDouble(); burstLeft = 1 + rnd.nextInt(8) }
      val day = 1.0 + 0.7 * math.sin(2 * math.Pi * b * 1000.0 / 86400.0)
      rate(b) = day * (if (burstLeft > 0) burst else 1.0) * (0.5 + rnd.nextDouble())
      if (burstLeft > 0) burstLeft -= 1
      b += 1
    }
    val bcdf = new Array[Double](buckets)
    var acc = 0.0
    b = 0
    while (b < buckets) { acc += rate(b); bcdf(b) = acc; b += 1 }
    b = 0
    while (b < buckets) { bcdf(b) /= acc; b += 1 }
    // clumps of 1..8 requests a few seconds apart
    val ts = new Array[Long](n)
    var i = 0
    while (i < n) {
      val t0 = draw(bcdf, rnd.nextDouble()) * 1000L + rnd.nextLong(1000L)
      val clump = 1 + rnd.nextInt(8)
      var c = 0
      while (c < clump && i < n) { ts(i) = math.min(Span - 1, t0 + rnd.nextLong(4L)); i += 1; c += 1 }
    }
    java.util.Arrays.sort(ts)
    val kcdf = zipfCdf(shape.distinct, shape.zipf)
    val scdf = zipfCdf(shape.sites, shape.siteZipf)
    val sitePerm = Array.tabulate(shape.sites)(identity)
    var k = shape.sites - 1
    while (k > 0) { val j = rnd.nextInt(k + 1); val x = sitePerm(k); sitePerm(k) = sitePerm(j); sitePerm(j) = x; k -= 1 }
    val keys = new Array[Long](n)
    val site = new Array[Int](n)
    i = 0
    while (i < n) {
      val rank = draw(kcdf, rnd.nextDouble())
      val day = ts(i) / 86400L
      // the popularity ranking drifts: every day the ranks shift by 101 keys
      keys(i) = (rank + 101L * day) % shape.distinct
      site(i) = sitePerm(draw(scdf, rnd.nextDouble()))
      i += 1
    }
    Stream(shape, keys, ts, site)
  }

  /** The same events split uniformly at random over `sites` sites ([ECM] Fig. 6). */
  def uniformSites(s: Stream, sites: Int, seed: Long): Array[Int] = {
    val rnd = new java.util.SplittableRandom(seed)
    Array.fill(s.size)(rnd.nextInt(sites))
  }
}
