package ecmsketch.ecm.dyadic

import ecmsketch.core.InfoField.{int, long, real, text}
import ecmsketch.core.{ByteReader, ByteWriter, CellKind, KeyType, SketchException, SketchHeader, SketchKind, InfoField, FunctionSpec}
import ecmsketch.ecm.{CellKinds, EcmKind}

/** The dyadic ECM-sketch (sketch kind 5, docs/FORMAT.md): delta, universe_bits and the key domain,
  * then universe_bits + 1 level bodies, each a length-prefixed ECM-sketch body (kind 2's body)
  * whose plan must equal the one [[DyadicPlanner.plan]] derives from the header; for string and
  * binary keys (domains 2 and 3) the candidate-key table ([[KeyTable]]) follows.
  */
object DyadicKind extends SketchKind[DyadicSketch](5, "dyadic") {
  override def functions: Seq[FunctionSpec] = DyadicFunctions.all
  final val HeaderSize = 70

  def describe: String = "a dyadic ECM-sketch (from dyadic_agg or dyadic_merge)"
  def expected: String = "a dyadic ECM-sketch (from dyadic_agg)"
  def plural: String = "dyadic ECM-sketches"
  def cellKinds: Seq[CellKind] = CellKinds.all.filter(_.deterministic)
  def cellKindOf(s: DyadicSketch): Int = s.cellKind
  def sizeHint(s: DyadicSketch): Int = HeaderSize + s.levels.map(l => 4 + EcmKind.sizeHint(l) - EcmKind.HeaderSize + 40).sum

  def encodeBody(s: DyadicSketch, out: ByteWriter): Unit = {
    out.putDouble(s.requestedDelta)
    out.putByte(s.universeBits)
    out.putByte(s.keyDomain)
    s.levels.foreach { l =>
      val w = new ByteWriter(EcmKind.sizeHint(l))
      EcmKind.encodeBody(l, w)
      val b = w.toByteArray
      out.putInt(b.length)
      out.putBytes(b)
    }
    if (s.bytesKeys) {
      if (s.keyTable == null) s.keyTable = new KeyTable(s.candidates, s.epochLength)
      s.keyTable.encode(out)
    }
  }

  def decodeBody(in: ByteReader, h: SketchHeader): DyadicSketch = {
    val delta = in.getDouble("delta")
    if (!(delta > 0 && delta < 1)) throw new SketchException(s"corrupt sketch: delta $delta outside (0, 1)")
    val bits = in.getByte("universe_bits")
    if (bits < DyadicSketch.MinUniverseBits || bits > DyadicSketch.MaxUniverseBits)
      throw new SketchException(s"corrupt sketch: universe_bits $bits outside [${DyadicSketch.MinUniverseBits}, ${DyadicSketch.MaxUniverseBits}]")
    val domain = in.getByte("key type")
    if (domain != KeyType.Unset && domain != KeyType.Long && domain != DyadicSketch.DoubleKeys && !DyadicSketch.isBytesDomain(domain))
      throw new SketchException(s"corrupt sketch: key type $domain of a dyadic sketch is not 0, 1, 2, 3 or 4")
    val plan = try DyadicPlanner.cachedPlan(h.epsilon, delta, h.levels, h.cellKind, bits) catch {
      case e: SketchException => throw new SketchException(s"corrupt sketch: ${e.getMessage}")
    }
    if (h.cellEpsilon != plan.cellEpsilon)
      throw new SketchException(s"corrupt sketch: cell epsilon ${h.cellEpsilon} is not the planned ${plan.cellEpsilon} of a dyadic sketch " +
        s"with epsilon ${h.epsilon}, delta $delta, ${h.levels} merge levels and universe_bits $bits")
    // each level reads as an ECM-sketch body under a header with the levels' own epsilon
    val lh = h.copy(kind = EcmKind.id, epsilon = plan.epsilon)
    val levels = Array.tabulate(bits + 1) { i =>
      val n = in.getInt(s"length of level $i")
      if (n < 0 || n > in.remaining)
        throw new SketchException(s"corrupt sketch: level $i claims ${n.toLong & 0xFFFFFFFFL} bytes, ${in.remaining} left")
      val l = EcmKind.decodeBody(new ByteReader(in.getBytes(n, s"level $i")), lh)
      l.restoreState(h.depth, h.firstTs, h.lastTs, h.count, h.hasRows)
      if (l.plan != plan) throw new SketchException(s"corrupt sketch: level $i has a plan other than the dyadic sketch's")
      if (l.keyType != KeyType.Unset && l.keyType != KeyType.Long)
        throw new SketchException(s"corrupt sketch: level $i holds ${KeyType.name(l.keyType)} keys, not universe indexes")
      // a sketch with no rows may have its key domain set (dyadic_agg sets it first) and levels that saw no key
      if ((l.keyType != KeyType.Unset && domain == KeyType.Unset) || (l.keyType == KeyType.Unset && domain != KeyType.Unset && h.hasRows))
        throw new SketchException(s"corrupt sketch: level $i's key type disagrees with the key type $domain")
      l
    }
    val table = if (DyadicSketch.isBytesDomain(domain)) {
      val ep = if (levels(0).spec.unbounded) 0L else levels(0).spec.window
      KeyTable.decode(in, 0, ep)
    } else null
    in.expectEnd()
    val seed = levels(0).seed
    val maxArrivals = levels(0).maxArrivals
    levels.indices.foreach { i =>
      if (levels(i).seed != seed) throw new SketchException(s"corrupt sketch: level $i has seed ${levels(i).seed}, level 0 $seed")
      if (levels(i).maxArrivals != maxArrivals) throw new SketchException(s"corrupt sketch: level $i has another max_arrivals than level 0")
    }
    val s = new DyadicSketch(bits, h.epsilon, delta, levels)
    s._keyDomain = domain
    if (table != null) { s._candidates = table.capacity; s.keyTable = table }
    s
  }

  def merge(xs: Seq[DyadicSketch]): DyadicSketch = DyadicSketch.merge(xs)
  def mergeSameStream(xs: Seq[DyadicSketch]): DyadicSketch = DyadicSketch.mergeSameStream(xs)
  def mergeDiffs(a: DyadicSketch, b: DyadicSketch): Seq[String] = a.diffs(b)

  def infoFields: Seq[InfoField] = Seq(text("cell_kind"), real("delta"), int("width"), int("depth"), real("cm_epsilon"),
    text("optimize_for"), text("key_type"), long("seed"), real("point_error_bound"), real("total_error_bound"),
    int("universe_bits"), real("range_error_bound"), real("quantile_rank_error_bound"), real("heavy_hitter_error_bound"),
    int("candidates"), real("candidate_recall_floor"))

  def info(s: DyadicSketch): Map[String, Any] = {
    val base = s.level(0)
    CellKinds.getOrFail(s.cellKind).info(base.cellOps) ++ Map[String, Any](
      "cell_kind" -> base.cellName, "delta" -> s.requestedDelta, "width" -> s.width, "depth" -> s.depth,
      "cm_epsilon" -> s.cmEpsilon, "optimize_for" -> "heavy_hitters", "key_type" -> DyadicSketch.domainName(s.keyDomain),
      "seed" -> s.seed, "point_error_bound" -> (s.cellBound + (1 + s.cellBound) * s.cmEpsilon),
      "total_error_bound" -> s.totalErrorBound, "universe_bits" -> s.universeBits,
      "range_error_bound" -> s.rangeCountErrorBound, "quantile_rank_error_bound" -> s.quantileRankErrorBound,
      "heavy_hitter_error_bound" -> s.heavyHitterErrorBound) ++
      (if (s.bytesKeys) Map[String, Any]("candidates" -> s.candidates, "candidate_recall_floor" -> s.keyRecallFloor)
       else Map.empty[String, Any])
  }

  /** Theorem 5's epsilon at the current merge depth: the heavy-hitter gap for every ratio phi. */
  def errorBound(s: DyadicSketch): Double = s.heavyHitterErrorBound
}
