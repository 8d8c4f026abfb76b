"""The Python bytes-level path: events/s of single ``add`` calls (buffered in Python, sent to
the JVM in batches) and of ``add_many`` from numpy arrays, for an ECM-sketch and an exponential
histogram, beside the unbuffered JVM call per event and, when they are installed (optional bench
dependencies, not requirements of ecmsketch), probstructs' C++ ECM-sketch and sketch_oxide's
exponential histogram. Runs are interleaved, ``REPS`` rounds after a warm-up; medians are printed
and written to bench/results/python.{md,json}.

    python bench/python_bench.py [events] [reps]
"""
from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from ecmsketch import EcmSketch, ExpHistogram  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 300_000
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
BATCH = 10 * N
WINDOW = 100_000
EPS, DELTA = 0.1, 0.1  # the core bench and the paper's Table 3 setting

rng = np.random.default_rng(14)
KEYS = (rng.zipf(1.2, size=BATCH) % 100_000).astype(np.int64)
TS = np.arange(BATCH, dtype=np.int64) // 4  # four events per tick
KL, TL = KEYS[:N].tolist(), TS[:N].tolist()
SKL = [str(k) for k in KL]


def ecm():
    return EcmSketch.create(EPS, DELTA, window=WINDOW)


def run_ecm_add(keys):
    s = ecm()
    add = s.add
    t0 = time.perf_counter()
    for k, t in zip(keys, TL):
        add(k, t)
    s.flush()
    return N / (time.perf_counter() - t0)


def run_ecm_unbuffered():
    s = ecm()
    s.add(0, 0)
    add = s._jo.add
    n = N // 10
    t0 = time.perf_counter()
    for k, t in zip(KL[:n], TL[:n]):
        add(k, t, 1)
    return n / (time.perf_counter() - t0)


def run_ecm_add_many():
    s = ecm()
    t0 = time.perf_counter()
    s.add_many(KEYS, TS)
    return BATCH / (time.perf_counter() - t0)


def run_eh_add():
    s = ExpHistogram.create(EPS, window=WINDOW)
    add = s.add
    t0 = time.perf_counter()
    for t in TL:
        add(t)
    s.flush()
    return N / (time.perf_counter() - t0)


def run_eh_add_many():
    s = ExpHistogram.create(EPS, window=WINDOW)
    t0 = time.perf_counter()
    s.add_many(TS)
    return BATCH / (time.perf_counter() - t0)


RUNS = {
    "EcmSketch.add (int keys), per event": lambda: run_ecm_add(KL),
    "EcmSketch.add (str keys), per event": lambda: run_ecm_add(SKL),
    "EcmSketch: JVM add per event, unbuffered (the old path's floor)": run_ecm_unbuffered,
    "EcmSketch.add_many (int64 numpy arrays)": run_ecm_add_many,
    "ExpHistogram.add, per event": run_eh_add,
    "ExpHistogram.add_many (int64 numpy array)": run_eh_add_many,
}
SKIPPED = {}

try:
    import probstructs

    plan = EcmSketch.create(EPS, DELTA, window=WINDOW).info()

    def run_probstructs():
        s = probstructs.ExponentialCountMinSketch(int(plan["width"]), int(plan["depth"]), WINDOW)
        inc = s.inc
        t0 = time.perf_counter()
        for k, t in zip(SKL, TL):
            inc(k, t, 1)
        return N / (time.perf_counter() - t0)

    RUNS[f"probstructs ExponentialCountMinSketch.inc (str keys, same {plan['width']}x{plan['depth']} array), per event"] = run_probstructs
except ImportError as e:
    SKIPPED["probstructs"] = f"not installed ({e})"

try:
    import sketch_oxide

    def run_oxide_eh():
        s = sketch_oxide.ExponentialHistogram(WINDOW, EPS)
        ins = s.insert
        t0 = time.perf_counter()
        for t in TL:
            ins(t, 1)
        return N / (time.perf_counter() - t0)

    RUNS["sketch_oxide ExponentialHistogram.insert, per event"] = run_oxide_eh
except ImportError as e:
    SKIPPED["sketch_oxide"] = f"not installed ({e})"


def main():
    for fn in RUNS.values():  # warm-up (JIT, JVM start)
        fn()
    rates = {name: [] for name in RUNS}
    for _ in range(REPS):
        for name, fn in RUNS.items():
            rates[name].append(fn())
    lines = [f"# Python bytes-level path: events/s (median of {REPS} interleaved runs; {N} single adds, "
             f"{BATCH} rows per add_many; eps {EPS}, delta {DELTA}, window {WINDOW})", "",
             "| path | M events/s |", "|---|---:|"]
    out = {}
    for name, xs in rates.items():
        m = statistics.median(xs)
        out[name] = {"median_events_per_s": m, "runs": xs}
        lines.append(f"| {name} | {m / 1e6:.2f} |")
    for name, why in SKIPPED.items():
        lines.append(f"| {name} | skipped: {why} |")
        print(f"skipping {name}: {why}")
    text = "\n".join(lines)
    print(text)
    from _common import write_results
    write_results("python", text, {"events": N, "batch": BATCH, "reps": REPS, "rates": out, "skipped": SKIPPED})


if __name__ == "__main__":
    main()
