"""The Python API's shape: what ``ecmsketch`` exports, how the sketch classes are built, decoded,
merged and shown. The answers of the sketches are tested elsewhere; here every class is checked
against the same conventions."""
from __future__ import annotations

import inspect
import os
import subprocess
import sys

import ecmsketch
import ecmsketch.sketches as sketches

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def sketch_classes() -> list:
    """The public classes of ecmsketch.sketches."""
    return [getattr(sketches, n) for n in sketches.__all__ if inspect.isclass(getattr(sketches, n))]


def run_python(code: str) -> str:
    """Runs ``code`` in a fresh interpreter on this checkout's package; returns its stdout."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


# ------------------------------------------------------------------ exports


def test_there_are_eight_sketch_classes():
    assert sorted(c.__name__ for c in sketch_classes()) == [
        "AsyncQuantile", "AsyncSum", "DecayedSketch", "DetWave", "DistinctSketch", "DyadicSketch", "EcmSketch",
        "ExpHistogram"]


def test_every_sketch_class_is_exported_from_the_package():
    for cls in sketch_classes():
        name = cls.__name__
        assert name in ecmsketch.__all__, name
        assert getattr(ecmsketch, name) is cls, name
        assert name in dir(ecmsketch), name
    star: dict = {}
    exec("from ecmsketch import *", star)
    assert {c.__name__ for c in sketch_classes()} <= set(star)
    for name in ecmsketch.__all__:  # every exported name resolves
        assert getattr(ecmsketch, name) is not None, name


def test_sketch_classes_load_on_first_access():
    """``import ecmsketch`` imports neither the sketch classes nor numpy; the first access does."""
    out = run_python("import sys, ecmsketch\n"
                     "print('ecmsketch.sketches' in sys.modules, 'numpy' in sys.modules)\n"
                     "from ecmsketch import DecayedSketch, AsyncQuantile\n"
                     "print('ecmsketch.sketches' in sys.modules, DecayedSketch.__name__)\n")
    assert out.split() == ["False", "False", "True", "DecayedSketch"]
