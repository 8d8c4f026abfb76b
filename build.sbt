// ecmsketch: sliding-window stream sketches for Spark SQL.
//
// Three sbt projects, so that the compiler keeps Spark out of the sketch core:
//   core   jvm/core    the sketches and everything around them that needs no Spark: ecmsketch.core,
//                      .window, .dwave, .rwave, .ecm, .asynchronous, .decayed, .hash, .format, .ingest,
//                      .api (PyApi, used from Python through JPype) and the root (Families). Plain
//                      Scala: Spark is not on its classpath, not even Provided. Tests: every suite of
//                      the sketches, with the golden files (jvm/core/src/test/resources/golden).
//   spark  jvm/spark   ecmsketch.spark (Catalyst aggregates and scalars, registration) and
//                      org.apache.spark.sql.ecmsketch; depends on core, Spark is Provided. Code that
//                      differs between the Spark lines lives in jvm/spark/src/main/spark-3.5 and
//                      jvm/spark/src/main/spark-4; the rest (jvm/spark/src/main/scala) is shared.
//                      Tests: the DataFrame API (ecmsketch.spark.functions, from Scala and Java)
//                      against the SQL functions, on a local SparkSession (Spark is on the test
//                      classpath as Provided; the common settings fork the JVM).
//   bench  jvm/bench   benchmarks and the paper reproduction (`bench/runMain ecmsketch.bench.CoreBench`,
//                      `bench/run` runs CoreBench) and the suites of their baselines; depends on spark
//                      and on core's test helpers. Not published, not in the jar.
// The root project aggregates the three (`test` runs every suite of all three) and builds the one jar
// users get, core's and spark's classes together.
//
// Cross-built (`scripts/sbt +package`, or `++2.12` / `++2.13`): one jar per Scala binary version,
// each compiled against the oldest Spark of its line, and shipped side by side in the wheel:
//   Scala 2.13 + Spark 4.0.1 -> target/ecmsketch_2.13.jar  (runs on Spark 4.0 .. 4.3)
//   Scala 2.12 + Spark 3.5.x -> target/ecmsketch_2.12.jar  (runs on Spark 3.5)

val scala213 = "2.13.16"
val scala212 = "2.12.20"

def sparkVersionFor(scalaBinary: String): String = scalaBinary match {
  case "2.12" => "3.5.9"
  case _ => "4.0.1"
}

val sparkSql = Def.setting("org.apache.spark" %% "spark-sql" % sparkVersionFor(scalaBinaryVersion.value) % Provided)

val Only213Suites = Set("GoldenSuite.scala", "CodecSuite.scala", "FormatVersionsSuite.scala", "IngestSuite.scala",
  "DistinctSketchSuite.scala", "TimeDisjointSuite.scala", "ChecksumSuite.scala")

// 2.12 warns where a test in package p imports p.X ("permanently hidden", then "Unused import":
// harmless, the same X); 2.13 does not
val quiet212 = Def.setting(if (scalaBinaryVersion.value == "2.12")
  Seq("-Wconf:msg=permanently hidden:s", "-Wconf:cat=unused-imports:s") else Nil)

ThisBuild / organization := "io.ecmsketch"
ThisBuild / version := "0.2.0"
ThisBuild / scalaVersion := scala213
ThisBuild / crossScalaVersions := Seq(scala213, scala212)

// One forked test JVM at a time (core's, spark's, then bench's): each takes -Xmx4g and runs its suites
// in parallel threads on every core, as the single test JVM did before the split.
Global / concurrentRestrictions += Tags.limit(Tags.ForkedTestGroup, 1)

// Compiler options, test libraries and the forked JVMs of tests and runs: the same in every project.
lazy val common = Seq(
  javacOptions ++= Seq("--release", "17"),
  scalacOptions ++= Seq("-release", "17", "-deprecation", "-feature", "-unchecked", "-Xlint:_"),
  // Scala 2.12 finds `sketch.count` (the nullary count: Long beside count(range, now)) ambiguous where
  // 2.13 takes the nullary one, and its Random has no nextLong(bound): these suites use them freely
  // (GoldenSuite may not be edited) and run on 2.13 only, as does ChecksumSuite, which mutates their
  // sketches (tests/test_integrity.py checks that both lines write the same bytes); every other Scala
  // suite runs on both.
  Test / scalacOptions ++= quiet212.value,
  Test / unmanagedSources := {
    val all = (Test / unmanagedSources).value
    if (scalaBinaryVersion.value == "2.12") all.filterNot(f => Only213Suites.contains(f.getName)) else all
  },
  libraryDependencies ++= Seq(
    "org.scalatest" %% "scalatest" % "3.2.19" % Test,
    "org.scalatestplus" %% "scalacheck-1-18" % "3.2.19.0" % Test,
    "org.scalacheck" %% "scalacheck" % "1.18.1" % Test
  ),
  // Tests run in a forked JVM with the options below.
  Test / fork := true,
  // suites run in parallel threads of the forked JVM (on 2 idle cores 217 s instead of 346 s one
  // after another); no suite relies on JVM-wide state (memory is measured per thread)
  Test / testForkedParallel := true,
  Test / javaOptions ++= Seq("-Xmx4g", "-XX:+UseParallelGC",
    "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED"),
  Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"),
  // runs (the benchmarks, `core/Test/runMain ecmsketch.format.FormatVersionsSuite`) fork and start in
  // the build root: they read and write bench/results/ and jvm/core/src/test/resources/golden/
  run / fork := true,
  Compile / run / baseDirectory := (ThisBuild / baseDirectory).value,
  Test / run / baseDirectory := (ThisBuild / baseDirectory).value,
  publish / skip := true
)

lazy val core = (project in file("jvm/core"))
  .settings(common, name := "ecmsketch-core")

lazy val spark = (project in file("jvm/spark"))
  .dependsOn(core)
  .settings(
    common,
    name := "ecmsketch-spark",
    Compile / unmanagedSourceDirectories += {
      val main = (Compile / sourceDirectory).value
      scalaBinaryVersion.value match {
        case "2.12" => main / "spark-3.5"
        case _ => main / "spark-4"
      }
    },
    libraryDependencies += sparkSql.value
  )

lazy val bench = (project in file("jvm/bench"))
  .dependsOn(spark, core % "compile->compile;compile->test")
  .settings(
    common,
    name := "ecmsketch-bench",
    scalacOptions ++= quiet212.value,
    // QuantileBench's and TopKBench's baselines: the KLL and frequent-items sketches behind Spark 4's
    // kll_sketch_agg_double and approx_top_k (Spark 4.0.1 ships datasketches-java 6.1.1; Spark itself is
    // Provided and not on bench's classpath; not shipped)
    libraryDependencies += "org.apache.datasketches" % "datasketches-java" % "6.1.1",
    Compile / run / mainClass := Some("ecmsketch.bench.CoreBench")
  )

lazy val root = (project in file("."))
  .aggregate(core, spark, bench)
  .settings(
    name := "ecmsketch",
    // The jar users get: core's and spark's classes (and resources) in one.
    // The jars go into the Python package: python/ecmsketch/jars/ecmsketch_<scala binary>.jar (see Makefile).
    Compile / packageBin / mappings :=
      (core / Compile / packageBin / mappings).value ++ (spark / Compile / packageBin / mappings).value,
    Compile / packageBin / artifactPath := baseDirectory.value / "target" / s"ecmsketch_${scalaBinaryVersion.value}.jar",
    // its pom names Spark (Provided), as before the split
    libraryDependencies += sparkSql.value,
    // `package` builds this jar only: the projects' own jars are not needed (and bench's would compile
    // core's tests); `run` is bench's
    Compile / packageBin / aggregate := false,
    Compile / Keys.`package` / aggregate := false,
    run / aggregate := false,
    Compile / run := (bench / Compile / run).evaluated
  )
