package ecmsketch.decayed

import ecmsketch.core.InfoField.{int, long, real, text}
import ecmsketch.core.{Bounds, CellKind, ByteReader, ByteWriter, Codec, SketchException, SketchHeader, SketchKind, WindowSpec, InfoField, FunctionSpec}

/** The decayed sketch (sketch kind 7, docs/FORMAT.md "Decayed sketch"): cell kind 0 (no window
  * cells), then the parameters, then per copy the levels that exist, each with t_i and its entries
  * in id order. Every field is validated on decode, and every entry is re-derived: it must be
  * selected at its level (MinHit >= 0) and its key (expiry or timestamp) must lie above t_i.
  */
object DecayedKind extends SketchKind[DecayedSketch](7, "decayed") {
  override def functions: Seq[FunctionSpec] = DecayedFunctions.all
  final val BodyVersion = 1

  def describe: String = "a decayed sketch (from decayed_agg or decayed_merge)"
  def expected: String = "a decayed sketch (from decayed_agg)"
  def plural: String = "decayed sketches"
  def cellKinds: Seq[CellKind] = Nil
  def cellKindOf(s: DecayedSketch): Int = Codec.NoCells
  def sizeHint(s: DecayedSketch): Int = 128 + 26 * s.storedEntries

  def encodeBody(s: DecayedSketch, out: ByteWriter): Unit = {
    val p = s.params
    s.compactAll()
    out.putByte(BodyVersion)
    out.putByte(p.decay.map(_.id).getOrElse(Decay.GeneralId))
    out.putDouble(p.decay.map(_.param).getOrElse(0.0))
    out.putDouble(p.delta)
    out.putDouble(p.constant)
    out.putInt(p.tau)
    out.putShort(p.copies)
    out.putLong(p.maxWeight)
    out.putLong(p.resolution)
    out.putLong(p.seed)
    out.putByte(p.topLevel)
    s.levels.foreach { ls =>
      val present = ls.indices.filter(i => ls(i) != null && (ls(i).discarded || ls(i).size > 0))
      out.putVarLong(present.size.toLong)
      present.foreach { i =>
        val l = ls(i)
        out.putByte(i)
        out.putByte(if (l.discarded) 1 else 0)
        if (l.discarded) out.putLong(l.tI)
        val es = l.entries
        out.putVarLong(es.length.toLong)
        es.foreach { e =>
          out.putVarLong(e.id)
          out.putVarLong(e.w)
          out.putDouble(e.v)
          out.putLong(e.t)
        }
      }
    }
  }

  private def corrupt(msg: String): Nothing = throw new SketchException(s"corrupt sketch: $msg")

  def decodeBody(in: ByteReader, h: SketchHeader): DecayedSketch = {
    val version = in.getByte("decayed body version")
    if (version != BodyVersion) corrupt(s"unknown decayed body version $version")
    if (h.spec.countWindow || h.spec.window != WindowSpec.Unbounded)
      corrupt(s"a decayed sketch has an unbounded time window, not ${h.spec.typeName} window ${h.spec.window}")
    if (h.levels != 0 || h.depth != 0) corrupt(s"a decayed sketch has no merge levels (planned ${h.levels}, depth ${h.depth})")
    val decayId = in.getByte("decay")
    val param = in.getDouble("decay_param")
    val decay =
      if (decayId == Decay.GeneralId) { if (param != 0.0) corrupt(s"decay_param $param of a general sketch is not 0"); None }
      else try Some(Decay.byId(decayId, param)) catch { case e: SketchException => corrupt(e.getMessage) }
    val delta = in.getDouble("delta")
    val constant = in.getDouble("constant")
    val tau = in.getInt("tau")
    val copies = in.getShort("copies")
    val maxWeight = in.getLong("max_weight")
    val resolution = in.getLong("resolution")
    val seed = in.getLong("seed")
    val topLevel = in.getByte("top level")
    val params = try DecayedParams(decay, h.epsilon, delta, constant, maxWeight, resolution, seed, h.spec.tsMicros)
      catch { case e: SketchException => corrupt(e.getMessage) }
    if (tau != params.tau) corrupt(s"tau $tau is not ceil(C / epsilon^2) = ${params.tau}")
    if (copies != params.copies) corrupt(s"copies $copies is not ${params.copies} for delta $delta")
    if (topLevel != params.topLevel) corrupt(s"top level $topLevel is not ${params.topLevel}")
    val s = new DecayedSketch(params)
    val wMaxScaled = params.wMax
    var j = 0
    while (j < copies) {
      val a = params.coefficients(2 * j); val b = params.coefficients(2 * j + 1)
      val n = in.getVarIn(s"level count of copy $j", 0, topLevel + 1L).toInt
      var prev = -1
      var k = 0
      while (k < n) {
        val i = in.getByte(s"level index of copy $j")
        if (i <= prev || i > topLevel) corrupt(s"level $i of copy $j is out of order or above $topLevel")
        prev = i
        val flag = in.getByte(s"discarded flag of level $i")
        if (flag > 1) corrupt(s"discarded flag $flag of level $i is not 0 or 1")
        val l = new Level(params.tau)
        val tI = if (flag == 1) in.getLong(s"t_$i") else Long.MinValue
        if (flag == 1) l.raise(tI)
        val cnt = in.getVarIn(s"entry count of level $i", if (flag == 1) 0 else 1, params.tau.toLong).toInt
        if (!h.hasRows && (cnt > 0 || flag == 1)) corrupt("levels in an empty sketch")
        var prevId = -1L
        var e = 0
        while (e < cnt) {
          val id = in.getVarIn(s"id in level $i", 0, params.idSpace - 1)
          if (id <= prevId) corrupt(s"ids of level $i of copy $j are not increasing")
          prevId = id
          val w = in.getVarIn(s"weight in level $i", 1, maxWeight)
          val v = in.getDouble(s"value in level $i")
          if (v.isNaN) corrupt(s"a NaN value in level $i")
          val t = in.getLong(s"timestamp in level $i")
          if (t < h.firstTs || t > h.lastTs) corrupt(s"timestamp $t in level $i is outside [${h.firstTs}, ${h.lastTs}]")
          if (w > h.count) corrupt(s"weight $w exceeds the total weight ${h.count}")
          val sw = w * resolution
          val base = wMaxScaled * id
          val d = Arith.firstSelected(a, b, base, sw - 1, i)
          if (d < 0) corrupt(s"element $id is not selected at level $i of copy $j")
          val entry = params.integral match {
            case Some(f) => new Entry(id, w, v, t, Bounds.satAdd(t, f.minAge(sw, d)), 0L)
            case None => new Entry(id, w, v, t, t, Level.Unresolved) // RangeSample when a query needs it
          }
          if (flag == 1 && entry.key <= tI) corrupt(s"an entry of level $i has key ${entry.key} <= t_$i = $tI")
          l.offer(entry)
          e += 1
        }
        if (l.size != cnt) corrupt(s"level $i of copy $j does not hold its $cnt entries")
        s.levels(j)(i) = l
        k += 1
      }
      j += 1
    }
    in.expectEnd()
    s
  }

  def merge(xs: Seq[DecayedSketch]): DecayedSketch = DecayedSketch.merge(xs)
  def mergeSameStream(xs: Seq[DecayedSketch]): DecayedSketch = DecayedSketch.merge(xs)
  def mergeDiffs(a: DecayedSketch, b: DecayedSketch): Seq[String] = a.diffs(b)

  def infoFields: Seq[InfoField] = Seq(real("delta"), long("seed"), int("depth"), text("decay"), real("decay_param"),
    int("tau"), real("constant"), long("max_weight"), long("resolution"), int("stored_entries"))

  def info(s: DecayedSketch): Map[String, Any] = Map(
    "delta" -> s.params.delta, "seed" -> s.params.seed, "depth" -> s.params.copies,
    "decay" -> s.decay.map(_.name).getOrElse("general"), "decay_param" -> s.decay.map(_.param).orNull,
    "tau" -> s.params.tau, "constant" -> s.params.constant, "max_weight" -> s.params.maxWeight,
    "resolution" -> s.params.resolution, "stored_entries" -> s.storedEntries)

  /** The (epsilon, delta) relative error of a decayed sum. */
  def errorBound(s: DecayedSketch): Double = s.epsilon
}
