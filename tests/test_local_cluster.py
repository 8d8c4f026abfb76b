"""local-cluster mode: two executor JVMs; one is killed (SIGKILL) mid-aggregation, Spark re-runs its
tasks (and the map outputs it held), and the sketches are byte-identical to undisturbed runs.

The job runs in its own process (tests/local_cluster_job.py), since one Python process holds one
SparkContext; the same query in the test session (local[2]) must give the same bytes. The
pip-installed pyspark has what local-cluster needs (bin/ scripts and jars/); its worker writes
executor directories under SPARK_HOME/work, so SPARK_HOME here is a temporary copy of the package
made of symbolic links. Slow (two extra JVMs): marked slow, and run by `make test`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def spark_home(tmp_path) -> str:
    import pyspark
    pkg = os.path.dirname(pyspark.__file__)
    home = tmp_path / "spark_home"
    home.mkdir()
    for name in os.listdir(pkg):
        if name != "work":
            os.symlink(os.path.join(pkg, name), home / name)
    return str(home)


@pytest.mark.slow
def test_executor_killed_mid_aggregation_gives_identical_bytes(spark, tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    env = dict(os.environ, SPARK_HOME=spark_home(tmp_path), SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable)
    proc = subprocess.run([sys.executable, os.path.join(HERE, "local_cluster_job.py"), str(markers)],
                          env=env, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        err = proc.stderr
        at = err.find("Traceback")
        pytest.fail("the local-cluster job failed:\n" + (err[at:at + 5000] if at >= 0 else err[-5000:]))
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    print("\n" + json.dumps(out["killed_executor"]), {k: len(v) for k, v in out["attempts"].items()})
    assert out["clean1"] == out["clean2"], "two undisturbed runs differ"
    assert out["killed_executor"].get("pid"), "no executor was killed"
    # the kill cost work: more task attempts of the input stage than partitions (re-runs of the
    # killed executor's running tasks and of the map outputs it held)
    partitions = {a.split("-")[0] for a in out["attempts"]["killed"]}
    assert len(partitions) == 8
    assert len(out["attempts"]["killed"]) > len(out["attempts"]["clean1"]), out["attempts"]
    assert out["killed"] == out["clean1"], "the run with an executor killed gives different sketches"
    # and the same query in this session (another JVM, local[2], adaptive execution on) gives the same bytes
    import local_cluster_job as job
    from pyspark import cloudpickle
    cloudpickle.register_pickle_by_value(job)
    here = tmp_path / "local"
    here.mkdir()
    rdd = spark.sparkContext.parallelize(range(job.PARTITIONS), job.PARTITIONS).mapPartitionsWithIndex(job.rows_of(str(here)))
    spark.createDataFrame(rdd, "key string, k bigint, ts bigint, site int").createOrReplaceTempView("lc_rows")
    assert job.digest(spark.sql(job.QUERY).collect()) == out["clean1"], "local[2] and local-cluster give different bytes"
