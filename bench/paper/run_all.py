"""Regenerates every table and figure of the paper reproduction (`make paper`).

First runs the Scala side once (PaperBench: streams, sketches, brute-force answers; JSON under
bench/results/paper/), then every bench/paper/exp_*.py in name order (each plots its figures into
docs/figures/ and writes its tables). Options: --plot-only (skip the Scala run), --scale X
(stream sizes times X, passed to PaperBench), --sbt PATH (the sbt launcher, scripts/sbt by default).
"""
from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plot-only", action="store_true", help="do not run PaperBench; plot the JSON already there")
    ap.add_argument("--scale", type=float, default=None, help="stream sizes times this factor (PaperBench --scale)")
    ap.add_argument("--sbt", default=os.path.join(ROOT, "scripts", "sbt"))
    args = ap.parse_args()
    t0 = time.time()
    if not args.plot_only:
        cmd = "bench/runMain ecmsketch.bench.paper.PaperBench" + (f" --scale {args.scale}" if args.scale else "")
        print(f"== {cmd}", flush=True)
        subprocess.run([args.sbt, cmd], cwd=ROOT, check=True)
    scripts = sorted(glob.glob(os.path.join(HERE, "exp_*.py")))
    failed = []
    for path in scripts:
        print(f"== {os.path.relpath(path, ROOT)}", flush=True)
        if subprocess.run([sys.executable, path], cwd=ROOT).returncode != 0:
            failed.append(os.path.basename(path))
    print(f"== {len(scripts)} scripts in {time.time() - t0:.0f} s" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
