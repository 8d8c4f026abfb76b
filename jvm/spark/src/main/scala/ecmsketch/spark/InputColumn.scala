package ecmsketch.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression}
import org.apache.spark.sql.types._

import ecmsketch.core.KeyType

/** An integral, DATE, TIMESTAMP or TIMESTAMP_NTZ argument (a timestamp, a weight, an integer key)
  * read as a Long: straight from the row without boxing when the expression is a bound column
  * reference (`ordinal` >= 0), else through `eval`. The one way the aggregates read a row's
  * timestamp:
  * {{{
  * val t = tsCol.long(input)
  * if (t == InputColumn.Null && tsCol.isNull(input)) return // a NULL ts skips the row
  * }}}
  */
private[spark] final class InputColumn(e: Expression, val ordinal: Int, kind: Int) extends Serializable {
  /** The value of a bound column (`ordinal` >= 0) that is not NULL. */
  @inline def read(row: InternalRow): Long = kind match {
    case InputColumn.LongKind => row.getLong(ordinal)
    case InputColumn.IntKind => row.getInt(ordinal).toLong
    case InputColumn.ShortKind => row.getShort(ordinal).toLong
    case _ => row.getByte(ordinal).toLong
  }

  /** The value, or [[InputColumn.Null]] when it is NULL; a value equal to [[InputColumn.Null]]
    * is told apart by [[isNull]] (only then evaluated a second time).
    */
  @inline def long(row: InternalRow): Long =
    if (ordinal >= 0) { if (row.isNullAt(ordinal)) InputColumn.Null else read(row) }
    else { val x = e.eval(row); if (x == null) InputColumn.Null else Args.longOf(x) }

  def isNull(row: InternalRow): Boolean = if (ordinal >= 0) row.isNullAt(ordinal) else e.eval(row) == null
}

private[spark] object InputColumn {
  final val LongKind = 0
  final val IntKind = 1
  final val ShortKind = 2
  final val ByteKind = 3
  /** What [[InputColumn.long]] returns for NULL (and for the value Long.MinValue). */
  final val Null: Long = Long.MinValue
  /** No such argument (an omitted weight). */
  val Absent = new InputColumn(null, -1, LongKind)

  /** How a key of type `keyKind` is read: [[integral]] for integer keys, else through eval (ordinal -1). */
  def key(e: Expression, keyKind: Int): InputColumn = if (keyKind == KeyType.Long) integral(e) else new InputColumn(e, -1, LongKind)

  def integral(e: Expression): InputColumn = e match {
    case b: BoundReference => b.dataType match {
      case LongType | TimestampType | TimestampNTZType => new InputColumn(e, b.ordinal, LongKind)
      case IntegerType | DateType => new InputColumn(e, b.ordinal, IntKind)
      case ShortType => new InputColumn(e, b.ordinal, ShortKind)
      case ByteType => new InputColumn(e, b.ordinal, ByteKind)
      case _ => new InputColumn(e, -1, LongKind)
    }
    case _ => new InputColumn(e, -1, LongKind)
  }
}
