package ecmsketch.bench.paper

import java.nio.file.{Files, Path, Paths}

import scala.language.implicitConversions

import ecmsketch.eh.EhCellKind
import ecmsketch.dwave.DwCellKind
import ecmsketch.rwave.RwCellKind
import ecmsketch.core.WindowSpec
import ecmsketch.ecm.{EcmPlan, EcmSketch, Planner, QueryKind}
import ecmsketch.format.SketchCodec

/** The ECM-sketch paper's experiments ([ECM] §7) on synthetic streams of the published
  * shape ([[Streams]]), scaled down to fit a 2-core machine. Writes JSON under bench/results/paper/
  * for bench/paper/exp_*.py to plot. Run by `make paper` through bench/paper/run_all.py, or
  * `sbt "bench/runMain ecmsketch.bench.paper.PaperBench [--scale X] [table3] [accuracy] [distributed] [network]"`
  * (all four by default; --scale multiplies every stream size).
  */
object PaperBench {
  val Delta = 0.1
  val Seed = 1L
  val Epsilons: Seq[Double] = Seq(0.05, 0.1, 0.15, 0.2, 0.25)
  val Kinds: Seq[(String, Int)] = Seq("EH" -> EhCellKind.id, "DW" -> DwCellKind.id, "RW" -> RwCellKind.id)
  val spec: WindowSpec = WindowSpec(countWindow = false, tsMicros = false, window = Streams.Window)

  /** Stream sizes at scale 1: the accuracy stream (Fig. 4, memory, and the rates of all three
    * kinds), the long stream for the EH and DW update rates, and the stream of the distributed
    * experiments (Table 4, Fig. 6; smaller, since aggregating randomized waves up the trees is the
    * slowest step).
    */
  final val AccEvents = 300000
  final val RateEvents = 2000000
  final val DistEvents = 100000

  // ---- helpers ----

  def build(plan: EcmPlan, s: Streams.Stream, idx: Array[Int], salt: Long): EcmSketch = {
    val sk = EcmSketch.create(spec, plan, Seed)
    sk.setEventSalt(salt)
    if (idx == null) { var i = 0; while (i < s.size) { sk.add(s.keys(i), s.ts(i), 1L); i += 1 } }
    else { var j = 0; while (j < idx.length) { val i = idx(j); sk.add(s.keys(i), s.ts(i), 1L); j += 1 } }
    sk
  }

  private val memBean = java.lang.management.ManagementFactory.getMemoryMXBean
  private def usedHeap(): Long = { System.gc(); System.gc(); memBean.getHeapMemoryUsage.getUsed }

  /** (heap bytes retained by what `f` builds: used heap after full GCs, after minus before; the result). */
  def heapOf[T <: AnyRef](f: => T): (Long, T) = { val b = usedHeap(); val x = f; val a = usedHeap(); (math.max(0L, a - b), x) }

  def median(xs: Seq[Double]): Double = { val s = xs.sorted; s(s.size / 2) }

  /** Event indices per site (0 until sites), in time order. */
  def bySite(site: Array[Int], sites: Int): Array[Array[Int]] = {
    val cnt = new Array[Int](sites)
    site.foreach(x => cnt(x) += 1)
    val out = Array.tabulate(sites)(k => new Array[Int](cnt(k)))
    val pos = new Array[Int](sites)
    var i = 0
    while (i < site.length) { val k = site(i); out(k)(pos(k)) = i; pos(k) += 1; i += 1 }
    out
  }

  /** Order-preserving aggregation up a balanced binary tree whose leaves are the sites in order
    * (height ceil(log2 n)): at each level, pairs merge (EcmSketch.merge) and a lone node moves up.
    * Each inner node is hosted by one of its two children, chosen at random, so the other child's
    * sketch crosses the network: the bytes sent are the sum of its encodings. Returns (root, bytes
    * sent, merges).
    */
  def treeMerge(leaves: IndexedSeq[EcmSketch], seed: Long): (EcmSketch, Long, Int) = {
    val rnd = new java.util.SplittableRandom(seed)
    var level = leaves
    var bytes = 0L; var merges = 0
    while (level.size > 1) {
      level = level.grouped(2).map { g =>
        if (g.size == 1) g.head
        else {
          val sent = if (rnd.nextBoolean()) g(0) else g(1)
          bytes += SketchCodec.encode(sent).length
          merges += 1
          EcmSketch.merge(g)
        }
      }.toIndexedSeq
    }
    (level.head, bytes, merges)
  }

  // ---- JSON ----

  sealed trait J
  final case class JNum(x: Double) extends J
  final case class JStr(s: String) extends J
  final case class JArr(xs: Seq[J]) extends J
  final case class JObj(kv: Seq[(String, J)]) extends J
  implicit def num(x: Double): J = JNum(x)
  implicit def numL(x: Long): J = JNum(x.toDouble)
  implicit def numI(x: Int): J = JNum(x.toDouble)
  implicit def str(s: String): J = JStr(s)
  implicit def arr(xs: Seq[Double]): J = JArr(xs.map(JNum(_)))
  def obj(kv: (String, J)*): JObj = JObj(kv)

  def render(j: J, ind: String = ""): String = j match {
    case JNum(x) => if (x.isNaN || x.isInfinite) "null" else if (x == math.rint(x) && math.abs(x) < 1e15) x.toLong.toString else x.toString
    case JStr(s) => "\"" + s.flatMap { case '"' => "\\\""; case '\\' => "\\\\"; case c => c.toString } + "\""
    case JArr(xs) if xs.forall(_.isInstanceOf[JNum]) => xs.map(render(_, ind)).mkString("[", ", ", "]")
    case JArr(xs) => xs.map(x => ind + "  " + render(x, ind + "  ")).mkString("[\n", ",\n", "\n" + ind + "]")
    case JObj(kv) => kv.map { case (k, v) => ind + "  " + render(JStr(k), ind) + ": " + render(v, ind + "  ") }.mkString("{\n", ",\n", "\n" + ind + "}")
  }

  def write(dir: Path, name: String, j: J): Unit = {
    Files.createDirectories(dir)
    Files.writeString(dir.resolve(name + ".json"), render(j) + "\n")
    println(s"wrote ${dir.resolve(name + ".json")}")
  }

  def streamInfo(s: Streams.Stream): JObj = obj("shape" -> s.shape.name, "label" -> s.shape.label, "events" -> s.size,
    "sites" -> s.shape.sites, "distinct_keys" -> s.shape.distinct, "zipf" -> s.shape.zipf, "span_s" -> Streams.Span,
    "window_s" -> Streams.Window, "last_ts" -> s.lastTs)

  // ---- experiments ----

  /** Table 3: update rates (updates/s, single thread, one add per event) at eps = 0.1, delta = 0.1.
    * EH and DW on the long stream; all three kinds on the accuracy stream (RW cannot hold the long
    * one in memory). Builds interleaved across kinds, one warm-up round, medians of `reps`.
    */
  def table3(shape: Streams.Shape, scale: Double, reps: Int): JObj = {
    val long = Streams.generate(shape, math.max(1000, (RateEvents * scale).toInt), 1L)
    val acc = Streams.generate(shape, math.max(1000, (AccEvents * scale).toInt))
    val plans = Kinds.map { case (n, id) => n -> Planner.plan(0.1, Delta, QueryKind.Point, 0, id) }
    val runs = scala.collection.mutable.Map[String, scala.collection.mutable.ArrayBuffer[Double]]()
    def time(key: String, plan: EcmPlan, s: Streams.Stream, rep: Int): Unit = {
      val t0 = System.nanoTime()
      build(plan, s, null, 7L)
      val rate = s.size / ((System.nanoTime() - t0) / 1e9)
      if (rep > 0) runs.getOrElseUpdate(key, scala.collection.mutable.ArrayBuffer()) += rate
    }
    for (rep <- 0 to reps) {
      plans.foreach { case (n, p) => if (n != "RW") time(n + "_long", p, long, rep) }
      plans.foreach { case (n, p) => time(n + "_acc", p, acc, rep) }
    }
    println(f"table3 ${shape.name}: " + runs.toSeq.sortBy(_._1).map { case (k, v) => f"$k ${median(v.toSeq)}%,.0f" }.mkString(", "))
    obj("shape" -> shape.name, "label" -> shape.label, "reps" -> reps,
      "long_stream" -> streamInfo(long), "acc_stream" -> streamInfo(acc),
      "rates" -> JObj(runs.toSeq.sortBy(_._1).map { case (k, v) => k -> obj("median" -> median(v.toSeq), "min" -> v.min, "max" -> v.max) }))
  }

  /** Fig. 4 and memory: for every eps and cell kind, a sketch planned for point queries (errors of a
    * point query for every distinct key of every range) and, for EH and DW, one planned for
    * self-joins (self-join error per range), against brute-force answers; serialized and heap bytes.
    */
  def accuracy(shape: Streams.Shape, scale: Double): JObj = {
    val s = Streams.generate(shape, math.max(1000, (AccEvents * scale).toInt))
    val ex = Exact.of(s)
    val rows = for ((kind, id) <- Kinds; eps <- Epsilons; qk <- Seq(QueryKind.Point, QueryKind.InnerProduct)
                    if !(id == RwCellKind.id && qk == QueryKind.InnerProduct)) yield {
      val plan = Planner.plan(eps, Delta, qk, 0, id)
      val t0 = System.nanoTime()
      val (heap0, sk) = heapOf(build(plan, s, null, 7L))
      val buildS = (System.nanoTime() - t0) / 1e9
      // used-heap differences are noisy: the median of three builds for the cheap deterministic cells
      val heap = if (id == RwCellKind.id) heap0 else median(Seq(heap0.toDouble) ++ (1 to 2).map(_ => heapOf(build(plan, s, null, 7L))._1.toDouble)).toLong
      val bytes = SketchCodec.encode(sk).length
      val t1 = System.nanoTime()
      val errs: Seq[(String, J)] = if (qk == QueryKind.Point) {
        val (avg, mx, n, by) = Exact.pointErrors(sk, ex)
        Seq("avg" -> avg, "max" -> mx, "queries" -> n, "by_range" -> by, "bound" -> sk.pointErrorBound)
      } else {
        val (avg, mx, by) = Exact.selfJoinErrors(sk, ex)
        Seq("avg" -> avg, "max" -> mx, "queries" -> by.size, "by_range" -> by, "bound" -> sk.innerProductErrorBound(sk))
      }
      val queryS = (System.nanoTime() - t1) / 1e9
      println(f"accuracy ${shape.name} $kind%s eps=$eps%.2f ${qk.name}%-13s ${sk.width}x${sk.depth} $bytes%,d B heap $heap%,d B " +
        f"avg ${errs(0)._2.asInstanceOf[JNum].x}%.5f max ${errs(1)._2.asInstanceOf[JNum].x}%.5f build $buildS%.1fs query $queryS%.1fs")
      JObj(Seq("kind" -> str(kind), "eps" -> num(eps), "query" -> str(qk.name), "width" -> numI(sk.width), "depth" -> numI(sk.depth),
        "cell_eps" -> num(plan.cellEpsilon), "cm_eps" -> num(plan.cmEpsilon), "serialized_bytes" -> numI(bytes), "heap_bytes" -> numL(heap),
        "build_s" -> num(buildS), "query_s" -> num(queryS)) ++ errs)
    }
    obj("shape" -> shape.name, "label" -> shape.label, "delta" -> Delta, "stream" -> streamInfo(s),
      "ranges" -> Exact.Ranges.toSeq.map(_.toDouble), "l1_by_range" -> ex.l1.toSeq.map(_.toDouble), "rows" -> JArr(rows))
  }

  /** One centralized-against-distributed comparison: the sketch of the whole stream, and the root of
    * the tree over the per-site sketches (same plan and seed).
    */
  def compare(s: Streams.Stream, ex: Exact, plan: EcmPlan, sites: Array[Array[Int]], seed: Long, central: Option[EcmSketch]): Seq[(String, J)] = {
    val c = central.getOrElse(build(plan, s, null, 7L))
    val leaves = sites.indices.map(k => build(plan, s, sites(k), 1000L + k))
    val t0 = System.nanoTime()
    val (root, bytes, merges) = treeMerge(leaves, seed)
    val mergeS = (System.nanoTime() - t0) / 1e9
    val point = plan.kind == QueryKind.Point
    def errs(sk: EcmSketch): (Double, Double) =
      if (point) { val e = Exact.pointErrors(sk, ex); (e._1, e._2) } else { val e = Exact.selfJoinErrors(sk, ex); (e._1, e._2) }
    def bound(sk: EcmSketch): Double = if (point) sk.pointErrorBound else sk.innerProductErrorBound(sk)
    val (ca, cm) = errs(c); val (da, dm) = errs(root)
    Seq("central_avg" -> ca, "central_max" -> cm, "distributed_avg" -> da, "distributed_max" -> dm,
      "ratio" -> (if (ca > 0) da / ca else Double.NaN), "central_bound" -> bound(c), "distributed_bound" -> bound(root),
      "root_depth" -> root.mergeDepth, "merges" -> merges, "bytes_sent" -> bytes, "root_bytes" -> SketchCodec.encode(root).length,
      "leaf_bytes_total" -> leaves.map(l => SketchCodec.encode(l).length.toLong).sum, "merge_s" -> mergeS)
  }

  private val DistCases: Seq[(String, String, Int, QueryKind)] = Seq(
    ("point ECM-EH", "EH", EhCellKind.id, QueryKind.Point),
    ("self-join ECM-EH", "EH", EhCellKind.id, QueryKind.InnerProduct),
    ("point ECM-RW", "RW", RwCellKind.id, QueryKind.Point))

  /** Table 4: the shape's own sites (33 or 535, Zipf-skewed loads), eps in {0.1, 0.2}. */
  def distributed(shape: Streams.Shape, scale: Double): JObj = {
    val s = Streams.generate(shape, math.max(1000, (DistEvents * scale).toInt), 2L)
    val ex = Exact.of(s)
    val sites = bySite(s.site, shape.sites)
    val rows = for (eps <- Seq(0.1, 0.2); (label, kind, id, qk) <- DistCases) yield {
      val t0 = System.nanoTime()
      val r = compare(s, ex, Planner.plan(eps, Delta, qk, 0, id), sites, 11L, None)
      val m = r.toMap
      println(f"distributed ${shape.name} eps=$eps%.1f $label%-17s central ${m("central_avg").asInstanceOf[JNum].x}%.5f " +
        f"distributed ${m("distributed_avg").asInstanceOf[JNum].x}%.5f ratio ${m("ratio").asInstanceOf[JNum].x}%.3f " +
        f"sent ${m("bytes_sent").asInstanceOf[JNum].x}%,.0f B (${(System.nanoTime() - t0) / 1e9}%.1fs)")
      JObj(Seq("eps" -> num(eps), "case" -> str(label), "kind" -> str(kind), "query" -> str(qk.name)) ++ r)
    }
    obj("shape" -> shape.name, "label" -> shape.label, "delta" -> Delta, "stream" -> streamInfo(s),
      "site_events" -> sites.map(_.length.toDouble).toSeq, "rows" -> JArr(rows))
  }

  /** Fig. 6: the same events split uniformly over n = 1, 2, 4, ..., 256 leaf sites, eps = delta = 0.1. */
  def network(shape: Streams.Shape, scale: Double): JObj = {
    val s = Streams.generate(shape, math.max(1000, (DistEvents * scale).toInt), 2L)
    val ex = Exact.of(s)
    val central = DistCases.map { case (label, _, id, qk) => label -> build(Planner.plan(0.1, Delta, qk, 0, id), s, null, 7L) }.toMap
    val rows = for (n <- (0 to 8).map(1 << _); (label, kind, id, qk) <- DistCases) yield {
      val t0 = System.nanoTime()
      val sites = bySite(Streams.uniformSites(s, n, 100L + n), n)
      val r = compare(s, ex, Planner.plan(0.1, Delta, qk, 0, id), sites, 13L + n, Some(central(label)))
      val m = r.toMap
      println(f"network ${shape.name} n=$n%3d $label%-17s distributed ${m("distributed_avg").asInstanceOf[JNum].x}%.5f " +
        f"sent ${m("bytes_sent").asInstanceOf[JNum].x}%,.0f B (${(System.nanoTime() - t0) / 1e9}%.1fs)")
      JObj(Seq("sites" -> numI(n), "case" -> str(label), "kind" -> str(kind), "query" -> str(qk.name)) ++ r)
    }
    obj("shape" -> shape.name, "label" -> shape.label, "eps" -> 0.1, "delta" -> Delta, "stream" -> streamInfo(s), "rows" -> JArr(rows))
  }

  def main(args: Array[String]): Unit = {
    var scale = 1.0
    var reps = 3
    val exps = scala.collection.mutable.ArrayBuffer[String]()
    var i = 0
    while (i < args.length) {
      args(i) match {
        case "--scale" => scale = args(i + 1).toDouble; i += 1
        case "--reps" => reps = args(i + 1).toInt; i += 1
        case e @ ("table3" | "accuracy" | "distributed" | "network") => exps += e
        case other => throw new IllegalArgumentException(s"unknown argument '$other' (table3, accuracy, distributed, network, --scale X, --reps N)")
      }
      i += 1
    }
    val todo = if (exps.isEmpty) Seq("table3", "accuracy", "distributed", "network") else exps.toSeq
    val dir = Paths.get("bench", "results", "paper")
    val env = s"java ${System.getProperty("java.version")}, ${Runtime.getRuntime.availableProcessors()} cores, " +
      s"max heap ${Runtime.getRuntime.maxMemory() >> 20} MB"
    todo.foreach { e =>
      val t0 = System.nanoTime()
      val results = Streams.all.map { shape =>
        e match {
          case "table3" => table3(shape, scale, reps)
          case "accuracy" => accuracy(shape, scale)
          case "distributed" => distributed(shape, scale)
          case "network" => network(shape, scale)
        }
      }
      val secs = (System.nanoTime() - t0) / 1e9
      println(f"$e took $secs%.1f s")
      write(dir, e, obj("experiment" -> e, "scale" -> scale, "env" -> env, "seconds" -> secs, "shapes" -> JArr(results)))
    }
  }
}
