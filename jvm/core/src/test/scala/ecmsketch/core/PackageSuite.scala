package ecmsketch.core

import java.nio.file.{Files, Path, Paths}

import org.scalatest.funsuite.AnyFunSuite

/** The package rules of docs/design/README.md ("Layout"), read from the sources of the core project
  * (jvm/core/src/main/scala): the `import` lines and fully-qualified `ecmsketch.x` references of each
  * file (outside comments and string literals) give the packages it depends on. Core imports no
  * family, a family imports no other family, and no two packages import each other.
  *
  * The Spark layer (ecmsketch.spark and the shims in org.apache.spark.sql.ecmsketch) is another sbt
  * project that depends on core; core is compiled without it and without Spark, so the compiler
  * already refuses any core import of it, and its sources are not read here.
  */
class PackageSuite extends AnyFunSuite {
  import PackageSuite._

  private lazy val graph: Map[String, Set[String]] = dependencies(mainSources())
  private lazy val packages: Set[String] = mainSources().flatMap(src => packageOf(code(src))).toSet

  test("the sources are found and every package is in the graph") {
    assert(Set("core", "root", "api", "format", "ingest", "hash") ++ Families subsetOf graph.keySet, graph.keySet)
    assert(graph.values.flatten.toSet.contains("core"))
  }

  test("core imports no family (and nothing of ecmsketch outside core)") {
    assert(graph("core") == Set.empty, s"core depends on ${graph("core")}")
  }

  test("a family package imports no other family package, but ecm composes the counter families") {
    val bad = for { f <- Families.toSeq.sorted; d <- graph(f) if Families(d) && d != f && !Composes.getOrElse(f, Set.empty[String])(d) }
      yield s"$f -> $d"
    assert(bad.isEmpty, bad.mkString(", "))
    assert(Composes.forall { case (f, ds) => ds.forall(d => !graph(d).contains(f)) }, "a composed family imports ecm")
  }

  test("no two packages import each other") {
    assert(mutualPairs(graph).isEmpty, mutualPairs(graph).mkString(", "))
  }

  test("a family's sub-package (ecm.dyadic) counts as the family; the family does not import its sub-packages") {
    assert(packages.contains("ecm.dyadic"), packages)
    assert(family("ecm.dyadic") == "ecm" && family("ecm") == "ecm" && family("spark") == "spark")
    val bad = parentToChild(mainSources())
    assert(bad.isEmpty, bad.mkString(", "))
    assert(parentToChild(Seq("package ecmsketch.ecm\nimport ecmsketch.ecm.dyadic.X\n", "package ecmsketch.ecm.dyadic\nobject X\n")) ==
      Seq("ecm -> ecm.dyadic"))
    assert(parentToChild(Seq("package ecmsketch.ecm\nobject Y { val z = dyadic.X }\n", "package ecmsketch.ecm.dyadic\nobject X\n")) ==
      Seq("ecm -> ecm.dyadic"))
    assert(dependencies(Seq("package ecmsketch.ecm.dyadic\nimport ecmsketch.eh.X\n"))("ecm") == Set("eh"))
  }

  test("the rules catch what they are meant to catch") {
    val g = dependencies(Seq(
      "package ecmsketch.core\nimport ecmsketch.eh.ExpHistogram\n",
      "package ecmsketch.eh\nimport ecmsketch.core.{A, B}\nobject X { val y = ecmsketch.dwave.DwConfig.Unbounded }\n",
      "package ecmsketch.dwave\n// ecmsketch.rwave in a comment\nobject Z { val s = \"ecmsketch.rwave.X\" }\n"))
    assert(g("core") == Set("eh"))
    assert(g("eh") == Set("core", "dwave"))
    assert(g("dwave") == Set.empty)
    assert(mutualPairs(g) == Seq("core <-> eh"))
  }
}

object PackageSuite {
  val Families: Set[String] = Set("eh", "dwave", "rwave", "ecm", "asynchronous", "decayed", "quantile", "frequent")
  /** The one composition the layout allows: an ECM-sketch holds cells of the counter families. */
  val Composes: Map[String, Set[String]] = Map("ecm" -> Set("eh", "dwave", "rwave"))

  private final val CoreSources = "jvm/core/src/main/scala"

  /** The Scala sources of the core project, found from the working directory upwards. */
  def mainSources(): Seq[String] = {
    var dir: Path = Paths.get(System.getProperty("user.dir")).toAbsolutePath
    while (dir != null && !Files.isDirectory(dir.resolve(CoreSources))) dir = dir.getParent
    assert(dir != null, s"$CoreSources not found above the working directory")
    val files = Seq.newBuilder[Path] // (a loop: Scala 2.12 has no scala.jdk.CollectionConverters)
    val it = Files.walk(dir.resolve(CoreSources)).iterator()
    while (it.hasNext) { val f = it.next(); if (f.toString.endsWith(".scala")) files += f }
    files.result().map(f => new String(Files.readAllBytes(f), "UTF-8"))
  }

  /** Package of `ecmsketch[.x]` as a short name: "root" for ecmsketch itself. */
  private def short(pkg: String): String = pkg.stripPrefix("ecmsketch").stripPrefix(".") match {
    case "" => "root"
    case p => p
  }

  /** Source without comments and string literals. */
  def code(src: String): String = {
    val out = new StringBuilder
    var i = 0
    val n = src.length
    while (i < n) {
      if (src.startsWith("//", i)) { while (i < n && src(i) != '\n') i += 1 }
      else if (src.startsWith("/*", i)) { val e = src.indexOf("*/", i + 2); i = if (e < 0) n else e + 2; out += ' ' }
      else if (src.startsWith("\"\"\"", i)) { val e = src.indexOf("\"\"\"", i + 3); i = if (e < 0) n else e + 3; out ++= "\"\"" }
      else if (src(i) == '"') {
        i += 1
        while (i < n && src(i) != '"' && src(i) != '\n') { if (src(i) == '\\') i += 1; i += 1 }
        i += 1; out ++= "\"\""
      } else if (src(i) == '\'' && i + 2 < n && src(i + 2) == '\'') { i += 3; out ++= "' '" }
      else { out += src(i); i += 1 }
    }
    out.result()
  }

  private val PackageLine = """(?m)^package\s+([\w.]+)""".r

  private def packageOf(c: String): Option[String] =
    PackageLine.findFirstMatchIn(c).map(_.group(1)).filter(_.startsWith("ecmsketch")).map(short)

  /** A family's sub-package (ecm.dyadic) counts as the family (ecm) in the graph. */
  def family(p: String): String = { val top = p.takeWhile(_ != '.'); if (Families(top)) top else p }

  /** "parent -> parent.child" for each file of a package that refers to one of its sub-packages
    * (fully qualified, or relatively as `child.`): sub-packages build on their parent, not the reverse.
    */
  def parentToChild(sources: Seq[String]): Seq[String] = {
    val codes = sources.map(code)
    val pkgs = codes.flatMap(packageOf).toSet
    (for {
      c <- codes; p <- packageOf(c).toSeq; child <- pkgs if child.startsWith(p + ".")
      sub = child.stripPrefix(p + ".").takeWhile(_ != '.')
      if c.contains(s"ecmsketch.$child") || s"(?<![\\w.])$sub\\.".r.findFirstIn(c).isDefined
    } yield s"$p -> $child").distinct.sorted
  }
  // ecmsketch.<pkg>. or ecmsketch.<Object> (root), not preceded by an identifier or a dot
  private val Reference = """(?<![\w.])ecmsketch\.(?:([a-z]\w*)\.|([A-Z]\w*))""".r

  /** Package -> the ecmsketch packages it refers to (itself excluded). */
  def dependencies(sources: Seq[String]): Map[String, Set[String]] = {
    val pairs = sources.map { src =>
      val c = code(src)
      val pkg = PackageLine.findFirstMatchIn(c).map(_.group(1)).getOrElse("")
      val self = if (pkg.startsWith("ecmsketch")) family(short(pkg)) else pkg
      val refs = Reference.findAllMatchIn(c).map(m => if (m.group(1) != null) m.group(1) else "root").toSet
      self -> (refs - self)
    }
    pairs.groupBy(_._1).map { case (k, ps) => k -> ps.map(_._2).reduce(_ ++ _) } // (2.12 has no groupMapReduce)
  }

  def mutualPairs(g: Map[String, Set[String]]): Seq[String] =
    (for { (a, ds) <- g.toSeq; b <- ds if a < b && g.getOrElse(b, Set.empty).contains(a) } yield s"$a <-> $b").sorted
}
