package org.apache.spark.sql.ecmsketch

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.classic.ExpressionUtils

/** Between Columns and Catalyst expressions (Spark 4: a Column holds a ColumnNode, which the classic
  * session converts; ExpressionUtils is package-private to org.apache.spark.sql).
  */
object ColumnShim {
  def expression(c: Column): Expression = ExpressionUtils.expression(c)
  def column(e: Expression): Column = ExpressionUtils.column(e)
}
