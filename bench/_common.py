"""Shared pieces of the Spark benchmarks: a local[2] session with the extension, and a timed query."""
from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from pyspark.sql import SparkSession  # noqa: E402

import ecmsketch  # noqa: E402


def session(app: str, driver_memory: str, conf: dict | None = None) -> SparkSession:
    """A quiet local[2] SparkSession with the ecmsketch functions registered (and any extra `conf`)."""
    builder = (ecmsketch.configure(SparkSession.builder).master("local[2]").appName(app)
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.memory", driver_memory))
    for k, v in (conf or {}).items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def timed(spark: SparkSession, sql: str) -> float:
    """Seconds to run `sql` and collect its result."""
    t0 = time.perf_counter()
    spark.sql(sql).collect()
    return time.perf_counter() - t0


def write_results(name: str, text: str, data: dict) -> None:
    """Writes bench/results/<name>.md (the printed table) and <name>.json (the numbers)."""
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"{name}.md"), "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")
    with open(os.path.join(out, f"{name}.json"), "w") as f:
        json.dump(data, f, indent=2)
