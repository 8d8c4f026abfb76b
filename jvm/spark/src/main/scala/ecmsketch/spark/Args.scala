package ecmsketch.spark

import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}
import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.{CalendarInterval, UTF8String}

import ecmsketch.core.{Bounds, CellParams, KeyType, SketchException, WindowSketch}

/** Parameter handling shared by the SQL functions: foldable constants, key/timestamp/weight
  * columns, and the units of window, range and now. Every failure is a [[SketchException]] whose
  * message names the argument; the expressions turn it into an analysis error.
  */
object Args {
  /** An omitted optional argument. */
  val Default: Literal = Literal(null, NullType)

  def isDefault(e: Expression): Boolean = e.dataType == NullType

  /** SQL text of a call without its omitted (default) trailing arguments. */
  def callSql(name: String, children: Seq[Expression]): String = {
    val shown = children.reverse.dropWhile(isDefault).reverse
    s"$name(${shown.map(_.sql).mkString(", ")})"
  }

  def isIntegral(dt: DataType): Boolean = dt match {
    case ByteType | ShortType | IntegerType | LongType => true
    case _ => false
  }

  def isTimestamp(dt: DataType): Boolean = dt == TimestampType || dt == TimestampNTZType

  private def constant(e: Expression, fn: String, name: String): Any = {
    if (!e.foldable) throw new SketchException(s"$fn: argument '$name' must be a constant, got ${e.sql}")
    e.eval()
  }

  def constDouble(e: Expression, fn: String, name: String, default: Double): Double =
    if (isDefault(e)) default
    else constant(e, fn, name) match {
      case null => default
      case d: Double => d
      case f: Float => f.toDouble
      case d: Decimal => d.toDouble
      case i: Int => i.toDouble
      case l: Long => l.toDouble
      case s: Short => s.toDouble
      case b: Byte => b.toDouble
      case other => throw new SketchException(s"$fn: argument '$name' must be a number, got ${e.dataType.sql} ${other}")
    }

  def constLong(e: Expression, fn: String, name: String, default: Long): Long =
    if (isDefault(e)) default
    else constant(e, fn, name) match {
      case null => default
      case i: Int => i.toLong
      case l: Long => l
      case s: Short => s.toLong
      case b: Byte => b.toLong
      case d: Decimal if (d.scale == 0 || d.toBigDecimal.isWhole) && d.toBigDecimal.isValidLong => d.toLong
      case _ => throw new SketchException(s"$fn: argument '$name' must be an integer that fits in BIGINT, got ${e.dataType.sql} ${e.sql}")
    }

  def constString(e: Expression, fn: String, name: String, default: String): String =
    if (isDefault(e)) default
    else constant(e, fn, name) match {
      case null => default
      case s: UTF8String => s.toString
      case _ => throw new SketchException(s"$fn: argument '$name' must be a string, got ${e.dataType.sql}")
    }

  def keyType(e: Expression, fn: String, what: String = "key"): Int = e.dataType match {
    case _: StringType => KeyType.String
    case BinaryType => KeyType.Binary
    case dt if isIntegral(dt) => KeyType.Long
    case dt => throw new SketchException(s"$fn: $what must be STRING, BINARY, INT or BIGINT, got ${dt.sql}")
  }

  /** max_arrivals (U of deterministic waves): a positive constant integer, or unset (unbounded). */
  def maxArrivals(e: Expression, fn: String): Long = {
    val u = constLong(e, fn, "max_arrivals", CellParams.Unbounded)
    if (u <= 0) throw new SketchException(s"$fn: max_arrivals must be a positive integer, got $u")
    u
  }

  def checkTs(e: Expression, fn: String, countWindow: Boolean): Boolean = e.dataType match {
    case dt if isTimestamp(dt) =>
      if (countWindow) throw new SketchException(s"$fn: with window_type => 'count', ts must be the arrival sequence number (INT or BIGINT), got ${dt.sql}")
      true
    case dt if isIntegral(dt) => false
    case dt => throw new SketchException(s"$fn: ts must be TIMESTAMP, INT or BIGINT, got ${dt.sql}")
  }

  def checkValue(e: Expression, fn: String): Unit = {
    if (!isDefault(e) && !isIntegral(e.dataType))
      throw new SketchException(s"$fn: value (the weight) must be an integer type, got ${e.dataType.sql}")
    if (!isDefault(e) && e.foldable) {
      val v = e.eval()
      if (v != null && longOf(v) < 0) throw new SketchException(s"$fn: value (the weight) must be non-negative, got $v")
    }
  }

  /** Runtime value of an integral column as a Long. */
  @inline def longOf(v: Any): Long = v match {
    case l: Long => l
    case i: Int => i.toLong
    case s: Short => s.toLong
    case b: Byte => b.toLong
    case other => throw new SketchException(s"expected an integer, got ${other.getClass.getSimpleName}")
  }

  /** Cross-site merge levels the user budgets for, in [0, MaxLevels - 1] (Spark's own level is added). */
  def mergeLevels(e: Expression, fn: String): Int = {
    val l = constLong(e, fn, "merge_levels", 0L)
    if (l < 0 || l > Bounds.MaxLevels - 1)
      throw new SketchException(s"$fn: merge_levels must be in [0, ${Bounds.MaxLevels - 1}], got $l")
    l.toInt
  }

  /** Microseconds of an interval string such as '10 minutes' (no months or years). */
  def intervalMicros(s: String, what: String): Long = {
    val c: CalendarInterval =
      try IntervalUtils.stringToInterval(UTF8String.fromString(s))
      catch { case e: Exception => throw new SketchException(s"$what: cannot parse '$s' as an interval such as '10 minutes'") }
    calendarMicros(c, what)
  }

  def calendarMicros(c: CalendarInterval, what: String): Long = {
    if (c.months != 0) throw new SketchException(s"$what: months and years have no fixed length; use days, hours, minutes or seconds")
    try Math.addExact(Math.multiplyExact(c.days.toLong, 86400000000L), c.microseconds)
    catch { case _: ArithmeticException => throw new SketchException(s"$what: the interval is longer than 2^63 microseconds") }
  }

  /** The window length in ticks: NULL/'unbounded' = unbounded; INTERVAL or interval string for
    * TIMESTAMP columns; an integer (or integer string) for integer ticks and count windows.
    */
  def window(e: Expression, fn: String, tsMicros: Boolean): Long = {
    if (isDefault(e)) return Long.MaxValue
    val v = constant(e, fn, "window")
    val w: Long = (e.dataType, v) match {
      case (_, null) => Long.MaxValue
      case (_: StringType, s: UTF8String) =>
        val str = s.toString.trim
        if (str.equalsIgnoreCase("unbounded")) Long.MaxValue
        else if (tsMicros) intervalMicros(str, s"$fn: window")
        else try str.toLong catch {
          case _: NumberFormatException =>
            throw new SketchException(s"$fn: window '$str' must be a number of ticks, because ts is an integer column (interval strings need a TIMESTAMP ts)")
        }
      case (_: DayTimeIntervalType, l: Long) => requireMicros(tsMicros, fn, "window"); l
      case (CalendarIntervalType, c: CalendarInterval) => requireMicros(tsMicros, fn, "window"); calendarMicros(c, s"$fn: window")
      case (_: YearMonthIntervalType, _) =>
        throw new SketchException(s"$fn: window: months and years have no fixed length; use days, hours, minutes or seconds")
      case (dt, x) if isIntegral(dt) =>
        if (tsMicros) throw new SketchException(s"$fn: window for a TIMESTAMP ts must be an INTERVAL or a string such as '10 minutes', got ${dt.sql}")
        longOf(x)
      case (dt, _) => throw new SketchException(s"$fn: window must be an INTERVAL, a string or an integer, got ${dt.sql}")
    }
    if (w <= 0) throw new SketchException(s"$fn: window must be positive, got $w")
    w
  }

  private def requireMicros(tsMicros: Boolean, fn: String, name: String): Unit =
    if (!tsMicros) throw new SketchException(s"$fn: $name is an INTERVAL but ts is an integer column; give $name in ticks")

  /** Analysis-time check of a range argument's type. */
  def checkRangeType(e: Expression, fn: String): Unit = e.dataType match {
    case _: YearMonthIntervalType =>
      throw new SketchException(s"$fn: range: months and years have no fixed length; use days, hours, minutes or seconds")
    case NullType | _: StringType | _: DayTimeIntervalType | CalendarIntervalType => ()
    case dt if isIntegral(dt) => ()
    case dt => throw new SketchException(s"$fn: range must be an INTERVAL, an interval string or an integer, got ${dt.sql}")
  }

  def checkNowType(e: Expression, fn: String): Unit = e.dataType match {
    case NullType => ()
    case dt if isTimestamp(dt) || isIntegral(dt) => ()
    case dt => throw new SketchException(s"$fn: now must be a TIMESTAMP or an integer, got ${dt.sql}")
  }

  /** A query range in the sketch's ticks (null = the whole window). */
  def range(s: WindowSketch, e: Expression, v: Any, fn: String): java.lang.Long = {
    if (v == null) return null
    val micros = s.spec.tsMicros
    val r: Long = (e.dataType, v) match {
      case (_: StringType, str: UTF8String) =>
        val t = str.toString.trim
        if (micros) intervalMicros(t, s"$fn: range")
        else try t.toLong catch {
          case _: NumberFormatException => throw new SketchException(s"$fn: range '$t' must be a number of ticks for a sketch of integer timestamps")
        }
      case (_: DayTimeIntervalType, l: Long) =>
        if (!micros) throw new SketchException(s"$fn: range is an INTERVAL but the sketch was built from integer timestamps; give it in ticks")
        l
      case (CalendarIntervalType, c: CalendarInterval) =>
        if (!micros) throw new SketchException(s"$fn: range is an INTERVAL but the sketch was built from integer timestamps; give it in ticks")
        calendarMicros(c, s"$fn: range")
      case (dt, x) if isIntegral(dt) =>
        if (micros) throw new SketchException(s"$fn: range for a sketch of TIMESTAMPs must be an INTERVAL or a string such as '10 minutes', got ${dt.sql}")
        longOf(x)
      case (dt, _) => throw new SketchException(s"$fn: unsupported range type ${dt.sql}")
    }
    java.lang.Long.valueOf(r)
  }

  /** The query time in the sketch's ticks (null = the sketch's last timestamp). */
  def now(s: WindowSketch, e: Expression, v: Any, fn: String): java.lang.Long = {
    if (v == null) return null
    e.dataType match {
      case dt if isTimestamp(dt) =>
        if (!s.spec.tsMicros) throw new SketchException(s"$fn: now is a TIMESTAMP but the sketch was built from integer timestamps")
        java.lang.Long.valueOf(v.asInstanceOf[Long])
      case dt if isIntegral(dt) =>
        if (s.spec.tsMicros) throw new SketchException(s"$fn: now for a sketch of TIMESTAMPs must be a TIMESTAMP, got ${dt.sql}")
        java.lang.Long.valueOf(longOf(v))
      case dt => throw new SketchException(s"$fn: unsupported now type ${dt.sql}")
    }
  }
}
