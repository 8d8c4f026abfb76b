package ecmsketch.window

import ecmsketch.SketchException
import ecmsketch.format.{ByteReader, ByteWriter}

/** A sliding-window counter that can be a cell of an ECM-sketch. Implementations: the exponential
  * histogram (cell kind 1), the deterministic wave (2, ecmsketch.dwave) and the randomized wave
  * (3, ecmsketch.rwave). EcmSketch.familyFor builds the family of a cell kind from its parameters.
  */
trait WindowCounter {
  def add(ts: Long): Unit
  def add(ts: Long, v: Long): Unit
  /** Estimate of the weight with timestamps >= lo. */
  def estimateFrom(lo: Long): Double
  def isEmpty: Boolean
  def lastTs: Long
  /** Moves the clock to `now` (>= lastTs), dropping what lies wholly before the window. */
  def advanceTo(now: Long): Unit
}

/** A family of window counters with one error parameter: how to create, merge and encode them,
  * and the relative error a counter certifies after `depth` levels of order-preserving merge.
  */
trait CellFamily {
  /** Cell kind id in the binary format. */
  def id: Int
  def name: String
  def epsilon: Double
  def window: Long
  def create(): WindowCounter
  /** n-way order-preserving merge of cells (null = empty cell); null if all are empty. */
  def merge(cells: Seq[WindowCounter]): WindowCounter
  /** Relative error of a cell after `depth` merge levels. */
  def errorBound(depth: Int): Double
  def write(c: WindowCounter, out: ByteWriter, base: Long): Unit
  /** Reads a cell written by [[write]]; null for an empty cell. Validates every field. */
  def read(in: ByteReader, base: Long, lastTs: Long): WindowCounter
}

object CellFamily {
  final val ExpHistogramId = 1
  final val DetWaveId = 2
  final val RandWaveId = 3
  def name(id: Int): String = id match {
    case ExpHistogramId => "eh"
    case DetWaveId => "dwave"
    case RandWaveId => "rwave"
    case other => s"unknown($other)"
  }
}

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

  def errorBound(depth: Int): Double = StrictMath.pow(1.0 + config.epsilon, depth + 1.0) - 1.0

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
