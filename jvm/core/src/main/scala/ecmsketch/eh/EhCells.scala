package ecmsketch.eh

import ecmsketch.core.{Bounds, ByteReader, ByteWriter, CellOps, SketchException, WindowCounter}

/** Exponential-histogram cells. Encoding of one cell (docs/FORMAT.md, "EH cell"):
  * varint L (levels, 0 = empty); then varint (lowerTs - base); then for each level from L-1 down
  * to 0: varint count, then each bucket end as a varint delta from the previous timestamp.
  * A segmented cell (format version 2, from a time-disjoint merge) writes L + 64 instead of L, then
  * after the lower timestamp: varint S (segment buckets, >= 1) and S pairs (varint size >= 1,
  * varint end delta), oldest first; the levels follow, their deltas continuing from the last
  * segment end.
  */
final class EhCells(val config: EhConfig) extends CellOps {
  def id: Int = EhCellKind.id
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
        val seg = h.segmentCount
        out.putVarLong(if (seg > 0) EhCells.SegmentedMarker + h.levelCount else h.levelCount)
        out.putVarLong(h.lowerTs - base)
        var prev = h.lowerTs
        if (seg > 0) {
          out.putVarLong(seg)
          var j = 0
          while (j < seg) {
            val e = h.segmentEndAt(j)
            out.putVarLong(h.segmentSizeAt(j)); out.putVarLong(e - prev); prev = e; j += 1
          }
        }
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
    val code = in.getVarIn("cell level count", 0, EhCells.SegmentedMarker + EhConfig.MaxLevels).toInt
    if (code > EhConfig.MaxLevels && code < EhCells.SegmentedMarker)
      throw new SketchException(s"corrupt sketch: cell level count $code is out of range")
    val segmented = code >= EhCells.SegmentedMarker
    val levels = if (segmented) code - EhCells.SegmentedMarker else code
    if (code == 0) null
    else {
      val lower = addTs(base, in.getVarLong("cell lower timestamp"), "cell lower timestamp")
      if (lower > lastTs) throw new SketchException(s"corrupt sketch: cell lower timestamp $lower after the last timestamp $lastTs")
      var prev = lower
      var segSizes = EhCells.NoLongs; var segEnds = EhCells.NoLongs
      if (segmented) {
        // each segment bucket takes at least two bytes: the count cannot ask for more than the input holds
        val s = in.getVarIn("segment bucket count", 1, math.max(1, in.remaining / 2)).toInt
        segSizes = new Array[Long](s); segEnds = new Array[Long](s)
        var j = 0
        while (j < s) {
          segSizes(j) = in.getVarIn("segment bucket size", 1, Long.MaxValue)
          val t = addTs(prev, in.getVarLong("segment bucket end"), "segment bucket end")
          if (t > lastTs) throw new SketchException(s"corrupt sketch: bucket end $t after the last timestamp $lastTs")
          segEnds(j) = t; prev = t; j += 1
        }
      }
      val ends = new Array[Array[Long]](levels)
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
      try h.restore(ends, lower, lastTs, segSizes, segEnds)
      catch { case e: SketchException if !e.getMessage.startsWith("corrupt sketch") => throw new SketchException(s"corrupt sketch: ${e.getMessage}") }
      h
    }
  }

  /** a + delta with delta read as unsigned (timestamps may span more than 2^63). */
  private def addTs(a: Long, delta: Long, what: String): Long = {
    if (java.lang.Long.compareUnsigned(delta, Long.MaxValue - a) > 0) throw new SketchException(s"corrupt sketch: $what overflows")
    a + delta
  }

  override def concatenates: Boolean = true
  override def lowerTs(c: WindowCounter): Long = c.asInstanceOf[ExpHistogram].lowerTs
  override def newestEnd(c: WindowCounter): Long = c.asInstanceOf[ExpHistogram].newestEnd
  override def concat(cells: Seq[WindowCounter]): WindowCounter =
    ExpHistogram.concat(cells.map(_.asInstanceOf[ExpHistogram]), config)

  /** Version 2 for a segmented cell, else 1. */
  override def formatVersion(c: WindowCounter): Int = c match {
    case h: ExpHistogram if h.segmented => 2
    case _ => 1
  }

  override def equals(o: Any): Boolean = o match { case e: EhCells => e.config == config; case _ => false }
  override def hashCode: Int = config.hashCode
}

object EhCells {
  /** Added to the level count of a segmented cell (format version 2). */
  final val SegmentedMarker = 64
  private val NoLongs = new Array[Long](0)
}
