"""Runs the sql-examples/*.sql files in order in one local Spark session and prints every result.

Usage: make sql-examples   (or: python sql-examples/run.py [file.sql ...])
"""
from __future__ import annotations

import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from pyspark.sql import SparkSession  # noqa: E402

import ecmsketch  # noqa: E402


# Statements that return no rows (DDL and table writes).
NO_RESULT = ("CREATE", "DROP", "INSERT")


def statements(text: str):
    """Splits a .sql file into statements (';' at line ends; '--' comments dropped)."""
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith("--")]
    for stmt in "\n".join(lines).split(";\n"):
        stmt = stmt.strip().rstrip(";").strip()
        if stmt:
            yield stmt


def main(files) -> None:
    spark = (ecmsketch.configure(SparkSession.builder).master("local[2]").appName("ecmsketch-sql-examples")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    for path in files:
        print(f"==> {os.path.basename(path)}")
        with open(path) as f:
            for stmt in statements(f.read()):
                df = spark.sql(stmt)
                if df.columns and not stmt.upper().startswith(NO_RESULT):
                    df.show(truncate=False)
    spark.stop()


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    main(sys.argv[1:] or sorted(glob.glob(os.path.join(here, "*.sql"))))
