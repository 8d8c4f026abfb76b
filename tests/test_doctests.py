"""The examples in the docstrings of ecmsketch.functions run, with a real SparkSession, and print
exactly what they show. Every public function has examples (and a numpydoc docstring with
Parameters, Returns and a versionadded line). So do the examples of the sketch classes, which need
no Spark."""
from __future__ import annotations

import doctest
import inspect

import pytest

import ecmsketch.functions as F

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def docstring_tests(obj, name: str, globs: dict) -> list:
    """The doctests of one object's own docstring."""
    finder = doctest.DocTestFinder(recurse=False)
    return [t for t in finder.find(obj, name, module=False, globs=globs) if t.examples]


@pytest.mark.parametrize("name", sorted(F.__all__))
def test_function_docstring_sections(name):
    doc = inspect.getdoc(getattr(F, name))
    for section in ("Parameters\n----------", "Returns\n-------", "Examples\n--------"):
        assert section in doc, f"{name}: no {section.splitlines()[0]} section"
    assert ".. versionadded:: 0." in doc, name
    params = [p for p in inspect.signature(getattr(F, name)).parameters]
    documented = doc.split("Parameters\n----------", 1)[1].split("Returns\n-------", 1)[0]
    for p in params:  # each parameter is named, alone or in a list such as ``lo, hi : ...``
        assert any(p in line.split(":")[0].replace(",", " ").split()
                   for line in documented.splitlines() if line and not line.startswith(" ")), (name, p)


@pytest.mark.parametrize("name", sorted(F.__all__))
def test_function_examples_run(spark, name):
    tests = docstring_tests(getattr(F, name), f"ecmsketch.functions.{name}", {"spark": spark})
    assert tests, f"{name} has no examples"
    out: list = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for t in tests:
        runner.run(t, out=out.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(out)
    assert result.attempted >= 3, name


# ------------------------------------------------------------------ the sketch classes (no Spark)


def sketch_classes() -> list:
    import ecmsketch.sketches as S
    return [getattr(S, n) for n in S.__all__ if inspect.isclass(getattr(S, n))]


def run_examples(obj, name: str):
    """Runs the examples of `obj`'s own docstring (there must be some); returns doctest's summary."""
    tests = docstring_tests(obj, name, {})
    assert tests, f"{name} has no examples"
    out: list = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for t in tests:
        runner.run(t, out=out.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(out)
    return result


@pytest.mark.parametrize("cls", sketch_classes(), ids=lambda c: c.__name__)
def test_sketch_class_examples_run(cls):
    assert run_examples(cls, f"ecmsketch.{cls.__name__}").attempted >= 4, cls.__name__



def test_sketch_info_examples_run():
    """The examples of ecmsketch.sketch_info (bytes as they are stored) run as written."""
    import ecmsketch.sketches as S
    assert run_examples(S.sketch_info, "ecmsketch.sketch_info").attempted >= 4
