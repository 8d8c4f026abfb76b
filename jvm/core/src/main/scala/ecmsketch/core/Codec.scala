package ecmsketch.core

/** Binary format, versions 1 to 3 (docs/FORMAT.md): the common header of every sketch kind, then the kind's body
  * ([[SketchKind.encodeBody]]); the kind and cell-kind ids come from the [[Registry]].
  */
object Codec {
  final val Magic: Array[Byte] = "ECMS".getBytes("US-ASCII")
  /** The format version of every sketch without a segmented cell. */
  final val Version = 1
  /** The newest format version this library reads and writes (2: segmented EH cells, written only
    * by a time-disjoint merge; 3: randomized-wave instances planned as version 0.2.0 plans them,
    * which version 0.1.0 cannot read; docs/FORMAT.md).
    */
  final val MaxVersion = 3
  final val HeaderSize = 60
  /** Cell kind byte of a sketch kind that holds no sliding-window cells (the async and decayed families). */
  final val NoCells = 0

  private def writeCommon(s: WindowSketch, kind: Int, cellKind: Int, out: ByteWriter): Unit = {
    out.putBytes(Magic)
    out.putByte(Version) // patched by encode once the body is written (SketchKind.formatVersion)
    out.putByte(kind)
    out.putByte(cellKind)
    out.putByte((if (s.spec.countWindow) 1 else 0) | (if (s.spec.tsMicros) 2 else 0) | (if (s.isEmpty) 0 else 4))
    out.putLong(s.spec.window)
    out.putDouble(s.epsilon)
    out.putDouble(s.cellEpsilon)
    out.putShort(s.plannedLevels)
    out.putShort(s.mergeDepth)
    out.putLong(s.firstTs)
    out.putLong(s.lastTs)
    out.putLong(s.count)
  }

  /** Encodes a sketch of kind `kind`. */
  def encode[S <: WindowSketch](kind: SketchKind[S], s: S): Array[Byte] = {
    val out = new ByteWriter(kind.sizeHint(s))
    writeCommon(s, kind.id, kind.cellKindOf(s), out)
    kind.encodeBody(s, out)
    val b = out.toByteArray
    b(Magic.length) = kind.formatVersion(s).toByte
    b
  }

  /** Encodes a sketch of any registered kind. */
  def encodeAny(s: WindowSketch): Array[Byte] = Registry.kindOf(s) match {
    case Some(k) => encodeAs(k, s)
    case None => throw new SketchException(s"cannot encode ${s.getClass.getSimpleName}")
  }

  private def encodeAs[S <: WindowSketch](k: SketchKind[S], s: WindowSketch): Array[Byte] = encode(k, k.cast(s).get)

  private def readCommon(in: ByteReader): SketchHeader = {
    if (in.remaining < 4) throw new SketchException(s"not an ecmsketch sketch: ${in.remaining} bytes is too short")
    val m = Array.fill(4)(in.getByte("magic").toByte)
    if (!java.util.Arrays.equals(m, Magic))
      throw new SketchException("not an ecmsketch sketch: bad magic bytes " + m.map(b => f"${b & 0xFF}%02x").mkString)
    val version = in.getByte("format version")
    if (version < Version || version > MaxVersion)
      throw new SketchException(s"unsupported sketch format version $version (this library reads versions $Version to $MaxVersion" +
        (if (version > MaxVersion) "; the sketch was written by a newer release of ecmsketch: read it with that release or a later one)" else ")"))
    val kind = in.getByte("sketch kind")
    val sk = Registry.sketchKind(kind).getOrElse(throw new SketchException(s"corrupt sketch: unknown sketch kind $kind"))
    val cellKind = in.getByte("cell kind")
    // cell kind 0: a sketch kind without sliding-window cells (its cell epsilon must equal epsilon)
    val ck = if (cellKind == NoCells && sk.cellKindAllowed(NoCells)) None
      else Some(Registry.cellKind(cellKind).getOrElse(throw new SketchException(s"corrupt sketch: unknown cell kind $cellKind")))
    if (!sk.cellKindAllowed(cellKind))
      throw new SketchException(s"corrupt sketch: sketch kind $kind cannot hold cells of kind $cellKind")
    val flags = in.getByte("flags")
    if ((flags & ~7) != 0) throw new SketchException(s"corrupt sketch: unknown flag bits ${flags & ~7}")
    val window = in.getLong("window")
    if (window <= 0) throw new SketchException(s"corrupt sketch: window $window is not positive")
    if ((flags & 3) == 3) throw new SketchException("corrupt sketch: a count-based window with TIMESTAMP ticks")
    val spec = WindowSpec(countWindow = (flags & 1) != 0, tsMicros = (flags & 2) != 0, window = window)
    val eps = in.getDouble("epsilon")
    if (!(eps >= Bounds.MinEpsilon && eps < 1.0)) throw new SketchException(s"corrupt sketch: epsilon $eps outside [${Bounds.MinEpsilon}, 1)")
    val cellEps = in.getDouble("cell epsilon")
    ck match {
      case Some(k) =>
        val minCellEps = k.minCellEpsilon
        if (!(cellEps >= minCellEps && cellEps <= eps))
          throw new SketchException(s"corrupt sketch: cell epsilon $cellEps outside [$minCellEps, $eps]")
        k.checkCellEpsilon(cellEps, eps)
      case None =>
        if (cellEps != eps) throw new SketchException(s"corrupt sketch: a sketch without cells must have cell epsilon = epsilon, got $cellEps and $eps")
    }
    val levels = in.getShort("planned merge levels")
    if (levels > Bounds.MaxLevels) throw new SketchException(s"corrupt sketch: planned merge levels $levels > ${Bounds.MaxLevels}")
    val depth = in.getShort("merge depth")
    val first = in.getLong("first timestamp")
    val last = in.getLong("last timestamp")
    val count = in.getLong("total weight")
    if (count < 0) throw new SketchException(s"corrupt sketch: negative total weight $count")
    val hasRows = (flags & 4) != 0
    if (hasRows && first > last) throw new SketchException(s"corrupt sketch: first timestamp $first after last $last")
    if (!hasRows && (count != 0 || first != Long.MaxValue || last != Long.MinValue))
      throw new SketchException("corrupt sketch: an empty sketch with timestamps or weight")
    SketchHeader(kind, cellKind, spec, eps, cellEps, levels, depth, first, last, count, hasRows, version)
  }

  /** Decodes any sketch, validating every field; throws [[SketchException]] on bad bytes. */
  def decode(bytes: Array[Byte]): WindowSketch = {
    val in = new ByteReader(bytes)
    val h = readCommon(in)
    val kind = Registry.sketchKind(h.kind).get
    val s = kind.decodeBody(in, h)
    s.restoreState(h.depth, h.firstTs, h.lastTs, h.count, h.hasRows)
    // one encoding per sketch: version 2 exactly when a cell is segmented
    val v = versionOf(kind, s)
    if (v != h.version && !readsAs(kind, h.version, v, s))
      throw new SketchException(s"corrupt sketch: format version ${h.version}, but its cells are of version $v" +
        (if (v > h.version) " (segmented cells need version 2)" else ""))
    s
  }

  /** The format version `s` is written in ([[SketchKind.formatVersion]]). */
  def versionOf(s: WindowSketch): Int = Registry.kindOf(s).map(k => versionOf(k, s)).getOrElse(Version)

  private def versionOf[S <: WindowSketch](k: SketchKind[S], s: WindowSketch): Int = k.formatVersion(k.cast(s).get)

  private def readsAs[S <: WindowSketch](k: SketchKind[S], version: Int, written: Int, s: WindowSketch): Boolean =
    k.readsAs(version, written, k.cast(s).get)

  /** Decodes a sketch that must be of kind `kind` ("expected <kind.expected> but got <what it is>"). */
  def decodeAs[S <: WindowSketch](kind: SketchKind[S], bytes: Array[Byte]): S = {
    val s = decode(bytes)
    kind.cast(s).getOrElse(throw new SketchException(s"expected ${kind.expected} but got ${Registry.describe(s)}"))
  }
}
