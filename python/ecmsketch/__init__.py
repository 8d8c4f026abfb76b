"""ecmsketch: sliding-window stream sketches for Spark SQL and Python.

* :func:`configure` adds the bundled jar and the SQL extension to a ``SparkSession.Builder``;
  :func:`register` registers the SQL functions on a running session.
* :mod:`ecmsketch.functions` has typed PySpark wrappers for every SQL function.
* The sketch classes :class:`EcmSketch`, :class:`ExpHistogram`, :class:`DetWave`,
  :class:`DistinctSketch`, :class:`DyadicSketch`, :class:`AsyncSum`, :class:`AsyncQuantile`,
  :class:`DecayedSketch`, :class:`QuantileSketch` and :class:`FrequentSketch` build, read, query and
  merge serialized sketches without Spark (through JPype). They live in :mod:`ecmsketch.sketches` and are imported from there on first use.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, List, Optional

__version__ = "0.2.0"

#: The class to put in ``spark.sql.extensions``.
EXTENSION_CLASS = "ecmsketch.spark.EcmSketchExtensions"

#: The sketch classes of :mod:`ecmsketch.sketches`, importable from here (loaded on first access,
#: so that ``import ecmsketch`` stays light).
_SKETCH_CLASSES = ("EcmSketch", "ExpHistogram", "DetWave", "DistinctSketch", "DyadicSketch", "AsyncSum",
                   "AsyncQuantile", "DecayedSketch", "QuantileSketch", "FrequentSketch", "sketch_info")

__all__ = [
    "configure", "register", "jar_path", "spark_jar_path", "scala_binary_for", "SUPPORTED_SPARK", "EXTENSION_CLASS",
    "SketchError", "EcmSketch", "ExpHistogram", "DetWave", "DistinctSketch", "DyadicSketch", "AsyncSum",
    "AsyncQuantile", "DecayedSketch", "QuantileSketch", "FrequentSketch", "sketch_info",
]


class SketchError(ValueError):
    """Bad input for a sketch: a wrong argument, mismatched parameters or corrupt bytes."""


#: The Spark versions this package serves, by (major, minor): the Scala binary version of the jar each
#: needs. One jar per Scala binary version is bundled (``jars/ecmsketch_<scala>.jar``).
SUPPORTED_SPARK = {(3, 5): "2.12", (4, 0): "2.13", (4, 1): "2.13", (4, 2): "2.13", (4, 3): "2.13"}
SUPPORTED_SPARK_TEXT = "Spark 3.5 (Scala 2.12) and Spark 4.0 to 4.3 (Scala 2.13)"


def scala_binary_for(spark_version: str) -> str:
    """The Scala binary version ("2.12" or "2.13") of the jar that serves Spark ``spark_version``
    (e.g. "3.5.9", "4.3.0"); a :class:`SketchError` naming the supported versions for any other."""
    parts = str(spark_version).split(".")
    try:
        key = (int(parts[0]), int(parts[1]))
    except (IndexError, ValueError):
        key = None
    if key not in SUPPORTED_SPARK:
        raise SketchError(f"ecmsketch {__version__} supports {SUPPORTED_SPARK_TEXT}; this is Spark {spark_version}. "
                          "Use a supported pyspark/Spark version.")
    return SUPPORTED_SPARK[key]


def jar_path(scala_binary: Optional[str] = None) -> str:
    """Absolute path of the bundled ecmsketch jar for a Scala binary version ("2.12": Spark 3.5,
    "2.13": Spark 4.x); by default the one the installed pyspark needs (2.13 without pyspark).
    :func:`spark_jar_path` picks it from a Spark version."""
    if scala_binary is None:
        try:
            import pyspark
            scala_binary = scala_binary_for(pyspark.__version__)
        except ImportError:
            scala_binary = "2.13"
    if scala_binary not in set(SUPPORTED_SPARK.values()):
        raise SketchError(f"no ecmsketch jar for Scala {scala_binary!r}; the package bundles Scala 2.12 and 2.13 jars")
    p = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars", f"ecmsketch_{scala_binary}.jar")
    if not os.path.isfile(p):
        raise FileNotFoundError(
            f"the ecmsketch jar is missing at {p}; build it with 'make jar' (a source checkout) or reinstall the package")
    return p


def spark_jar_path(spark_version: Any = None) -> str:
    """The bundled jar that serves Spark ``spark_version`` (default: the installed pyspark's version)."""
    if spark_version is None:
        import pyspark
        spark_version = pyspark.__version__
    return jar_path(scala_binary_for(spark_version))


def configure(builder: Any) -> Any:
    """Adds the bundled jar that matches the installed pyspark (Scala 2.12 for Spark 3.5, 2.13 for
    Spark 4.x) to ``spark.jars`` and the SQL extension to ``spark.sql.extensions`` of a
    ``SparkSession.Builder`` (keeping values already set there) and returns the builder. On a Spark
    version the package does not serve it raises :class:`SketchError` naming the supported ones."""
    jar = spark_jar_path()
    opts = getattr(builder, "_options", {}) or {}
    jars = [j for j in str(opts.get("spark.jars", "")).split(",") if j]
    if jar not in jars:
        jars.append(jar)
    exts = [e for e in str(opts.get("spark.sql.extensions", "")).split(",") if e]
    if EXTENSION_CLASS not in exts:
        exts.append(EXTENSION_CLASS)
    return builder.config("spark.jars", ",".join(jars)).config("spark.sql.extensions", ",".join(exts))


def register(spark: Any) -> None:
    """Registers the SQL functions on a running classic SparkSession whose JVM has the jar of its
    Spark version (e.g. started with :func:`configure`, or ``--jars`` with :func:`spark_jar_path`).
    Under Spark Connect, set ``spark.sql.extensions=ecmsketch.spark.EcmSketchExtensions`` on the
    server instead."""
    jss = getattr(spark, "_jsparkSession", None)
    if jss is None:
        raise SketchError("register() needs a classic SparkSession; under Spark Connect configure the server with "
                          f"spark.sql.extensions={EXTENSION_CLASS}")
    version = spark.version
    scala = scala_binary_for(version)
    try:
        spark._jvm.ecmsketch.spark.Register.register(jss)
    except TypeError as e:  # py4j: the class is unknown to this JVM
        raise SketchError("the ecmsketch jar is not on this session's classpath; build the session with "
                          "ecmsketch.configure(SparkSession.builder)") from e
    except Exception as e:  # a jar of the other Scala line: NoSuchMethodError, NoClassDefFoundError, ...
        text = str(e)
        if "NoSuchMethodError" in text or "NoClassDefFoundError" in text or "LinkageError" in text:
            raise SketchError(f"the ecmsketch jar on this session's classpath is not the one for Spark {version}: "
                              f"it needs {os.path.basename(jar_path(scala))} (Scala {scala}); ecmsketch.configure "
                              "picks it") from e
        raise


def __getattr__(name: str) -> Any:
    if name in _SKETCH_CLASSES:
        from . import sketches
        return getattr(sketches, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(_SKETCH_CLASSES))


if TYPE_CHECKING:  # pragma: no cover
    from .sketches import (AsyncQuantile, AsyncSum, DecayedSketch, DetWave, DistinctSketch,  # noqa: F401
                           DyadicSketch, EcmSketch, ExpHistogram, FrequentSketch, QuantileSketch, sketch_info)
