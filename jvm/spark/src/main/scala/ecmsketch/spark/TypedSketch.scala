package ecmsketch.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._

/** A sketch column that carries its key type: `STRUCT<sketch: BINARY, key_type: T>`, where `key_type`
  * is always NULL and its type T is the type of the keys the sketch was built from (as Spark's
  * `approx_top_k_accumulate` carries its item type). The queries read T at analysis time, so keys
  * come back in their own type. Every function that takes a sketch takes this STRUCT as well as
  * the BINARY sketch itself.
  */
private[spark] object TypedSketch {
  final val SketchField = "sketch"
  final val KeyField = "key_type"

  /** The STRUCT of a sketch of keys of type `keyType`. */
  def structOf(keyType: DataType): StructType =
    StructType(Seq(StructField(SketchField, BinaryType, nullable = false), StructField(KeyField, keyType, nullable = true)))

  /** The key type a typed sketch column carries; None for any other type. */
  def keyTypeOf(dt: DataType): Option[DataType] = dt match {
    case StructType(Array(StructField(SketchField, BinaryType, _, _), StructField(KeyField, t, _, _))) => Some(t)
    case _ => None
  }

  def isTyped(dt: DataType): Boolean = keyTypeOf(dt).isDefined

  /** Whether a column of type `dt` can hold sketches: BINARY, NULL or a typed sketch. */
  def isSketchColumn(dt: DataType): Boolean = dt == BinaryType || dt == NullType || isTyped(dt)

  /** The sketch bytes of a value of a column of type `dt` (null for NULL). */
  def bytes(v: Any, dt: DataType): Array[Byte] = v match {
    case null => null
    case b: Array[Byte] => b
    case r: InternalRow => if (r.isNullAt(0)) null else r.getBinary(0)
    case other => throw new IllegalArgumentException(s"not a sketch value of ${dt.sql}: ${other.getClass.getName}")
  }

  /** The value of a typed sketch column holding `b` (null for null). */
  def row(b: Array[Byte]): InternalRow = if (b == null) null else new GenericInternalRow(Array[Any](b, null))

  /** The value of a column of type `dt` holding sketch bytes `b`: the bytes, or the typed STRUCT. */
  def value(b: Array[Byte], dt: DataType): Any = if (isTyped(dt)) row(b) else b
}
