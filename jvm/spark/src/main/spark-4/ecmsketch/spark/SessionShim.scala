package ecmsketch.spark

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry

/** What differs between Spark lines in the session API (Spark 4: the classic session is its own class). */
private[spark] object SessionShim {
  /** The function registry of a classic session; None for any other (e.g. a Spark Connect client). */
  def functionRegistry(spark: SparkSession): Option[FunctionRegistry] = spark match {
    case c: org.apache.spark.sql.classic.SparkSession => Some(c.sessionState.functionRegistry)
    case _ => None
  }

  /** Spark 4.3's registry asserts fully qualified (3-part) names and qualifies the unqualified names of
    * session extensions with `FunctionRegistry.builtinFunctionIdentifier`, which 4.0 (the version
    * this jar is compiled against) does not have: found by reflection, so one jar serves 4.0 to 4.3.
    */
  private lazy val qualifier: Option[java.lang.reflect.Method] =
    FunctionRegistry.getClass.getMethods.find(m =>
      m.getName == "builtinFunctionIdentifier" && m.getParameterCount == 1 && m.getParameterTypes()(0) == classOf[String])

  /** The identifier under which [[Register]] registers a function on a running session. */
  def registeredName(name: String): FunctionIdentifier = qualifier match {
    case Some(m) => m.invoke(FunctionRegistry, name).asInstanceOf[FunctionIdentifier]
    case None => FunctionIdentifier(name)
  }
}
