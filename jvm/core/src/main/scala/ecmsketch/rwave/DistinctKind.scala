package ecmsketch.rwave

import ecmsketch.core.InfoField.{int, long, real, text}
import ecmsketch.core.{ByteReader, ByteWriter, CellOps, CellHeader, CellKind, CellParams, Codec, EcmCellContext, KeyType, SketchException, SketchHeader, OneCellKind, InfoField, FunctionSpec}

/** The distinct-count sketch (sketch kind 4): delta (f64), seed (i64), key type (u8), queue
  * capacity (u32), instances (u16), then one randomized-wave cell.
  */
object DistinctKind extends OneCellKind[DistinctSketch](4, "distinct", RwCellKind) {
  override def functions: Seq[FunctionSpec] = DistinctFunctions.all
  def describe: String = "a distinct-count sketch (from distinct_agg or distinct_merge)"
  def expected: String = "a distinct-count sketch (from distinct_agg)"
  def plural: String = "distinct-count sketches"
  def sizeHint(s: DistinctSketch): Int = Codec.HeaderSize + 32 + 12 * s.wave.storedItems

  def encodeBody(s: DistinctSketch, out: ByteWriter): Unit = {
    out.putDouble(s.config.delta)
    out.putLong(s.config.seed)
    out.putByte(s.keyType)
    out.putInt(s.config.capacity)
    out.putShort(s.config.instances)
    new RwCells(s.config).write(s.wave, out, s.firstTs)
  }

  def decodeBody(in: ByteReader, c: SketchHeader): DistinctSketch = {
    if (c.levels != 0) throw new SketchException(s"corrupt sketch: a distinct-count sketch has planned merge levels ${c.levels}, expected 0")
    val delta = in.getDouble("delta")
    if (!(delta > 0 && delta < 1)) throw new SketchException(s"corrupt sketch: delta $delta outside (0, 1)")
    val seed = in.getLong("seed")
    val keyType = in.getByte("key type")
    if (keyType > KeyType.Binary) throw new SketchException(s"corrupt sketch: unknown key type $keyType")
    val (cfg, stored) = RwCellKind.readConfig(in, c.epsilon, delta, c.spec.window, seed, c.version)
    val wave = c.readSingleCell(in, new RwCells(cfg, stored))(new RandWave(cfg))
    DistinctSketch.restore(c.spec, cfg, wave, keyType)
  }

  def merge(xs: Seq[DistinctSketch]): DistinctSketch = DistinctSketch.merge(xs)
  def mergeSameStream(xs: Seq[DistinctSketch]): DistinctSketch = DistinctSketch.mergeUnchecked(xs)
  def mergeDiffs(a: DistinctSketch, b: DistinctSketch): Seq[String] = a.diffs(b)
  def infoFields: Seq[InfoField] = Seq(text("cell_kind"), real("delta"), text("key_type"), long("seed"))
  def info(d: DistinctSketch): Map[String, Any] = RwCellKind.info(d.config) ++ Map(
    "cell_kind" -> RwCellKind.name, "delta" -> d.delta, "key_type" -> KeyType.name(d.keyType), "seed" -> d.seed)
  def errorBound(s: DistinctSketch): Double = s.errorBound
  override def formatVersion(s: DistinctSketch): Int = RwCellKind.versionFor(s.config)
  override def readsAs(version: Int, written: Int, s: DistinctSketch): Boolean = RwCellKind.readsAs(version, written)
}

/** Randomized-wave cells (cell kind 3): point queries only; an ECM-sketch keeps their delta, queue
  * capacity and instances in its header.
  */
object RwCellKind extends CellKind(3, "rwave") {
  def deterministic: Boolean = false
  def minCellEpsilon: Double = RwConfig.MinEpsilon
  override def checkCellEpsilon(cellEps: Double, eps: Double): Unit =
    if (cellEps != eps)
      throw new SketchException(s"corrupt sketch: randomized-wave cells must have cell epsilon = epsilon, got $cellEps and $eps")
  def cellOps(p: CellParams): CellOps = new RwCells(RwConfig(p.cellEpsilon, p.cellDelta, p.window, p.seed))

  override def writeParams(f: CellOps, out: ByteWriter): Unit = {
    val c = config(f)
    out.putDouble(c.delta); out.putInt(c.capacity); out.putShort(c.instances)
  }

  override def readParams(in: ByteReader, c: EcmCellContext): CellHeader = {
    if (!c.pointQueries) throw new SketchException("corrupt sketch: randomized-wave cells with optimize_for inner_product")
    val needD2 = math.max(1.0, math.ceil(math.log(2.0 / c.delta) - 1e-9))
    if (c.depth < needD2)
      throw new SketchException(s"corrupt sketch: depth ${c.depth} is too small for delta ${c.delta} with randomized cells (needs ${needD2.toLong})")
    val cellDelta = in.getDouble("cell delta")
    if (!(cellDelta > 0 && cellDelta <= c.delta / (2.0 * c.depth)))
      throw new SketchException(s"corrupt sketch: cell delta $cellDelta outside (0, delta/(2 depth)]")
    val (cfg, stored) = readConfig(in, c.cellEpsilon, cellDelta, c.window, c.seed, c.version)
    CellHeader(CellParams.Unbounded, cellDelta, f => if (stored == cfg.instances) f else new RwCells(cfg, stored))
  }

  override def infoFields: Seq[InfoField] = Seq(real("cell_delta"), int("wave_capacity"), int("wave_instances"))
  override def info(f: CellOps): Map[String, Any] = info(config(f))

  private[rwave] def info(c: RwConfig): Map[String, Any] =
    Map("cell_delta" -> c.delta, "wave_capacity" -> c.capacity, "wave_instances" -> c.instances)

  private def config(f: CellOps): RwConfig = f match {
    case r: RwCells => r.config
    case other => throw new SketchException(s"${other.name} cells where randomized-wave cells were expected")
  }

  /** Reads and checks the randomized-wave parameters against what the config derives from them;
    * returns the config and the number of instances the bytes hold: the config's, or the larger
    * count that sketches written by version 0.1.0 planned for the same delta
    * ([[RwConfig.legacyInstances]]), whose first `cfg.instances` instances the reader keeps.
    */
  private[rwave] def readConfig(in: ByteReader, eps: Double, delta: Double, window: Long, seed: Long, version: Int): (RwConfig, Int) = {
    val cfg = try RwConfig(eps, delta, window, seed) catch {
      case e: SketchException => throw new SketchException(s"corrupt sketch: ${e.getMessage}")
    }
    val cap = in.getInt("queue capacity")
    val inst = in.getShort("instances")
    val legacy = cfg.legacyInstances
    if (cap != cfg.capacity || (inst != cfg.instances && inst != legacy))
      throw new SketchException(s"corrupt sketch: randomized-wave capacity $cap and instances $inst do not match " +
        s"epsilon $eps and delta $delta (expected ${cfg.capacity} and ${cfg.instances}" +
        (if (legacy > 0 && legacy != cfg.instances) s", or $legacy as written by version 0.1.0)" else ")"))
    if (version >= Codec.ChecksumVersion) {
      // every version-4 writer plans the current instances
      if (inst != cfg.instances)
        throw new SketchException(s"corrupt sketch: format version $version with $inst randomized-wave instances " +
          s"(epsilon $eps, delta $delta), expected ${cfg.instances}")
    } else {
      // version 0.1.0's count was written as format version 1 (by it), the current plan as versionFor(cfg)
      val need = if (inst == cfg.instances) versionFor(cfg) else Codec.Version
      if (version != need)
        throw new SketchException(s"corrupt sketch: format version $version with $inst randomized-wave instances " +
          s"(epsilon $eps, delta $delta), expected version $need")
    }
    (cfg, inst)
  }

  /** The format version randomized-wave bytes of `cfg` need: 1 when version 0.1.0 planned the same
    * instances (it reads them), else [[RwVersion]].
    */
  private[rwave] def versionFor(cfg: RwConfig): Int = if (cfg.instances == cfg.legacyInstances) Codec.Version else RwVersion

  /** Format version of randomized-wave instances planned by the per-instance bound (docs/design/rwave.md, "Instances"). */
  final val RwVersion = 3

  /** Bytes of version 1 with version 0.1.0's instance count decode to a sketch of the current plan,
    * written as version 3 ([[readConfig]] checks the count against the version).
    */
  override def readsAs(version: Int, written: Int): Boolean = version == Codec.Version && written == RwVersion
}
