package ecmsketch.core

/** The type of the keys a sketch was built from; queries with another type are cast losslessly or refused. */
object KeyType {
  final val Unset = 0
  final val Long = 1
  final val String = 2
  final val Binary = 3
  def name(t: Int): String = t match {
    case Unset => "none"
    case Long => "bigint"
    case String => "string"
    case Binary => "binary"
    case other => s"unknown($other)"
  }

  /** The type after adding a key of type `t` to a sketch of type `current`; a different type is refused. */
  def record(current: Int, t: Int): Int =
    if (current == t || current == Unset) t
    else throw new SketchException(s"this sketch holds ${name(current)} keys; cannot add a ${name(t)} key")

  /** The key type of a merge of sketches of types `types` (unset ones adopt the others'). */
  def merged(types: Seq[Int], what: String): Int = types.foldLeft(Unset) { (acc, t) =>
    if (t == Unset || t == acc) acc
    else if (acc == Unset) t
    else throw new SketchException(s"cannot merge $what with ${name(acc)} keys and ${name(t)} keys")
  }
}
