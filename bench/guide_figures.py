"""The figure of docs/guide/windowed-counts.md: an exponential histogram's estimate against the exact
count over every range of a bursty stream, with the certified band, and its size against epsilon.
Writes docs/figures/guide_eh_band.png. Runs on the Python bytes API (no Spark session):

    python bench/guide_figures.py      (matplotlib: `make bench` installs it)
"""
from __future__ import annotations

import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ecmsketch import ExpHistogram  # noqa: E402

OUT = os.path.join(ROOT, "docs", "figures", "guide_eh_band.png")
WINDOW = 100_000


def stream(scale: int = 1, seed: int = 7) -> np.ndarray:
    """A uniform background plus two bursts, with many rows sharing a tick."""
    rng = np.random.default_rng(seed)
    return np.sort(np.concatenate([rng.integers(0, WINDOW, 50_000 * scale),
                                   rng.integers(40_000, 41_000, 30_000 * scale),
                                   rng.integers(90_000, 90_200, 10_000 * scale)])).astype(np.int64)


def main() -> None:
    ts = stream()
    now = int(ts[-1])
    ranges = np.unique(np.geomspace(1, WINDOW, 400).astype(np.int64))
    exact = np.array([np.sum(ts > now - r) for r in ranges], dtype=np.float64)

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))

    eh = ExpHistogram.create(epsilon=0.05, window=WINDOW)
    eh.add_many(ts)
    est = np.array([eh.count(range=int(r)) for r in ranges])
    b = eh.error_bound
    keep = exact > 0
    rel = np.where(keep, (est - exact) / np.maximum(exact, 1), 0.0)
    left.fill_between(ranges[keep], -b, b, color="tab:blue", alpha=0.15, label=f"certified bound ±{b:.3f}")
    left.plot(ranges[keep], rel[keep], color="tab:blue", lw=1.2, label="(estimate - exact) / exact")
    left.axhline(0, color="black", lw=0.6)
    left.set_xscale("log")
    left.set_xlabel("range (ticks back from the newest row)")
    left.set_ylabel("relative error")
    left.set_title("exponential histogram, epsilon 0.05, 400 ranges")
    left.legend(loc="lower right", fontsize=8)

    eps = [0.2, 0.1, 0.05, 0.02, 0.01, 0.005]
    for scale, color in ((1, "tab:green"), (10, "tab:orange")):
        rows = stream(scale)
        sizes = []
        for e in eps:
            h = ExpHistogram.create(epsilon=e, window=WINDOW)
            h.add_many(rows)
            sizes.append(len(h.to_bytes()))
        right.plot(eps, sizes, "o-", color=color, label=f"{len(rows):,} rows in the window")
        for e, sz in zip(eps, sizes):
            right.annotate(f"{sz:,}", (e, sz), textcoords="offset points", xytext=(4, -11 if scale == 1 else 5), fontsize=7)
    right.set_xscale("log")
    right.invert_xaxis()
    right.set_xlabel("epsilon asked for (log scale)")
    right.set_ylabel("serialized size (bytes)")
    right.set_title("size against epsilon")
    right.legend(loc="upper left", fontsize=8)

    fig.tight_layout()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    fig.savefig(OUT, dpi=110)
    print(f"wrote {os.path.relpath(OUT, ROOT)}; worst relative error {np.max(np.abs(rel[keep])):.4f}, bound {b:.4f}")


if __name__ == "__main__":
    main()
