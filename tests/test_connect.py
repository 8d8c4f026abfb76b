"""The ecmsketch.functions wrappers and the SQL functions under Spark Connect.

Every case of tests/connect_cases.py runs twice: on the classic SparkSession of the test-suite and
on a Spark Connect session (one local Connect server with the extension, in a subprocess started
once for this module). The two must agree exactly: the same sketch bytes, the same answers, and
for bad input the same error message. The Connect client dependencies are installed by the
Makefile (pyspark[connect]); if they are missing this module fails, it does not skip.
"""
from __future__ import annotations

import glob
import inspect
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

import ecmsketch
from ecmsketch import functions as E

import connect_cases as C
from conftest import PYSPARK_MAJOR

# every SQL function (value and error cases) on classic and Connect sessions: the `matrix` subset
# that `make test` runs on the oldest pyspark of the range
pytestmark = pytest.mark.matrix

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
CORE_SOURCES = os.path.join(ROOT, "jvm", "core", "src", "main", "scala")
MARK = "CONNECT_RESULTS "



def connect_server_jars() -> list:
    """Jars the local Connect server needs beyond pyspark's own: none on pyspark 4 (it ships the
    server); on pyspark 3.5 the server is a separate artifact, spark-connect_2.12, which the Makefile
    fetches into .tools/ for the 3.5 venv (`make test`, `test-oldest`, `test-matrix`; the newest 3.5 patch of it that the registry serves)."""
    if PYSPARK_MAJOR >= 4:
        return []
    jars = sorted(glob.glob(os.path.join(ROOT, ".tools", "spark-connect_2.12-3.5.*.jar")))
    assert jars, ("pyspark 3.5 needs the Spark Connect server jar .tools/spark-connect_2.12-3.5.*.jar "
                  "for a local Connect server: make test-oldest (or make test) fetches it")
    return jars[-1:]


SCRIPT = textwrap.dedent(f"""
    import json, sys, warnings
    warnings.simplefilter("ignore")
    sys.path.insert(0, {TESTS!r})
    try:
        import pyspark.sql.connect.session  # noqa: F401  (grpcio, pandas, pyarrow, ...)
    except ImportError as e:
        sys.exit("the Spark Connect client dependencies are missing (make setup installs them): " + repr(e))
    from pyspark.sql import SparkSession
    import ecmsketch
    from ecmsketch import functions as E
    import connect_cases as C
    b = (SparkSession.builder.remote("local[2]")
         .config("spark.jars", ",".join([ecmsketch.spark_jar_path()] + {connect_server_jars()!r}))
         .config("spark.sql.extensions", ecmsketch.EXTENSION_CLASS))
    for k, v in C.SESSION_CONF.items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    out = {{"session": type(spark).__module__, "ecmsketch_file": ecmsketch.__file__,
            "functions": [r[0] for r in spark.sql("SHOW FUNCTIONS").collect()]}}
    out.update(C.run_all(spark, E))
    print({MARK!r} + json.dumps(out))
    spark.stop()
""")


@pytest.fixture(scope="module")
def results(spark):
    """(classic, connect): the results of every case on both sessions. The Connect subprocess
    runs while the classic session computes its side."""
    for k, v in C.SESSION_CONF.items():
        assert spark.conf.get(k) == v, f"the classic session must have {k}={v}, as the Connect one"
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        classic = C.run_all(spark, E)
        out, err = proc.communicate(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, f"the Spark Connect run failed:\n{err[-6000:]}"
    lines = [ln for ln in out.splitlines() if ln.startswith(MARK)]
    assert len(lines) == 1, f"no results from the Spark Connect run:\n{out[-2000:]}\n{err[-4000:]}"
    return classic, json.loads(lines[0][len(MARK):])


# --------------------------------------------------------------------------- the function lists


def scala_functions() -> list:
    """The SQL function names the kinds' descriptors declare (``FunctionSpec("name", ...)`` in the core)."""
    names = []
    for path in sorted(glob.glob(os.path.join(CORE_SOURCES, "**", "*.scala"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            names += re.findall(r'\bFunctionSpec\(\s*"(\w+)"', f.read())
    assert len(names) >= 16, names
    return names


def python_functions() -> list:
    """The public functions of ecmsketch.functions."""
    return sorted(n for n, f in vars(E).items()
                  if inspect.isfunction(f) and f.__module__ == E.__name__ and not n.startswith("_"))


def test_function_lists_agree():
    """functions.py wraps exactly the SQL functions the descriptors declare, and exports them all."""
    scala = scala_functions()
    assert len(set(scala)) == len(scala), scala
    assert sorted(scala) == python_functions() == sorted(E.__all__)


def test_every_function_is_covered_under_connect(results):
    """Every wrapper is called by a value case and is the failing function of an error case, under
    Connect (as recorded there), so a function added later without a Connect case fails here."""
    _, connect = results
    everything = set(scala_functions()) | set(python_functions())
    in_values = set().union(*(r["called"] for r in connect["values"].values()))
    assert everything - in_values == set(), "functions without a Connect value case"
    targets = {target for _, target, _, _ in C.ERROR_CASES}
    assert everything - targets == set(), "functions without a Connect error case"
    for name, target, _, _ in C.ERROR_CASES:
        assert target in connect["errors"][name]["called"], f"error case {name} does not call {target}"


def test_connect_session_uses_this_package_and_registers_every_function(results):
    _, connect = results
    assert connect["session"].startswith("pyspark.sql.connect"), connect["session"]
    assert os.path.samefile(connect["ecmsketch_file"], ecmsketch.__file__)
    missing = set(scala_functions()) - set(connect["functions"])
    assert missing == set(), f"not registered on the Connect server: {sorted(missing)}"


# --------------------------------------------------------------------------- value cases


def _nulls(v, path="") -> list:
    if v is None:
        return [path]
    if isinstance(v, dict) and "__row__" in v:
        return [p for k, x in v["__row__"] for p in _nulls(x, f"{path}.{k}")]
    if isinstance(v, list):
        return [p for i, x in enumerate(v) for p in _nulls(x, f"{path}[{i}]")]
    return []


def _plain(v):
    """A normalized value back as a plain Python value (for the oracle checks)."""
    if isinstance(v, dict) and "__float__" in v:
        return float.fromhex(v["__float__"])
    if isinstance(v, dict) and "__row__" in v:
        return {k: _plain(x) for k, x in v["__row__"]}
    return v


@pytest.mark.parametrize("name", [n for n, _ in C.VALUE_CASES])
def test_value_case_identical_under_connect(results, name):
    classic, connect = results
    a, b = classic["values"][name], connect["values"][name]
    assert "error" not in a, f"classic: {a['error']}"
    assert "error" not in b, f"Connect: {b['error']}"
    assert a["columns"] == b["columns"] and len(a["rows"]) == len(b["rows"]) == 1
    for col, x, y in zip(a["columns"], a["rows"][0], b["rows"][0]):
        assert x == y, f"{name}.{col} differs between classic and Connect:\n classic {x}\n Connect {y}"
    assert a["called"] == b["called"]
    row = dict(zip(a["columns"], (_plain(v) for v in a["rows"][0])))
    if name in C.NULLS_EXPECTED:
        assert all(v is None for v in row.values()), row
    else:
        # only sketch_info fields that do not apply to a sketch kind may be NULL
        null_answers = [a["columns"][int(p[4:-1])] for p in _nulls(a["rows"]) if "." not in p]
        assert null_answers == [], f"{name}: NULL answers {null_answers}"
    check = ORACLES.get(name)
    if check:
        check(row)


def _check_ecm_queries(row):
    assert row["i_s"]["merge_depth"] <= 1 and row["i_s"]["planned_merge_levels"] == 2
    assert row["i_r"]["cell_kind"] == "rwave" and row["i_b2"]["max_arrivals"] == 100_000
    assert row["p_int"] == row["p_int_text"] and row["p_bytes"] == row["p_bytes_on_string"] > 0
    # the default `now` is the last timestamp (N - 1); the inner product is symmetric
    assert row["ip"] == row["ip_now_last"] > 0 and row["ip_later"] > 0


def _check_nulls_skipped(row):
    """NULL key, ts or value rows are skipped: total_weight counts (or sums) exactly the others."""
    assert row["tw_s"] == row["kept"] and row["tw_h"] == row["tw_w"] == row["kept_ts"]
    assert row["tw_n"] == row["rows_kept"] and row["c_n"] == row["distinct_kept"]
    assert row["kept"] < row["kept_ts"] < C.N * 6  # the NULLs were there to skip


def _check_sql_named_arguments(row):
    assert row["i"]["cell_kind"] == "dwave" and row["i"]["max_arrivals"] == 100_000 and row["i"]["seed"] == 11


ORACLES = {"ecm_queries": _check_ecm_queries, "nulls_skipped": _check_nulls_skipped,
           "sql_named_arguments": _check_sql_named_arguments}


# --------------------------------------------------------------------------- error cases




def library_message(msg: str, target: str) -> str:
    """The library's message in an error text: from '<function>: ' to the end of that line (the
    headline when the function's name is not there)."""
    i = msg.find(f"{target}: ")
    return msg[i:].splitlines()[0].rstrip(";").strip() if i >= 0 else headline(msg)


def headline(msg: str) -> str:
    """The first line of an error message, without the query plan or stack trace that follow."""
    return msg.strip().splitlines()[0].rstrip(";").strip()


@pytest.mark.parametrize("name,target,phrases", [(n, t, p) for n, t, _, p in C.ERROR_CASES],
                         ids=[n for n, *_ in C.ERROR_CASES])
def test_error_case_same_message_under_connect(results, name, target, phrases):
    classic, connect = results
    a, b = classic["errors"][name], connect["errors"][name]
    assert "error" in a, f"classic PySpark accepted {name}: {a}"
    assert "error" in b, f"Spark Connect accepted {name}: {b}"
    for p in phrases:
        assert p in a["error"], f"expected {p!r} in the classic error:\n{a['error'][:2000]}"
        assert p in b["error"], f"expected {p!r} in the Connect error:\n{b['error'][:2000]}"
    if PYSPARK_MAJOR >= 4:
        assert headline(a["error"]) == headline(b["error"])
    else:
        # pyspark 3.5's classic session raises a failed job as py4j's Py4JJavaError ("An error occurred
        # while calling o123.collectToPython."), Connect as "(org.apache.spark.SparkException) Job aborted
        # ...": the headlines differ by Spark, so compare the library's message in both
        assert library_message(a["error"], target) == library_message(b["error"], target)
