package ecmsketch.decayed

/** Measurements of the decayed sketch (docs/design/decayed.md "Decayed sketch"; `make bench`):
  *  - `constant`: failure rate (relative error > epsilon; selectivity: absolute error > epsilon)
  *    against the constant C of tau = C / epsilon^2, over seeded streams (3000 distinct elements, 30 %
  *    duplicates, 8 sites, shuffled), queried at the last timestamp;
  *  - `speed`: elements/s of the fixed-decay and general sketches (interleaved runs, medians) and
  *    sketch size at epsilon 0.05 (`-Ddecayed.rows`, default 10^6 rows);
  *  - `one <case> <shuffled|time> <rows> <runs>`: one case of `speed`, run after run (A/B runs, profiles).
  */
object DecayedBench {
  import DecayedKit._

  def main(args: Array[String]): Unit = args.headOption.getOrElse("constant") match {
    case "constant" => constant(args.lift(1).map(_.toInt).getOrElse(60), args.lift(2).map(_.toDouble).getOrElse(0.1),
      args.lift(3).map(_.split(",").toSeq.map(_.toDouble)))
    case "speed" => speed()
    case "one" => one(args(1), args(2), args(3).toInt, args(4).toInt)
    case other => sys.error(s"unknown mode $other")
  }

  def constant(seeds: Int, eps: Double, args0: Option[Seq[Double]]): Unit = {
    val delta = 0.05
    val cs = args0.getOrElse(Seq(1.0, 2.0, 4.0, 8.0, 16.0))
    val fixed: Seq[Decay] = Seq(Decay.Window(300), Decay.Exp(150), Decay.Poly(1.0))
    val general: Seq[Decay] = Seq(Decay.Window(100), Decay.Window(1000), Decay.Exp(60), Decay.Poly(1.5))
    println(s"epsilon $eps, delta $delta (${DecayedSketch.copiesFor(delta)} copies), $seeds seeds: failure rate (worst error)")
    cs.foreach { c =>
      val fails = scala.collection.mutable.LinkedHashMap[String, (Int, Double)]()
      def note(k: String, bad: Boolean, e: Double): Unit = {
        val (f, w) = fails.getOrElse(k, (0, 0.0)); fails(k) = (f + (if (bad) 1 else 0), math.max(w, e))
      }
      (0 until seeds).foreach { k =>
        val st = stream(50000 + k, 3000, 8, 2000)
        val now = 1999L
        fixed.foreach { d =>
          val s = DecayedSketch.merge(st.sites.map(p => build(p, DecayedSketch.create(Some(d), eps, delta, c, maxWeight = 10, seed = k))))
          val want = exactIntegral(st.distinct, s.params.integral.get, s.params.resolution, now)
          val e = math.abs(s.sum(d, now) - want) / want
          note(s"fixed sum $d", e > eps, e)
          if (d.isInstanceOf[Decay.Exp]) {
            val sel = exactIntegral(st.distinct, s.params.integral.get, s.params.resolution, now, v => v <= 10) / want
            val es = math.abs(s.selectivity(Double.NegativeInfinity, 10, d, now) - sel)
            note(s"fixed selectivity $d", es > eps, es)
          }
        }
        val g = DecayedSketch.merge(st.sites.map(p => build(p, DecayedSketch.create(None, eps, delta, c, maxWeight = 10, seed = k))))
        general.foreach { d =>
          val want = exact(st.distinct, d, now)
          val e = math.abs(g.sum(d, now) - want) / want
          note(s"general sum $d", e > eps, e)
        }
        val d = Decay.Exp(60)
        val sel = exact(st.distinct, d, now, 1L, v => v <= 10) / exact(st.distinct, d, now)
        val es = math.abs(g.selectivity(Double.NegativeInfinity, 10, d, now) - sel)
        note(s"general selectivity $d", es > eps, es)
      }
      fails.foreach { case (k, (f, w)) => println(f"C=$c%-5s $k%-36s ${f.toDouble / seeds}%.3f ($w%.3f)") }
    }
  }

  /** One case of [[speed]] (a sketch whose name contains `what`, in `order`: "shuffled" or "time"),
    * `reps` runs over `n` rows, printing each run's elements/s: for A/B runs and profiles.
    */
  def one(what: String, order: String, n: Int, reps: Int): Unit = {
    val st = stream(7, n, 1, 10L * n, maxW = 1, dupFrac = 0.0)
    val rows = if (order == "time") st.rows.toArray.sortBy(_.t) else st.rows.toArray
    val (name, mk) = cases.find(_._1.contains(what)).getOrElse(sys.error(s"no case $what"))
    (0 until reps).foreach { rep =>
      val (rate, bytes, entries) = timedBuild(mk, rows)
      println(f"rep $rep $name, $order: $rate%.0f elements/s, ${bytes.length} bytes, $entries entries, crc32 ${crc(bytes)}%08x")
    }
  }

  /** Builds a sketch from `rows`: elements/s (the finished, compacted sketch included, as encoding
    * it would), its bytes and stored entries.
    */
  private def timedBuild(mk: () => DecayedSketch, rows: Array[Elem]): (Double, Array[Byte], Int) = {
    val s = mk()
    val t0 = System.nanoTime()
    var k = 0
    while (k < rows.length) { val e = rows(k); s.add(idHash(e), e.w, e.v, e.t); k += 1 }
    val entries = s.storedEntries
    val rate = rows.length / ((System.nanoTime() - t0) / 1e9)
    (rate, ecmsketch.core.Codec.encode(DecayedKind, s), entries)
  }

  /** A fingerprint of the bytes: a speed change must not move it. */
  private def crc(bytes: Array[Byte]): Long = { val c = new java.util.zip.CRC32(); c.update(bytes); c.getValue }

  private val cases: Seq[(String, () => DecayedSketch)] = Seq(
    "fixed exp(half-life 1000), C=2" -> (() => DecayedSketch.create(Some(Decay.Exp(1000)), 0.05, 0.05, 2.0, maxWeight = 1)),
    "fixed exp(half-life 1000), C=4" -> (() => DecayedSketch.create(Some(Decay.Exp(1000)), 0.05, 0.05, 4.0, maxWeight = 1)),
    "fixed exp(half-life 1000), C=60" -> (() => DecayedSketch.create(Some(Decay.Exp(1000)), 0.05, 0.05, 60.0, maxWeight = 1)),
    "fixed window(10000), C=4" -> (() => DecayedSketch.create(Some(Decay.Window(10000)), 0.05, 0.05, 4.0, maxWeight = 1)),
    "general, C=4" -> (() => DecayedSketch.create(None, 0.05, 0.05, 4.0, maxWeight = 1)))

  def speed(): Unit = {
    val n = sys.props.getOrElse("decayed.rows", "1000000").toInt
    val st = stream(7, n, 1, 10L * n, maxW = 1, dupFrac = 0.0)
    val shuffled = st.rows.toArray
    // the same rows in time order, the order streams mostly arrive in (the sketch inserts each batch
    // of pending rows newest first, so the orders differ by a sort and in which levels refuse what)
    val orders = Seq("shuffled" -> shuffled, "time order" -> shuffled.sortBy(_.t))
    val runs = for ((o, rows) <- orders; (k, mk) <- cases) yield (s"$k, $o", rows, mk)
    val times = runs.map(_ => scala.collection.mutable.ArrayBuffer[Double]())
    var sizes = Map[String, Int]()
    (0 until 3).foreach { rep =>
      runs.indices.foreach { i =>
        val (name, rows, mk) = runs(i)
        val (rate, bytes, entries) = timedBuild(mk, rows)
        times(i) += rate
        sizes += name -> bytes.length
        if (rep == 0) println(f"bytes of $name%-46s crc32 ${crc(bytes)}%08x")
        println(f"rep $rep $name%-46s ${times(i).last}%.0f elements/s, ${bytes.length} bytes, $entries entries")
      }
    }
    val lines = Seq(s"Decayed sketch updates, one thread: $n distinct weight-1 observations, epsilon 0.05, delta 0.05 " +
      s"(5 copies), medians of 3 interleaved runs; java ${System.getProperty("java.version")}, " +
      s"${Runtime.getRuntime.availableProcessors()} cores", "",
      "| sketch, row order | elements/s | serialized bytes |", "|---|---:|---:|") ++
      runs.indices.map { i =>
        val m = times(i).sorted.apply(times(i).size / 2)
        f"| ${runs(i)._1} | $m%,.0f | ${sizes(runs(i)._1)}%,d |"
      }
    val text = lines.mkString("\n")
    println(text)
    val dir = java.nio.file.Paths.get("bench", "results")
    java.nio.file.Files.createDirectories(dir)
    java.nio.file.Files.writeString(dir.resolve("decayed_core.md"), text + "\n")
  }
}
