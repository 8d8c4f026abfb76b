package ecmsketch.ecm

import ecmsketch.core.{CellOps, Codec, KeyType, Params, SketchException, WindowCounter, WindowSketch, Windows}

/** The merges of ECM-sketches ([[EcmSketch.merge]] and the merges of partial sketches of one stream):
  * cell-wise n-way merges, or time-disjoint layouts of clusters of inputs.
  */
private[ecm] object EcmMerge {
  /** `sizeLimit`: the largest encoding the side-by-side layout may give (None: no limit); above it the
    * contributing inputs are merged order-preservingly instead.
    */
  def mergeImpl(sketches: Seq[EcmSketch], sameStream: Boolean, timeDisjoint: Boolean,
                sizeLimit: EcmSketch => Option[Long] = _ => None): EcmSketch = {
    SketchException.require(sketches.nonEmpty, "merge needs at least one sketch")
    val first = sketches.head
    Params.requireAllSame(EcmKind.plural, sketches)(_.diffs(_))
    val keyType = KeyType.merged(sketches.map(_._keyType), "ECM-sketches")
    // inputs on their own clocks, as their bytes are: which inputs contribute, and the merge itself,
    // must not depend on whether an input was encoded (or decoded) before
    sketches.foreach(_.syncCells())
    val n = first.width * first.depth
    val cells = new Array[WindowCounter](n)
    // indexed below, once per cell: a List here (as Ingest passes) would make the merge quadratic in the inputs
    // cross-site merges: inputs a whole window behind the merged clock do not count (docs/design/merging.md)
    val contributing =
      if (sameStream) sketches.filter(_.cells.exists(c => c != null && !c.isEmpty)).toIndexedSeq else retaining(sketches)
    // max_arrivals of wave cells: kept when one sketch contributes, else headroom for the merged
    // streams; when none contributes, the largest among the sketches with rows (among all if none
    // has rows), so that neither the input order nor empty sketches change the result
    val outParams =
      if (contributing.size <= 1) contributing.headOption.getOrElse {
        val withRows = sketches.filter(!_.isEmpty)
        (if (withRows.nonEmpty) withRows else sketches).maxBy(_.params.maxArrivals)
      }.params
      else first.params.copy(maxArrivals =
        CellKinds.getOrFail(first.cellKind).mergedArrivals(contributing.map(_.params.maxArrivals), sameStream))
    val cellOps = if (outParams == first.params) first.cellOps else EcmSketch.cellOpsFor(outParams)
    var i = 0
    if (contributing.size == 1 || sketches.size == 1) {
      val src = contributing.headOption.getOrElse(first)
      while (i < n) { val c = src.cells(i); cells(i) = if (c == null) null else src.cellOps.merge(Seq(c)); i += 1 }
    } else if (timeDisjoint && cellOps.concatenates) {
      val clusters = timeClusters(contributing)
      if (clusters.size > 1) {
        val out = EcmSketch.finishMerge(EcmSketch.make(outParams, cellOps, concatCells(clusters, cellOps, n)), keyType, sketches, contributing, clusters)
        // the time-disjoint layout keeps max_size_bytes (the worst case of one histogram per cell) or is not used
        if (sizeLimit(out).forall(l => Codec.encode(EcmKind, out).length <= l)) return out
      }
      mergeCells(contributing, cellOps, cells)
    } else mergeCells(contributing, cellOps, cells)
    EcmSketch.finishMerge(EcmSketch.make(outParams, cellOps, cells), keyType, sketches, contributing)
  }

  /** The contributing sketches in clusters of overlapping time spans, oldest first (core.Windows.timeClusters):
    * a sketch's span runs from the lowest lower timestamp of its cells to the newest bucket end among them.
    */
  def timeClusters(contributing: IndexedSeq[EcmSketch]): Seq[Seq[EcmSketch]] = {
    def span(s: EcmSketch): (Long, Long) = {
      var lo = Long.MaxValue; var hi = Long.MinValue
      s.cells.foreach { c => if (c != null && !c.isEmpty) { lo = math.min(lo, s.cellOps.lowerTs(c)); hi = math.max(hi, s.cellOps.newestEnd(c)) } }
      (lo, hi)
    }
    val spans = contributing.map(s => s -> span(s)).toMap
    Windows.timeClusters(contributing)(s => spans(s)._1, s => spans(s)._2)
  }

  /** Cell i = the time-disjoint merge of the clusters' order-preserving merges of cell i. */
  def concatCells(clusters: Seq[Seq[EcmSketch]], cellOps: CellOps, n: Int): Array[WindowCounter] = {
    val out = new Array[WindowCounter](n)
    var i = 0
    while (i < n) {
      val parts = clusters.flatMap { cl =>
        val cs = cl.map(_.cells(i)).filter(c => c != null && !c.isEmpty)
        if (cs.isEmpty) None else Option(cellOps.merge(cs)).filter(!_.isEmpty)
      }
      out(i) = if (parts.isEmpty) null else cellOps.concat(parts)
      i += 1
    }
    out
  }

  /** The sketches with a cell that holds weight at the merged clock (docs/design/merging.md, "Time-disjoint
    * merges"): a sketch whose every bucket lies a whole window before the newest input's last
    * timestamp is out of reach of every query of the merge, so it neither contributes nor adds depth.
    */
  def retaining(sketches: Seq[EcmSketch]): IndexedSeq[EcmSketch] = {
    val now = sketches.iterator.filter(!_.isEmpty).map(_.lastTs).foldLeft(Long.MinValue)(math.max)
    sketches.filter(_.cells.exists(c => c != null && c.retainsAt(now))).toIndexedSeq
  }

  /** Cell i of `out` = the n-way merge into `cellOps` of cell i of every contributing sketch. */
  def mergeCells(contributing: IndexedSeq[EcmSketch], cellOps: CellOps, out: Array[WindowCounter]): Unit = {
    val buf = new Array[WindowCounter](contributing.size)
    var i = 0
    while (i < out.length) {
      var k = 0; var nonNull = 0
      while (k < contributing.size) { val c = contributing(k).cells(i); buf(k) = c; if (c != null) nonNull += 1; k += 1 }
      out(i) = if (nonNull == 0) null else cellOps.merge(buf.toSeq.filter(_ != null))
      i += 1
    }
  }

  /** See [[EcmSketch.mergeMixed]]. */
  def mergeMixed(target: EcmSketch, sketches: Seq[EcmSketch]): EcmSketch = {
    SketchException.require(sketches.nonEmpty, "merge needs at least one sketch")
    val plan = target.plan
    if (sketches.forall(s => s.plan == plan)) return EcmSketch.mergeUnchecked(sketches)
    sketches.foreach { s =>
      val d = WindowSketch.mixedDiffs(target.diffs(s))
      if (d.nonEmpty || s.plan.copy(levels = plan.levels, cellEpsilon = plan.cellEpsilon) != plan)
        Params.requireSame(EcmKind.plural, d :+ "plan")
    }
    val keyType = KeyType.merged(sketches.map(_._keyType), "ECM-sketches")
    sketches.foreach(_.syncCells())
    val contributing = sketches.filter(_.cells.exists(c => c != null && !c.isEmpty)).toIndexedSeq
    val arrivals =
      if (contributing.isEmpty) sketches.map(_.params.maxArrivals).max
      else if (contributing.size == 1) contributing.head.params.maxArrivals
      else CellKinds.getOrFail(plan.cellKind).mergedArrivals(contributing.map(_.params.maxArrivals), true)
    val outParams = target.params.copy(maxArrivals = arrivals)
    val cellOps = EcmSketch.cellOpsFor(outParams)
    val cells = new Array[WindowCounter](target.width * target.depth)
    // cells of another epsilon are rebuilt at the output's (a merge even for one input)
    mergeCells(contributing, cellOps, cells)
    EcmSketch.finishMerge(EcmSketch.make(outParams, cellOps, cells), keyType, sketches, contributing)
  }
}
