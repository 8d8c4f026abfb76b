"""The README's examples run as written and print what they promise."""
from __future__ import annotations

import os
import subprocess
import sys

from docblocks import ROOT, blocks, format_rows, normalize, run_sql

README = os.path.join(ROOT, "README.md")


def _only(lang: str):
    found = [b for b in blocks(README) if b.lang == lang]
    assert len(found) == 1, f"the README should have one {lang} example, has {len(found)}"
    return found[0]


def test_readme_sql_runs(spark):
    block = _only("sql")
    columns, rows = run_sql(spark, block.code)
    assert block.expected is not None, "the README's SQL example shows its result"
    assert normalize(format_rows(columns, rows)) == normalize(block.expected)
    (row,) = rows
    # the last minute holds 60 clicks; the point bound is epsilon times the range's total
    exact = spark.sql("""SELECT count(*) FROM clicks WHERE url = '/p/3'
                         AND ts > (SELECT max(ts) FROM clicks) - INTERVAL '1 minute'""").first()[0]
    assert exact == 9
    assert abs(row.hits_last_minute - exact) <= row.bound * 60
    assert abs(row.total_last_10_minutes - 600) <= row.bound * 600
    assert row.bound <= 0.05


def test_readme_python_runs():
    code = _only("python").code
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    last = out.stdout.strip().splitlines()[-1].split()
    est, depth, bound = float(last[0]), int(last[1]), float(last[2])
    assert depth == 2 and bound <= 0.1
    # user 7 has 20 events in the last 1000 ticks of site A plus 2 from site B; total in range ~1002
    assert abs(est - 22) <= bound * 1002
