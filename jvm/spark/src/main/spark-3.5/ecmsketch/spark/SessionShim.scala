package ecmsketch.spark

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry

/** What differs between Spark lines in the session API (Spark 3.5: every JVM session is classic). */
private[spark] object SessionShim {
  /** The function registry of the session. */
  def functionRegistry(spark: SparkSession): Option[FunctionRegistry] = Some(spark.sessionState.functionRegistry)

  /** The identifier under which [[Register]] registers a function on a running session. */
  def registeredName(name: String): FunctionIdentifier = FunctionIdentifier(name)
}
