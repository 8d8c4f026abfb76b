package ecmsketch

import ecmsketch.asynchronous.AsyncKind
import ecmsketch.core.{Codec, InfoField, KindTable, SketchDescription, SketchException, SketchKind, WindowSketch}
import ecmsketch.decayed.DecayedKind
import ecmsketch.dwave.DwKind
import ecmsketch.ecm.EcmKind
import ecmsketch.ecm.dyadic.DyadicKind
import ecmsketch.eh.EhKind
import ecmsketch.frequent.FrequentKind
import ecmsketch.quantile.QuantileKind
import ecmsketch.rwave.DistinctKind

/** The registration list: every sketch kind, one line per family, in the order of their ids (the id
  * is the format's sketch kind byte, docs/FORMAT.md). Everything that reads any kind takes its kinds
  * from here: decoding bytes of unknown kind, the `sketch_info` schema, the SQL functions (the Spark
  * layer), the Python API. A new family adds its descriptor to this list; the ECM-sketch's cell kinds
  * are listed by that family ([[ecmsketch.ecm.CellKinds]]).
  */
object Families extends KindTable[SketchKind[_ <: WindowSketch]](
    Seq(EhKind, EcmKind, DwKind, DistinctKind, DyadicKind, AsyncKind, DecayedKind, QuantileKind, FrequentKind), "sketch kind", "kind")(_.id, _.name) {

  /** Decodes a sketch of any registered kind, validating every field; a SketchException names bad bytes. */
  def decode(bytes: Array[Byte]): WindowSketch = Codec.decode(bytes, get)

  /** Decodes a sketch that must be of kind `kind`: "expected <kind.expected> but got <what the bytes hold>". */
  def decodeAs[S <: WindowSketch](kind: SketchKind[S], bytes: Array[Byte]): S = {
    val s = decode(bytes)
    kind.cast(s).getOrElse(throw new SketchException(s"expected ${kind.expected} but got ${s.kind.describe}"))
  }

  /** Encodes a sketch of any kind (format version 4). */
  def encode(s: WindowSketch): Array[Byte] = Codec.encodeAny(s)

  /** What a sketch is, for error messages: "an ECM-sketch (from ecm_agg or ecm_merge)". */
  def describe(s: WindowSketch): String = s.kind.describe

  /** The fields of `sketch_info`: the shared ones, then each registered kind's and cell kind's. */
  lazy val infoSchema: Seq[InfoField] = SketchDescription.schema(all)

  /** The names of [[infoSchema]]. */
  lazy val infoFields: Seq[String] = infoSchema.map(_.name)

  /** `sketch_info` of `s` read from `bytes`: every field of [[infoSchema]], null where it does not apply. */
  def info(s: WindowSketch, bytes: Array[Byte]): Map[String, Any] =
    infoFields.map(_ -> (null: Any)).toMap ++ SketchDescription.describe(s, bytes)

  /** `sketch_info` of `s` as this library writes it. */
  def info(s: WindowSketch): Map[String, Any] = info(s, encode(s))
}
