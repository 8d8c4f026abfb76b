package ecmsketch.dwave

import ecmsketch.core.{SketchException, Windows}

/** The merge of deterministic waves ([[DetWave.merge]]): every input walked as a chain of
  * pseudo-buckets, their halves re-inserted in timestamp order.
  */
private[dwave] object DwMerge {
  def merge(inputs: Seq[DetWave], config: DwConfig): DetWave = {
    val present = inputs.filter(_ != null)
    val lastTs = present.iterator.map(_.lastTs).foldLeft(Long.MinValue)(math.max)
    // fully expired views at the common clock (inputs are not modified)
    val live = present.flatMap { w =>
      if (w.isEmpty) None
      else {
        val c = if (w.lastTs < lastTs || w.hasExpired) { val c = w.copy(); c.advanceTo(lastTs); c } else w
        if (c.isEmpty) None else Some(c)
      }
    }
    val ovfIn = live.filter(_.hasOvf) // an input without live items has no relevant overflow
    val hasOvfIn = ovfIn.nonEmpty
    val ovf = ovfIn.iterator.map(_.overflowTs).foldLeft(Long.MinValue)(math.max)
    var ovfPlacedZ = 0L // the merged total placed at or before ovf
    val out =
      if (live.size == 1 && live.head.config == config) { val c = live.head; if (present.exists(_ eq c)) c.copy() else c }
      else {
        val res = new DetWave(config)
        if (live.nonEmpty) {
          var cap = 0
          live.foreach(w => cap += 2 * (w.itemCount + 1))
          val ts = new Array[Long](cap); val ws = new Array[Long](cap)
          val runStarts = new Array[Int](live.size + 1)
          var n = 0
          var r = 0
          live.foreach { w =>
            runStarts(r) = n; r += 1
            var aPos = w.expPos; var aZ = w.expZ
            w.foreachElement { (p, zb, z) =>
              val u = zb - aZ
              val lo = u / 2
              if (lo > 0) { ts(n) = aPos; ws(n) = lo; n += 1 }
              ts(n) = p; ws(n) = u - lo + (z - zb); n += 1
              aPos = p; aZ = z
            }
          }
          runStarts(r) = n
          val (sts, sws) = Windows.mergeSortedRuns(ts, ws, runStarts, r, n)
          var i = 0
          while (i < n) {
            val t = sts(i); var w = sws(i); i += 1
            while (i < n && sts(i) == t) {
              if (w > Long.MaxValue - sws(i)) throw new SketchException("deterministic wave overflow: merged weight exceeds 2^63 - 1")
              w += sws(i); i += 1
            }
            res.add(t, w)
            if (hasOvfIn && t <= ovf) ovfPlacedZ = res.total
          }
        }
        res
      }
    if (lastTs != Long.MinValue && lastTs > out.lastTs) out.advanceTo(lastTs) else out.expireAll()
    if (hasOvfIn && (!out.hasOvf || ovf > out._overflowTs)) {
      out.hasOvf = true; out._overflowTs = ovf; out.ovfZ = ovfPlacedZ
    }
    out
  }
}
