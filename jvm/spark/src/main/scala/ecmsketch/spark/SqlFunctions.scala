package ecmsketch.spark

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.{FunctionRegistry, FunctionRegistryBase}
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.catalyst.plans.logical.{FunctionSignature, InputParameter}
import org.apache.spark.sql.catalyst.analysis.ExpressionBuilder

import ecmsketch.Families
import ecmsketch.core.{FunctionSpec, SketchDescription}

/** The SQL functions of ecmsketch: the specs the registered kinds declare ([[ecmsketch.core.SketchKind.functions]]),
  * each bound to its Catalyst expression. Registered by [[EcmSketchExtensions]] (spark.sql.extensions) or [[Register]].
  */
object SqlFunctions {
  /** A function: its spec (the descriptor's row: signature, usage, examples, release, group) and how
    * Spark builds it (the expression's class, for ExpressionInfo, and its constructor). [[info]] makes
    * Spark's ExpressionInfo of it; docs/reference/sql.md is generated from the same rows.
    */
  final case class Fn(spec: FunctionSpec, className: String, make: Seq[Expression] => Expression) {
    def name: String = spec.name
    def params: Seq[FunctionSpec.Param] = spec.params
    def usage: String = spec.usage
    def group: String = spec.group
    def returns: String = spec.returns
    def examples: Seq[FunctionSpec.Example] = spec.examples
    def since: String = spec.since
    def named(p: FunctionSpec.Param): Boolean = spec.named(p)
  }

  /** How Spark builds the function `name`: the expression class and its constructor. */
  final case class Impl(name: String, className: String, make: Seq[Expression] => Expression)

  private[spark] def impl(name: String, cls: Class[_])(make: Seq[Expression] => Expression): Impl = Impl(name, cls.getName, make)

  private final class Builder(fn: Fn) extends ExpressionBuilder {
    override def functionSignature: Option[FunctionSignature] = Some(FunctionSignature(fn.params.map(p =>
      if (p.default.isEmpty) InputParameter(p.name) else InputParameter(p.name, Some(Args.Default)))))
    override def build(funcName: String, expressions: Seq[Expression]): Expression = fn.make(expressions)
  }

  /** The expressions of every function, by family (each family's Spark file lists its own). */
  private def impls: Seq[Impl] = SketchFunctions.all ++ DyadicFunctionImpls.all ++ AsyncFunctionImpls.all ++ DecayedFunctionImpls.all ++
    QuantileFunctionImpls.all ++ FrequentFunctionImpls.all

  /** The function specs of every registered kind, in registration order, then `sketch_info`. */
  def specs: Seq[FunctionSpec] = Families.all.flatMap(_.functions) ++ SketchDescription.functions

  /** Every SQL function: each spec bound to its expression. A spec without an expression, or an
    * expression without a spec, is refused when the table is first read.
    */
  lazy val all: Seq[Fn] = bind(specs, impls)

  /** Binds each spec to the expression of its name; refuses names declared twice, specs without an
    * expression and expressions without a spec.
    */
  def bind(specs: Seq[FunctionSpec], impls: Seq[Impl]): Seq[Fn] = {
    val names = specs.map(_.name)
    val byName = impls.groupBy(_.name)
    val twice = (names.diff(names.distinct) ++ byName.filter(_._2.size > 1).keys).distinct
    val noImpl = names.filterNot(byName.contains)
    val noSpec = impls.map(_.name).filterNot(names.toSet)
    if (twice.nonEmpty || noImpl.nonEmpty || noSpec.nonEmpty)
      throw new IllegalStateException(s"SQL functions: declared twice ${twice.sorted.mkString("[", ", ", "]")}, " +
        s"no expression for ${noImpl.sorted.mkString("[", ", ", "]")}, no spec for ${noSpec.sorted.mkString("[", ", ", "]")}")
    specs.map { spec => val i = byName(spec.name).head; Fn(spec, i.className, i.make) }
  }

  /** The builder Spark calls with the parsed arguments (named ones as NamedArgumentExpression). */
  def builder(fn: Fn): Seq[Expression] => Expression = {
    val b = new Builder(fn)
    (args: Seq[Expression]) => b.build(fn.name, FunctionRegistry.rearrangeExpressions(fn.name, b, args))
  }

  /** The Arguments section, in Spark's layout: "\n    Arguments:\n      * name - text\n  ". */
  def arguments(fn: Fn): String =
    fn.params.map { p =>
      val how = p.default match {
        case None => ""
        case Some(d) => if (fn.named(p)) s" Optional, by name (${p.name} => ...); default: $d." else s" Optional; default: $d."
      }
      s"      * ${p.name} - ${p.doc}$how\n"
    }.mkString("\n    Arguments:\n", "", "  ")

  /** The Examples section, in Spark's layout: "> SELECT ...;" then the result lines, 7 spaces in. */
  def examples(fn: Fn): String =
    fn.examples.map { e =>
      s"      > ${e.sql}\n" + e.result.flatMap(_.split("\n")).map(l => s"       $l\n").mkString
    }.mkString("\n    Examples:\n", "", "  ")

  /** Spark's description of a function, shown by DESCRIBE FUNCTION EXTENDED (the constructor is the
    * same in Spark 3.5 and 4.x; 4.x checks group and since as 3.5 does).
    */
  def info(fn: Fn): ExpressionInfo =
    new ExpressionInfo(fn.className, null, fn.name, fn.usage, arguments(fn), examples(fn), "", fn.group, fn.since, "", "")

  /** Every function's reference as JSON, read by the generator of docs/reference/sql.md. */
  def referenceJson(): String = {
    def str(v: String): String = v.flatMap {
      case '"' => "\\\""
      case '\\' => "\\\\"
      case '\n' => "\\n"
      case '\t' => "\\t"
      case c if c < ' ' => "\\" + "u%04x".format(c.toInt)
      case c => c.toString
    }.mkString("\"", "", "\"")
    all.map { fn =>
      val params = fn.params.map(p => s"""{"name":${str(p.name)},"default":${p.default.map(str).getOrElse("null")},""" +
        s""""named":${fn.named(p)},"doc":${str(p.doc)}}""").mkString("[", ",", "]")
      val exs = fn.examples.map(e => s"""{"sql":${str(e.sql)},"result":${e.result.map(str).mkString("[", ",", "]")}}""")
        .mkString("[", ",", "]")
      s"""{"name":${str(fn.name)},"usage":${str(fn.usage)},"group":${str(fn.group)},"since":${str(fn.since)},""" +
        s""""returns":${str(fn.returns)},"params":$params,"examples":$exs}"""
    }.mkString("[", ",\n", "]")
  }

  /** Registers every function on a running session (classic Spark). */
  def registerAll(registry: FunctionRegistryBase[Expression]): Unit =
    all.foreach(fn => registry.registerFunction(SessionShim.registeredName(fn.name), info(fn), builder(fn)))

}

/** `spark.sql.extensions=ecmsketch.spark.EcmSketchExtensions` registers the functions in every new session. */
class EcmSketchExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(ext: SparkSessionExtensions): Unit =
    SqlFunctions.all.foreach(fn => ext.injectFunction((FunctionIdentifier(fn.name), SqlFunctions.info(fn), SqlFunctions.builder(fn))))
}

/** Registration on an already running session (called by Python's `ecmsketch.register(spark)`). */
object Register {
  def register(spark: SparkSession): Unit = SessionShim.functionRegistry(spark) match {
    case Some(registry) => SqlFunctions.registerAll(registry)
    case None => throw new IllegalArgumentException(
      s"ecmsketch.register needs a classic SparkSession, got ${spark.getClass.getName}; under Spark Connect set spark.sql.extensions=ecmsketch.spark.EcmSketchExtensions on the server")
  }
}
