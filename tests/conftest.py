"""Shared fixtures and helpers for the ecmsketch test-suite.

One SparkSession (local[2]) serves every test module; the bytes-level API (JPype) runs its own JVM in
the same Python process. Exact answers are always computed from the data (numpy or Spark SQL), never
hard-coded.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Dict, Iterable, Optional, Sequence

import numpy as np
import pytest

# Keep Spark quiet and off the network.
os.environ.setdefault("PYSPARK_PYTHON", os.sys.executable)
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
# Python-side datetimes and Spark's session time zone agree (naive datetimes are UTC).
os.environ["TZ"] = "UTC"
time.tzset()


def _pyspark_major() -> int:
    import pyspark
    return int(pyspark.__version__.split(".")[0])


#: How the library's data errors start in Spark's messages: Spark 4's USER_RAISED_EXCEPTION condition.
#: Spark 3.5 has no such condition: there the message is the library's text alone (ErrorShim, spark-3.5).
PYSPARK_MAJOR = _pyspark_major()
USER_ERROR = "[USER_RAISED_EXCEPTION] " if PYSPARK_MAJOR >= 4 else ""


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession

    import ecmsketch

    builder = (SparkSession.builder.master("local[2]").appName("ecmsketch-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.driver.memory", "1g")
               .config("spark.ui.showConsoleProgress", "false"))
    session = ecmsketch.configure(builder).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


# --------------------------------------------------------------------------- data


@dataclass
class Stream:
    """A synthetic stream: string keys, integer ticks, integer weights."""
    keys: np.ndarray      # object array of str
    ts: np.ndarray        # int64 ticks
    values: np.ndarray    # int64 weights (>= 0)

    def __len__(self) -> int:
        return len(self.ts)


def zipf_keys(rng: np.random.Generator, n: int, distinct: int, a: float = 1.2, prefix: str = "k") -> np.ndarray:
    """Zipf-ish draws over `distinct` string keys (rank 1 is the most frequent)."""
    ranks = np.arange(1, distinct + 1, dtype=np.float64)
    p = ranks ** (-a)
    p /= p.sum()
    idx = rng.choice(distinct, size=n, p=p)
    names = np.array([f"{prefix}{i}" for i in range(distinct)], dtype=object)
    return names[idx]


def bursty_ticks(rng: np.random.Generator, n: int, span: int) -> np.ndarray:
    """Sorted integer timestamps in [0, span): a uniform background plus a few dense bursts, with
    many duplicate ticks."""
    n_burst = n // 2
    background = rng.integers(0, span, size=n - n_burst)
    centers = rng.integers(0, span, size=8)
    bursts = (rng.choice(centers, size=n_burst) + rng.normal(0, span / 200, size=n_burst)).astype(np.int64)
    ts = np.clip(np.concatenate([background, bursts]), 0, span - 1)
    ts.sort()
    return ts.astype(np.int64)


def make_stream(seed: int, n: int, distinct: int, span: int, max_value: int = 1, prefix: str = "k") -> Stream:
    rng = np.random.default_rng(seed)
    ts = bursty_ticks(rng, n, span)
    keys = zipf_keys(rng, n, distinct, prefix=prefix)
    values = np.ones(n, dtype=np.int64) if max_value == 1 else rng.integers(0, max_value + 1, size=n).astype(np.int64)
    return Stream(keys, ts, values)


def rows_df(spark, columns: Dict[str, Sequence], schema: str, partitions: int = 4):
    """A cached DataFrame from parallel columns, keeping the given row order across `partitions`
    contiguous slices (so each slice is in the given order)."""
    n = len(next(iter(columns.values())))
    names = list(columns)
    cols = [columns[c] for c in names]
    rows = [tuple(_py(c[i]) for c in cols) for i in range(n)]
    rdd = spark.sparkContext.parallelize(rows, partitions)
    return spark.createDataFrame(rdd, schema).cache()


def _py(x):
    if isinstance(x, np.generic):
        return x.item()
    return x


# --------------------------------------------------------------------------- exact oracles


def exact_weights(keys: np.ndarray, ts: np.ndarray, values: np.ndarray, now: int, r: int) -> Dict[object, int]:
    """Exact weight per key over (now - r, now]."""
    m = (ts > now - r) & (ts <= now)
    out: Dict[object, int] = {}
    for k, v in zip(keys[m], values[m]):
        out[k] = out.get(k, 0) + int(v)
    return out


def exact_total(ts: np.ndarray, values: np.ndarray, now: int, r: int) -> int:
    m = (ts > now - r) & (ts <= now)
    return int(values[m].sum())


def check_point_bounds(rows: Iterable, delta: float, what: str = "") -> None:
    """rows: (est, exact, A, point_error_bound, total_error_bound). Asserts the deterministic lower
    side for every query and that the probabilistic upper side fails for at most a delta fraction."""
    rows = list(rows)
    assert rows, "no queries to check"
    violations = 0
    for est, exact, a, peb, teb in rows:
        assert est >= (1 - teb) * exact - 1e-9, f"{what}: under-estimate {est} < (1-{teb})*{exact}"
        if abs(est - exact) > peb * a + 1e-9:
            violations += 1
    assert violations <= delta * len(rows), f"{what}: {violations}/{len(rows)} point queries outside the bound"


def check_bound_relation(info) -> None:
    """The certified bounds of sketch_info/info() follow from cell_epsilon and merge_depth, and
    error_bound equals epsilon exactly at the planned depth (smaller below it, larger above it)."""
    depth, planned, eps = info["merge_depth"], info["planned_merge_levels"], info["epsilon"]
    assert depth >= 0 and planned >= 1, info
    cell = (1 + info["cell_epsilon"]) ** (depth + 1) - 1
    assert info["total_error_bound"] == pytest.approx(cell, rel=1e-9, abs=1e-12), info
    if info["kind"] == "ecm":
        cm = info["cm_epsilon"]
        assert info["point_error_bound"] == pytest.approx(max(cell, (1 + cell) * cm), rel=1e-9), info
        p = (1 + cell) ** 2 - 1
        assert info["inner_product_error_bound"] == pytest.approx(max(p, (1 + p) * cm), rel=1e-9), info
        planned_kind = "point_error_bound" if info["optimize_for"] == "point" else "inner_product_error_bound"
        assert info["error_bound"] == info[planned_kind], info
    else:
        assert info["error_bound"] == info["total_error_bound"], info
    if depth == planned:
        assert abs(info["error_bound"] - eps) <= 1e-9 and info["error_bound"] <= eps, info
    elif depth < planned:
        assert info["error_bound"] < eps - 1e-12, info
    else:
        assert info["error_bound"] > eps + 1e-12, info


def expect_error(run, *phrases: str) -> str:
    """Runs ``run()``, which must raise; every phrase must be in the error's full text (returned)."""
    with pytest.raises(Exception) as excinfo:
        run()
    msg = error_message(excinfo)
    for p in phrases:
        assert p in msg, f"expected {p!r} in the error message, got:\n{msg[:2000]}"
    return msg


def error_message(excinfo) -> str:
    """Full text of an exception raised through PySpark/py4j or JPype."""
    e = excinfo.value if hasattr(excinfo, "value") else excinfo
    parts = [str(e)]
    jexc = getattr(e, "java_exception", None)
    if jexc is not None:
        parts.append(str(jexc))
    desc = getattr(e, "desc", None)
    if desc:
        parts.append(str(desc))
    return "\n".join(parts)


# --------------------------------------------------------------------------- SQL helpers


def scalar(spark, sql: str):
    """The single value of a one-row, one-column query."""
    rows = spark.sql(sql).collect()
    assert len(rows) == 1, rows
    return rows[0][0]


def sketch_view(spark, sketch: Optional[bytes], name: str) -> None:
    """Registers a one-row temp view `name` with the sketch bytes in column `s`."""
    spark.createDataFrame([(None if sketch is None else bytearray(sketch),)], "s binary").createOrReplaceTempView(name)


def sketch_info(spark, view: str, column: str = "s") -> dict:
    """sketch_info of the (single) sketch in `view` as a dict."""
    row = spark.sql(f"SELECT sketch_info({column}) AS i FROM {view}").collect()
    assert len(row) == 1
    return row[0]["i"].asDict()


def run_example(name: str, **env) -> list:
    """Runs examples/<name> as a user would (a fresh Python process, this checkout's package), with
    extra environment variables; asserts it exits 0 and returns its stdout lines."""
    import subprocess
    import sys
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    full = dict(os.environ, PYTHONPATH=os.path.join(root, "python"), **env)
    out = subprocess.run([sys.executable, os.path.join(root, "examples", name)],
                         capture_output=True, text=True, env=full, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip().splitlines()


# --------------------------------------------------------------------------- streaming helpers


@pytest.fixture
def two_partitions(spark):
    """Two shuffle (and state store) partitions: fewer tasks a micro-batch on a 2-core machine."""
    old = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "2")
    yield
    spark.conf.set("spark.sql.shuffle.partitions", old)


def write_batch(src, k, files):
    """Writes micro-batch k of a file source: one JSON-lines file per list of row dicts, each renamed
    into place so that the source never sees a partial file."""
    import json
    import os
    for j, rows in enumerate(files):
        tmp = os.path.join(src, f".tmp-{k:03d}-{j}.json")
        with open(tmp, "w") as f:
            f.write("\n".join(json.dumps(r) for r in rows))
        os.rename(tmp, os.path.join(src, f"batch-{k:03d}-{j}.json"))


def run_stream(spark, src, ck, name, mode, schema, group, aggs):
    """Runs a streaming aggregation (groups `group(df)`, aggregates `aggs(df)`) over every JSON file in
    `src` (two a micro-batch) into the memory sink `name`, then stops; returns the ids of the batches
    that read rows and the schema of the result."""
    df = spark.readStream.schema(schema).option("maxFilesPerTrigger", 2).json(src)
    agg = df.groupBy(*group(df)).agg(*aggs(df))
    q = agg.writeStream.outputMode(mode).format("memory").queryName(name).option("checkpointLocation", ck).start()
    try:
        q.processAllAvailable()
        ids = [p["batchId"] for p in q.recentProgress if p["numInputRows"] > 0]
    finally:
        q.stop()
    return ids, agg.schema


def latest(spark, name, keys):
    """The newest row of each group in a memory sink (complete mode keeps the last result; update
    mode appends the groups each batch updated), by the row count column `n`."""
    best = {}
    for r in spark.table(name).collect():
        k = tuple(r[c] for c in keys)
        if k not in best or r.n > best[k].n:
            best[k] = r
    return best
