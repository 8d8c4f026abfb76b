"""Every sql-examples/*.sql file runs as written, in order, in the test session."""
from __future__ import annotations

import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "sql-examples"))

from run import NO_RESULT, statements  # noqa: E402


def test_sql_examples_run(spark):
    files = sorted(glob.glob(os.path.join(HERE, "..", "sql-examples", "*.sql")))
    assert len(files) >= 7
    results = 0
    for path in files:
        with open(path) as f:
            for stmt in statements(f.read()):
                rows = spark.sql(stmt).collect()
                if not stmt.upper().startswith(NO_RESULT):
                    assert rows, f"{os.path.basename(path)}: no rows from {stmt[:80]}"
                    results += 1
    assert results >= 8
