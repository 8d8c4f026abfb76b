package ecmsketch.window

import ecmsketch.core.{Bounds, ByteReader, ByteWriter, CellFamily, SketchException, WindowCounter}

/** Exponential-histogram cells. Encoding of one cell (docs/FORMAT.md, "EH cell"):
  * varint L (levels, 0 = empty); then varint (lowerTs - base); then for each level from L-1 down
  * to 0: varint count, then each bucket end as a varint delta from the previous timestamp.
  */
final class EhCells(val config: EhConfig) extends CellFamily {
  def id: Int = CellFamily.ExpHistogramId
  def name: String = "eh"
  def epsilon: Double = config.epsilon
  def window: Long = config.window
  def create(): WindowCounter = new ExpHistogram(config)

  def merge(cells: Seq[WindowCounter]): WindowCounter = {
    val hs = cells.collect { case h: ExpHistogram if h != null => h }
    if (hs.isEmpty) null
    else {
      val m = ExpHistogram.merge(hs, config)
      if (m.isEmpty) null else m
    }
  }

  def errorBound(depth: Int): Double = Bounds.compound(config.epsilon, depth)

  def write(c: WindowCounter, out: ByteWriter, base: Long): Unit = c match {
    case null => out.putVarLong(0)
    case h: ExpHistogram =>
      if (h.isEmpty) out.putVarLong(0)
      else {
        out.putVarLong(h.levelCount)
        out.putVarLong(h.lowerTs - base)
        var prev = h.lowerTs
        var l = h.levelCount - 1
        while (l >= 0) {
          val s = h.sizeAt(l)
          out.putVarLong(s)
          var j = 0
          while (j < s) { val e = h.endAt(l, j); out.putVarLong(e - prev); prev = e; j += 1 }
          l -= 1
        }
      }
    case other => throw new SketchException(s"cell of kind ${other.getClass.getSimpleName} in an EH sketch")
  }

  def read(in: ByteReader, base: Long, lastTs: Long): WindowCounter = {
    val levels = in.getVarIn("cell level count", 0, EhConfig.MaxLevels).toInt
    if (levels == 0) null
    else {
      val lower = addTs(base, in.getVarLong("cell lower timestamp"), "cell lower timestamp")
      if (lower > lastTs) throw new SketchException(s"corrupt sketch: cell lower timestamp $lower after the last timestamp $lastTs")
      val ends = new Array[Array[Long]](levels)
      var prev = lower
      var l = levels - 1
      while (l >= 0) {
        val lo = if (l == levels - 1) 1 else config.minAt(l)
        val s = in.getVarIn(s"bucket count of level $l", lo, config.maxAt(l)).toInt
        val e = new Array[Long](s)
        var j = 0
        while (j < s) {
          val t = addTs(prev, in.getVarLong("bucket end"), "bucket end")
          if (t > lastTs) throw new SketchException(s"corrupt sketch: bucket end $t after the last timestamp $lastTs")
          e(j) = t; prev = t; j += 1
        }
        ends(l) = e
        l -= 1
      }
      val h = new ExpHistogram(config)
      h.restore(ends, lower, lastTs)
      h
    }
  }

  /** a + delta with delta read as unsigned (timestamps may span more than 2^63). */
  private def addTs(a: Long, delta: Long, what: String): Long = {
    if (java.lang.Long.compareUnsigned(delta, Long.MaxValue - a) > 0) throw new SketchException(s"corrupt sketch: $what overflows")
    a + delta
  }

  override def equals(o: Any): Boolean = o match { case e: EhCells => e.config == config; case _ => false }
  override def hashCode: Int = config.hashCode
}
