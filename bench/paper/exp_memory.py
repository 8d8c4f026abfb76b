"""Memory against eps per cell kind ([ECM] §7.2: ECM-RW 400 MB at eps = 0.1 on wc'98, ECM-EH about
half of ECM-DW): serialized bytes and heap bytes of the sketches of the accuracy experiment.

Writes bench/results/paper/memory.md and docs/figures/paper_memory.png."""
from __future__ import annotations

import _paper as P


def main() -> None:
    d = P.load("accuracy")
    lines = ["# Memory against eps (sketches after the whole accuracy stream)", "",
             "| stream | planned for | kind | eps | array | serialized bytes | heap bytes | EH / DW serialized |", "|---|---|---|---|---|---|---|---|"]
    for s in d["shapes"]:
        by = {(r["kind"], r["query"], r["eps"]): r for r in s["rows"]}
        for r in s["rows"]:
            dw = by.get(("DW", r["query"], r["eps"]))
            ratio = f"{r['serialized_bytes'] / dw['serialized_bytes']:.2f}" if r["kind"] == "EH" and dw else ""
            lines.append(f"| {s['shape']} | {r['query']} | ECM-{r['kind']} | {r['eps']:.2f} | {r['width']} x {r['depth']} | "
                         f"{r['serialized_bytes']:,} | {r['heap_bytes']:,} | {ratio} |")
    P.write_md("memory", "\n".join(lines))

    fig, axes = P.plt.subplots(2, 2, figsize=(11, 8.6))
    for col, s in enumerate(d["shapes"]):
        for row, (field, ylabel) in enumerate([("serialized_bytes", "serialized bytes"), ("heap_bytes", "heap bytes (used heap after full GCs)")]):
            ax = axes[row][col]
            for kind in P.KINDS:
                for query, style, qlab in [("point", "o-", "point"), ("inner_product", "s--", "self-join")]:
                    rs = sorted((r for r in s["rows"] if r["kind"] == kind and r["query"] == query), key=lambda r: r["eps"])
                    if rs:
                        ax.plot([r["eps"] for r in rs], [max(r[field], 1) for r in rs], style, color=P.COLORS[kind],
                                label=f"ECM-{kind}, planned for {qlab}")
            ax.axhline(400e6, color="gray", ls=":", lw=1)
            ax.text(0.25, 400e6 * 1.15, "paper: ECM-RW 400 MB at eps 0.1 (1.09 G events)", ha="right", fontsize=7, color="gray")
            ax.axhline(1e6, color="gray", ls=":", lw=1)
            ax.text(0.25, 1e6 * 1.15, "paper: ECM-EH, ECM-DW < 1 MB", ha="right", fontsize=7, color="gray")
            ax.set_yscale("log")
            ax.set_xlabel("eps")
            ax.set_ylabel(ylabel)
            ax.set_title(f"{ylabel.split(' (')[0]}: {P.SHAPE_TITLE[s['shape']]}", fontsize=9)
            ax.grid(alpha=0.3, which="both")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=5, fontsize=7.5)
    fig.tight_layout(rect=(0, 0.05, 1, 0.96))
    P.save(fig, "paper_memory",
           "Memory of the Fig. 4 sketches after the whole stream, delta = 0.1. "
           + P.stream_note(d["shapes"][0]["stream"]) + f"; snmp-shaped: {d['shapes'][1]['stream']['events']:,} events.\n"
           "ECM-RW grows with the events its waves hold until each level's queue (36/eps^2 items) is full: on the paper's 1.09 G events it is far larger.")


if __name__ == "__main__":
    main()
