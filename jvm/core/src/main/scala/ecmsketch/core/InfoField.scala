package ecmsketch.core

/** The type of a `sketch_info` field, as SQL shows it. */
sealed abstract class InfoType(val sqlName: String)

object InfoType {
  case object Text extends InfoType("STRING")
  case object Int32 extends InfoType("INT")
  case object Int64 extends InfoType("BIGINT")
  case object Real extends InfoType("DOUBLE")
  case object Flag extends InfoType("BOOLEAN")
}

/** A `sketch_info` field: its name and type. The fields every kind shares are
  * [[SketchDescription.shared]]; each [[SketchKind]] and [[CellKind]] declares its own in `infoFields`.
  */
final case class InfoField(name: String, tpe: InfoType)

object InfoField {
  // a field of each type, by name: text (STRING), int (INT), long (BIGINT), real (DOUBLE), flag (BOOLEAN)
  def text(name: String): InfoField = InfoField(name, InfoType.Text)
  def int(name: String): InfoField = InfoField(name, InfoType.Int32)
  def long(name: String): InfoField = InfoField(name, InfoType.Int64)
  def real(name: String): InfoField = InfoField(name, InfoType.Real)
  def flag(name: String): InfoField = InfoField(name, InfoType.Flag)
}
