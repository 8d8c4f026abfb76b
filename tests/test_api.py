"""The Python API's shape: what ``ecmsketch`` exports, how the sketch classes are built, decoded,
merged and shown. The answers of the sketches are tested elsewhere; here every class is checked
against the same conventions."""
from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys

import pytest

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


def test_there_are_ten_sketch_classes():
    assert sorted(c.__name__ for c in sketch_classes()) == [
        "AsyncQuantile", "AsyncSum", "DecayedSketch", "DetWave", "DistinctSketch", "DyadicSketch", "EcmSketch",
        "ExpHistogram", "FrequentSketch", "QuantileSketch"]


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


def test_pyproject_lists_every_package():
    """The wheel ships what pyproject.toml's explicit packages list names: every directory of the
    package with an __init__.py must be in it (sketches, monitor and functions are packages)."""
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        text = f.read()
    listed = set(re.findall(r'"([^"]+)"', re.search(r"^packages = \[(.*?)\]", text, re.M | re.S).group(1)))
    python = os.path.join(ROOT, "python")
    found = {os.path.relpath(d, python).replace(os.sep, ".")
             for d, _, files in os.walk(os.path.join(python, "ecmsketch")) if "__init__.py" in files}
    assert {"ecmsketch", "ecmsketch.sketches", "ecmsketch.monitor", "ecmsketch.functions"} <= found
    assert found <= listed, sorted(found - listed)


# ------------------------------------------------------------------ construction

#: Constructor arguments of a small sketch of each class, and rows to add: (args of add, ...).
BUILD = {
    "EcmSketch": (dict(epsilon=0.1, delta=0.05, window=3600), [(1, 10), (2, 11), (3, 12, 2)]),
    "ExpHistogram": (dict(epsilon=0.1, window=3600), [(10,), (11,), (12, 3)]),
    "DetWave": (dict(epsilon=0.1, window=3600, max_arrivals=1000), [(10,), (11,), (12, 3)]),
    "DistinctSketch": (dict(epsilon=0.2, delta=0.1, window=3600), [(1, 10), (7, 11), (1, 12)]),
    "DyadicSketch": (dict(epsilon=0.2, delta=0.2, window=3600, universe_bits=8), [(1, 10), (5, 11), (5, 12)]),
    "AsyncSum": (dict(epsilon=0.2, delta=0.1, window=3600), [(2, 12), (3, 10), (1, 11)]),
    "AsyncQuantile": (dict(epsilon=0.2, delta=0.1, window=3600), [(2.5, 12), (0.5, 10), (1.0, 11)]),
    "DecayedSketch": (dict(epsilon=0.2, delta=0.1, decay="exp", decay_param=100.0), [(1, 12), (2, 10), (1, 11)]),
    "QuantileSketch": (dict(epsilon=0.05, window=3600), [(2.5, 10), (0.5, 11), (1.0, 12, 2)]),
    "FrequentSketch": (dict(epsilon=0.05, window=3600), [(1, 10), (2, 11), (1, 12, 3)]),
}


def build(name: str, via_create: bool = False):
    """A sketch of class ``name`` holding BUILD's rows, made by calling the class (or ``create``)."""
    cls = getattr(ecmsketch, name)
    kwargs, rows = BUILD[name]
    s = cls.create(**kwargs) if via_create else cls(**kwargs)
    for r in rows:
        s.add(*r)
    return s


def test_build_covers_every_class():
    assert sorted(BUILD) == sorted(c.__name__ for c in sketch_classes())


@pytest.mark.parametrize("name", sorted(BUILD))
def test_calling_the_class_builds_what_create_builds(name):
    cls = getattr(ecmsketch, name)
    s = build(name)
    assert type(s) is cls
    assert s.to_bytes() == build(name, via_create=True).to_bytes()
    assert s.to_bytes() != cls(**BUILD[name][0]).to_bytes()  # the rows are in it
    # positional arguments go where create took them
    if name in ("EcmSketch", "DistinctSketch", "AsyncSum", "AsyncQuantile"):
        assert cls(0.2, 0.1, 100).to_bytes() == cls.create(0.2, 0.1, 100).to_bytes() == \
            cls(epsilon=0.2, delta=0.1, window=100).to_bytes()


@pytest.mark.parametrize("name", sorted(BUILD))
def test_wrap_takes_a_jvm_sketch(name):
    s = build(name)
    w = type(s)._wrap(s._j)
    assert type(w) is type(s) and w.to_bytes() == s.to_bytes()


@pytest.mark.parametrize("call, fragment", [
    (lambda: ecmsketch.EcmSketch(epsilon="0.1", window=10), "epsilon must be a number, got '0.1'"),
    (lambda: ecmsketch.EcmSketch(epsilon=True), "epsilon must be a number, got True"),
    (lambda: ecmsketch.EcmSketch(0.1, delta=None), "delta must be a number, got None"),
    (lambda: ecmsketch.EcmSketch(0.1, optimize_for=1), "optimize_for must be 'point' or 'inner_product', got 1"),
    (lambda: ecmsketch.EcmSketch(0.1, cell=None), "cell must be 'eh', 'dwave' or 'rwave', got None"),
    (lambda: ecmsketch.EcmSketch(epsilon=2.0), "epsilon must be in [0.001, 1), got 2.0"),
    (lambda: ecmsketch.EcmSketch(0.1, window=-5), "window must be positive"),
    (lambda: ecmsketch.ExpHistogram(None), "epsilon must be a number, got None"),
    (lambda: ecmsketch.ExpHistogram("0.1"), "epsilon must be a number, got '0.1'"),
    (lambda: ecmsketch.DetWave(0.1, max_arrivals=-1), "max_arrivals must be a positive integer"),
    (lambda: ecmsketch.DistinctSketch(0.1, "x"), "delta must be a number, got 'x'"),
    (lambda: ecmsketch.DyadicSketch(phi_min=[1]), "phi_min must be a number, got [1]"),
    (lambda: ecmsketch.DyadicSketch(cell=3), "cell must be 'eh' or 'dwave', got 3"),
    (lambda: ecmsketch.DyadicSketch(cell="rwave"), "deterministic cells"),
    (lambda: ecmsketch.AsyncSum(ids="yes"), "ids must be True or False, got 'yes'"),
    (lambda: ecmsketch.AsyncSum(count=1), "count must be True or False, got 1"),
    (lambda: ecmsketch.AsyncQuantile("x"), "epsilon must be a number, got 'x'"),
    (lambda: ecmsketch.AsyncQuantile(0.6), "epsilon of an async quantile sketch must be in [0.001, 0.5), got 0.6"),
    (lambda: ecmsketch.DecayedSketch(constant=None), "constant must be a number, got None"),
    (lambda: ecmsketch.QuantileSketch("0.1"), "epsilon must be a number, got '0.1'"),
    (lambda: ecmsketch.QuantileSketch(0.01, delta=0.9), "delta must be in [1.0E-12, 0.5], got 0.9"),
    (lambda: ecmsketch.QuantileSketch(0.01, window_type="rows"), "window_type must be 'time' or 'count', got 'rows'"),
    (lambda: ecmsketch.FrequentSketch(None), "epsilon must be a number, got None"),
    (lambda: ecmsketch.FrequentSketch(0.01, merge_levels=True), "merge_levels must be an integer in [0, 63], got True"),
    (lambda: ecmsketch.DecayedSketch(decay="exp", decay_param="10"), "decay_param must be a number, got '10'"),
    (lambda: ecmsketch.DecayedSketch(decay=2, decay_param=1.0), "decay must be 'window', 'exp' or 'poly', got 2"),
])
def test_bad_constructor_arguments_raise_sketch_errors_naming_them(call, fragment):
    with pytest.raises(ecmsketch.SketchError) as e:
        call()
    assert fragment in str(e.value)


def test_a_jvm_object_is_not_a_constructor_argument():
    s = build("EcmSketch")
    with pytest.raises(ecmsketch.SketchError, match="^epsilon must be a number"):
        ecmsketch.EcmSketch(s._j)


# ------------------------------------------------------------------ from_bytes and merge


@pytest.mark.parametrize("name", sorted(BUILD))
def test_from_bytes_decodes_every_bytes_type(name):
    s = build(name)
    cls = type(s)
    b = s.to_bytes()
    for data in (b, bytearray(b), memoryview(b)):
        d = cls.from_bytes(data)
        assert type(d) is cls and d.to_bytes() == b
    other = "ExpHistogram" if name != "ExpHistogram" else "EcmSketch"
    with pytest.raises(ecmsketch.SketchError):
        cls.from_bytes(build(other).to_bytes())
    with pytest.raises(ecmsketch.SketchError, match="corrupt|truncated|too short|format"):
        cls.from_bytes(b[: len(b) // 2])


@pytest.mark.parametrize("cls", sketch_classes(), ids=lambda c: c.__name__)
def test_merge_is_a_classmethod(cls):
    assert isinstance(inspect.getattr_static(cls, "merge"), classmethod)
    assert isinstance(inspect.getattr_static(cls, "from_bytes"), classmethod)
    assert isinstance(inspect.getattr_static(cls, "create"), classmethod)


@pytest.mark.parametrize("name", sorted(BUILD))
def test_merge_call_forms(name):
    a, b = build(name), build(name)
    cls = type(a)
    ref = cls.merge([a, b]).to_bytes()
    lossless = name in ("AsyncSum", "AsyncQuantile", "DecayedSketch")  # a union, no merge level
    assert cls.from_bytes(ref).merge_depth == (0 if lossless else 1)
    assert cls.merge([a.to_bytes(), b]).to_bytes() == ref
    assert cls.merge((x for x in [a, bytearray(b.to_bytes())])).to_bytes() == ref
    assert a.merge([a, b]).to_bytes() == ref  # through an instance too
    assert cls.merge(a).to_bytes() == cls.merge([a]).to_bytes() == cls.merge(a.to_bytes()).to_bytes()
    with pytest.raises(ecmsketch.SketchError, match="at least one"):
        cls.merge([])


@pytest.mark.parametrize("name", sorted(BUILD))
def test_subclasses_get_their_own_class_back(name):
    base = getattr(ecmsketch, name)
    sub = type("Sub" + name, (base,), {})
    kwargs, rows = BUILD[name]
    s = sub(**kwargs)
    for r in rows:
        s.add(*r)
    assert type(s) is sub and type(sub.create(**kwargs)) is sub
    assert type(sub.from_bytes(s.to_bytes())) is sub
    m = sub.merge([s, build(name)])
    assert type(m) is sub and m.to_bytes() == base.merge([build(name), build(name)]).to_bytes()
    assert repr(s).startswith(f"Sub{name}(")


# ------------------------------------------------------------------ repr


class NoJvm:
    """Stands for a JVM sketch, or the JVM facade, that must not be used: any attribute fails."""

    def __getattr__(self, name):
        raise AssertionError(f"repr used the JVM ({name})")


#: What repr shows of BUILD's sketches (their parameters, kept in Python).
REPRS = {
    "EcmSketch": "EcmSketch(epsilon=0.1, delta=0.05, window=3600, cell='eh', pending={})",
    "ExpHistogram": "ExpHistogram(epsilon=0.1, window=3600, pending={})",
    "DetWave": "DetWave(epsilon=0.1, window=3600, max_arrivals=1000, pending={})",
    "DistinctSketch": "DistinctSketch(epsilon=0.2, delta=0.1, window=3600)",
    "DyadicSketch": "DyadicSketch(epsilon=0.2, delta=0.2, window=3600, universe_bits=8, cell='eh')",
    "AsyncSum": "AsyncSum(epsilon=0.2, delta=0.1, window=3600)",
    "AsyncQuantile": "AsyncQuantile(epsilon=0.2, delta=0.1, window=3600)",
    "DecayedSketch": "DecayedSketch(epsilon=0.2, delta=0.1, decay='exp', decay_param=100.0)",
    "QuantileSketch": "QuantileSketch(epsilon=0.05, delta=0.01, window=3600)",
    "FrequentSketch": "FrequentSketch(epsilon=0.05, window=3600)",
}


@pytest.mark.parametrize("name", sorted(BUILD))
def test_repr_shows_the_parameters_without_the_jvm(name, monkeypatch):
    from ecmsketch import _jvm
    s = build(name)
    buffered = hasattr(s, "_bt")
    pending = len(s._bt) if buffered else None
    if buffered:
        assert pending == 2  # the first add goes to the JVM, the next ones wait in the buffer
    jvm_object = s._jo if buffered else s._j
    monkeypatch.setattr(_jvm, "api", lambda: NoJvm())
    monkeypatch.setattr(s, "_jo" if buffered else "_j", NoJvm())
    text = repr(s)
    assert text == REPRS[name].format(pending)
    assert str(s) == text
    if buffered:
        assert len(s._bt) == pending  # repr flushed nothing
    monkeypatch.undo()
    if buffered:
        s._jo = jvm_object
        s.flush()
        assert repr(s) == REPRS[name].format(0)
    assert s.to_bytes() == build(name).to_bytes()


def test_repr_of_decoded_merged_and_timestamp_sketches():
    import datetime as dt
    s = ecmsketch.EcmSketch(0.1, window=dt.timedelta(hours=1), timestamps="timestamp", cell="dwave",
                            max_arrivals=100)
    s.add(1, dt.datetime(2024, 1, 1))
    assert repr(s) == ("EcmSketch(epsilon=0.1, delta=0.01, window=datetime.timedelta(seconds=3600), "
                       "timestamps='timestamp', cell='dwave', pending=0)")
    assert repr(ecmsketch.EcmSketch.from_bytes(s.to_bytes())) == repr(s)
    m = ecmsketch.EcmSketch.merge([s, s])
    assert repr(m) == repr(s).replace("pending=0", "merge_depth=1, pending=0")
    h = ecmsketch.ExpHistogram(0.05, 100, window_type="count")
    assert repr(h) == "ExpHistogram(epsilon=0.05, window=100, window_type='count', pending=0)"
    assert repr(ecmsketch.DetWave()) == "DetWave(epsilon=0.05, window=None, max_arrivals=None, pending=0)"
    assert repr(ecmsketch.AsyncSum(ids=True, count=True)) == \
        "AsyncSum(epsilon=0.1, delta=0.05, window=None, ids=True, count=True)"
    assert repr(ecmsketch.DecayedSketch()) == "DecayedSketch(epsilon=0.1, delta=0.05)"


def test_repr_does_not_flush_a_full_buffer(monkeypatch):
    """Many pending rows stay pending through repr; the next read flushes them all."""
    s = ecmsketch.EcmSketch(0.1, 0.05, 10_000)
    for t in range(5_000):
        s.add(t % 17, t)
    pending = len(s._bt)
    assert pending == 4_999
    for _ in range(3):
        assert repr(s).endswith(f"pending={pending})")
    assert len(s._bt) == pending
    assert s.total() == 5_000 and len(s._bt) == 0
    assert repr(s).endswith("pending=0)")
