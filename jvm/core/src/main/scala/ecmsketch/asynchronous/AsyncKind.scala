package ecmsketch.asynchronous

import ecmsketch.core.InfoField.{int, long, real, text}
import ecmsketch.core.{CellKind, ByteReader, ByteWriter, Codec, SketchException, SketchHeader, SketchKind, Windows, InfoField, FunctionSpec}

/** The async sketch (sketch kind 6, docs/FORMAT.md "Async sketch"): cell kind 0 (no cells), then
  * body version, measure, delta, seed, identity, trade-off level, alpha and the levels, each its
  * discard marker and its elements in ascending (t, h, v) order. Every field is validated on decode,
  * including that each element sits at a level its coins allow.
  */
object AsyncKind extends SketchKind[AsyncSketch](6, "async") {
  override def functions: Seq[FunctionSpec] = AsyncFunctions.all
  final val BodyVersion = 1
  final val BodyHeaderSize = 25

  def describe: String = "an async sketch (from async_sum_agg, async_count_agg, async_quantile_agg or async_merge)"
  def expected: String = "an async sketch (from async_sum_agg, async_count_agg or async_quantile_agg)"
  def plural: String = "async sketches"
  def cellKinds: Seq[CellKind] = Nil
  def cellKindOf(s: AsyncSketch): Int = Codec.NoCells
  def sizeHint(s: AsyncSketch): Int = (Codec.HeaderSize + BodyHeaderSize + 20 * s.levelCount + 20 * s.retained).toInt.max(128)

  def encodeBody(s: AsyncSketch, out: ByteWriter): Unit = {
    s.canonicalize()
    out.putByte(BodyVersion)
    out.putByte(s.measure)
    out.putDouble(s.delta)
    out.putLong(s.seed)
    out.putByte(if (s.withIds) 1 else 0)
    out.putByte(s.tradeoff)
    out.putInt(s.alpha)
    out.putByte(s.levelCount)
    val base = s.firstTs
    s.levels.foreach { l =>
      out.putVarLong(if (l.hasDisc) l.disc - base + 1 else 0L)
      out.putVarLong(l.size.toLong)
      l.sortInPlace()
      var prev = base
      var i = l.start
      while (i < l.end) {
        out.putVarLong(l.ts(i) - prev)
        prev = l.ts(i)
        out.putLong(l.hs(i))
        if (s.isQuantile) out.putLong(l.vs(i)) else out.putVarLong(l.vs(i))
        i += 1
      }
    }
  }

  private def corrupt(msg: String): Nothing = throw new SketchException(s"corrupt sketch: $msg")

  def decodeBody(in: ByteReader, h: SketchHeader): AsyncSketch = {
    val version = in.getByte("async body version")
    if (version != BodyVersion) corrupt(s"async body version $version (this library reads $BodyVersion)")
    val measure = in.getByte("measure")
    if (measure > AsyncSketch.Quantile) corrupt(s"async measure $measure is not 0 (sum), 1 (count) or 2 (quantile)")
    val delta = in.getDouble("delta")
    val seed = in.getLong("seed")
    val identity = in.getByte("identity")
    if (identity > 1) corrupt(s"identity $identity is not 0 (value, ts) or 1 (id, value, ts)")
    val tradeoff = in.getByte("tradeoff")
    val alpha = in.getInt("alpha")
    if (h.spec.countWindow) corrupt("an async sketch with a count-based window")
    if (h.levels != 0) corrupt(s"an async sketch plans no merge levels, got ${h.levels}")
    if (h.depth != 0) corrupt(s"async merges are lossless: merge depth must be 0, got ${h.depth}")
    try AsyncSketch.checkParams(measure, h.epsilon, delta, tradeoff)
    catch { case e: SketchException => corrupt(e.getMessage) }
    val s = new AsyncSketch(h.spec, measure, h.epsilon, delta, seed, identity == 1, tradeoff)
    if (alpha != s.alpha) corrupt(s"alpha $alpha is not ${s.alpha}, the value epsilon ${h.epsilon} and delta $delta give")
    val nLevels = in.getByte("level count")
    if (nLevels > AsyncSketch.TopLevel + 1) corrupt(s"$nLevels levels, more than ${AsyncSketch.TopLevel + 1}")
    if (!h.hasRows && nLevels != 0) corrupt("levels in an empty async sketch")
    val base = h.firstTs
    val span = h.lastTs - h.firstTs // unsigned
    val cut = if (!h.hasRows || h.spec.unbounded) Long.MinValue else Windows.lowerBound(h.lastTs, h.spec.window)
    val quantile = measure == AsyncSketch.Quantile
    val minElem = if (quantile) 17 else 10
    val levels = Array.tabulate(nLevels) { j =>
      val lv = new Level
      val mk = in.getVarLong(s"discard marker of level $j")
      if (mk != 0L) {
        val d = mk - 1
        if (java.lang.Long.compareUnsigned(d, span) > 0) corrupt(s"level $j's discard marker lies after the last timestamp")
        lv.hasDisc = true; lv.disc = base + d
        if (lv.disc < cut) corrupt(s"level $j's discard marker lies before every window (not canonical)")
      }
      val n = in.getVarIn(s"element count of level $j", 0, alpha.toLong).toInt
      if (n.toLong * minElem > in.remaining) corrupt(s"level $j claims $n elements, ${in.remaining} bytes left")
      val ts = new Array[Long](n); val hs = new Array[Long](n); val vs = new Array[Long](n)
      var prev = base
      var used = 0L // unsigned offset of prev from base
      var weight = 0L
      var i = 0
      while (i < n) {
        val dt = in.getVarLong(s"timestamp of element $i of level $j")
        if (java.lang.Long.compareUnsigned(dt, span - used) > 0) corrupt(s"element $i of level $j lies after the last timestamp")
        used += dt
        val t = prev + dt
        if (t < cut) corrupt(s"element $i of level $j lies before every window (not canonical)")
        val hh = in.getLong(s"identity hash of element $i of level $j")
        val v =
          if (quantile) {
            val b = in.getLong(s"value of element $i of level $j")
            val x = AsyncSketch.bitsValue(b)
            if (x.isNaN || b != AsyncSketch.valueBits(x)) corrupt(s"element $i of level $j has a NaN or non-canonical value")
            b
          } else {
            val w = in.getVarLong(s"weight of element $i of level $j")
            if (w <= 0) corrupt(s"element $i of level $j has weight ${java.lang.Long.toUnsignedString(w)}, not positive")
            if (measure == AsyncSketch.Count && w != 1) corrupt(s"element $i of level $j of a count sketch has weight $w")
            w
          }
        if (i > 0 && Level.compare(ts(i - 1), hs(i - 1), vs(i - 1), t, hh, v) >= 0)
          corrupt(s"elements of level $j are not in strictly ascending (ts, hash, value) order at element $i")
        if (identity == 0 && hh != AsyncSketch.identityHash(seed, v, t, withId = false, 0L))
          corrupt(s"element $i of level $j has an identity hash other than its (value, ts) give")
        val top = if (quantile) AsyncSketch.quantileTop(hh) else AsyncSketch.sumTop(v, hh)
        val ok = if (quantile) j <= top else if (top < tradeoff) j == top else j >= tradeoff && j <= top
        if (!ok) corrupt(s"element $i of level $j belongs at level $top, not $j")
        if (quantile) weight += 1
        else { if (Long.MaxValue - weight < v) corrupt(s"level $j's weights overflow"); weight += v }
        ts(i) = t; hs(i) = hh; vs(i) = v
        prev = t
        i += 1
      }
      if (weight > h.count) corrupt(s"level $j holds weight $weight, more than the total weight ${h.count}")
      lv.set(ts, hs, vs, n)
      if (lv.hashCount != n) corrupt(s"level $j holds two elements with one identity hash")
      lv
    }
    if (nLevels > 0 && levels(nLevels - 1).isTrivial) corrupt("the last level is empty (not canonical)")
    in.expectEnd()
    s.restoreLevels(levels)
    s
  }

  def merge(xs: Seq[AsyncSketch]): AsyncSketch = AsyncSketch.merge(xs)
  /** Partial sketches of one stream merge the same way (the union is lossless). */
  def mergeSameStream(xs: Seq[AsyncSketch]): AsyncSketch = AsyncSketch.merge(xs)
  def mergeDiffs(a: AsyncSketch, b: AsyncSketch): Seq[String] = a.diffs(b)

  def infoFields: Seq[InfoField] = Seq(real("delta"), long("seed"), text("cell_kind"), text("measure"),
    int("sample_capacity"), int("tradeoff_level"), text("identity"), int("levels_used"), long("retained"))

  def info(s: AsyncSketch): Map[String, Any] = {
    s.canonicalize()
    Map("delta" -> s.delta, "seed" -> s.seed, "cell_kind" -> null, "measure" -> s.measureName,
      "sample_capacity" -> s.alpha, "tradeoff_level" -> (if (s.isQuantile) null else s.tradeoff),
      "identity" -> AsyncSketch.identityName(s.withIds), "levels_used" -> s.levelCount, "retained" -> s.retained)
  }

  /** The relative error of a sum (rank error of a quantile, as a fraction of the range's count),
    * holding with probability >= 1 - delta at every merge depth.
    */
  def errorBound(s: AsyncSketch): Double = s.epsilon
}
