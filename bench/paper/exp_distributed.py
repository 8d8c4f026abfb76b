"""[ECM] Table 4 and Fig. 6: centralized against distributed error (order-preserving merges up a
balanced binary aggregation tree) and the bytes sent, ECM-EH against ECM-RW.

Writes bench/results/paper/table4.md, bench/results/paper/fig6.md, docs/figures/paper_table4_ratio.png
and docs/figures/paper_fig6_network.png."""
from __future__ import annotations

import numpy as np

import _paper as P

CASES = ["point ECM-EH", "self-join ECM-EH", "point ECM-RW"]
CASE_COLORS = {"point ECM-EH": "tab:blue", "self-join ECM-EH": "tab:purple", "point ECM-RW": "tab:green"}


def table4() -> None:
    d = P.load("distributed")
    lines = ["# Table 4: observed average error, centralized : distributed (ratio), delta = 0.1", "",
             "Ours: the shape's own sites (33 wc'98-shaped, 535 snmp-shaped, Zipf-skewed loads), balanced binary tree of merges.", "",
             "| eps | stream | | " + " | ".join(CASES) + " | bytes sent, point EH / RW | certified point bound after the tree (EH) |",
             "|---|---|---|---|---|---|---|---|"]
    for eps in (0.1, 0.2):
        for s in d["shapes"]:
            rows = {r["case"]: r for r in s["rows"] if abs(r["eps"] - eps) < 1e-9}
            paper = P.PAPER_TABLE4[(eps, s["shape"])]
            cells = []
            for c in CASES:
                pc, pd, pr = paper[c]
                cells.append(f"{pc:.3f} : {'N/A' if pd is None else f'{pd:.3f}'} ({'N/A' if pr is None else f'{pr:.3f}'})")
            pbound = "0.3" if (eps, s["shape"]) == (0.1, "wc98") else ""
            lines.append(f"| {eps} | {s['shape']} | paper | " + " | ".join(cells) + f" | | {pbound} |")
            cells = [f"{rows[c]['central_avg']:.4f} : {rows[c]['distributed_avg']:.4f} ({rows[c]['ratio']:.3f})" for c in CASES]
            sent = f"{rows['point ECM-EH']['bytes_sent']:,} / {rows['point ECM-RW']['bytes_sent']:,}"
            lines.append(f"| {eps} | {s['shape']} | ours | " + " | ".join(cells) +
                         f" | {sent} | {rows['point ECM-EH']['distributed_bound']:.3f} (depth {rows['point ECM-EH']['root_depth']}) |")
    P.write_md("table4", "\n".join(lines))

    fig, axes = P.plt.subplots(1, 2, figsize=(11, 5.0))
    for ax, s in zip(axes, d["shapes"]):
        labels, ours, paper = [], [], []
        for eps in (0.1, 0.2):
            rows = {r["case"]: r for r in s["rows"] if abs(r["eps"] - eps) < 1e-9}
            for c in CASES:
                labels.append(f"{c}\neps {eps}")
                ours.append(rows[c]["ratio"])
                pr = P.PAPER_TABLE4[(eps, s["shape"])][c][2]
                paper.append(np.nan if pr is None else pr)
        x = np.arange(len(labels))
        ax.bar(x - 0.2, paper, 0.4, label="paper (real data set)", color="lightgray", edgecolor="black", linewidth=0.5)
        ax.bar(x + 0.2, ours, 0.4, label="ours", color=[CASE_COLORS[c] for c in CASES] * 2, edgecolor="black", linewidth=0.5)
        ax.axhline(1.0, color="black", lw=0.8)
        ax.set_xticks(x, labels, fontsize=6.5)
        ax.set_ylim(0.8, 1.3)
        ax.set_ylabel("distributed / centralized average error")
        ax.set_title(f"Table 4: {P.SHAPE_TITLE[s['shape']]}, {s['stream']['sites']} sites", fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    P.save(fig, "paper_table4_ratio",
           "Error ratio after order-preserving aggregation up a balanced binary tree (height ceil(log2 n)) of the sites' sketches, against one sketch "
           "of the whole stream (same plan, no merge budget), delta = 0.1.\n" + P.stream_note(d["shapes"][0]["stream"]) +
           f"; snmp-shaped: {d['shapes'][1]['stream']['events']:,} events, 535 sites. Paper N/A: ECM-RW at eps 0.1 did not complete.")


def fig6() -> None:
    d = P.load("network")
    lines = ["# Fig. 6: error and bytes sent against the number of leaf sites (eps = delta = 0.1, events split uniformly)", "",
             "| stream | sites | case | distributed avg error | centralized | bytes sent | root bytes | root bound |", "|---|---|---|---|---|---|---|---|"]
    for s in d["shapes"]:
        for r in s["rows"]:
            lines.append(f"| {s['shape']} | {r['sites']} | {r['case']} | {r['distributed_avg']:.5f} | {r['central_avg']:.5f} | "
                         f"{r['bytes_sent']:,} | {r['root_bytes']:,} | {r['distributed_bound']:.3f} |")
    P.write_md("fig6", "\n".join(lines))

    fig, axes = P.plt.subplots(2, 2, figsize=(11, 8.6))
    for row, s in zip(axes, d["shapes"]):
        for c in CASES:
            rs = sorted((r for r in s["rows"] if r["case"] == c), key=lambda r: r["sites"])
            n = [r["sites"] for r in rs]
            row[0].plot(n, [r["distributed_avg"] for r in rs], "o-", color=CASE_COLORS[c], label=c)
            if c != "self-join ECM-EH":
                row[1].plot(n[1:], [r["bytes_sent"] for r in rs][1:], "o-", color=CASE_COLORS[c], label=c)
        top = max(r["distributed_avg"] for r in s["rows"])
        row[0].set_ylim(0, top * 1.35)
        eh = {r["sites"]: r["bytes_sent"] for r in s["rows"] if r["case"] == "point ECM-EH"}
        rw = {r["sites"]: r["bytes_sent"] for r in s["rows"] if r["case"] == "point ECM-RW"}
        for n in sorted(eh):
            if n > 1 and eh[n] > 0:
                row[1].annotate(f"{rw[n] / eh[n]:.0f}x", (n, rw[n]), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=7)
        row[0].set_xscale("log", base=2)
        row[0].set_xlabel("leaf sites")
        row[0].set_ylabel("average observed error (point: /||a_r||_1, self-join: /||a_r||_1^2)", fontsize=8)
        row[0].set_title(f"Fig. 6 error: {P.SHAPE_TITLE[s['shape']]}", fontsize=9)
        row[0].grid(alpha=0.3)
        row[0].legend(fontsize=7, loc="lower right")
        row[1].set_xscale("log", base=2)
        row[1].set_yscale("log")
        row[1].set_ylim(min(v for v in eh.values() if v > 0) / 2, max(rw.values()) * 2.5)
        row[1].set_xlabel("leaf sites")
        row[1].set_ylabel("bytes sent up the tree (serialized sketches)")
        row[1].set_title(f"Fig. 6 transfer volume: {P.SHAPE_TITLE[s['shape']]}", fontsize=9)
        row[1].grid(alpha=0.3, which="both")
        row[1].legend(fontsize=7, loc="lower right", title="labels: RW / EH bytes", title_fontsize=7)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    P.save(fig, "paper_fig6_network",
           "Fig. 6-style: the stream's events split uniformly at random over n = 1..256 leaf sites, merged up a balanced binary tree, eps = delta = 0.1; "
           "bytes sent = every sketch that crosses to its parent (each inner node hosted by one child).\n" + P.stream_note(d["shapes"][0]["stream"]) +
           f"; snmp-shaped: {d['shapes'][1]['stream']['events']:,} events.")


def main() -> None:
    table4()
    fig6()


if __name__ == "__main__":
    main()
