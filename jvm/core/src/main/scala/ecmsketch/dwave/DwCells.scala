package ecmsketch.dwave

import ecmsketch.core.{Bounds, ByteReader, ByteWriter, CellOps, SketchException, WindowCounter}

/** Deterministic-wave cells (cell kind 2). The cell encoding is documented in docs/design/dwave.md
  * ("Deterministic-wave cell"); max_arrivals is not part of the cell (it is in the header).
  *
  * Encoding of a non-empty cell (after a full expiry; all varints unsigned LEB128):
  * varint n (stored items, >= 1; 0 = empty cell, nothing follows); varint overflow
  * (0 = none, else 1 + overflowTs - base, then varint ovfZ); varint expPos - base; varint expZ; varint rh
  * (0 = none, else 1 + rhPos - expPos, then varint zb(rh) - expZ and varint v(rh) >= 1);
  * then per item, oldest first: varint pos - previous pos, varint zb - previous z, varint v >= 1,
  * where "previous" starts at the removed head if any, else at the expiry record.
  */
final class DwCells(val config: DwConfig) extends CellOps {
  def id: Int = DwCellKind.id
  def name: String = "dwave"
  def epsilon: Double = config.epsilon
  def window: Long = config.window
  def create(): WindowCounter = new DetWave(config)

  def merge(cells: Seq[WindowCounter]): WindowCounter = {
    val ws = cells.collect { case w: DetWave if w != null => w }
    if (ws.isEmpty) null
    else {
      val m = DetWave.merge(ws, config)
      if (m.isEmpty) null else m
    }
  }

  def errorBound(depth: Int): Double = Bounds.compound(config.epsilon, depth)

  def write(c: WindowCounter, out: ByteWriter, base: Long): Unit = c match {
    case null => out.putVarLong(0)
    case w: DetWave =>
      w.expireAll()
      if (w.isEmpty) out.putVarLong(0)
      else {
        def delta(from: Long, to: Long, what: String): Long = {
          if (to < from) throw new SketchException(s"cannot encode a deterministic wave: $what $to before $from")
          to - from
        }
        out.putVarLong(w.itemCount)
        val ovf = w.overflowTs
        // an overflow at or before the window start can no longer refuse any legal query
        val relevant = w.hasOvf && !(w.config.window != Long.MaxValue &&
          w.lastTs >= Long.MinValue + w.config.window && ovf <= w.lastTs - w.config.window)
        if (relevant) { out.putVarLong(1L + delta(base, ovf, "overflow timestamp")); out.putVarLong(w.ovfZ) }
        else out.putVarLong(0L)
        out.putVarLong(delta(base, w.expPos, "expiry record"))
        out.putVarLong(w.expZ)
        var prevPos = w.expPos
        var prevZ = w.expZ
        var first = w.hasRh
        if (!w.hasRh) out.putVarLong(0)
        w.foreachItem { (p, zb, z) =>
          if (first) { out.putVarLong(1L + delta(prevPos, p, "removed head")); first = false }
          else out.putVarLong(delta(prevPos, p, "item timestamp"))
          out.putVarLong(zb - prevZ)
          out.putVarLong(z - zb)
          prevPos = p; prevZ = z
        }
      }
    case other => throw new SketchException(s"cell of kind ${other.getClass.getSimpleName} in a deterministic-wave sketch")
  }

  def read(in: ByteReader, base: Long, lastTs: Long): WindowCounter = {
    // every item takes at least 3 bytes, so a hostile count cannot allocate more than the bytes justify
    val n = in.getVarIn("wave item count", 0, math.min(config.maxItems.toLong, in.remaining / 3L)).toInt
    if (n == 0) return null
    val ovfCode = in.getVarLong("wave overflow timestamp")
    val ovf = if (ovfCode == 0L) Long.MinValue else addTs(base, ovfCode - 1, "wave overflow timestamp")
    if (ovfCode != 0L && ovf > lastTs) throw corrupt(s"wave overflow timestamp $ovf after the last timestamp $lastTs")
    val ovfZ = if (ovfCode == 0L) 0L else in.getVarIn("wave overflow total", 0, Long.MaxValue)
    val expPos = addTs(base, in.getVarLong("wave expiry timestamp"), "wave expiry timestamp")
    if (expPos > lastTs) throw corrupt(s"wave expiry timestamp $expPos after the last timestamp $lastTs")
    val expZ = in.getVarIn("wave expiry total", 0, Long.MaxValue)
    val rhCode = in.getVarLong("wave removed head")
    var rhPos = 0L; var rhZ = 0L; var rhV = 0L
    var prevPos = expPos; var prevZ = expZ
    if (rhCode != 0L) {
      rhPos = addTs(expPos, rhCode - 1, "wave removed head timestamp")
      val zb = addZ(expZ, in.getVarLong("wave removed head gap"), "wave removed head")
      rhV = in.getVarIn("wave removed head weight", 1, Long.MaxValue)
      rhZ = addZ(zb, rhV, "wave removed head")
      if (rhPos > lastTs) throw corrupt(s"wave removed head at $rhPos after the last timestamp $lastTs")
      prevPos = rhPos; prevZ = rhZ
    }
    val pos = new Array[Long](n); val zs = new Array[Long](n); val vs = new Array[Long](n)
    var i = 0
    while (i < n) {
      val p = addTs(prevPos, in.getVarLong("wave item timestamp"), "wave item timestamp")
      if (p > lastTs) throw corrupt(s"wave item at $p after the last timestamp $lastTs")
      val zb = addZ(prevZ, in.getVarLong("wave item gap"), "wave item")
      val v = in.getVarIn("wave item weight", 1, Long.MaxValue)
      val z = addZ(zb, v, "wave item")
      pos(i) = p; zs(i) = z; vs(i) = v
      prevPos = p; prevZ = z
      i += 1
    }
    if (config.window != Long.MaxValue && lastTs >= Long.MinValue + config.window) {
      val eb = lastTs - config.window
      if ((rhCode != 0L && rhPos <= eb) || pos(0) <= eb)
        throw corrupt(s"wave item at ${if (rhCode != 0L) rhPos else pos(0)} lies wholly before the window")
    }
    val w = new DetWave(config)
    val bad = w.restore(n, pos, zs, vs, expPos, expZ, rhCode != 0L, rhPos, rhZ, rhV, ovfCode != 0L, ovf, ovfZ, lastTs)
    if (bad != null) throw corrupt(bad)
    w
  }

  private def corrupt(msg: String) = new SketchException(s"corrupt sketch: $msg")

  /** a + delta with delta read as unsigned (timestamps may span more than 2^63). */
  private def addTs(a: Long, delta: Long, what: String): Long = {
    if (java.lang.Long.compareUnsigned(delta, Long.MaxValue - a) > 0) throw corrupt(s"$what overflows")
    a + delta
  }

  /** A running total a + delta, both non-negative, that must stay below 2^63. */
  private def addZ(a: Long, delta: Long, what: String): Long = {
    if (delta < 0 || delta > Long.MaxValue - a) throw corrupt(s"$what total overflows 2^63 - 1")
    a + delta
  }

  override def equals(o: Any): Boolean = o match { case e: DwCells => e.config == config; case _ => false }
  override def hashCode: Int = config.hashCode
}
