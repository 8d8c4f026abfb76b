package ecmsketch.core

/** Binary format, versions 1 to 4 (docs/FORMAT.md): the common header of every sketch kind, then the kind's body
  * ([[SketchKind.encodeBody]]). Decoding takes the table of kinds to read (the registration list's, or one kind).
  *
  * Every sketch is written as version 4: the header of versions 1 to 3, flag bit 3 set, then a CRC32C of all
  * the other bytes, then the body of the kind exactly as versions 1 to 3 lay it out. Readers verify the
  * checksum before they read any other field. Bytes of versions 1 to 3 carry no checksum and read as before.
  */
object Codec {
  final val Magic: Array[Byte] = "ECMS".getBytes("US-ASCII")
  /** The oldest format version: the layout of a checksum-less sketch without a segmented cell. */
  final val Version = 1
  /** The version every sketch is written in: the header carries a CRC32C of the bytes. Versions 1 to 3
    * (no checksum; 2: segmented EH cells, 3: cell parameters of release 0.2.0's plan, which release
    * 0.1.0 cannot read) are read only.
    */
  final val ChecksumVersion = 4
  /** The newest format version this library reads and writes. */
  final val MaxVersion = ChecksumVersion
  /** Bytes 0-59: the fields every format version has. */
  final val HeaderSize = 60
  /** Byte offset of the CRC32C (u32, little-endian) in a version-4 header. */
  final val ChecksumOffset = HeaderSize
  /** The header of a version-4 sketch: [[HeaderSize]] bytes and the checksum; the body follows. */
  final val ChecksumHeaderSize = HeaderSize + 4
  /** Flag bit 3: the bytes carry a checksum. Version 4 requires it; versions 1 to 3 refuse it, so that a
    * version byte changed to 1, 2 or 3 cannot make a checksummed sketch read without its check.
    */
  final val ChecksumFlag = 8
  /** Cell kind byte of a sketch kind that holds no sliding-window cells. */
  final val NoCells = 0

  private def writeCommon(s: WindowSketch, kind: Int, cellKind: Int, out: ByteWriter): Unit = {
    out.putBytes(Magic)
    out.putByte(ChecksumVersion)
    out.putByte(kind)
    out.putByte(cellKind)
    out.putByte((if (s.spec.countWindow) 1 else 0) | (if (s.spec.tsMicros) 2 else 0) | (if (s.isEmpty) 0 else 4) | ChecksumFlag)
    out.putLong(s.spec.window)
    out.putDouble(s.epsilon)
    out.putDouble(s.cellEpsilon)
    out.putShort(s.plannedLevels)
    out.putShort(s.mergeDepth)
    out.putLong(s.firstTs)
    out.putLong(s.lastTs)
    out.putLong(s.count)
    out.putInt(0) // the checksum, patched by encode once the body is written
  }

  /** CRC32C of every byte of a version-4 sketch (at least [[ChecksumHeaderSize]] bytes) but the checksum
    * field itself.
    */
  private[ecmsketch] def checksum(b: Array[Byte]): Int = {
    SketchException.require(b.length >= ChecksumHeaderSize, s"a version-$ChecksumVersion sketch has at least $ChecksumHeaderSize bytes, got ${b.length}")
    val crc = new java.util.zip.CRC32C()
    crc.update(b, 0, ChecksumOffset)
    crc.update(b, ChecksumHeaderSize, b.length - ChecksumHeaderSize)
    crc.getValue.toInt
  }

  /** Encodes a sketch of kind `kind` (format version 4). */
  def encode[S <: WindowSketch](kind: SketchKind[S], s: S): Array[Byte] = {
    val out = new ByteWriter(kind.sizeHint(s) + 4)
    writeCommon(s, kind.id, kind.cellKindOf(s), out)
    kind.encodeBody(s, out)
    val b = out.toByteArray
    val c = checksum(b)
    var i = 0
    while (i < 4) { b(ChecksumOffset + i) = (c >>> (8 * i)).toByte; i += 1 }
    b
  }

  /** Encodes a sketch of any kind. */
  def encodeAny(s: WindowSketch): Array[Byte] = encodeAs(s.kind, s)

  private def encodeAs[S <: WindowSketch](k: SketchKind[S], s: WindowSketch): Array[Byte] = encode(k, k.cast(s).get)

  /** Refuses version-4 bytes whose checksum does not match; run before any other field is read. */
  private def verifyChecksum(b: Array[Byte]): Unit = {
    if (b.length < ChecksumHeaderSize)
      throw new SketchException(s"corrupt sketch: ${b.length} bytes is too short for a version-$ChecksumVersion sketch " +
        s"(its header alone is $ChecksumHeaderSize bytes)")
    val stored = Checksum.stored(b, ChecksumOffset)
    val computed = checksum(b)
    if (stored != computed) throw new SketchException(Checksum.mismatch("corrupt sketch: ", stored, computed, b.length))
  }

  /** Whether `b` is a version-4 sketch whose version byte alone was changed (to an unknown version): its
    * checksum matches with byte 4 read as 4. Such bytes are refused as corrupt, not as a newer release's.
    */
  private def damagedVersionByte(b: Array[Byte]): Boolean =
    b.length >= ChecksumHeaderSize && {
      val c = b.clone()
      c(Magic.length) = ChecksumVersion.toByte
      Checksum.stored(c, ChecksumOffset) == checksum(c)
    }

  /** The kinds a decode reads, by id. */
  type Lookup = Int => Option[SketchKind[_ <: WindowSketch]]

  private def readCommon(in: ByteReader, kinds: Lookup, expected: Option[SketchKind[_ <: WindowSketch]]): SketchHeader = {
    if (in.remaining < 4) throw new SketchException(s"not an ecmsketch sketch: ${in.remaining} bytes is too short")
    val m = Array.fill(4)(in.getByte("magic").toByte)
    if (!java.util.Arrays.equals(m, Magic))
      throw new SketchException("not an ecmsketch sketch: bad magic bytes " + m.map(b => f"${b & 0xFF}%02x").mkString)
    val version = in.getByte("format version")
    if ((version < Version || version > MaxVersion) && damagedVersionByte(in.bytes))
      throw new SketchException(s"corrupt sketch: checksum mismatch: the format version byte reads $version, and the " +
        s"checksum matches version $ChecksumVersion's bytes (the byte changed after they were written)")
    if (version < Version || version > MaxVersion)
      throw new SketchException(s"unsupported sketch format version $version (this library reads versions $Version to $MaxVersion" +
        (if (version > MaxVersion) "; the sketch was written by a newer release of ecmsketch: read it with that release or a later one)" else ")"))
    val checksummed = version >= ChecksumVersion
    if (checksummed) verifyChecksum(in.bytes)
    val kind = in.getByte("sketch kind")
    val sk = kinds(kind).getOrElse(expected match {
      case Some(e) => throw new SketchException(s"corrupt sketch: sketch kind $kind where ${e.expected} was expected")
      case None => throw new SketchException(s"corrupt sketch: unknown sketch kind $kind")
    })
    val cellKind = in.getByte("cell kind")
    if (!sk.cellKindAllowed(cellKind))
      throw new SketchException(s"corrupt sketch: sketch kind $kind cannot hold cells of kind $cellKind")
    // cell kind 0: a sketch kind without sliding-window cells (its cell epsilon must equal epsilon)
    val ck = sk.cellKinds.find(_.id == cellKind)
    val flags = in.getByte("flags")
    val known = if (checksummed) 7 | ChecksumFlag else 7
    if ((flags & ~known) != 0) throw new SketchException(s"corrupt sketch: unknown flag bits ${flags & ~known} in a version-$version header")
    if (checksummed && (flags & ChecksumFlag) == 0)
      throw new SketchException(s"corrupt sketch: a version-$version header without its checksum flag (bit 3)")
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
    if (checksummed) in.getInt("checksum") // verified above
    SketchHeader(kind, cellKind, spec, eps, cellEps, levels, depth, first, last, count, hasRows, version)
  }

  /** Decodes a sketch of any kind `kinds` knows, validating every field; throws [[SketchException]] on
    * bad bytes. `ecmsketch.Families.decode` passes the registration list.
    */
  def decode(bytes: Array[Byte], kinds: Lookup): WindowSketch = decodeWith(bytes, kinds, None)

  private def decodeWith(bytes: Array[Byte], kinds: Lookup, expected: Option[SketchKind[_ <: WindowSketch]]): WindowSketch = {
    val in = new ByteReader(bytes)
    val h = readCommon(in, kinds, expected)
    val kind = kinds(h.kind).get
    val s = kind.decodeBody(in, h)
    s.restoreState(h.depth, h.firstTs, h.lastTs, h.count, h.hasRows)
    // versions 1 to 3, one encoding per sketch: version 2 exactly when a cell is segmented (version 4 holds any)
    if (h.version < ChecksumVersion) {
      val v = layoutVersion(kind, s)
      if (v != h.version && !readsAs(kind, h.version, v, s))
        throw new SketchException(s"corrupt sketch: format version ${h.version}, but its cells are of version $v" +
          (if (v > h.version) " (segmented cells need version 2)" else ""))
    }
    s
  }

  /** The checksum-less format version (1 to 3) whose rules the body of `s` follows
    * ([[SketchKind.formatVersion]]): what a release before version 4 wrote for it.
    */
  def layoutVersion(s: WindowSketch): Int = layoutVersion(s.kind, s)

  private def layoutVersion[S <: WindowSketch](k: SketchKind[S], s: WindowSketch): Int = k.formatVersion(k.cast(s).get)

  /** The format version of encoded bytes (byte 4), or 0 when they are too short or not a sketch. */
  def versionOfBytes(b: Array[Byte]): Int =
    if (b == null || b.length < 5 || !java.util.Arrays.equals(java.util.Arrays.copyOf(b, 4), Magic)) 0 else b(4) & 0xFF

  private def readsAs[S <: WindowSketch](k: SketchKind[S], version: Int, written: Int, s: WindowSketch): Boolean =
    k.readsAs(version, written, k.cast(s).get)

  /** Decodes a sketch that must be of kind `kind`, such as the parts of a partial aggregate: bytes of
    * another kind are refused as corrupt, naming the kind id they hold. For sketches a user passes,
    * `ecmsketch.Families.decodeAs` says what the bytes hold instead.
    */
  def decodeAs[S <: WindowSketch](kind: SketchKind[S], bytes: Array[Byte]): S = {
    val s = decodeWith(bytes, id => if (id == kind.id) Some(kind) else None, Some(kind))
    kind.cast(s).get
  }
}
