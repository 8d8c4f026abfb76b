"""Starts (once) the in-process JVM that the bytes-level sketch objects use, through JPype.

The classpath is the bundled ecmsketch jar plus the Scala library that pyspark ships (or the jars in
``ECMSKETCH_SCALA_LIB``, a path-separated list). PySpark runs its own JVM in another process, so
both can be used in one Python process.
"""
from __future__ import annotations

import glob
import os
import threading
from typing import Any, List

_lock = threading.Lock()
_api: Any = None


def scala_library() -> List[str]:
    """Jars of the Scala 2.13 library: ECMSKETCH_SCALA_LIB, or the one pyspark ships."""
    env = os.environ.get("ECMSKETCH_SCALA_LIB")
    if env:
        return [p for p in env.split(os.pathsep) if p]
    try:
        import pyspark
    except ImportError as e:
        raise RuntimeError("the bytes-level API needs the Scala 2.13 library: install pyspark or set "
                           "ECMSKETCH_SCALA_LIB to scala-library-2.13.x.jar") from e
    jars = glob.glob(os.path.join(os.path.dirname(pyspark.__file__), "jars", "scala-library-2.13*.jar"))
    if not jars:
        raise RuntimeError("pyspark ships no scala-library-2.13 jar; set ECMSKETCH_SCALA_LIB")
    return jars


def api() -> Any:
    """The JVM facade ``ecmsketch.api.PyApi`` (starting the JVM on first use)."""
    global _api
    if _api is not None:
        return _api
    with _lock:
        if _api is None:
            import jpype
            from . import jar_path
            cp = [jar_path()] + scala_library()
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
