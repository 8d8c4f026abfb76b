package ecmsketch.spark

import org.apache.spark.sql.catalyst.expressions.Literal
import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.core.FunctionSpec

/** The binding of the descriptors' SQL specs to Catalyst expressions: complete both ways. */
class SqlFunctionsSuite extends AnyFunSuite {
  private def spec(name: String) = FunctionSpec(name, Seq(FunctionSpec.req("sketch")), s"_FUNC_(sketch) - $name.", "misc_funcs",
    "BINARY", Seq(FunctionSpec.Example(s"SELECT $name(NULL);", "NULL")))
  private def impl(name: String) = SqlFunctions.impl(name, classOf[Literal])(_ => Literal(1))

  test("every registered spec has exactly one expression, and every expression a spec") {
    val names = SqlFunctions.all.map(_.name)
    assert(names.distinct.size == names.size && names.contains("ecm_agg") && names.contains("sketch_info"))
    assert(names == SqlFunctions.specs.map(_.name))
  }

  test("bind refuses a spec without an expression, an expression without a spec and a name given twice") {
    assert(SqlFunctions.bind(Seq(spec("a"), spec("b")), Seq(impl("b"), impl("a"))).map(_.name) == Seq("a", "b"))
    def refused(specs: Seq[FunctionSpec], impls: Seq[SqlFunctions.Impl]): String =
      intercept[IllegalStateException](SqlFunctions.bind(specs, impls)).getMessage
    assert(refused(Seq(spec("a"), spec("b")), Seq(impl("a"))) ==
      "SQL functions: declared twice [], no expression for [b], no spec for []")
    assert(refused(Seq(spec("a")), Seq(impl("a"), impl("c"))) ==
      "SQL functions: declared twice [], no expression for [], no spec for [c]")
    assert(refused(Seq(spec("a"), spec("a")), Seq(impl("a"))).startsWith("SQL functions: declared twice [a]"))
    assert(refused(Seq(spec("a")), Seq(impl("a"), impl("a"))).startsWith("SQL functions: declared twice [a]"))
  }
}
