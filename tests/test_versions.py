"""The Spark versions the wheel serves: one jar per Scala binary version, picked by configure/register
from the running Spark, and a clear error naming the supported versions on any other Spark.

Runs on every pyspark of the tested range (`make test-matrix`; `make test` runs it on the oldest and
the newest): each run checks the jar it picked against the Scala version of the JVM it runs in.
"""
from __future__ import annotations

import glob
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pyspark
import pytest
from pyspark.sql import SparkSession

import ecmsketch
from ecmsketch import _jvm

pytestmark = pytest.mark.matrix

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def jvm_scala_binary(spark) -> str:
    """Scala binary version of the session's JVM ("2.12" or "2.13"), asked from the JVM itself."""
    full = str(spark._jvm.scala.util.Properties.versionNumberString())
    return ".".join(full.split(".")[:2])


@pytest.mark.parametrize("version, scala", [
    ("3.5.0", "2.12"), ("3.5.9", "2.12"), ("4.0.0", "2.13"), ("4.0.1", "2.13"), ("4.1.4", "2.13"),
    ("4.2.1", "2.13"), ("4.3.0", "2.13"), ("4.3.0.dev1", "2.13"),
])
def test_scala_binary_of_supported_versions(version, scala):
    assert ecmsketch.scala_binary_for(version) == scala
    assert ecmsketch.spark_jar_path(version) == ecmsketch.jar_path(scala)
    assert os.path.basename(ecmsketch.spark_jar_path(version)) == f"ecmsketch_{scala}.jar"


@pytest.mark.parametrize("version", ["3.4.4", "3.3.0", "2.4.8", "4.4.0", "5.0.0", "", "four"])
def test_unsupported_versions_name_the_supported_ones(version):
    with pytest.raises(ecmsketch.SketchError) as e:
        ecmsketch.scala_binary_for(version)
    msg = str(e.value)
    assert f"this is Spark {version}" in msg
    assert "Spark 3.5 (Scala 2.12) and Spark 4.0 to 4.3 (Scala 2.13)" in msg


def test_both_jars_are_bundled_and_differ():
    """The package has the jar of each Scala line; they hold the same classes, built apart."""
    a, b = ecmsketch.jar_path("2.12"), ecmsketch.jar_path("2.13")
    with zipfile.ZipFile(a) as za, zipfile.ZipFile(b) as zb:
        na = {n for n in za.namelist() if n.endswith(".class")}
        nb = {n for n in zb.namelist() if n.endswith(".class")}
        assert "ecmsketch/spark/EcmSketchExtensions.class" in na & nb
        assert "ecmsketch/spark/SessionShim$.class" in na & nb
        assert za.read("ecmsketch/spark/SessionShim$.class") != zb.read("ecmsketch/spark/SessionShim$.class")
    with pytest.raises(ecmsketch.SketchError, match="Scala '2.11'"):
        ecmsketch.jar_path("2.11")


def test_configure_picks_the_jar_of_the_running_spark(spark):
    """The session of the test-suite was built by configure: its jar is the one of its JVM's Scala
    version, and the functions work (an aggregate, a scalar and named arguments)."""
    scala = jvm_scala_binary(spark)
    assert scala == ecmsketch.scala_binary_for(spark.version) == ecmsketch.scala_binary_for(pyspark.__version__)
    jars = spark.conf.get("spark.jars").split(",")
    assert ecmsketch.jar_path(scala) in jars
    assert ecmsketch.jar_path("2.13" if scala == "2.12" else "2.12") not in jars
    row = spark.sql("SELECT eh_count(eh_agg(id, 1000, 0.1)) AS c, "
                    "sketch_info(dwave_agg(id, 1000, 0.1, max_arrivals => 5000)).max_arrivals AS u "
                    "FROM range(1000)").collect()[0]
    assert abs(row["c"] - 1000) <= 0.1 * 1000 and row["u"] == 5000


def test_register_on_a_running_session(spark):
    """register() works on the session (again: registration replaces the functions)."""
    ecmsketch.register(spark)
    assert spark.sql("SELECT eh_count(eh_agg(id)) FROM range(10)").collect()[0][0] == 10


def test_configure_refuses_an_unsupported_pyspark(monkeypatch):
    b = SparkSession.Builder()
    monkeypatch.setattr(pyspark, "__version__", "3.4.4")
    with pytest.raises(ecmsketch.SketchError, match=r"supports Spark 3\.5 \(Scala 2\.12\) and Spark 4\.0 to 4\.3"):
        ecmsketch.configure(b)
    assert "spark.jars" not in b._options and "spark.sql.extensions" not in b._options


def test_register_refuses_an_unsupported_spark():
    class FutureSession:
        _jsparkSession = object()
        version = "5.0.0"

    with pytest.raises(ecmsketch.SketchError, match="this is Spark 5.0.0"):
        ecmsketch.register(FutureSession())


def test_bytes_level_api_uses_the_jar_of_the_scala_library_it_finds():
    """JPype needs no Spark: it takes pyspark's Scala library (2.13 on pyspark 4, 2.12 on 3.5) and
    the jar of that version."""
    binary, lib = _jvm.scala_library()
    shipped = glob.glob(os.path.join(os.path.dirname(pyspark.__file__), "jars", "scala-library-*.jar"))
    assert len(shipped) == 1 and lib == shipped
    assert binary == ecmsketch.scala_binary_for(pyspark.__version__)
    from ecmsketch import ExpHistogram
    h = ExpHistogram.create(window=100, epsilon=0.1)
    h.add_many(np.arange(50))
    assert abs(h.count() - 50) <= 5


def test_bytes_level_scala_library_from_the_environment(monkeypatch, tmp_path):
    for name, binary in [("scala-library-2.12.18.jar", "2.12"), ("scala-library-2.13.16.jar", "2.13"),
                         ("scala-lib.jar", "2.13")]:
        monkeypatch.setenv("ECMSKETCH_SCALA_LIB", os.pathsep.join([str(tmp_path / name), str(tmp_path / "x.jar")]))
        assert _jvm.scala_library() == (binary, [str(tmp_path / name), str(tmp_path / "x.jar")])


def test_register_with_the_other_lines_jar_says_which_jar_it_needs(tmp_path):
    """A session given the jar of the other Scala line (by hand, without configure): register()
    fails with a message naming the right jar, not a NoSuchMethodError."""
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {os.path.join(ROOT, "tests")!r})
        import conftest  # noqa: F401  (environment)
        import ecmsketch
        from pyspark.sql import SparkSession
        right = ecmsketch.scala_binary_for(__import__("pyspark").__version__)
        wrong = ecmsketch.jar_path("2.13" if right == "2.12" else "2.12")
        spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
                 .config("spark.jars", wrong).getOrCreate())
        try:
            ecmsketch.register(spark)
            print("NO ERROR")
        except ecmsketch.SketchError as e:
            print("SKETCH_ERROR " + str(e).replace(chr(10), " "))
        finally:
            spark.stop()
    """)
    p = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith(("SKETCH_ERROR", "NO ERROR"))]
    assert lines, p.stdout[-2000:] + p.stderr[-4000:]
    right = ecmsketch.scala_binary_for(pyspark.__version__)
    assert lines[0].startswith("SKETCH_ERROR"), lines[0]
    assert f"ecmsketch_{right}.jar" in lines[0] and f"Spark {pyspark.__version__}" in lines[0], lines[0]


def test_register_adds_the_functions_to_a_session_without_the_extension():
    """A session started with the right jar only (no spark.sql.extensions): the functions are absent
    until register(), and work after it (on Spark 4.3 through its qualified-name registration)."""
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {os.path.join(ROOT, "tests")!r})
        import conftest  # noqa: F401  (environment)
        import ecmsketch
        from pyspark.sql import SparkSession
        spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
                 .config("spark.jars", ecmsketch.spark_jar_path()).getOrCreate())
        try:
            before = spark.catalog.functionExists("eh_agg")
            ecmsketch.register(spark)
            after = spark.catalog.functionExists("eh_agg")
            c = spark.sql("SELECT eh_count(eh_agg(id)) FROM range(10)").collect()[0][0]
            print(f"RESULT {{before}} {{after}} {{c}}")
        finally:
            spark.stop()
    """)
    p = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT")]
    assert lines, p.stdout[-2000:] + p.stderr[-4000:]
    assert lines[0] == "RESULT False True 10.0", lines[0]


def test_scala_library_version_is_read_from_the_jar_itself(monkeypatch, tmp_path):
    """A scala-library jar renamed without its version: library.properties inside it decides."""
    import zipfile
    for version, binary in [("2.12.18", "2.12"), ("2.13.16", "2.13")]:
        jar = tmp_path / f"lib-{binary}.jar"
        with zipfile.ZipFile(jar, "w") as z:
            z.writestr("library.properties", f"version.number={version}\nmaven.version.number={version}\n")
        monkeypatch.setenv("ECMSKETCH_SCALA_LIB", str(tmp_path / f"scala-library.jar") + os.pathsep + str(jar))
        # the entry named scala-library* is the one read: point it at the versioned jar
        (tmp_path / "scala-library.jar").write_bytes(jar.read_bytes())
        assert _jvm.scala_library()[0] == binary
