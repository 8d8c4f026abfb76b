"""Query benchmark: point queries of one ECM-sketch (eps 0.05, window 10^5, ~77 KB) in Spark, in the
shapes a user can write, in one session with medians of interleaved runs:

* join:     ecm_point(sk, k, 1000) over sketches CROSS JOIN keys (Spark copies the sketch into every row)
* length:   length(sk) over the same join (the cost of that copy alone: the join shape's ceiling)
* scalar:   ecm_point((SELECT sk FROM sketches), k, 1000) over keys (a scalar subquery)
* array:    ecm_point(sk, collect_list(k), 1000) (many keys at once, one call per sketch)

Writes bench/results/query.{md,json}. Run with `make bench` (QBENCH_KEYS and QBENCH_RUNS override).
"""
from __future__ import annotations

import os
import statistics
import time

from _common import session, write_results  # noqa: E402  (bench/ is the script's directory)

KEYS = int(os.environ.get("QBENCH_KEYS", "300000"))
RUNS = int(os.environ.get("QBENCH_RUNS", "5"))


def jvm_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of the Spark JVM so far (all its threads: tasks, GC, JIT)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(spark, pid: int, sql: str) -> tuple:
    """Wall seconds and JVM CPU seconds to run `sql` and collect its result."""
    c0, t0 = jvm_cpu_seconds(pid), time.perf_counter()
    spark.sql(sql).collect()
    return time.perf_counter() - t0, jvm_cpu_seconds(pid) - c0


def main() -> None:
    spark = session("ecmsketch-query-bench", "2g")
    pid = spark.sparkContext._gateway.proc.pid  # spark-submit execs the JVM, so this is the JVM's pid
    load0 = os.getloadavg()[0]
    # one sketch, window 10^5 ticks, eps 0.05, over 10^6 Zipf-ish keys
    spark.sql("""SELECT ecm_agg(key, ts, 100000, 0.05) AS sk FROM
                 (SELECT cast(floor(pow(1.0 - pmod(xxhash64(id), 1000003) / 1000003.0, -1.0 / 1.1)) % 100000 AS BIGINT) AS key,
                         id DIV 10 AS ts
                  FROM range(0, 2000000, 1, 2))""").cache().createOrReplaceTempView("sketches")
    size = spark.sql("SELECT length(sk) AS b FROM sketches").first().b
    spark.sql(f"SELECT id AS k FROM range(0, {KEYS}, 1, 2)").cache().createOrReplaceTempView("keys")
    spark.table("keys").count()
    queries = {
        "join: ecm_point(sk, k, 1000) over sketches CROSS JOIN keys":
            "SELECT sum(ecm_point(sk, k, 1000)) FROM sketches CROSS JOIN keys",
        "join baseline: length(sk) over the same join":
            "SELECT sum(length(sk)) FROM sketches CROSS JOIN keys",
        "scalar subquery: ecm_point((SELECT sk FROM sketches), k, 1000)":
            "SELECT sum(ecm_point((SELECT sk FROM sketches), k, 1000)) FROM keys",
        "scalar baseline: sum(k) over keys (Spark's per-query overhead)":
            "SELECT sum(k) FROM keys",
        "array form: ecm_point(sk, keys ARRAY<BIGINT>, 1000)":
            "SELECT aggregate(ecm_point(sk, ks, 1000), 0D, (a, x) -> a + x) "
            "FROM sketches CROSS JOIN (SELECT collect_list(k) AS ks FROM keys)",
        "array baseline: collect_list(k) and summing the keys alone":
            "SELECT aggregate(ks, 0L, (a, x) -> a + x) FROM (SELECT collect_list(k) AS ks FROM keys)",
    }
    # the answers agree: the array form returns the per-key estimates
    chk = spark.sql("""SELECT (SELECT sum(ecm_point(sk, k, 1000)) FROM sketches CROSS JOIN keys) AS a,
                              (SELECT aggregate(ecm_point(sk, ks, 1000), 0D, (a, x) -> a + x)
                               FROM sketches CROSS JOIN (SELECT collect_list(k) AS ks FROM keys)) AS b""").first()
    assert chk.a == chk.b, chk
    times = {name: [] for name in queries}
    cpus = {name: [] for name in queries}
    for q in queries.values():  # warm-up
        timed(spark, pid, q)
    for _ in range(RUNS):  # interleaved, so machine noise hits every shape alike
        for name, q in queries.items():
            wall, cpu = timed(spark, pid, q)
            times[name].append(wall)
            cpus[name].append(cpu)
    load1 = os.getloadavg()[0]
    med = {n: statistics.median(t) for n, t in times.items()}
    cpu = {n: statistics.median(t) for n, t in cpus.items()}
    names = list(queries)
    join, length, scalar, arr = names[0], names[1], names[2], names[4]
    rows = [{"query": n, "median_s": round(med[n], 3), "rows_per_s": round(KEYS / med[n]),
             "median_cpu_s": round(cpu[n], 3), "runs": [round(t, 3) for t in times[n]]} for n in names]
    scalar_base, arr_base = names[3], names[5]
    # point queries per second once Spark's own work (the baseline query of the same shape) is taken off
    net = {"scalar subquery, net of sum(k)": KEYS / max(med[scalar] - med[scalar_base], 1e-9),
           "array form, net of collect_list": KEYS / max(med[arr] - med[arr_base], 1e-9)}
    # the same per CPU second of the JVM (less sensitive to other processes sharing the machine)
    net_cpu = {"scalar subquery, net of sum(k)": KEYS / max(cpu[scalar] - cpu[scalar_base], 1e-9),
               "array form, net of collect_list": KEYS / max(cpu[arr] - cpu[arr_base], 1e-9)}
    ratios = {"join / length(sk)": med[length] / med[join],
              "join / length(sk), JVM CPU seconds": cpu[length] / cpu[join],
              "scalar subquery / join": med[join] / med[scalar],
              "array form / join": med[join] / med[arr]}
    lines = [f"# Query benchmark: {KEYS:,} keys, one ECM-sketch of {size:,} bytes (eps 0.05, window 10^5), "
             f"local[2], {RUNS} interleaved runs (medians); machine load average {load0:.1f} at the start, "
             f"{load1:.1f} at the end (2 cores)", "",
             "| query | median s | keys (rows)/s | median JVM CPU s |", "|---|---|---|---|"]
    lines += [f"| {r['query']} | {r['median_s']:.3f} | {r['rows_per_s']:,} | {r['median_cpu_s']:.3f} |" for r in rows]
    lines += ["", "| ratio (throughput) | value |", "|---|---|"]
    lines += [f"| {k} | {v:.2f} |" for k, v in ratios.items()]
    lines += ["", "| net point queries/s | value |", "|---|---|"]
    lines += [f"| {k} | {round(v):,} |" for k, v in net.items()]
    lines += ["", "| net point queries per JVM CPU second | value |", "|---|---|"]
    lines += [f"| {k} | {round(v):,} |" for k, v in net_cpu.items()]
    lines += ["", "Times include Spark's job overhead (planning, scheduling, collect); the array form's time "
                  "includes collect_list of the keys. JVM CPU s: user + system CPU time of the Spark JVM over the query "
                  "(all threads, GC included; two task threads run in parallel, so wall time can be half of it)."]
    text = "\n".join(lines) + "\n"
    print(text)
    write_results("query", text, {"keys": KEYS, "runs": RUNS, "sketch_bytes": size, "results": rows,
                   "ratios": {k: round(v, 3) for k, v in ratios.items()},
                   "net_point_queries_per_s": {k: round(v) for k, v in net.items()},
                   "net_point_queries_per_cpu_s": {k: round(v) for k, v in net_cpu.items()},
                   "load_average": [load0, load1]})
    spark.stop()


if __name__ == "__main__":
    main()
