"""What format version 4's checksum costs: encode, decode and ecm_agg, with and without it.

The checksum is a CRC32C over the bytes, computed once per encode and once per decode. This bench
measures, in one JVM, the encode and decode of ECM-sketches and the CRC32C over the same bytes; with
``--baseline DIR`` (a directory holding an ecmsketch_2.13.jar built before version 4) it also runs
the baseline jar and the current one in alternating processes (baseline, current, current,
baseline), each timing encode, decode and ``ecm_agg`` beside Spark's ``count_min_sketch`` over the
same cached rows, and writes bench/results/checksum.md with medians and ratios.

    python bench/checksum_bench.py [--baseline DIR] [--rows N]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))


def _child(jar: str, rows: int) -> dict:
    """Runs in a fresh process: the JPype codec timings, then the Spark ones, with `jar`."""
    import jpype
    import numpy as np

    from ecmsketch import _jvm
    _, lib = _jvm.scala_library()
    jpype.startJVM(classpath=[jar] + lib, convertStrings=False)
    api = jpype.JClass("ecmsketch.api.PyApi")
    crc_cls = jpype.JClass("java.util.zip.CRC32C")
    out: dict = {"codec": {}}
    rnd = np.random.default_rng(5)
    for eps in (0.1, 0.01):
        s = api.ecmCreateCell(False, False, 1_000_000, eps, 0.01, "point", 1, 42, "eh", 0)
        ks = rnd.zipf(1.2, 1_000_000).astype(np.int64) % 100_000
        ts = np.sort(rnd.integers(0, 1_000_000, 1_000_000)).astype(np.int64)
        api.ecmAddLongs(s, jpype.JArray(jpype.JLong)(ks), jpype.JArray(jpype.JLong)(ts), None)
        b = api.encode(s)
        enc, dec, crc = [], [], []
        for _ in range(30):
            t0 = time.perf_counter(); b = api.encode(s); enc.append(time.perf_counter() - t0)
            t0 = time.perf_counter(); api.decode("ecm", b); dec.append(time.perf_counter() - t0)
            t0 = time.perf_counter(); c = crc_cls(); c.update(b, 0, len(b)); c.getValue(); crc.append(time.perf_counter() - t0)
        out["codec"][str(eps)] = {"bytes": len(b), "version": int(b[4]), "encode_ms": 1e3 * statistics.median(enc),
                                  "decode_ms": 1e3 * statistics.median(dec), "crc_ms": 1e3 * statistics.median(crc)}
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").appName("checksum-bench")
             .config("spark.jars", jar).config("spark.sql.extensions", "ecmsketch.spark.EcmSketchExtensions")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", "6g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    df = spark.range(rows).selectExpr("CAST(pmod(hash(id, 1), 100000) AS BIGINT) AS k", "id AS ts") \
        .orderBy("k").repartition(8).cache()  # rows by key, so timestamps out of order
    df.count()
    df.createOrReplaceTempView("t")

    def timed(sql: str) -> float:
        t0 = time.perf_counter(); spark.sql(sql).collect(); return time.perf_counter() - t0

    out["spark"] = {"rows": rows}
    for eps, delta in (("0.1", "0.1"), ("0.01", "0.01")):
        agg, cms = [], []
        for _ in range(3):
            agg.append(timed(f"SELECT length(ecm_agg(k, ts, 1000000, {eps}, {delta})) FROM t"))
            cms.append(timed(f"SELECT length(count_min_sketch(k, {eps}D, {1 - float(delta)}D, 1)) FROM t"))
        out["spark"][eps] = {"ecm_agg_s": statistics.median(agg), "count_min_sketch_s": statistics.median(cms)}
    spark.stop()
    return out


def _run(jar: str, rows: int) -> dict:
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", jar, "--rows", str(rows)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(p.stderr[-4000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child")
    ap.add_argument("--baseline", help="directory with an ecmsketch_2.13.jar written before format version 4")
    ap.add_argument("--rows", type=int, default=10_000_000)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(_child(a.child, a.rows)))
        return
    import ecmsketch
    current = ecmsketch.jar_path("2.13")
    jars = [("current", current)]
    if a.baseline:
        base = os.path.join(a.baseline, "ecmsketch_2.13.jar")
        jars = [("baseline", base), ("current", current), ("current", current), ("baseline", base)]
    runs = [(name, _run(jar, a.rows)) for name, jar in jars]
    by = {n: [r for m, r in runs if m == n] for n in dict(jars)}

    def med(name, f):
        return statistics.median(f(r) for r in by[name])

    lines = ["# Format version 4's checksum: what it costs", "",
             f"`bench/checksum_bench.py`: ECM-sketches of 10^6 Zipf rows (window 10^6, delta 0.01), encode and "
             f"decode medians of 30 in one JVM, and CRC32C over the same bytes; `ecm_agg` over {a.rows:,} cached "
             "rows (100,000 integer keys, timestamps out of order), local[2], median of 3. Jars run in alternating processes: " + ", ".join(n for n, _ in jars) + ".", "",
             "| eps | jar | bytes | version | encode ms | decode ms | CRC32C ms | CRC / encode | CRC / decode |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for eps in ("0.1", "0.01"):
        for n in by:
            c = lambda k: med(n, lambda r: r["codec"][eps][k])  # noqa: E731
            lines.append(f"| {eps} | {n} | {int(c('bytes')):,} | {int(c('version'))} | {c('encode_ms'):.2f} | {c('decode_ms'):.2f} | "
                         f"{c('crc_ms'):.3f} | {c('crc_ms') / c('encode_ms'):.1%} | {c('crc_ms') / c('decode_ms'):.1%} |")
    lines += ["", "`ecm_agg(k, ts, 1000000, eps, delta)` beside `count_min_sketch(k, eps, 1 - delta, 1)`:", "",
              "| eps = delta | jar | ecm_agg s | count_min_sketch s | ecm_agg speed / count_min_sketch speed |",
              "|---|---|---:|---:|---:|"]
    for eps in ("0.1", "0.01"):
        for n in by:
            e = med(n, lambda r: r["spark"][eps]["ecm_agg_s"])
            c = med(n, lambda r: r["spark"][eps]["count_min_sketch_s"])
            lines.append(f"| {eps} | {n} | {e:.2f} | {c:.2f} | {c / e:.2f}x |")
    if "baseline" in by:
        lines += ["", "Current against baseline (medians): " + ", ".join(
            f"{k} {med('current', f) / med('baseline', f):.2f}x" for k, f in [
                ("encode eps 0.01", lambda r: r["codec"]["0.01"]["encode_ms"]),
                ("decode eps 0.01", lambda r: r["codec"]["0.01"]["decode_ms"]),
                ("ecm_agg eps 0.1", lambda r: r["spark"]["0.1"]["ecm_agg_s"]),
                ("ecm_agg eps 0.01", lambda r: r["spark"]["0.01"]["ecm_agg_s"])]) + " (time: above 1 is slower)."]
    text = "\n".join(lines) + "\n"
    print(text)
    sys.path.insert(0, HERE)
    from _common import write_results
    write_results("checksum", text, {"runs": runs})


if __name__ == "__main__":
    main()
