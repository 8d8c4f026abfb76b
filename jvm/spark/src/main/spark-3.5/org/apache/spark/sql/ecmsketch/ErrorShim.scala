package org.apache.spark.sql.ecmsketch

import org.apache.spark.SparkRuntimeException

/** Access to Spark's error framework, which is package-private to `org.apache.spark` (the Spark 3.5
  * twin of spark-4/.../ErrorShim.scala). Spark 3.5 has no USER_RAISED_EXCEPTION error condition:
  * `_LEGACY_ERROR_TEMP_2273` has the message alone as its text, so users see the library's message
  * unchanged (without a `[CONDITION]` prefix) even when it is raised inside a task.
  */
object ErrorShim {
  def userError(message: String, cause: Throwable): RuntimeException =
    new SparkRuntimeException("_LEGACY_ERROR_TEMP_2273", Map("message" -> message), cause, Array.empty, "")
}
