"""The ecmsketch.functions wrappers work under Spark Connect: a local Connect server started with
the extension builds the same sketch bytes as classic PySpark for the same rows."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from ecmsketch import functions as E

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

SCRIPT = textwrap.dedent("""
    import warnings
    warnings.simplefilter("ignore")
    from pyspark.sql import SparkSession
    import ecmsketch
    from ecmsketch import functions as E
    spark = (SparkSession.builder.remote("local[2]")
             .config("spark.jars", ecmsketch.jar_path())
             .config("spark.sql.extensions", ecmsketch.EXTENSION_CLASS).getOrCreate())
    assert type(spark).__module__.startswith("pyspark.sql.connect"), type(spark)
    df = spark.range(0, 20000, 1, 2).selectExpr("cast(id % 37 AS STRING) AS k", "id AS ts")
    row = (df.agg(E.ecm_agg("k", "ts", window=5000, epsilon=0.1, delta=0.1, merge_levels=1).alias("s"))
             .select("s", E.ecm_point("s", "3", range=1000).alias("p"), E.sketch_info("s").merge_depth.alias("d"))
             .first())
    print("RESULT", row.s.hex(), row.p, row.d)
    w = (df.agg(E.dwave_agg("ts", 5000, 0.05, max_arrivals=10000).alias("w"),
                E.distinct_agg("k", "ts", 5000, 0.2, 0.1).alias("n"),
                E.ecm_agg("k", "ts", 5000, 0.1, 0.1, cell="dwave").alias("e"))
           .select("w", "n", "e", E.dwave_count("w", 1000).alias("c"), E.distinct_count("n", 1000).alias("u"))
           .first())
    print("WAVES", w.w.hex(), w.n.hex(), w.e.hex(), w.c, w.u)
    spark.stop()
""")


def test_wrappers_under_spark_connect(spark):
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    _, hexbytes, p, d = line.split()
    df = spark.range(0, 20000, 1, 2).selectExpr("cast(id % 37 AS STRING) AS k", "id AS ts")
    classic = (df.agg(E.ecm_agg("k", "ts", window=5000, epsilon=0.1, delta=0.1, merge_levels=1).alias("s"))
                 .select("s", E.ecm_point("s", "3", range=1000).alias("p")).first())
    assert bytes.fromhex(hexbytes) == bytes(classic.s)
    assert float(p) == classic.p
    assert int(d) <= 1
    # the wave functions build the same bytes and answers under Connect as in classic PySpark
    wline = [ln for ln in out.stdout.splitlines() if ln.startswith("WAVES ")][-1]
    _, wh, nh, eh, c, u = wline.split()
    w = (df.agg(E.dwave_agg("ts", 5000, 0.05, max_arrivals=10000).alias("w"),
                E.distinct_agg("k", "ts", 5000, 0.2, 0.1).alias("n"),
                E.ecm_agg("k", "ts", 5000, 0.1, 0.1, cell="dwave").alias("e"))
           .select("w", "n", "e", E.dwave_count("w", 1000).alias("c"), E.distinct_count("n", 1000).alias("u"))
           .first())
    assert (bytes.fromhex(wh), bytes.fromhex(nh), bytes.fromhex(eh)) == (bytes(w.w), bytes(w.n), bytes(w.e))
    assert float(c) == w.c and float(u) == w.u == 37.0
