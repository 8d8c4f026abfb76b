// ecmsketch: sliding-window stream sketches for Spark SQL.
// The core (ecmsketch.window, ecmsketch.ecm, ecmsketch.hash, ecmsketch.format) has no Spark
// dependency; ecmsketch.spark adapts it to Catalyst. Spark is Provided.
//
// Cross-built (`scripts/sbt +package`, or `++2.12` / `++2.13`): one jar per Scala binary version,
// each compiled against the oldest Spark of its line, and shipped side by side in the wheel:
//   Scala 2.13 + Spark 4.0.1 -> target/ecmsketch_2.13.jar  (runs on Spark 4.0 .. 4.3)
//   Scala 2.12 + Spark 3.5.x -> target/ecmsketch_2.12.jar  (runs on Spark 3.5)
// Spark-layer code that differs between the lines lives in jvm/src/main/spark-3.5 and
// jvm/src/main/spark-4; the rest is shared.

val scala213 = "2.13.16"
val scala212 = "2.12.20"

def sparkVersionFor(scalaBinary: String): String = scalaBinary match {
  case "2.12" => "3.5.9"
  case _ => "4.0.1"
}

val Only213Suites = Set("GoldenSuite.scala", "CodecSuite.scala", "FormatVersionsSuite.scala", "IngestSuite.scala",
  "DistinctSketchSuite.scala", "TimeDisjointSuite.scala")

ThisBuild / organization := "io.ecmsketch"
ThisBuild / version := "0.2.0"
ThisBuild / scalaVersion := scala213
ThisBuild / crossScalaVersions := Seq(scala213, scala212)

lazy val root = (project in file("."))
  .settings(
    name := "ecmsketch",
    Compile / scalaSource := baseDirectory.value / "jvm" / "src" / "main" / "scala",
    Compile / unmanagedSourceDirectories ++= {
      val main = baseDirectory.value / "jvm" / "src" / "main"
      scalaBinaryVersion.value match {
        case "2.12" => Seq(main / "spark-3.5")
        case _ => Seq(main / "spark-4")
      }
    },
    Test / scalaSource := baseDirectory.value / "jvm" / "src" / "test" / "scala",
    Compile / resourceDirectory := baseDirectory.value / "jvm" / "src" / "main" / "resources",
    Test / resourceDirectory := baseDirectory.value / "jvm" / "src" / "test" / "resources",
    javacOptions ++= Seq("--release", "17"),
    scalacOptions ++= Seq("-release", "17", "-deprecation", "-feature", "-unchecked", "-Xlint:_"),
    // Scala 2.12 finds `sketch.count` (the nullary count: Long beside count(range, now)) ambiguous where
    // 2.13 takes the nullary one, and its Random has no nextLong(bound): these suites use them freely
    // (GoldenSuite may not be edited) and run on 2.13 only; every other Scala suite runs on both.
    // 2.12 warns where a test in package p imports p.X ("permanently hidden", then "Unused import":
    // harmless, the same X); 2.13 does not
    Test / scalacOptions ++= (if (scalaBinaryVersion.value == "2.12")
      Seq("-Wconf:msg=permanently hidden:s", "-Wconf:cat=unused-imports:s") else Nil),
    Test / unmanagedSources := {
      val all = (Test / unmanagedSources).value
      if (scalaBinaryVersion.value == "2.12") all.filterNot(f => Only213Suites.contains(f.getName)) else all
    },
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersionFor(scalaBinaryVersion.value) % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test,
      "org.scalatestplus" %% "scalacheck-1-18" % "3.2.19.0" % Test,
      "org.scalacheck" %% "scalacheck" % "1.18.1" % Test
    ),
    // Spark's classes are needed by the Spark-layer tests.
    Test / fork := true,
    // suites run in parallel threads of the forked JVM (on 2 idle cores 217 s instead of 346 s one
    // after another); no suite relies on JVM-wide state (memory is measured per thread)
    Test / testForkedParallel := true,
    Test / javaOptions ++= Seq("-Xmx4g", "-XX:+UseParallelGC",
      "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED"),
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"),
    // The jars go into the Python package: python/ecmsketch/jars/ecmsketch_<scala binary>.jar (see Makefile).
    Compile / packageBin / artifactPath := baseDirectory.value / "target" / s"ecmsketch_${scalaBinaryVersion.value}.jar",
    run / fork := true,
    Compile / run / mainClass := Some("ecmsketch.bench.CoreBench")
  )
