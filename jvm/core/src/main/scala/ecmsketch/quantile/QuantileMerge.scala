package ecmsketch.quantile

import ecmsketch.core.ByteWriter

/** How a merge arranges the runs of its inputs (docs/design/windowed-quantiles.md, "Merging"): in a
  * canonical order (first timestamp, last timestamp, bytes), each run laid after the first chain it
  * follows in time (every retained row at or after the chain's last row) and shares a generation with,
  * else starting a chain of its own. Runs that may be folded are then folded into one ([[fold]]).
  * The result depends only on the multiset of runs, so merges are order-free.
  */
private[quantile] object QuantileMerge {
  /** A run with its canonical sort key; its bytes (the last tie-breaker) are written only when needed. */
  private final class Keyed(val run: QuantileRun) {
    val first: Long = run.firstTs
    val last: Long = run.lastTs
    lazy val bytes: Array[Byte] = {
      val out = new ByteWriter(64)
      QuantileKind.writeRun(run, Long.MinValue, out, decimals = false)
      out.toByteArray
    }
  }

  private def keyed(r: QuantileRun): Keyed = new Keyed(r)

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

  /** Entries a fold takes at most: more are folded in several runs (each a fold of consecutive runs
    * in canonical order), so that a fold's scratch space stays below about 1 GB.
    */
  final val MaxFoldEntries: Long = 1L << 24

  /** The arranged runs with every run that may still be folded folded into one, when there are two
    * such runs or more ([[FoldPlan]]): of one generation more than the highest of them. Samples and
    * raw rows before `lo` (the first timestamp any query can reach) are left out.
    */
  def fold(runs: Array[QuantileRun], plan: FoldPlan, lo: Long, maxEntries: Long = MaxFoldEntries): Array[QuantileRun] = {
    val (open, closed) = runs.partition(r => plan.foldable(r.gen))
    if (open.length < 2) runs
    else {
      val gen = open.iterator.map(_.gen).max + 1
      val chunks = scala.collection.mutable.ArrayBuffer(scala.collection.mutable.ArrayBuffer.empty[QuantileRun])
      var size = 0L
      open.foreach { r =>
        val n = r.storedSamples
        if (chunks.last.nonEmpty && size + n > maxEntries) { chunks += scala.collection.mutable.ArrayBuffer.empty[QuantileRun]; size = 0L }
        chunks.last += r
        size += n
      }
      val folded = chunks.toSeq.flatMap { c =>
        if (c.size == 1) c.toSeq else QuantileRun.fold(c.toSeq, plan.params(gen), gen, lo).toSeq
      }
      arrange(closed.toSeq ++ folded)
    }
  }

  /** The runs in canonical order, each on its own (an early merge: the last merge arranges and folds
    * them, as if it took them all at once).
    */
  def sideBySide(runs: Seq[QuantileRun]): Array[QuantileRun] = runs.map(keyed).sorted(order).map(_.run).toArray

  /** The runs (non-empty, owned by the caller) arranged into chains, in canonical order: a run is laid
    * after a chain of its generation that it follows in time.
    */
  def arrange(runs: Seq[QuantileRun]): Array[QuantileRun] = {
    val sorted = runs.map(keyed).sorted(order)
    val chains = scala.collection.mutable.ArrayBuffer.empty[QuantileRun]
    sorted.foreach { k =>
      val at = chains.indexWhere(c => c.lastTs <= k.first && c.gen == k.run.gen)
      if (at >= 0) chains(at) = QuantileRun.concat(chains(at), k.run)
      else chains += k.run
    }
    chains.map(keyed).sorted(order).map(_.run).toArray
  }
}
