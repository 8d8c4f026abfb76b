package ecmsketch.core

/** The one exception type the library throws for bad input: a wrong argument, mismatched sketch
  * parameters, or corrupt bytes. Its message names the problem; callers (SQL, Python) show it as is.
  */
class SketchException(message: String, cause: Throwable = null)
    extends IllegalArgumentException(message, cause)

object SketchException {
  /** Throws a [[SketchException]] with `message` unless `cond` holds. */
  @inline def require(cond: Boolean, message: => String): Unit =
    if (!cond) throw new SketchException(message)
}
