package ecmsketch.quantile

import ecmsketch.core.InfoField.{int, long, real}
import ecmsketch.core.{ByteReader, ByteWriter, CellKind, Codec, FunctionSpec, InfoField, SketchException, SketchHeader, SketchKind}

/** The windowed quantile sketch (sketch kind 8, docs/design/windowed-quantiles.md "Encoding"): cell
  * kind 0, then body version, delta, seed and the runs. A run is its coin state, its generation (body
  * versions 2 and 3; runs of version 1 are of generation [[FoldPlan.Legacy]]), its buckets (oldest
  * first: start as an offset from the previous bucket's end, span, weight, the two variance ledgers,
  * the levels with their samples) and its raw rows. Body version 3 writes the values of each level
  * and of the raw rows as [[DecimalValues]] (versions 1 and 2: f64). Every field is validated on decode.
  */
object QuantileKind extends SketchKind[QuantileSketch](8, "quantile") {
  /** Written; version 2 (folds, f64 values) and version 1 are still read. */
  final val BodyVersion = 3
  /** The body version before folds: no generation byte, every run spends the whole budget. */
  final val BodyVersionUnfolded = 1
  /** Levels a bucket may have: weights 2^0 to 2^62. */
  final val MaxLevels = Bucket.TopLevel + 1

  def describe: String = "a windowed quantile sketch (from quantile_agg or quantile_merge)"
  def expected: String = "a windowed quantile sketch (from quantile_agg)"
  def plural: String = "windowed quantile sketches"
  def cellKinds: Seq[CellKind] = Nil
  override def functions: Seq[FunctionSpec] = QuantileFunctions.all
  def cellKindOf(s: QuantileSketch): Int = Codec.NoCells
  def sizeHint(s: QuantileSketch): Int =
    math.min(Int.MaxValue - 64L, Codec.HeaderSize + 32L + 14L * s.storedEntries + 32L * s.bucketCount + 16L * s.runCount).toInt

  def encodeBody(s: QuantileSketch, out: ByteWriter): Unit = {
    out.putByte(BodyVersion)
    out.putDouble(s.delta)
    out.putLong(s.seed)
    out.putVarLong(s.runs.length.toLong)
    s.runs.foreach(r => writeRun(r, s.firstTs, out, decimals = true))
  }

  /** A run's bytes, timestamps as unsigned offsets from `base` (no later than any of its timestamps):
    * values as [[DecimalValues]] (body version 3), or f64 values (as body version 2 wrote them: the
    * canonical key a merge orders runs by).
    */
  private[quantile] def writeRun(r: QuantileRun, base: Long, out: ByteWriter, decimals: Boolean): Unit = {
    out.putLong(r.rng.state)
    out.putByte(r.gen)
    out.putVarLong(r.bucketCount.toLong)
    var prev = base
    var i = 0
    while (i < r.bucketCount) {
      val b = r.bucket(i)
      out.putVarLong(b.tStart - prev)
      out.putVarLong(b.tEnd - b.tStart)
      out.putVarLong(b.count)
      out.putDouble(b.v1)
      out.putDouble(b.v2)
      var top = b.levels
      while (top > 0 && b.sizes(top - 1) == 0) top -= 1
      out.putByte(top)
      var h = 0
      while (h < top) {
        val n = b.sizes(h); val vs = b.vals(h); val ts = b.tss(h)
        out.putVarLong(n.toLong)
        if (decimals && n > 0) {
          val c = DecimalValues.writeCode(vs, 0, n, out)
          var m = Long.MinValue
          var j = 0
          while (j < n) { m = DecimalValues.writeValue(vs(j), c, m, ascending = true, out); out.putVarLong(ts(j) - b.tStart); j += 1 }
        } else {
          var j = 0
          while (j < n) { out.putDouble(vs(j)); out.putVarLong(ts(j) - b.tStart); j += 1 }
        }
        h += 1
      }
      prev = b.tEnd
      i += 1
    }
    out.putVarLong(r.rawCount.toLong)
    val c = if (decimals && r.rawCount > 0) DecimalValues.writeCode(r.rawV, r.rawStart, r.rawEnd, out) else DecimalValues.Doubles
    var j = r.rawStart
    while (j < r.rawEnd) {
      out.putVarLong(r.rawTs(j) - prev)
      prev = r.rawTs(j)
      DecimalValues.writeValue(r.rawV(j), c, Long.MinValue, ascending = false, out)
      out.putVarLong(r.rawW(j))
      j += 1
    }
  }

  private def corrupt(msg: String): Nothing = throw new SketchException(s"corrupt sketch: $msg")

  def decodeBody(in: ByteReader, h: SketchHeader): QuantileSketch = {
    val version = in.getByte("quantile body version")
    if (version < BodyVersionUnfolded || version > BodyVersion)
      corrupt(s"quantile body version $version (this library reads $BodyVersionUnfolded to $BodyVersion)")
    val delta = in.getDouble("delta")
    val seed = in.getLong("seed")
    val p = try QuantileParams(h.epsilon, delta, seed) catch { case e: SketchException => corrupt(e.getMessage) }
    val s = QuantileSketch.restore(h.spec, h.epsilon, h.levels, p)
    val nRuns = in.getVarIn("run count", 0, in.remaining.toLong)
    if (!h.hasRows && nRuns != 0) corrupt("runs in an empty quantile sketch")
    val windowLo = if (h.hasRows) QuantileRun.windowStart(h.lastTs, h.spec.window) else Long.MinValue
    var weight = 0L
    val runs = Array.tabulate(nRuns.toInt) { k =>
      val r = readRun(in, h, s.plan, version, k, windowLo)
      if (Long.MaxValue - weight < r.weight) corrupt("the runs' weights overflow")
      weight += r.weight
      r
    }
    if (weight > h.count) corrupt(s"the runs hold weight $weight, more than the total weight ${h.count}")
    in.expectEnd()
    s.restoreRuns(runs)
    s
  }

  /** Unsigned offset `d` from `prev` that must not pass `last`. */
  private def advance(prev: Long, d: Long, last: Long, what: => String): Long = {
    if (java.lang.Long.compareUnsigned(d, last - prev) > 0) corrupt(s"$what lies after the last timestamp")
    prev + d
  }

  private def readValue(in: ByteReader, what: => String): Double = {
    val v = in.getDouble(what)
    if (v.isNaN) corrupt(s"$what is NaN")
    if (v == 0.0 && java.lang.Double.doubleToRawLongBits(v) != 0L) corrupt(s"$what is -0.0 (not canonical)")
    v
  }

  private def readRun(in: ByteReader, h: SketchHeader, plan: FoldPlan, version: Int, k: Int,
                      windowLo: Long): QuantileRun = {
    val decimals = version >= BodyVersion
    val rng = new Rng(in.getLong(s"coin state of run $k"))
    val gen = if (version == BodyVersionUnfolded) FoldPlan.Legacy else in.getByte(s"generation of run $k")
    if (!plan.valid(gen))
      corrupt(s"run $k is of generation $gen; a sketch of ${h.levels} merge level${if (h.levels == 1) "" else "s"} folds up to generation ${plan.folds}")
    val p = plan.params(gen)
    val run = new QuantileRun(p, rng, gen)
    val nb = in.getVarIn(s"bucket count of run $k", 0, in.remaining.toLong).toInt
    var prev = h.firstTs
    val buckets = Array.tabulate(nb) { i =>
      def what = s"bucket $i of run $k"
      val tStart = advance(prev, in.getVarLong(s"start of $what"), h.lastTs, s"the start of $what")
      val tEnd = advance(tStart, in.getVarLong(s"span of $what"), h.lastTs, s"the end of $what")
      if (tEnd < windowLo) corrupt(s"$what ends before the window (not canonical)")
      val count = in.getVarIn(s"weight of $what", 1, h.count)
      val v1 = in.getDouble(s"first variance ledger of $what")
      val v2 = in.getDouble(s"second variance ledger of $what")
      val c2 = count.toDouble * count.toDouble * (1.0 + 1e-9)
      if (!(v1 >= 0.0 && v1 <= p.gamma1 * c2)) corrupt(s"$what has variance ledger v1 = $v1 outside [0, ${p.gamma1 * c2}]")
      if (!(v2 >= 0.0 && v2 <= p.gamma2 * c2)) corrupt(s"$what has variance ledger v2 = $v2 outside [0, ${p.gamma2 * c2}]")
      val nLevels = in.getByte(s"level count of $what")
      if (nLevels < 1 || nLevels > MaxLevels) corrupt(s"$what has $nLevels levels, not 1 to $MaxLevels")
      val sizes = new Array[Int](nLevels)
      val vals = new Array[Array[Double]](nLevels); val tss = new Array[Array[Long]](nLevels)
      var total = 0L
      var lv = 0
      while (lv < nLevels) {
        val n = in.getVarIn(s"sample count of level $lv of $what", 0, in.remaining / (if (decimals) 2L else 9L)).toInt
        val c = if (decimals && n > 0) DecimalValues.readCode(in, s"value code of level $lv of $what") else DecimalValues.Doubles
        // f64 samples take at least 9 bytes: a count beyond that is refused before its arrays are made
        if (c == DecimalValues.Doubles && n > in.remaining / 9L) corrupt(s"level $lv of $what holds $n samples, more than its bytes can")
        val vs = new Array[Double](n); val ts = new Array[Long](n)
        var m = Long.MinValue
        var j = 0
        while (j < n) {
          if (c == DecimalValues.Doubles) vs(j) = readValue(in, s"sample $j of level $lv of $what")
          else { m = DecimalValues.readInteger(in, m, ascending = true, s"sample $j of level $lv of $what"); vs(j) = DecimalValues.value(m, c) }
          ts(j) = advance(tStart, in.getVarLong(s"timestamp of sample $j of level $lv of $what"), tEnd, s"sample $j of level $lv of $what")
          if (j > 0 && Samples.less(vs(j), ts(j), vs(j - 1), ts(j - 1)))
            corrupt(s"the samples of level $lv of $what are not in (value, timestamp) order at sample $j")
          j += 1
        }
        if (decimals && n > 0) DecimalValues.requireCanonical(vs, 0, n, c, s"level $lv of $what")
        val w = n.toLong << lv
        if ((w >>> lv) != n.toLong || Long.MaxValue - total < w) corrupt(s"the sample weights of $what overflow")
        total += w
        sizes(lv) = n; vals(lv) = if (n == 0) Samples.NoDoubles else vs; tss(lv) = if (n == 0) Samples.NoLongs else ts
        lv += 1
      }
      if (sizes(nLevels - 1) == 0) corrupt(s"the top level of $what is empty (not canonical)")
      if (total != count) corrupt(s"the samples of $what weigh $total, not its weight $count")
      prev = tEnd
      new Bucket(tStart, tEnd, count, v1, v2, vals, tss, sizes)
    }
    val nRaw = in.getVarIn(s"raw row count of run $k", 0, math.min(p.rawCapacity - 1L, in.remaining / (if (decimals) 3L else 10L))).toInt
    val ts = new Array[Long](nRaw); val vs = new Array[Double](nRaw); val ws = new Array[Long](nRaw)
    val rc = if (decimals && nRaw > 0) DecimalValues.readCode(in, s"value code of the raw rows of run $k") else DecimalValues.Doubles
    var j = 0
    while (j < nRaw) {
      ts(j) = advance(prev, in.getVarLong(s"timestamp of raw row $j of run $k"), h.lastTs, s"raw row $j of run $k")
      if (ts(j) < windowLo) corrupt(s"raw row $j of run $k lies before the window (not canonical)")
      vs(j) =
        if (rc == DecimalValues.Doubles) readValue(in, s"value of raw row $j of run $k")
        else DecimalValues.value(DecimalValues.readInteger(in, Long.MinValue, ascending = false, s"value of raw row $j of run $k"), rc)
      ws(j) = in.getVarIn(s"weight of raw row $j of run $k", 1, h.count)
      prev = ts(j)
      j += 1
    }
    if (decimals && nRaw > 0) DecimalValues.requireCanonical(vs, 0, nRaw, rc, s"the raw rows of run $k")
    run.restore(buckets, ts, vs, ws)
    if (run.isEmpty) corrupt(s"run $k is empty (not canonical)")
    if (run.weight < 0 || run.weight > h.count) corrupt(s"run $k holds weight beyond the total weight ${h.count}")
    run
  }

  def merge(xs: Seq[QuantileSketch]): QuantileSketch = QuantileSketch.merge(xs)
  /** Early merges keep every run on its own: the merge of them all arranges and folds them once, as
    * one merge of all the inputs would.
    */
  override def mergeEarly(xs: Seq[QuantileSketch]): QuantileSketch = QuantileSketch.mergeEarly(xs)
  def mergeSameStream(xs: Seq[QuantileSketch]): QuantileSketch = QuantileSketch.mergeSameStream(xs)
  def mergeDiffs(a: QuantileSketch, b: QuantileSketch): Seq[String] = a.diffs(b)

  def infoFields: Seq[InfoField] = Seq(real("delta"), long("seed"), real("quantile_rank_error_bound"),
    int("sample_capacity"), int("stored_entries"), int("runs"), int("buckets"), int("raw_rows"))

  def info(s: QuantileSketch): Map[String, Any] =
    Map("delta" -> s.delta, "seed" -> s.seed, "quantile_rank_error_bound" -> s.errorBound,
      "sample_capacity" -> s.plan.params(0).capacity, "stored_entries" -> s.storedEntries.toInt,
      "runs" -> s.runCount, "buckets" -> s.bucketCount, "raw_rows" -> s.rawCount)

  /** The rank error of every rank and quantile, relative to the weight of the range, holding with
    * probability at least 1 - delta for each query, at every merge depth.
    */
  def errorBound(s: QuantileSketch): Double = s.errorBound
}
