package ecmsketch.format

import ecmsketch.Families
import ecmsketch.core.{Codec, WindowSketch}
import ecmsketch.dwave.{DwKind, DwSketch}
import ecmsketch.ecm.{EcmKind, EcmSketch}
import ecmsketch.rwave.{DistinctKind, DistinctSketch}
import ecmsketch.eh.{EhKind, EhSketch}

/** Test helper: typed entry points to the binary format (docs/FORMAT.md, versions 1 to 4): the header is read and
  * written by [[ecmsketch.core.Codec]], each kind's body by its [[ecmsketch.core.SketchKind]]. docs/FORMAT.md
  * has the layout: the 60-byte common header, in version 4 a CRC32C at bytes 60-63, then the kind's own
  * fields and its cells.
  */
object SketchCodec {
  final val Magic: Array[Byte] = Codec.Magic
  /** The oldest format version read (every writer writes [[Codec.ChecksumVersion]]). */
  final val Version = Codec.Version
  final val KindEh = EhKind.id
  final val KindEcm = EcmKind.id
  final val KindDetWave = DwKind.id
  final val KindDistinct = DistinctKind.id
  /** Header and ECM-sketch header sizes of versions 1 to 3 (version 4 adds the 4-byte checksum to each). */
  final val HeaderSize = Codec.HeaderSize
  final val EcmHeaderSize = EcmKind.HeaderSize

  def encode(s: EhSketch): Array[Byte] = Codec.encode(EhKind, s)
  def encode(s: EcmSketch): Array[Byte] = Codec.encode(EcmKind, s)
  def encode(s: DwSketch): Array[Byte] = Codec.encode(DwKind, s)
  def encode(s: DistinctSketch): Array[Byte] = Codec.encode(DistinctKind, s)

  /** Encodes a sketch of any kind. */
  def encodeAny(s: WindowSketch): Array[Byte] = Codec.encodeAny(s)

  /** Decodes any sketch, validating every field; throws a SketchException on bad bytes. */
  def decode(bytes: Array[Byte]): WindowSketch = Families.decode(bytes)

  /** What a sketch is, for error messages: "an ECM-sketch (from ecm_agg or ecm_merge)". */
  def describeKind(s: WindowSketch): String = Families.describe(s)

  def decodeEh(bytes: Array[Byte]): EhSketch = Families.decodeAs(EhKind, bytes)
  def decodeEcm(bytes: Array[Byte]): EcmSketch = Families.decodeAs(EcmKind, bytes)
  def decodeDw(bytes: Array[Byte]): DwSketch = Families.decodeAs(DwKind, bytes)
  def decodeDistinct(bytes: Array[Byte]): DistinctSketch = Families.decodeAs(DistinctKind, bytes)
}
