"""Fenced code blocks of the Markdown docs, and how the doc tests run them.

A block is ```python or ```sql. When the next fenced block, with only blank lines between, is a
```text block, that block is the block's expected output: for Python what it prints, for SQL the
result of its last statement as `format_rows` writes it. tests/test_readme.py and
tests/test_guides.py use these helpers.
"""
from __future__ import annotations

import contextlib
import io
import math
import os
import re
import sys
from typing import List, NamedTuple, Optional

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "sql-examples"))

from run import statements  # noqa: E402  (the splitter `make sql-examples` uses)

_FENCE = re.compile(r"^```([A-Za-z0-9_-]*)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


class Block(NamedTuple):
    lang: str
    code: str
    expected: Optional[str]  # the ```text block right after it, if any
    line: int                # 1-based line of the opening fence


def blocks(path: str) -> List[Block]:
    """The ```python and ```sql blocks of a Markdown file, in order, each with its expected output."""
    with open(path) as f:
        text = f.read()
    found = [(m.group(1), m.group(2), m.start(), m.end()) for m in _FENCE.finditer(text)]
    out = []
    for i, (lang, code, start, end) in enumerate(found):
        if lang not in ("python", "sql"):
            continue
        expected = None
        if i + 1 < len(found) and found[i + 1][0] == "text" and not text[end:found[i + 1][2]].strip():
            expected = found[i + 1][1]
        out.append(Block(lang, code, expected, text.count("\n", 0, start) + 1))
    return out


def _cell(v) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return str(v)
        return f"{v:.6g}"
    if isinstance(v, (list, tuple)) and not hasattr(v, "asDict"):
        return "[" + ", ".join(_cell(x) for x in v) + "]"
    if hasattr(v, "asDict"):
        return "{" + ", ".join(f"{k}: {_cell(x)}" for k, x in v.asDict().items()) + "}"
    if isinstance(v, (bytes, bytearray)):
        return f"<{len(v)} bytes>"
    return str(v)


def format_rows(columns, rows) -> str:
    """A result as the docs show it: a header of column names, then one line per row, cells separated
    by ' | ' (floats to 6 significant digits, NULL for None, structs as {field: value})."""
    lines = [" | ".join(columns)]
    lines += [" | ".join(_cell(v) for v in row) for row in rows]
    return "\n".join(lines)


def normalize(text: str) -> str:
    """Expected and actual output compare line by line, with runs of spaces collapsed."""
    return "\n".join(re.sub(r"\s+", " ", ln).strip() for ln in text.strip().splitlines() if ln.strip())


def run_sql(spark, sql: str):
    """Runs every statement of a block; returns (columns, rows) of the last one."""
    df = None
    for stmt in statements(sql):
        df = spark.sql(stmt)
        rows = df.collect()
    return (df.columns, rows) if df is not None else ([], [])


def run_python(code: str, namespace: dict) -> str:
    """Executes a block in `namespace` (shared by the blocks of one page); returns what it printed."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "<doc block>", "exec"), namespace)
    return buf.getvalue()
