package org.apache.spark.sql.ecmsketch

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.Expression

/** Between Columns and Catalyst expressions (Spark 3.5: a Column wraps its expression). */
object ColumnShim {
  def expression(c: Column): Expression = c.expr
  def column(e: Expression): Column = new Column(e)
}
