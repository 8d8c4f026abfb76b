package ecmsketch.decayed

import ecmsketch.core.{Params, SketchException}

/** The merge of decayed sketches ([[DecayedSketch.merge]]). */
private[decayed] object DecayedMerge {
  def merge(xs: Seq[DecayedSketch]): DecayedSketch = {
    SketchException.require(xs.nonEmpty, "decayed merge needs at least one sketch")
    val first = xs.head
    Params.requireAllSame(DecayedKind.plural, xs)(_.diffs(_))
    xs.foreach(_.compactAll()) // the inputs are then only read, under their own locks
    val out = new DecayedSketch(first.params)
    var j = 0
    while (j < first.params.copies) {
      var i = 0
      while (i <= first.params.topLevel) {
        val ls = xs.map(_.levels(j)(i)).filter(_ != null)
        if (ls.nonEmpty) {
          val l = new Level(first.params.tau)
          ls.foreach(x => if (x.discarded) l.raise(x.tI))
          ls.foreach(l.absorb)
          out.install(j, i, l)
        }
        i += 1
      }
      j += 1
    }
    val withRows = xs.filter(!_.isEmpty)
    var c = 0L
    xs.foreach { s => if (Long.MaxValue - c < s.count) throw new SketchException("total weight overflows 2^63 - 1"); c += s.count }
    out.restoreState(0, if (withRows.isEmpty) Long.MaxValue else withRows.map(_.firstTs).min,
      if (withRows.isEmpty) Long.MinValue else withRows.map(_.lastTs).max, c, withRows.nonEmpty)
    out
  }
}
