package ecmsketch.core

/** The length-prefixed bundle of encoded sketches that partial aggregates ship between Spark tasks
  * (docs/FORMAT.md, "partial bundle"): 4 magic bytes, a version byte, a varint count, then each
  * part as a varint length and its bytes; the writer may append a trailer of its own. The version
  * says what the parts may be (the merge buffer writes 1; Ingest writes 2, see Ingest.BundleVersion).
  */
object Bundle {
  final val Version = 1

  /** Magic, version [[Version]], count and parts, then whatever `trailer` writes. */
  def write(magic: Array[Byte], parts: Seq[Array[Byte]])(trailer: ByteWriter => Unit): Array[Byte] =
    write(magic, Version, parts)(trailer)

  /** Magic, `version`, count and parts, then whatever `trailer` writes. */
  def write(magic: Array[Byte], version: Int, parts: Seq[Array[Byte]])(trailer: ByteWriter => Unit): Array[Byte] = {
    val out = new ByteWriter(16 + parts.map(_.length + 5).sum)
    out.putBytes(magic)
    out.putByte(version)
    out.putVarLong(parts.size)
    parts.foreach { p => out.putVarLong(p.length); out.putBytes(p) }
    trailer(out)
    out.toByteArray
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
