package ecmsketch.format

import scala.collection.mutable.ArrayBuffer

import ecmsketch.core.{Bundle, ByteReader, SketchException, WindowSketch}

/** Buffer of a merge aggregate: the input sketches, validated on arrival and kept as bytes until
  * one n-way merge at the end (so the merge depth does not grow with the number of partitions).
  */
final class MergeBuffer(val parts: ArrayBuffer[Array[Byte]] = ArrayBuffer[Array[Byte]]()) {
  var reference: WindowSketch = null
}

object MergeBuffer {
  final val Magic: Array[Byte] = "ECMM".getBytes("US-ASCII")
  final val MaxParts = 4096

  def serialize(b: MergeBuffer): Array[Byte] = Bundle.write(Magic, b.parts.toSeq)(_ => ())

  /** Reads a buffer written by [[serialize]]; bad bytes fail with a SketchException starting
    * "corrupt merge buffer: ".
    */
  def deserialize(bytes: Array[Byte]): MergeBuffer = Bundle.relabel(Corrupt)(read(bytes))

  private final val Corrupt = "corrupt merge buffer: "

  private def read(bytes: Array[Byte]): MergeBuffer = {
    val in = new ByteReader(bytes)
    if (!java.util.Arrays.equals(Bundle.readMagic(in, "merge buffer"), Magic)) throw new SketchException(Corrupt + "bad magic or version")
    val v = in.getByte("merge buffer version")
    if (v != Bundle.Version)
      throw new SketchException(Corrupt + s"bad magic or version: unknown merge buffer version $v (this build reads ${Bundle.Version}" +
        (if (v > Bundle.Version) "; it was written by a newer release of ecmsketch)" else ")"))
    val b = new MergeBuffer()
    b.parts ++= Bundle.readParts(in, MaxParts + 1, "sketch")
    in.expectEnd()
    b
  }
}
