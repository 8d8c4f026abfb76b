"""ecmsketch: sliding-window stream sketches for Spark SQL and Python.

* :func:`configure` adds the bundled jar and the SQL extension to a ``SparkSession.Builder``;
  :func:`register` registers the SQL functions on a running session.
* :mod:`ecmsketch.functions` has typed PySpark wrappers for every SQL function.
* :class:`EcmSketch`, :class:`ExpHistogram`, :class:`DetWave` and :class:`DistinctSketch` read,
  query and merge serialized sketches without Spark (through JPype).
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: The class to put in ``spark.sql.extensions``.
EXTENSION_CLASS = "ecmsketch.spark.EcmSketchExtensions"

__all__ = [
    "configure", "register", "jar_path", "EXTENSION_CLASS", "SketchError", "EcmSketch", "ExpHistogram", "DetWave",
    "DistinctSketch",
]


class SketchError(ValueError):
    """Bad input for a sketch: a wrong argument, mismatched parameters or corrupt bytes."""


def jar_path() -> str:
    """Absolute path of the ecmsketch jar bundled in this package."""
    p = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars", "ecmsketch.jar")
    if not os.path.isfile(p):
        raise FileNotFoundError(
            f"the ecmsketch jar is missing at {p}; build it with 'make jar' (a source checkout) or reinstall the package")
    return p


def configure(builder: Any) -> Any:
    """Adds the bundled jar to ``spark.jars`` and the SQL extension to ``spark.sql.extensions`` of a
    ``SparkSession.Builder`` (keeping values already set there) and returns the builder."""
    jar = jar_path()
    opts = getattr(builder, "_options", {}) or {}
    jars = [j for j in str(opts.get("spark.jars", "")).split(",") if j]
    if jar not in jars:
        jars.append(jar)
    exts = [e for e in str(opts.get("spark.sql.extensions", "")).split(",") if e]
    if EXTENSION_CLASS not in exts:
        exts.append(EXTENSION_CLASS)
    return builder.config("spark.jars", ",".join(jars)).config("spark.sql.extensions", ",".join(exts))


def register(spark: Any) -> None:
    """Registers the SQL functions on a running classic SparkSession whose JVM has the jar (e.g.
    started with :func:`configure` or ``--jars``). Under Spark Connect, set
    ``spark.sql.extensions=ecmsketch.spark.EcmSketchExtensions`` on the server instead."""
    jss = getattr(spark, "_jsparkSession", None)
    if jss is None:
        raise SketchError("register() needs a classic SparkSession; under Spark Connect configure the server with "
                          f"spark.sql.extensions={EXTENSION_CLASS}")
    try:
        spark._jvm.ecmsketch.spark.Register.register(jss)
    except TypeError as e:  # py4j: the class is unknown to this JVM
        raise SketchError("the ecmsketch jar is not on this session's classpath; build the session with "
                          "ecmsketch.configure(SparkSession.builder)") from e


def __getattr__(name: str) -> Any:
    if name in ("EcmSketch", "ExpHistogram", "DetWave", "DistinctSketch"):
        from . import sketches
        return getattr(sketches, name)
    raise AttributeError(name)


if TYPE_CHECKING:  # pragma: no cover
    from .sketches import DetWave, DistinctSketch, EcmSketch, ExpHistogram  # noqa: F401
