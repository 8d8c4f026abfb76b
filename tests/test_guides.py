"""Every docs/guide/*.md page runs as written.

The ```sql and ```python blocks of a page run in order: SQL in the test session (the page creates the
views it reads), Python in one fresh namespace per page with `spark` given. A block followed by a
```text block must print (Python) or return as its last statement (SQL) exactly that; claims the
text makes about bounds are asserted inside the Python blocks.
"""
from __future__ import annotations

import glob
import os

import pytest

from docblocks import ROOT, blocks, format_rows, normalize, run_python, run_sql

PAGES = sorted(glob.glob(os.path.join(ROOT, "docs", "guide", "*.md")))


def test_guides_exist():
    names = {os.path.basename(p) for p in PAGES}
    assert len(names) >= 13, names


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)], ids=os.path.basename)
def test_guide_runs(spark, page):
    namespace = {"__name__": "__guide__", "spark": spark}
    checked = 0
    for block in blocks(page):
        where = f"{os.path.relpath(page, ROOT)}:{block.line}"
        if block.lang == "sql":
            columns, rows = run_sql(spark, block.code)
            actual = format_rows(columns, rows)
        else:
            actual = run_python(block.code, namespace)
            checked += "assert " in block.code
        if block.expected is not None:
            assert normalize(actual) == normalize(block.expected), f"{where}: got\n{actual}"
            checked += 1
    assert checked, f"{os.path.relpath(page, ROOT)}: no example shows its output or asserts a claim"
