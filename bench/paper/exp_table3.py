"""[ECM] Table 3: update rates of ECM-EH, ECM-DW and ECM-RW at eps = delta = 0.1, beside the paper's.

Writes bench/results/paper/table3.md and docs/figures/paper_table3_rates.png."""
from __future__ import annotations

import numpy as np

import _paper as P


def main() -> None:
    d = P.load("table3")
    lines = [f"# Table 3: update rates (updates/s), eps = delta = 0.1 ({d['env']}; medians of {d['shapes'][0]['reps']} interleaved runs)", "",
             "| stream | | ECM-EH | ECM-DW | ECM-RW | RW / EH |", "|---|---|---|---|---|---|"]
    for s in d["shapes"]:
        r = s["rates"]
        paper = P.PAPER_TABLE3[s["shape"]]
        lines.append(f"| {s['shape']} | paper | {paper['EH']:,} | {paper['DW']:,} | {paper['RW']:,} | {paper['RW'] / paper['EH']:.3f} |")
        lines.append(f"| {s['shape']} | ours, {s['long_stream']['events']:,} events | {r['EH_long']['median']:,.0f} | {r['DW_long']['median']:,.0f} | (too large for RW) | |")
        lines.append(f"| {s['shape']} | ours, {s['acc_stream']['events']:,} events | {r['EH_acc']['median']:,.0f} | {r['DW_acc']['median']:,.0f} | "
                     f"{r['RW_acc']['median']:,.0f} | {r['RW_acc']['median'] / r['EH_acc']['median']:.3f} |")
    P.write_md("table3", "\n".join(lines))

    fig, axes = P.plt.subplots(1, 2, figsize=(10, 4.4))
    for ax, s in zip(axes, d["shapes"]):
        r = s["rates"]
        paper = P.PAPER_TABLE3[s["shape"]]
        x = np.arange(3)
        series = [("paper (Java 1.7, 1.6 GHz Xeon)", [paper[k] for k in P.KINDS], "lightgray", None),
                  (f"ours, {s['long_stream']['events']:,} events", [r["EH_long"]["median"], r["DW_long"]["median"], np.nan], "tab:blue", None),
                  (f"ours, {s['acc_stream']['events']:,} events", [r[k + "_acc"]["median"] for k in P.KINDS], "tab:cyan", None)]
        wdt = 0.27
        for i, (lab, ys, col, _) in enumerate(series):
            bars = ax.bar(x + (i - 1) * wdt, ys, wdt, label=lab, color=col, edgecolor="black", linewidth=0.5)
            for b, y in zip(bars, ys):
                if not np.isnan(y):
                    ax.text(b.get_x() + b.get_width() / 2, y * 1.08, f"{y / 1e6:.2f}M" if y >= 1e6 else f"{y / 1e3:.0f}k",
                            ha="center", va="bottom", fontsize=7, rotation=90)
        ax.set_xticks(x, [f"ECM-{k}" for k in P.KINDS])
        ax.set_yscale("log")
        ax.set_ylim(3e4, 3e7)
        ax.set_ylabel("updates / s (single thread)")
        ax.set_title(f"Table 3, eps = 0.1: {P.SHAPE_TITLE[s['shape']]}", fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    P.save(fig, "paper_table3_rates",
           "Update rates of the three ECM-sketch variants (eps = delta = 0.1, window 10^6 s, one add per event) on synthetic streams "
           "shaped like wc'98 and snmp, scaled down; RW only on the shorter stream (its memory grows with the events held). "
           f"{d['env']}.")


if __name__ == "__main__":
    main()
