"""Grouped aggregation benchmark: ecm_agg ... GROUP BY g beside Spark's count_min_sketch ... GROUP BY g,
10 K groups over 10 M cached rows (~1000 rows per group), in one session with medians of interleaved runs.

Spark's object hash aggregate switches to sort-based aggregation once a task holds
`spark.sql.objectHashAggregate.sortBased.fallbackThreshold` (128) groups, serializing every buffer
it holds and reading buffers back as it merges: each aggregate is run with that default and with the
threshold raised above the group count (hash aggregation only), so the cost of a buffer serialized
and read back mid-aggregation shows as the ratio of the two.

Memory, per query (local mode: the executor is the driver JVM), two measures:
* Spark's peak executor metrics, polled every 50 ms (`spark.executor.metrics.pollingInterval`) and
  reported with each finished task (`Task Executor Metrics` in the event log), the largest over the
  query's tasks: `JVMHeapMemory` (the executor JVM's used heap) and `OnHeapExecutionMemory` (memory
  the tasks acquired from Spark's memory manager: the sorter of the sort-based fallback; object
  hash map buffers are not counted by Spark);
* JVM heap peak by MemoryPoolMXBean: after System.gc(), the heap pools' peak usage is reset before
  the query and the pools' peaks are summed after it (through py4j): an upper bound of the heap in
  use at any moment of the query.
Both include the cached input rows and garbage not yet collected.

Writes bench/results/group.{md,json}. Run with `make bench` (GBENCH_ROWS, GBENCH_GROUPS, GBENCH_RUNS override).
"""
from __future__ import annotations

import glob
import json
import os
import shutil
import statistics
import tempfile
import time

from _common import session, write_results  # noqa: E402  (bench/ is the script's directory)

ROWS = int(os.environ.get("GBENCH_ROWS", "10000000"))
GROUPS = int(os.environ.get("GBENCH_GROUPS", "10000"))
RUNS = int(os.environ.get("GBENCH_RUNS", "3"))
FALLBACK = "spark.sql.objectHashAggregate.sortBased.fallbackThreshold"


def heap_reset(spark) -> list:
    jvm = spark.sparkContext._jvm
    jvm.java.lang.System.gc()
    pools = [p for p in jvm.java.lang.management.ManagementFactory.getMemoryPoolMXBeans()
             if p.getType().toString() == "Heap memory"]
    for p in pools:
        p.resetPeakUsage()
    return pools


def heap_peak(pools: list) -> int:
    return sum(p.getPeakUsage().getUsed() for p in pools)


def task_peaks(log_dir: str) -> dict:
    """Job group -> (largest JVMHeapMemory, largest OnHeapExecutionMemory) over its tasks, from the event log."""
    stage_group, peaks = {}, {}
    for path in sorted(p for p in glob.glob(os.path.join(log_dir, "**", "*"), recursive=True) if os.path.isfile(p)):
        with open(path) as f:
            for line in f:
                if '"SparkListenerJobStart"' in line:
                    e = json.loads(line)
                    group = (e.get("Properties") or {}).get("spark.jobGroup.id")
                    for sid in e.get("Stage IDs", []):
                        stage_group[sid] = group
                elif '"SparkListenerTaskEnd"' in line:
                    e = json.loads(line)
                    group = stage_group.get(e.get("Stage ID"))
                    m = e.get("Task Executor Metrics") or {}
                    if group is not None:
                        heap, execution = peaks.get(group, (0, 0))
                        peaks[group] = (max(heap, m.get("JVMHeapMemory", 0)), max(execution, m.get("OnHeapExecutionMemory", 0)))
    return peaks


def main() -> None:
    log_dir = tempfile.mkdtemp(prefix="ecmsketch-group-bench-")
    spark = session("ecmsketch-group-bench", "4g", {
        "spark.eventLog.enabled": "true", "spark.eventLog.dir": "file://" + log_dir,
        "spark.eventLog.compress": "false", "spark.executor.metrics.pollingInterval": "50ms"})
    load0 = os.getloadavg()[0]
    spark.sql(f"""SELECT id % {GROUPS} AS g, pmod(xxhash64(id), 1000) AS key, id AS ts
                  FROM range(0, {ROWS}, 1, 2)""").cache().createOrReplaceTempView("ev")
    spark.table("ev").count()
    ecm = "SELECT sum(length(s)) FROM (SELECT g, ecm_agg(key, ts, 1000000, 0.1, 0.1) AS s FROM ev GROUP BY g)"
    cms = "SELECT sum(length(s)) FROM (SELECT g, count_min_sketch(key, 0.1D, 0.9D, 1) AS s FROM ev GROUP BY g)"
    hash_only = str(10 * GROUPS)
    queries = {  # name -> (sql, fallback threshold)
        "count_min_sketch GROUP BY g (sort-based fallback at 128 groups, the default)": (cms, "128"),
        "ecm_agg GROUP BY g (sort-based fallback at 128 groups, the default)": (ecm, "128"),
        f"count_min_sketch GROUP BY g (hash only: threshold {hash_only})": (cms, hash_only),
        f"ecm_agg GROUP BY g (hash only: threshold {hash_only})": (ecm, hash_only),
    }
    times = {n: [] for n in queries}
    heaps = {n: [] for n in queries}
    sc = spark.sparkContext

    def run(name: str, tag: str) -> None:
        sql, threshold = queries[name]
        spark.conf.set(FALLBACK, threshold)
        sc.setJobGroup(tag, name)
        pools = heap_reset(spark)
        t0 = time.perf_counter()
        spark.sql(sql).collect()
        times[name].append(time.perf_counter() - t0)
        heaps[name].append(heap_peak(pools))

    tags = {n: [] for n in queries}
    for name in list(queries)[:2]:  # warm-up (not timed), default threshold
        spark.conf.set(FALLBACK, queries[name][1])
        spark.sql(queries[name][0]).collect()
    for r in range(RUNS):  # interleaved, so machine noise hits every query alike
        for i, name in enumerate(queries):
            tag = f"q{i}r{r}"
            tags[name].append(tag)
            run(name, tag)
    spark.conf.unset(FALLBACK)
    ecm_bytes, cms_bytes = (spark.sql(f"SELECT ({ecm}) / {GROUPS} AS e, ({cms}) / {GROUPS} AS c").first())
    load1 = os.getloadavg()[0]
    spark.stop()  # flushes the event log
    peaks = task_peaks(log_dir)
    shutil.rmtree(log_dir, ignore_errors=True)

    names = list(queries)
    med = {n: statistics.median(times[n]) for n in names}
    rows = [{"query": n, "median_s": round(med[n], 3), "rows_per_s": round(ROWS / med[n]),
             "runs": [round(t, 3) for t in times[n]],
             "spark_peak_jvm_heap_bytes": max(peaks.get(t, (0, 0))[0] for t in tags[n]),
             "spark_peak_execution_memory_bytes": max(peaks.get(t, (0, 0))[1] for t in tags[n]),
             "mxbean_peak_heap_bytes": max(heaps[n])} for n in names]
    cms_d, ecm_d, cms_h, ecm_h = names
    ratios = {"ecm_agg / count_min_sketch (default fallback)": med[cms_d] / med[ecm_d],
              "ecm_agg / count_min_sketch (hash only)": med[cms_h] / med[ecm_h],
              "ecm_agg with fallback / ecm_agg hash only (cost of serialized buffers)": med[ecm_h] / med[ecm_d],
              "count_min_sketch with fallback / hash only": med[cms_h] / med[cms_d]}
    mib = 1024 * 1024
    lines = [f"# Grouped aggregation benchmark: {ROWS:,} cached rows, {GROUPS:,} groups (~{ROWS // GROUPS:,} rows "
             f"per group), local[2], {RUNS} interleaved runs (medians); machine load average {load0:.1f} at the "
             f"start, {load1:.1f} at the end (2 cores)", "",
             "ecm_agg(key, ts, 1000000, 0.1, 0.1) and count_min_sketch(key, 0.1D, 0.9D, 1), "
             f"`SELECT sum(length(s)) FROM (SELECT g, agg(...) AS s FROM ev GROUP BY g)`; mean sketch size: "
             f"ecm_agg {ecm_bytes:,.0f} bytes, count_min_sketch {cms_bytes:,.0f} bytes.", "",
             "| query | median s | rows/s | peak executor JVM heap, Spark metric (MiB) | "
             "peak execution memory, Spark metric (MiB) | peak heap, MXBean pools (MiB) |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['query']} | {r['median_s']:.3f} | {r['rows_per_s']:,} | {r['spark_peak_jvm_heap_bytes'] / mib:,.0f} | "
              f"{r['spark_peak_execution_memory_bytes'] / mib:,.1f} | {r['mxbean_peak_heap_bytes'] / mib:,.0f} |" for r in rows]
    lines += ["", "| ratio (throughput) | value |", "|---|---|"]
    lines += [f"| {k} | {v:.2f} |" for k, v in ratios.items()]
    lines += ["", "Memory: local mode, so the executor is the driver JVM (4 GiB heap), which also holds the cached "
                  "input rows. Peak executor JVM heap and peak execution memory: Spark's executor metrics "
                  "`JVMHeapMemory` and `OnHeapExecutionMemory`, polled every 50 ms, the largest a task of the query "
                  "reported over the runs (Spark samples executor-wide values while the task runs; execution memory is "
                  "what tasks acquired from Spark's memory manager, such as the sort-based fallback's sorter; Spark "
                  "does not count object hash map buffers). Peak heap, MXBean "
                  "pools: the sum of the heap pools' peak usage over the query, reset after a System.gc() before "
                  "it, the largest over the runs (garbage not yet collected included)."]
    text = "\n".join(lines) + "\n"
    print(text)
    write_results("group", text, {"rows": ROWS, "groups": GROUPS, "runs": RUNS, "results": rows,
                   "ratios": {k: round(v, 3) for k, v in ratios.items()},
                   "mean_sketch_bytes": {"ecm_agg": round(ecm_bytes), "count_min_sketch": round(cms_bytes)},
                   "load_average": [load0, load1]})


if __name__ == "__main__":
    main()
