// ecmsketch: sliding-window stream sketches for Spark SQL.
// The core (ecmsketch.window, ecmsketch.ecm, ecmsketch.hash, ecmsketch.format) has no Spark
// dependency; ecmsketch.spark adapts it to Catalyst. Spark is Provided and pinned to the same
// version as the pyspark in requirements (pyproject.toml).

val sparkVersion = "4.0.1"

ThisBuild / organization := "io.ecmsketch"
ThisBuild / version := "0.1.0"
ThisBuild / scalaVersion := "2.13.16"

lazy val root = (project in file("."))
  .settings(
    name := "ecmsketch",
    Compile / scalaSource := baseDirectory.value / "jvm" / "src" / "main" / "scala",
    Test / scalaSource := baseDirectory.value / "jvm" / "src" / "test" / "scala",
    Compile / resourceDirectory := baseDirectory.value / "jvm" / "src" / "main" / "resources",
    Test / resourceDirectory := baseDirectory.value / "jvm" / "src" / "test" / "resources",
    javacOptions ++= Seq("--release", "17"),
    scalacOptions ++= Seq("-release", "17", "-deprecation", "-feature", "-unchecked", "-Xlint:_"),
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test,
      "org.scalatestplus" %% "scalacheck-1-18" % "3.2.19.0" % Test,
      "org.scalacheck" %% "scalacheck" % "1.18.1" % Test
    ),
    // Spark's classes are needed by the Spark-layer tests.
    Test / fork := true,
    Test / javaOptions ++= Seq("-Xmx4g", "-XX:+UseParallelGC",
      "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED"),
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"),
    // The jar goes into the Python package: python/ecmsketch/jars/ecmsketch.jar (see Makefile).
    Compile / packageBin / artifactPath := baseDirectory.value / "target" / "ecmsketch.jar",
    run / fork := true,
    Compile / run / mainClass := Some("ecmsketch.bench.CoreBench")
  )
