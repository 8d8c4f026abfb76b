package ecmsketch.format

import ecmsketch.core.{Codec, Registry, WindowSketch}
import ecmsketch.dwave.{DwKind, DwSketch}
import ecmsketch.ecm.{EcmKind, EcmSketch}
import ecmsketch.rwave.{DistinctKind, DistinctSketch}
import ecmsketch.window.{EhKind, EhSketch}

/** Binary format, versions 1 and 2 (docs/FORMAT.md) with typed entry points: the header is read and written by
  * [[ecmsketch.core.Codec]], each kind's body by its [[ecmsketch.core.SketchKind]].
  *
  * {{{
  * offset size field
  *  0     4    magic "ECMS"
  *  4     1    format version (1; 2 when an EH cell is segmented)
  *  5     1    sketch kind: 1 = exponential histogram, 2 = ECM-sketch, 3 = deterministic wave,
  *             4 = distinct-count sketch (randomized wave)
  *  6     1    cell kind: 1 = exponential histogram, 2 = deterministic wave, 3 = randomized wave
  *  7     1    flags: bit 0 = count-based window, bit 1 = TIMESTAMP (microsecond) ticks; others 0
  *  8     8    window N (i64 > 0; 2^63-1 = unbounded)
  * 16     8    epsilon requested (f64)
  * 24     8    cell epsilon (f64)
  * 32     2    planned merge levels (u16)
  * 34     2    merge depth (u16)
  * 36     8    first timestamp (i64; 2^63-1 when empty)
  * 44     8    last timestamp (i64; -2^63 when empty)
  * 52     8    total weight ever added (i64 >= 0)
  * ECM-sketch only:
  * 60     8    delta (f64)        68  8  Count-Min epsilon (f64)
  * 76     4    width (u32)        80  4  depth (u32)
  * 84     8    hash seed (i64)    92  1  key type   93  1  optimize_for (0 point, 1 inner product)
  * then the cell parameters: deterministic waves: max_arrivals (i64); randomized waves: cell delta
  * (f64), queue capacity (u32), instances (u16).
  * Deterministic wave (kind 3): 60  8  max_arrivals (i64).
  * Distinct-count sketch (kind 4): 60 8 delta (f64), 68 8 seed (i64), 76 1 key type, 77 4 queue
  * capacity (u32), 81 2 instances (u16).
  * body: the cells (one for an EH, width*depth row-major for an ECM-sketch), each encoded by its
  * cell family with timestamps as varint deltas from the first timestamp.
  * }}}
  */
object SketchCodec {
  final val Magic: Array[Byte] = Codec.Magic
  final val Version = Codec.Version
  final val KindEh = EhKind.id
  final val KindEcm = EcmKind.id
  final val KindDetWave = DwKind.id
  final val KindDistinct = DistinctKind.id
  final val HeaderSize = Codec.HeaderSize
  final val EcmHeaderSize = EcmKind.HeaderSize

  def encode(s: EhSketch): Array[Byte] = Codec.encode(EhKind, s)
  def encode(s: EcmSketch): Array[Byte] = Codec.encode(EcmKind, s)
  def encode(s: DwSketch): Array[Byte] = Codec.encode(DwKind, s)
  def encode(s: DistinctSketch): Array[Byte] = Codec.encode(DistinctKind, s)

  /** Encodes a sketch of any kind. */
  def encodeAny(s: WindowSketch): Array[Byte] = Codec.encodeAny(s)

  /** Decodes any sketch, validating every field; throws a SketchException on bad bytes. */
  def decode(bytes: Array[Byte]): WindowSketch = Codec.decode(bytes)

  /** What a sketch is, for error messages: "an ECM-sketch (from ecm_agg or ecm_merge)". */
  def describeKind(s: WindowSketch): String = Registry.describe(s)

  def decodeEh(bytes: Array[Byte]): EhSketch = Codec.decodeAs(EhKind, bytes)
  def decodeEcm(bytes: Array[Byte]): EcmSketch = Codec.decodeAs(EcmKind, bytes)
  def decodeDw(bytes: Array[Byte]): DwSketch = Codec.decodeAs(DwKind, bytes)
  def decodeDistinct(bytes: Array[Byte]): DistinctSketch = Codec.decodeAs(DistinctKind, bytes)
}
