package org.apache.spark.sql.ecmsketch

import org.apache.spark.SparkRuntimeException

/** Access to Spark's error framework, which is package-private to `org.apache.spark`. A
  * SparkRuntimeException with an error condition reaches SQL and PySpark users as a one-line,
  * classified error (`[USER_RAISED_EXCEPTION] ...`) even when raised inside a task.
  */
object ErrorShim {
  def userError(message: String, cause: Throwable): RuntimeException =
    new SparkRuntimeException("USER_RAISED_EXCEPTION", Map("errorMessage" -> message), cause, Array.empty, "")
}
