package ecmsketch.quantile

import ecmsketch.core.ByteWriter

/** How a merge arranges the runs of its inputs (docs/design/windowed-quantiles.md, "Merging"): in a
  * canonical order (first timestamp, last timestamp, bytes), each run laid after the first chain it
  * follows in time (every retained row at or after the chain's last row), else starting a chain of
  * its own. The result depends only on the multiset of runs, so merges are order-free.
  */
private[quantile] object QuantileMerge {
  private final case class Keyed(run: QuantileRun, first: Long, last: Long, bytes: Array[Byte])

  private def keyed(r: QuantileRun): Keyed = {
    val out = new ByteWriter(64)
    QuantileKind.writeRun(r, Long.MinValue, out)
    Keyed(r, r.firstTs, r.lastTs, out.toByteArray)
  }

  private val order: Ordering[Keyed] = new Ordering[Keyed] {
    def compare(a: Keyed, b: Keyed): Int = {
      val c1 = java.lang.Long.compare(a.first, b.first)
      if (c1 != 0) return c1
      val c2 = java.lang.Long.compare(a.last, b.last)
      if (c2 != 0) return c2
      val n = math.min(a.bytes.length, b.bytes.length)
      var i = 0
      while (i < n) {
        val d = (a.bytes(i) & 0xFF) - (b.bytes(i) & 0xFF)
        if (d != 0) return d
        i += 1
      }
      java.lang.Integer.compare(a.bytes.length, b.bytes.length)
    }
  }

  /** The runs (non-empty, owned by the caller) arranged into chains, in canonical order. */
  def arrange(runs: Seq[QuantileRun]): Array[QuantileRun] = {
    val sorted = runs.map(keyed).sorted(order)
    val chains = scala.collection.mutable.ArrayBuffer.empty[QuantileRun]
    sorted.foreach { k =>
      val at = chains.indexWhere(c => c.lastTs <= k.first)
      if (at >= 0) chains(at) = QuantileRun.concat(chains(at), k.run)
      else chains += k.run
    }
    chains.map(keyed).sorted(order).map(_.run).toArray
  }
}
