"""Shared pieces of the paper-reproduction scripts (bench/paper/exp_*.py): where the results and
figures live, loading the JSON the Scala side writes, the paper's published numbers, and saving a
figure with the stream's provenance in its caption."""
from __future__ import annotations

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RESULTS = os.path.join(ROOT, "bench", "results", "paper")
FIGURES = os.path.join(ROOT, "docs", "figures")

KINDS = ["EH", "DW", "RW"]
COLORS = {"EH": "tab:blue", "DW": "tab:orange", "RW": "tab:green"}
SHAPE_TITLE = {"wc98": "synthetic WorldCup'98-shaped stream", "snmp": "synthetic snmp-shaped stream"}

# [ECM] Table 3: updates/s at eps = 0.1 (Java 1.7, one core of a 1.6 GHz Xeon)
PAPER_TABLE3 = {"wc98": {"EH": 1486314, "DW": 1167704, "RW": 177149},
                "snmp": {"EH": 736595, "DW": 667036, "RW": 105825}}
# [ECM] Table 4: observed average error, centralized : distributed (ratio); None = not reported
PAPER_TABLE4 = {
    (0.1, "wc98"): {"point ECM-EH": (0.012, 0.015, 1.234), "self-join ECM-EH": (0.012, 0.015, 1.231), "point ECM-RW": (0.007, None, None)},
    (0.2, "wc98"): {"point ECM-EH": (0.027, 0.031, 1.164), "self-join ECM-EH": (0.026, 0.029, 1.131), "point ECM-RW": (0.016, 0.016, 1.008)},
    (0.1, "snmp"): {"point ECM-EH": (0.011, 0.011, 1.042), "self-join ECM-EH": (0.010, 0.011, 1.021), "point ECM-RW": (0.006, 0.006, 1.031)},
    (0.2, "snmp"): {"point ECM-EH": (0.025, 0.026, 1.037), "self-join ECM-EH": (0.025, 0.025, 1.016), "point ECM-RW": (0.014, 0.014, 0.986)},
}


def load(name: str) -> dict:
    """bench/results/paper/<name>.json, written by PaperBench (run bench/paper/run_all.py)."""
    path = os.path.join(RESULTS, f"{name}.json")
    if not os.path.exists(path):
        sys.exit(f"{path} is missing: run bench/paper/run_all.py (it runs PaperBench first)")
    with open(path) as f:
        return json.load(f)


def stream_note(stream: dict) -> str:
    """One line on the synthetic stream: size, sites, keys, window."""
    return (f"{stream['label']}: {stream['events']:,} events over {stream['span_s']:,} s "
            f"(scaled down from the paper's data set), {stream['sites']} sites, {stream['distinct_keys']:,} Zipf({stream['zipf']}) keys, "
            f"window {stream['window_s']:,} s")


def save(fig, name: str, caption: str) -> str:
    """Writes docs/figures/<name>.png with `caption` under the axes."""
    os.makedirs(FIGURES, exist_ok=True)
    fig.text(0.5, 0.005, caption, ha="center", va="bottom", fontsize=7.5, wrap=True)
    path = os.path.join(FIGURES, f"{name}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {os.path.relpath(path, ROOT)}")
    return path


def write_md(name: str, text: str) -> None:
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, f"{name}.md"), "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")
    print(text)
