package ecmsketch.core

/** The length-prefixed bundle of encoded sketches that partial aggregates ship between Spark tasks
  * (docs/FORMAT.md, "partial bundle"): 4 magic bytes, a version byte, a varint count, then each
  * part as a varint length and its bytes; the writer may append a trailer of its own. The version
  * says what the parts may be (the merge buffer writes 1; Ingest writes 3 or 4, see Ingest.BundleVersion),
  * and whether a CRC32C of all the other bytes ends the bundle ([[write]]'s `checksum`, [[checkedEnd]]).
  */
object Bundle {
  final val Version = 1

  /** Magic, version [[Version]], count and parts, then whatever `trailer` writes. */
  def write(magic: Array[Byte], parts: Seq[Array[Byte]])(trailer: ByteWriter => Unit): Array[Byte] =
    write(magic, Version, parts)(trailer)

  /** Magic, `version`, count and parts, then whatever `trailer` writes. */
  def write(magic: Array[Byte], version: Int, parts: Seq[Array[Byte]], checksum: Boolean = false)(trailer: ByteWriter => Unit): Array[Byte] = {
    val out = new ByteWriter(20 + parts.map(_.length + 5).sum)
    out.putBytes(magic)
    out.putByte(version)
    out.putVarLong(parts.size)
    parts.foreach { p => out.putVarLong(p.length); out.putBytes(p) }
    trailer(out)
    if (checksum) out.putChecksum()
    out.toByteArray
  }

  /** Verifies the CRC32C that ends a checksummed bundle (over all bytes before it) and returns where the
    * bundle's fields end; refused, before any field is read, with `prefix` + "checksum mismatch ...".
    */
  def checkedEnd(b: Array[Byte], prefix: String): Int = {
    if (b.length < 9) throw new SketchException(s"$prefix${b.length} bytes is too short for a checksummed bundle")
    val end = b.length - 4
    val stored = Checksum.stored(b, end)
    val computed = Checksum.crc32c(b, 0, end)
    if (stored != computed) throw new SketchException(Checksum.mismatch(prefix, stored, computed, b.length))
    end
  }

  /** The 4 magic bytes, read as the field "`what` magic". */
  def readMagic(in: ByteReader, what: String): Array[Byte] = Array.fill(4)(in.getByte(s"$what magic").toByte)

  /** The count (at most `maxParts`) and the parts, read as the fields "`part` count", "`part`
    * length" and "`part`"; the caller has read the magic and the version.
    */
  def readParts(in: ByteReader, maxParts: Int, part: String): Seq[Array[Byte]] = {
    val n = in.getVarIn(s"$part count", 0, maxParts).toInt
    val b = Seq.newBuilder[Array[Byte]]
    var i = 0
    while (i < n) {
      val len = in.getVarIn(s"$part length", 1, in.remaining).toInt
      b += in.getBytes(len, part)
      i += 1
    }
    b.result()
  }

  /** Runs `body`, prefixing the message of a [[SketchException]] it throws with `prefix` (in place
    * of "corrupt sketch: "), unless it already starts with it.
    */
  def relabel[T](prefix: String)(body: => T): T =
    try body
    catch {
      case e: SketchException if !e.getMessage.startsWith(prefix) =>
        throw new SketchException(prefix + e.getMessage.stripPrefix("corrupt sketch: "), e)
    }
}
