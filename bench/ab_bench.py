"""Before/after benchmark of a refactor: the library jar built at a baseline commit against the current
jar, each beside Spark's own built-ins, in alternating processes (baseline, current, current,
baseline) so that the noise between processes shows.

Each child process starts a fresh JVM (Spark local[2], driver memory 4g) with ``spark.jars`` set to
the jar under test and ``spark.sql.extensions=ecmsketch.spark.EcmSketchExtensions`` (it does not
import the ecmsketch package, so no other jar is on the classpath). It caches one set of rows, in
8 partitions shuffled (range-partitioned on a random number and sorted on another, as spark_bench.py
builds ``ev_shuf``: timestamps out of order), and times, after one warm-up of every query, 3
interleaved runs of each (medians), the shapes users run:

* string keys:  ``ecm_agg(skey, ts, 1000000, eps, delta)`` beside ``count_min_sketch(skey, eps, 1 - delta, 1)``
  (eps = delta = 0.1 and 0.01, as spark_bench.py);
* integer keys: the same on the BIGINT keys (Zipf, 100,000 values, as spark_bench.py);
* GROUP BY over 10,000 groups: ``ecm_agg(gkey, ts, 1000000, 0.1, 0.1)`` per group beside
  ``count_min_sketch(gkey, 0.1D, 0.9D, 1)`` per group (as group_bench.py, Spark's default sort-based
  fallback threshold);
* distinct counts: ``distinct_agg(value, ts, 1000000)`` beside ``approx_count_distinct(value)``
  (the Zipf keys, and uniform values with ~1M distinct, as spark_bench.py);
* point queries (the join shape of query_bench.py): ``ecm_point(sk, k, 1000)`` over a stored (cached)
  sketch CROSS JOIN 300,000 keys beside ``length(sk)`` over the same join (Spark's cost of the join
  alone, the comparison query_bench.py makes). The sketch (eps 0.05, window 10^5, 2*10^6 rows) is
  built by the jar under test.

Per shape and child: ecmsketch seconds, built-in seconds and the ratio ecmsketch speed / built-in
speed (built-in s / ecmsketch s); then per jar the median over its children, and current / baseline
(of the ratio: above 1 is the current jar relatively faster; of ecmsketch seconds: above 1 is slower).
Writes a markdown table to --out (default bench/results/core_v3_ab.md) and the numbers to the same
path with .json.

    python bench/ab_bench.py --baseline DIR [--rows N] [--out bench/results/core_v3_ab.md]

DIR holds the baseline ecmsketch_2.13.jar; the current jar is ecmsketch.jar_path("2.13") (or
--current). Both are copied to a temporary directory first, so a rebuild during the run does not mix jars.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

FALLBACK = "spark.sql.objectHashAggregate.sortBased.fallbackThreshold"


def shapes(groups: int) -> list:
    """(id, label, ecmsketch SQL, built-in SQL) per shape, in the order they run and are reported."""
    out = []
    for col, kind in (("skey", "string keys"), ("key", "integer keys")):
        for eps in ("0.1", "0.01"):
            out.append((f"{col}_{eps}", f"{kind}, eps = delta = {eps}: ecm_agg vs count_min_sketch",
                        f"SELECT length(ecm_agg({col}, ts, 1000000, {eps}, {eps})) FROM ev",
                        f"SELECT length(count_min_sketch({col}, {eps}D, {1 - float(eps)}D, 1)) FROM ev"))
    out.append(("group", f"GROUP BY g ({groups:,} groups): ecm_agg vs count_min_sketch per group",
                "SELECT sum(length(s)) FROM (SELECT g, ecm_agg(gkey, ts, 1000000, 0.1, 0.1) AS s FROM ev GROUP BY g)",
                "SELECT sum(length(s)) FROM (SELECT g, count_min_sketch(gkey, 0.1D, 0.9D, 1) AS s FROM ev GROUP BY g)"))
    out.append(("distinct_key", "distinct_agg vs approx_count_distinct, Zipf keys",
                "SELECT length(distinct_agg(key, ts, 1000000)) FROM ev",
                "SELECT approx_count_distinct(key) FROM ev"))
    out.append(("distinct_u", "distinct_agg vs approx_count_distinct, uniform values (~1M distinct)",
                "SELECT length(distinct_agg(u, ts, 1000000)) FROM ev",
                "SELECT approx_count_distinct(u) FROM ev"))
    out.append(("point_join", "point queries: ecm_point(sk, k, 1000) over sketch CROSS JOIN keys vs length(sk) over the join",
                "SELECT sum(ecm_point(sk, k, 1000)) FROM sketches CROSS JOIN keys",
                "SELECT sum(length(sk)) FROM sketches CROSS JOIN keys"))
    return out


def _child(jar: str, rows: int, runs: int, groups: int, keys: int) -> dict:
    """Runs in a fresh process: every shape with `jar`, medians of `runs` after a warm-up."""
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    t_start = time.perf_counter()
    load0 = os.getloadavg()[0]
    spark = (SparkSession.builder.master("local[2]").appName("ab-bench")
             .config("spark.jars", jar).config("spark.sql.extensions", "ecmsketch.spark.EcmSketchExtensions")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", "4g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    # the rows of spark_bench.py (Zipf keys over 100,000 values, ts = id / 10, ~1M distinct uniform
    # values), string keys made of the Zipf keys, and the group and key columns of group_bench.py
    base = spark.sql(f"""SELECT key, concat('user-', CAST(key AS STRING)) AS skey, ts, u, g, gkey FROM (
        SELECT cast(floor(pow(1.0 - rand(3), -1.0 / 1.1)) % 100000 AS BIGINT) AS key,
               cast(id / 10 AS BIGINT) AS ts,
               cast(rand(5) * 1000000 AS BIGINT) AS u,
               id % {groups} AS g,
               pmod(xxhash64(id), 1000) AS gkey
        FROM range(0, {rows}, 1, 8))""").cache()
    base.count()
    # shuffled inside each of 8 partitions, as spark_bench.py's ev_shuf
    ev = base.repartitionByRange(8, F.rand(7)).sortWithinPartitions(F.rand(11)).cache()
    n = ev.count()
    base.unpersist(blocking=True)
    cached_bytes = sum(i.memSize() + i.diskSize() for i in spark.sparkContext._jsc.sc().getRDDStorageInfo())
    ev.createOrReplaceTempView("ev")
    # query_bench.py's sketch (eps 0.05, window 10^5, 2*10^6 Zipf-ish rows) and keys
    spark.sql("""SELECT ecm_agg(key, ts, 100000, 0.05) AS sk FROM
                 (SELECT cast(floor(pow(1.0 - pmod(xxhash64(id), 1000003) / 1000003.0, -1.0 / 1.1)) % 100000 AS BIGINT) AS key,
                         id DIV 10 AS ts
                  FROM range(0, 2000000, 1, 2))""").cache().createOrReplaceTempView("sketches")
    sketch_bytes = spark.sql("SELECT length(sk) AS b FROM sketches").first().b
    spark.sql(f"SELECT id AS k FROM range(0, {keys}, 1, 2)").cache().createOrReplaceTempView("keys")
    spark.table("keys").count()
    spark.conf.unset(FALLBACK)  # Spark's default sort-based fallback (128 groups), as users run it
    t_setup = time.perf_counter() - t_start

    def timed(sql: str) -> tuple:
        t0 = time.perf_counter()
        r = spark.sql(sql).collect()
        return time.perf_counter() - t0, r[0][0]

    queries = [(sid, side, q) for sid, _, e, b in shapes(groups) for side, q in (("ecm", e), ("builtin", b))]
    results, times = {}, {(sid, side): [] for sid, side, _ in queries}
    for sid, side, q in queries:  # warm-up, keeping each answer (sketch sizes, estimates)
        _, results[(sid, side)] = timed(q)
    for _ in range(runs):  # interleaved, so machine noise hits every query alike
        for sid, side, q in queries:
            times[(sid, side)].append(timed(q)[0])
    out = {"rows": n, "runs": runs, "groups": groups, "keys": keys, "point_sketch_bytes": sketch_bytes,
           "cached_rows_bytes": cached_bytes,
           "spark_version": spark.version, "setup_s": round(t_setup, 2), "load_average_start": load0,
           "shapes": {}}
    for sid, _, _, _ in shapes(groups):
        e, b = statistics.median(times[(sid, "ecm")]), statistics.median(times[(sid, "builtin")])
        out["shapes"][sid] = {"ecm_s": e, "builtin_s": b, "ratio": b / e,
                              "ecm_runs": times[(sid, "ecm")], "builtin_runs": times[(sid, "builtin")],
                              "ecm_answer": results[(sid, "ecm")], "builtin_answer": results[(sid, "builtin")]}
    spark.stop()
    out["load_average_end"] = os.getloadavg()[0]
    out["wall_s"] = round(time.perf_counter() - t_start, 2)
    return out


def _run(jar: str, a: argparse.Namespace) -> dict:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", jar, "--rows", str(a.rows),
                        "--runs", str(a.runs), "--groups", str(a.groups), "--keys", str(a.keys)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"child with {jar} failed (exit {p.returncode}):\n{p.stderr[-4000:]}")
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["process_s"] = round(time.perf_counter() - t0, 2)
    return r


def _jar_info(path: str) -> dict:
    with open(path, "rb") as f:
        data = f.read()
    return {"source": _shown(path), "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "mtime": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.path.getmtime(path)))}


def _shown(path: str) -> str:
    """A jar's path as the report shows it: relative to the repository when inside it, else its name."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    full = os.path.abspath(path)
    return os.path.relpath(full, root) if full.startswith(root + os.sep) else os.path.basename(full)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--baseline", help="directory with the baseline ecmsketch_2.13.jar")
    ap.add_argument("--current", help="the current jar (default: ecmsketch.jar_path('2.13'))")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3, help="timed runs per query after the warm-up (median)")
    ap.add_argument("--groups", type=int, default=10_000)
    ap.add_argument("--keys", type=int, default=300_000, help="keys of the point-query join")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "core_v3_ab.md"))
    a = ap.parse_args()
    if a.child:
        print(json.dumps(_child(a.child, a.rows, a.runs, a.groups, a.keys)))
        return
    if not a.baseline:
        ap.error("--baseline DIR is required")
    if a.current:
        current_src = a.current
    else:
        sys.path.insert(0, os.path.join(HERE, "..", "python"))
        import ecmsketch
        current_src = ecmsketch.jar_path("2.13")
    baseline_src = os.path.join(a.baseline, "ecmsketch_2.13.jar")
    t_all = time.perf_counter()
    tmp = tempfile.mkdtemp(prefix="ecmsketch-ab-")
    try:
        # snapshots: a rebuild of either jar during the run does not mix versions
        jar_files, jar_info = {}, {}
        for name, src in (("baseline", baseline_src), ("current", current_src)):
            d = os.path.join(tmp, name)
            os.makedirs(d)
            jar_files[name] = shutil.copy2(src, os.path.join(d, "ecmsketch_2.13.jar"))
            jar_info[name] = _jar_info(src) | {"sha256": _jar_info(jar_files[name])["sha256"]}
        order = ["baseline", "current", "current", "baseline"]
        runs = []
        for i, name in enumerate(order):
            print(f"[{i + 1}/{len(order)}] {name} ({os.path.basename(jar_info[name]['source'])}, "
                  f"{jar_info[name]['sha256'][:12]}) ...", file=sys.stderr, flush=True)
            r = _run(jar_files[name], a)
            print(f"    done in {r['process_s']:.0f} s (setup {r['setup_s']:.0f} s, load {r['load_average_start']:.1f} -> "
                  f"{r['load_average_end']:.1f})", file=sys.stderr, flush=True)
            runs.append({"jar": name} | r)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    total_s = time.perf_counter() - t_all

    table = shapes(a.groups)
    by = {n: [r for r in runs if r["jar"] == n] for n in ("baseline", "current")}

    def med(name: str, sid: str, k: str) -> float:
        return statistics.median(r["shapes"][sid][k] for r in by[name])

    summary = {}
    for sid, label, _, _ in table:
        s = {f"{n}_{k}": med(n, sid, k) for n in by for k in ("ratio", "ecm_s", "builtin_s")}
        s["current_over_baseline_ratio"] = s["current_ratio"] / s["baseline_ratio"]
        s["current_over_baseline_ecm_s"] = s["current_ecm_s"] / s["baseline_ecm_s"]
        s["current_over_baseline_builtin_s"] = s["current_builtin_s"] / s["baseline_builtin_s"]
        summary[sid] = s

    r0 = runs[0]
    lines = ["# Core v3: baseline jar against the current jar, beside Spark's built-ins", "",
             f"`bench/ab_bench.py --rows {a.rows}`: {r0['rows']:,} cached rows in 8 partitions, shuffled (timestamps out "
             f"of order), Spark {r0['spark_version']} local[2], driver memory 4g; per query a warm-up, then the median "
             f"of {a.runs} interleaved runs. Jars run in alternating processes: {', '.join(order)} "
             f"(one fresh JVM each). Point queries: {a.keys:,} keys, one sketch of "
             f"{r0['point_sketch_bytes']:,} bytes (baseline jar; current jar: "
             f"{by['current'][0]['point_sketch_bytes']:,} bytes). Cached rows: {r0['cached_rows_bytes'] / 2**20:,.0f} MiB. "
             f"Total {total_s / 60:.1f} min.", "",
             f"Baseline: `{jar_info['baseline']['source']}` (sha256 {jar_info['baseline']['sha256'][:12]}); "
             f"current: `{jar_info['current']['source']}` (sha256 {jar_info['current']['sha256'][:12]}, "
             f"built {jar_info['current']['mtime']}).", "",
             "Ratio: ecmsketch speed / built-in speed (built-in s / ecmsketch s), above 1 is ecmsketch faster.", "",
             "| shape | ecmsketch query | built-in query |", "|---|---|---|"]
    lines += [f"| {sid} | `{e}` | `{b}` |" for sid, _, e, b in table]
    lines += ["", "Per process:", "",
              "| shape | # | jar | ecmsketch s | built-in s | ratio |", "|---|---:|---|---:|---:|---:|"]
    for sid, label, _, _ in table:
        for i, r in enumerate(runs):
            x = r["shapes"][sid]
            lines.append(f"| {label} | {i + 1} | {r['jar']} | {x['ecm_s']:.3f} | {x['builtin_s']:.3f} | {x['ratio']:.2f}x |")
    lines += ["", "Medians per jar (of its two processes), and current / baseline:", "",
              "| shape | ratio baseline | ratio current | ratio current / baseline | ecmsketch s baseline | "
              "ecmsketch s current | ecmsketch time current / baseline | built-in time current / baseline |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for sid, label, _, _ in table:
        s = summary[sid]
        lines.append(f"| {label} | {s['baseline_ratio']:.2f}x | {s['current_ratio']:.2f}x | "
                     f"{s['current_over_baseline_ratio']:.2f} | {s['baseline_ecm_s']:.3f} | {s['current_ecm_s']:.3f} | "
                     f"{s['current_over_baseline_ecm_s']:.2f} | {s['current_over_baseline_builtin_s']:.2f} |")
    differ = [sid for sid, _, _, _ in table for side in ("ecm_answer", "builtin_answer")
              if len({json.dumps(r["shapes"][sid][side]) for r in runs}) > 1]
    lines += ["", "Answers (sketch bytes, sums of estimates, distinct counts) of every query "
                  + ("are the same in every process." if not differ else
                     "differ between processes in: " + ", ".join(sorted(set(differ))) + " (see the JSON).")]
    lines += ["", "Ratio current / baseline above 1: the current jar is relatively faster against the built-in. "
                  "Time current / baseline above 1: slower. The built-in's own time current / baseline shows the "
                  "noise between processes (the same Spark code in both).", "",
              "Processes: " + "; ".join(
                  f"{i + 1} {r['jar']}: {r['process_s']:.0f} s (setup {r['setup_s']:.0f} s), load average "
                  f"{r['load_average_start']:.1f} -> {r['load_average_end']:.1f}" for i, r in enumerate(runs)) + " (2 cores)."]
    text = "\n".join(lines) + "\n"
    print(text)
    out = os.path.abspath(a.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write(text)
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        json.dump({"rows": a.rows, "runs_per_query": a.runs, "groups": a.groups, "keys": a.keys, "order": order,
                   "total_s": round(total_s, 1), "jars": jar_info,
                   "shapes": {sid: {"label": label, "ecm_sql": e, "builtin_sql": b} for sid, label, e, b in table},
                   "summary": summary, "processes": runs}, f, indent=2)
    print(f"wrote {out} and {os.path.splitext(out)[0]}.json", file=sys.stderr)


if __name__ == "__main__":
    main()
