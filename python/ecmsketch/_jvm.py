"""Starts (once) the in-process JVM that the bytes-level sketch objects use, through JPype.

The classpath is a bundled ecmsketch jar plus the Scala library that pyspark ships (or the jars in
``ECMSKETCH_SCALA_LIB``, a path-separated list). The jar is the Scala 2.13 one whenever a 2.13 library
is there (pyspark 4.x, or ECMSKETCH_SCALA_LIB); with only pyspark 3.5's Scala 2.12 library it is the
2.12 one (the sketch bytes are the same). PySpark runs its own JVM in another process, so both can be
used in one Python process.
"""
from __future__ import annotations

import glob
import os
import re
import threading
from typing import Any, List, Tuple

_lock = threading.Lock()
_api: Any = None


def _binary_of(jar: str) -> str:
    """The Scala binary version of a scala-library jar: its library.properties, else its file name,
    else 2.13."""
    import zipfile
    try:
        with zipfile.ZipFile(jar) as z:
            m = re.search(r"^version\.number=(2\.1[23])\.", z.read("library.properties").decode("utf-8", "replace"), re.M)
        if m:
            return m.group(1)
    except (OSError, KeyError, zipfile.BadZipFile):
        pass
    m = re.search(r"scala-library-(2\.1[23])\.", os.path.basename(jar))
    return m.group(1) if m else "2.13"


def scala_library() -> Tuple[str, List[str]]:
    """(Scala binary version, jars) of the Scala library: ECMSKETCH_SCALA_LIB (its version read from
    the scala-library jar's library.properties, else its name, 2.13 when neither says), or the one
    pyspark ships."""
    env = os.environ.get("ECMSKETCH_SCALA_LIB")
    if env:
        jars = [p for p in env.split(os.pathsep) if p]
        lib = [j for j in jars if "scala-library" in os.path.basename(j)]
        return (_binary_of(lib[0]) if lib else "2.13"), jars
    try:
        import pyspark
    except ImportError as e:
        raise RuntimeError("the bytes-level API needs the Scala library: install pyspark or set "
                           "ECMSKETCH_SCALA_LIB to scala-library-2.13.x.jar") from e
    found = glob.glob(os.path.join(os.path.dirname(pyspark.__file__), "jars", "scala-library-2.1[23].*.jar"))
    for binary in ("2.13", "2.12"):
        jars = [j for j in found if _binary_of(j) == binary]
        if jars:
            return binary, jars
    raise RuntimeError("pyspark ships no scala-library 2.12 or 2.13 jar; set ECMSKETCH_SCALA_LIB")


def api() -> Any:
    """The JVM facade ``ecmsketch.api.PyApi`` (starting the JVM on first use)."""
    global _api
    if _api is not None:
        return _api
    with _lock:
        if _api is None:
            import jpype
            from . import jar_path
            binary, lib = scala_library()
            cp = [jar_path(binary)] + lib
            if not jpype.isJVMStarted():
                jpype.startJVM(classpath=cp, convertStrings=False)
            else:
                for p in cp:
                    jpype.addClassPath(p)
            _api = jpype.JClass("ecmsketch.api.PyApi")
    return _api


def java_error(e: BaseException) -> str:
    """The message of a Java exception raised through JPype."""
    msg = getattr(e, "getMessage", None)
    try:
        return str(msg()) if callable(msg) else str(e)
    except Exception:  # pragma: no cover
        return str(e)
