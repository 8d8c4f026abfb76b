"""Run by tests/test_local_cluster.py in its own process: a Spark session on
``local-cluster[2,1,1024]`` (a standalone master and worker inside the driver JVM, two executor
JVMs), the same grouped aggregation run twice undisturbed and once with one executor JVM killed
(SIGKILL) while its tasks are running. Prints one JSON line: the digests of the three runs, the
task attempts that ran and the executor killed.

Usage: python local_cluster_job.py MARKER_DIR
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import threading
import time

PARTITIONS = 8
ROWS_PER_PARTITION = 4000
SLEEP = 1.0  # seconds each task sleeps before its rows, so that a kill lands mid-aggregation

QUERY = """
SELECT site,
       ecm_agg(key, ts, 20000) AS ecm_eh, ecm_agg(key, ts, 20000, cell => 'dwave') AS ecm_dwave,
       eh_agg(ts, 20000) AS eh, dwave_agg(ts, 20000) AS dwave, distinct_agg(key, ts, 20000) AS dist,
       dyadic_agg(k, ts, 20000) AS dyadic
FROM lc_rows GROUP BY site ORDER BY site"""


def rows_of(marker_dir: str):
    def gen(index, _it):
        from pyspark import TaskContext
        tc = TaskContext.get()
        # who ran which partition in which attempt (a re-run after the kill leaves a second file)
        name = f"p{index}-s{tc.stageId()}-a{tc.attemptNumber()}-t{tc.taskAttemptId()}"
        with open(os.path.join(marker_dir, name), "w") as f:
            f.write(str(os.getpid()))
        time.sleep(SLEEP)
        base = index * ROWS_PER_PARTITION
        for i in range(ROWS_PER_PARTITION):
            x = base + i
            yield (f"k{(x * 7919) % 500}", (x * 104729) % 1000, x, x % 3)
    return gen


def executor_pids(driver_pid: int):
    """Executor JVMs launched by the in-driver worker: children of the driver JVM."""
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != driver_pid:
                continue
            with open(f"/proc/{p}/cmdline", "rb") as f:
                if b"CoarseGrainedExecutorBackend" in f.read():
                    out.append(int(p))
        except (OSError, ValueError, IndexError):
            continue
    return sorted(out)


def digest(rows) -> str:
    h = hashlib.sha256()
    for r in rows:
        for x in r:
            h.update(bytes(x) if isinstance(x, (bytes, bytearray)) else str(x).encode())
        h.update(b"\n")
    return h.hexdigest()


def main(marker_dir: str) -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    from pyspark.sql import SparkSession

    import ecmsketch

    builder = (SparkSession.builder.master("local-cluster[2,1,1024]").appName("ecmsketch-local-cluster")
               .config("spark.ui.enabled", "false").config("spark.driver.memory", "1g")
               .config("spark.sql.shuffle.partitions", "4").config("spark.sql.adaptive.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false"))
    spark = ecmsketch.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    sc = spark.sparkContext
    driver_pid = int(spark._jvm.java.lang.ProcessHandle.current().pid())

    def run(tag: str) -> str:
        d = os.path.join(marker_dir, tag)
        os.makedirs(d)
        rdd = sc.parallelize(range(PARTITIONS), PARTITIONS).mapPartitionsWithIndex(rows_of(d))
        spark.createDataFrame(rdd, "key string, k bigint, ts bigint, site int").createOrReplaceTempView("lc_rows")
        return digest(spark.sql(QUERY).collect())

    # wait for both executors
    deadline = time.monotonic() + 240
    while len(executor_pids(driver_pid)) < 2 or sc._jsc.sc().getExecutorMemoryStatus().size() < 3:
        assert time.monotonic() < deadline, "the two executors did not start"
        time.sleep(0.5)
    first = run("clean1")
    second = run("clean2")

    killed = {}

    def killer() -> None:
        d = os.path.join(marker_dir, "killed")
        end = time.monotonic() + 120
        while time.monotonic() < end:
            # some tasks have started (and a few finished): kill one executor while others run
            if os.path.isdir(d) and len(os.listdir(d)) >= 3:
                pids = executor_pids(driver_pid)
                if pids:
                    killed["pid"] = pids[0]
                    killed["tasks_started"] = len(os.listdir(d))
                    os.kill(pids[0], signal.SIGKILL)  # an executor JVM this job started
                return
            time.sleep(0.05)

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    third = run("killed")
    t.join()
    attempts = {tag: sorted(os.listdir(os.path.join(marker_dir, tag))) for tag in ("clean1", "clean2", "killed")}
    print(json.dumps({"clean1": first, "clean2": second, "killed": third, "killed_executor": killed,
                      "attempts": attempts}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
