package ecmsketch.bench.sliding

import java.nio.file.{Files, Paths}

import ecmsketch.core.{KeyType, WindowSpec}
import ecmsketch.ecm.{EcmPlan, EcmSketch, QueryKind}
import ecmsketch.hash.Hashing

/** Where ECM-EH's bytes go, at equal memory (smaller cells without weakening the bound).
  * For a budget, every split of the error between the cells (e_sw) and the Count-Min array
  * (eps_cm = e_sw / ratio) is sized to the budget (the smallest eps_cm whose sketch stays within it
  * on the stream, by bisection); ratio 1 is the journal's split (the bound max(e_sw, (1 + e_sw)
  * eps_cm) balanced), larger ratios give the array more of the bytes and the cells less. Reported:
  * the certified point bound and the measured full-window errors, on the Zipf count-window stream
  * of [[SlidingBench]], beside Sl-CM at the same budget.
  *
  *   sbt "bench/runMain ecmsketch.bench.sliding.SplitBench [events]"   (writes bench/results/sliding_split.md)
  */
object SplitBench {
  val Ratios: Seq[Double] = Seq(1.0, 2.0, 4.0, 8.0, 16.0, 32.0)

  def planFor(cmEps: Double, ratio: Double): EcmPlan = {
    val cellEps = math.max(1e-4, math.min(0.95, cmEps * ratio)) // EH cells take epsilon >= 1e-4
    val width = math.ceil(math.E / cmEps - 1e-9).toInt
    val bound = math.max(cellEps, (1 + cellEps) * cmEps)
    EcmPlan(bound, SlidingBench.EcmDelta, QueryKind.Point, 0, cellEps, cmEps, width, SlidingBench.Depth)
  }

  def main(args: Array[String]): Unit = {
    val n = if (args.length > 0) args(0).toInt else 600000
    val window = math.max(1000L, n / 10L)
    val st = SlidingBench.streams(n, window).head // zipf, count-based window
    val fps = st.keys.map(Hashing.fingerprintLong)
    val ones = Array.fill(n)(1L)
    val spec = WindowSpec(st.countWindow, tsMicros = false, st.window)
    def build(p: EcmPlan): EcmSketch = { val s = EcmSketch.create(spec, p, 1L); s.setKeyType(KeyType.Long); s }
    def maxBytes(p: EcmPlan): Long = {
      val s = build(p); var from = 0; var m = 0L
      SlidingBench.checkpoints(n).foreach { c => s.addSortedBatch(fps, st.ts, ones, from, c + 1); from = c + 1; m = math.max(m, SlidingBench.ecmBytes(s).toLong) }
      m
    }
    val sb = new StringBuilder
    sb ++= s"# ECM-EH error splits at equal memory (${st.label}, $n events, window ${st.window})\n\n"
    sb ++= "| budget | e_sw / eps_cm | array | cell eps | bytes | certified bound | ECM avg / L1 | ECM max / L1 | Sl-CM avg / L1 | Sl-CM max / L1 |\n"
    sb ++= "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n"
    for (budget <- Seq(16L << 10, 256L << 10, 4L << 20)) {
      val sl = SlidingBench.evaluate(st, budget, fps, ones).slFull
      for (ratio <- Ratios) {
        var lo = 1e-4; var hi = 0.9
        if (maxBytes(planFor(hi, ratio)) <= budget) {
          var it = 0
          while (it < 14 && hi / lo > 1.02) { val mid = math.sqrt(lo * hi); if (maxBytes(planFor(mid, ratio)) <= budget) hi = mid else lo = mid; it += 1 }
          val p = planFor(hi, ratio)
          val s = build(p)
          val acc = new SlidingBench.Acc
          val seen = new java.util.HashSet[Long]()
          var from = 0; var mb = 0L
          SlidingBench.checkpoints(n).foreach { c =>
            var i = from; while (i <= c) { seen.add(st.keys(i)); i += 1 }
            s.addSortedBatch(fps, st.ts, ones, from, c + 1); from = c + 1
            mb = math.max(mb, SlidingBench.ecmBytes(s).toLong)
            val keys = seen.toArray(new Array[java.lang.Long](0)).map(_.longValue)
            val ex = SlidingBench.exact(st, c, st.window)
            val truth = keys.map(k => ex.getOrDefault(k, 0L))
            acc.add(keys.map(k => s.pointFingerprint(Hashing.fingerprintLong(k), null, null)), truth, truth.sum, s.pointErrorBound)
          }
          val e = acc.result
          val line = s"| ${SlidingBench.kb(budget)} | $ratio | ${p.width}x${p.depth} | ${SlidingBench.fmt(p.cellEpsilon)} | $mb | " +
            s"${SlidingBench.fmt(s.pointErrorBound)} | ${SlidingBench.fmt(e.avg)} | ${SlidingBench.fmt(e.max)} | ${SlidingBench.fmt(sl.avg)} | ${SlidingBench.fmt(sl.max)} |"
          println(line); sb ++= line + "\n"
        }
      }
    }
    Files.createDirectories(Paths.get("bench", "results"))
    Files.writeString(Paths.get("bench", "results", "sliding_split.md"), sb.toString)
  }
}
