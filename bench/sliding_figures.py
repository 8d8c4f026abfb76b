"""Figures of bench/results/sliding.json (ECM-EH vs Sl-CM and HSS-CM at equal memory) into
docs/figures/sliding_*.png.

    python bench/sliding_figures.py
"""
from __future__ import annotations

import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DATA = json.load(open(os.path.join(ROOT, "bench", "results", "sliding.json")))
OUT = os.path.join(ROOT, "docs", "figures")
PANELS = [("zipf", "count"), ("zipf", "time"), ("bursty", "count"), ("bursty", "time")]


def rows(stream, wtype):
    return sorted((r for r in DATA["rows"] if r["stream"] == stream and r["window_type"] == wtype), key=lambda r: r["budget"])


def kb(b):
    return [x / 1024 for x in b]


def panel_figure(name, title, metric, ylabel, bound=False):
    fig, axes = plt.subplots(1, 4, figsize=(16, 4), sharey=True)
    for ax, (stream, wtype) in zip(axes, PANELS):
        rs = rows(stream, wtype)
        e = [r for r in rs if r["ecm"] is not None]
        ax.plot(kb([r["ecm_bytes"] for r in e]), [r["ecm"][metric] for r in e], "o-", label="ECM-EH (serialized bytes)")
        h = [r for r in rs if r.get("ecm_by_heap") and r["ecm_by_heap"]["errors"] is not None]
        ax.plot(kb([r["ecm_by_heap"]["heap"] for r in h]), [r["ecm_by_heap"]["errors"][metric] for r in h], "o:",
                color="C0", alpha=0.5, label="ECM-EH sized by its heap (estimated heap bytes)")
        ax.plot(kb([r["sl_bytes"] for r in rs]), [r["slcm"][metric] for r in rs], "s--", label="Sl-CM, k = 2 (counter bytes)")
        ax.plot(kb([r["hss_bytes"] for r in rs]), [r["hsscm"][metric] for r in rs], "^-.",
                label="HSS-CM, d = 6, 3 queried (counter bytes)")
        if bound:
            ax.plot(kb([r["ecm_bytes"] for r in e]), [r["ecm_bound"] for r in e], ":", color="gray", label="ECM certified bound")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{stream}, {wtype}-based window")
        ax.set_xlabel("bytes held (KB); budgets 16 KB .. 4 MB")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel(ylabel)
    axes[0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    path = os.path.join(OUT, f"sliding_{name}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print("wrote", path)


def ranges_figure():
    fig, axes = plt.subplots(1, 4, figsize=(16, 4), sharey=True)
    for ax, (stream, wtype) in zip(axes, PANELS):
        e = [r for r in rows(stream, wtype) if r["ecm"] is not None]
        b = kb([r["ecm_bytes"] for r in e])
        ax.plot(b, [r["ecm"]["avg"] for r in e], "o-", label="r = N (full window)")
        for f in sorted(e[0]["ecm_ranges"]) if e else []:
            ax.plot(b, [r["ecm_ranges"][f]["avg"] for r in e], "o-", label=f"r = {float(f):g} N")
            ax.plot(b, [r["ecm_ranges"][f]["max"] for r in e], "x:", label=f"max, r = {float(f):g} N")
        ax.plot(b, [r["ecm_bound"] for r in e], ":", color="gray", label="certified bound")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{stream}, {wtype}-based window")
        ax.set_xlabel("ECM-EH bytes held (KB)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("ECM-EH error / L1 of the range")
    axes[0].legend(fontsize=7)
    fig.suptitle("ECM-EH on ranges r < N (Sl-CM cannot answer them): average and maximum error over the range's L1")
    fig.tight_layout()
    path = os.path.join(OUT, "sliding_ranges.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print("wrote", path)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    panel_figure("avg_error", "Average error over the window's L1, every key seen, full window (lower is better)", "avg",
                 "avg |est - true| / L1")
    panel_figure("max_error", "Maximum error over the window's L1 (dotted: ECM's certified bound)", "max",
                 "max |est - true| / L1", bound=True)
    panel_figure("are", "Average relative error over keys in the window (the Sliding sketch paper's ARE)", "are", "ARE")
    ranges_figure()
