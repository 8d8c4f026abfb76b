"""docs/reference/python.md is what docs/gen_python_reference.py writes from the docstrings today,
documents every public name, and writing it starts no JVM."""
from __future__ import annotations

import difflib
import importlib
import importlib.util
import os
import re
import subprocess
import sys

import pytest

from docblocks import ROOT

GENERATOR = os.path.join(ROOT, "docs", "gen_python_reference.py")
PAGE = os.path.join(ROOT, "docs", "reference", "python.md")


def _generator():
    spec = importlib.util.spec_from_file_location("gen_python_reference", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reference_is_current():
    gen = _generator()
    expected = gen.render()
    with open(PAGE, encoding="utf-8") as f:
        committed = f.read()
    if committed != expected:
        diff = list(difflib.unified_diff(committed.splitlines(), expected.splitlines(), "committed", "generated",
                                         lineterm="", n=1))
        shown = "\n".join(diff[:60]) + ("\n..." if len(diff) > 60 else "")
        pytest.fail(f"{gen.OUTPUT} is out of date with the docstrings: regenerate it with `{gen.COMMAND}` "
                    f"from the repository root (the venv's python) and commit it.\n{shown}")


def test_reference_documents_every_public_name():
    gen = _generator()
    with open(PAGE, encoding="utf-8") as f:
        page = f.read()
    for modname in gen.MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            assert f'<a id="{gen.anchor(modname + "." + name)}"></a>' in page, f"{modname}.{name} is not on the page"
    ids = re.findall(r'<a id="([^"]+)"></a>', page)
    assert len(ids) == len(set(ids)), "two entries share an anchor"
    assert " at 0x" not in page, "a repr with a memory address"
    assert ROOT not in page and os.path.expanduser("~") not in page, "a machine path"


def test_writing_the_reference_starts_no_jvm():
    # a fresh interpreter: the test session's own Spark and JPype JVMs must not hide one started here
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('gen', {GENERATOR!r})\n"
        "gen = importlib.util.module_from_spec(spec); spec.loader.exec_module(gen)\n"
        "text = gen.render()\n"
        "import ecmsketch._jvm as jvm\n"
        "from pyspark import SparkContext\n"
        "jpype_up = 'jpype' in sys.modules and sys.modules['jpype'].isJVMStarted()\n"
        "print(len(text) > 0, jvm._api is None, not jpype_up, SparkContext._gateway is None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["True"] * 4, f"(page, no JPype API, no JPype JVM, no py4j gateway): {out.stdout}"
