package ecmsketch.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import java.util.HashMap;
import java.util.Map;

import org.apache.spark.sql.Column;

/** The DataFrame functions from Java: static forwarders of the `functions` object and a
 *  java.util.Map of options. DataFrameFunctionsSuite runs these columns. */
public final class JavaFunctionsExample {
  private JavaFunctionsExample() {}

  public static Column ecmAgg() {
    return functions.ecm_agg(col("k"), col("ts"));
  }

  public static Column ecmAggWithOptions() {
    Map<String, Object> options = new HashMap<>();
    options.put("window", 100L);
    options.put("merge_levels", 1);
    return functions.ecm_agg(col("k"), col("ts"), options);
  }

  public static Column ecmPoint(Column sketch) {
    return functions.ecm_point(sketch, lit("k1"), lit(50L));
  }
}
