"""ECM-sketch §6.2 reproduced: messages of distributed threshold monitoring (the geometric method,
ecmsketch.monitor) against the threshold and against the number of sites, beside shipping every
sketch every minute and every 10 minutes.

The stream is synthetic, shaped after WorldCup'98 (Zipf pages, uneven mirrors, a daily rhythm and
two match-time flash crowds; examples/monitoring.py generates it): the paper's logs are not shipped.
The paper gives no numbers for this part (its §6.2 has no experiment), so there is nothing to compare
with but the baselines.

Writes docs/figures/monitor_threshold.png, docs/figures/monitor_sites.png and
bench/results/paper/monitor.{md,json}. Run: .venv/bin/python bench/paper/exp_monitor.py
(about 2 minutes of CPU, 7 to 8 minutes on the shared 2-core box; EXP_MONITOR_QUICK=1 for a short
smoke run).
"""
from __future__ import annotations

import json
import os
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ecmsketch.monitor import Cluster, PeriodicShipping, RelativeMonitor, ThresholdMonitor, score_crossings  # noqa: E402
from monitoring import HOUR, make_stream  # noqa: E402

QUICK = os.environ.get("EXP_MONITOR_QUICK") == "1"
EPS, DELTA = 0.1, 0.05
THRESHOLDS = [2e8, 3.5e8, 5e8, 1e9, 2e9] if not QUICK else [5e8, 2e9]
THETAS = [0.1, 0.25, 0.5]
SITES = [2, 4, 8, 16, 33, 64] if not QUICK else [2, 8]
HOURS_T = 9.0 if not QUICK else 3.5   # both flash crowds
HOURS_S = 4.0 if not QUICK else 3.5   # the first one
FIG = os.path.join(ROOT, "docs", "figures") if not QUICK else os.path.join(ROOT, "bench", "results", "paper_quick")
# a quick run writes beside the committed results, never over them
OUT = os.path.join(ROOT, "bench", "results", "paper" + ("_quick" if QUICK else ""))
NOTE = "synthetic WorldCup'98-shaped stream (generated; not the real logs)"


def feed(cluster, stream, protocols, per_step=None):
    for now, per in stream:
        for s, (k, t) in enumerate(per):
            cluster.ingest(s, k, t)
        cluster.advance(now)
        for p in protocols:
            p.step()
        if per_step:
            per_step()


def row(name, p, ref, ans):
    sc = score_crossings(ref, ans) if ans is not None else None
    return {"scheme": name, "messages": p.traffic.messages, "mbytes": round(p.traffic.bytes / 1e6, 3),
            "syncs": p.traffic.syncs, "late": None if sc is None else sc.late,
            "missed": None if sc is None else sc.missed, "max_delay": None if sc is None else sc.max_delay}


def against_threshold():
    """One 33-site cluster; the baselines once, a monitor per threshold (same streams)."""
    stream = make_stream(HOURS_T, sites=33)
    cluster = Cluster(33, HOUR, EPS, DELTA)
    every = PeriodicShipping(cluster, 0.0, HOUR)
    ten = PeriodicShipping(cluster, 0.0, HOUR, period=10)
    mons = {T: ThresholdMonitor(cluster, T, HOUR) for T in THRESHOLDS}
    rels = {th: RelativeMonitor(cluster, th, HOUR) for th in THETAS}
    est_every, est_ten = [], []
    sides = {T: [] for T in THRESHOLDS}

    def log():
        est_every.append(every.estimate)
        est_ten.append(ten.estimate)
        for T, m in mons.items():
            sides[T].append(m.above)

    feed(cluster, stream, [every, ten, *mons.values(), *rels.values()], log)
    rows = []
    for T in THRESHOLDS:
        ref = [e >= T for e in est_every]
        rows.append({"threshold": T, **row("geometric monitor", mons[T], ref, sides[T])})
        rows.append({"threshold": T, **row("every 10 minutes", ten, ref, [e >= T for e in est_ten])})
    rows.append({"threshold": None, **row("every minute", every, None, None)})
    rel = [{"theta": th, **row("relative (Lemma 2)", m, None, None)} for th, m in rels.items()]
    return {"batches": len(stream), "sites": 33, "rows": rows, "relative": rel,
            "peak_estimate": max(est_every), "quiet_estimate": float(np.median(est_every))}


def against_sites(threshold=5e8):
    rows = []
    for n in SITES:
        stream = make_stream(HOURS_S, sites=n)
        cluster = Cluster(n, HOUR, EPS, DELTA)
        every = PeriodicShipping(cluster, threshold, HOUR)
        ten = PeriodicShipping(cluster, threshold, HOUR, period=10)
        mon = ThresholdMonitor(cluster, threshold, HOUR)
        uni = ThresholdMonitor(cluster, threshold, HOUR, weights="uniform")
        ans = {k: [] for k in ("every", "ten", "mon", "uni")}

        def log():
            for k, p in (("every", every), ("ten", ten), ("mon", mon), ("uni", uni)):
                ans[k].append(p.above)

        t0 = time.time()
        feed(cluster, stream, [every, ten, mon, uni], log)
        ref = ans["every"]
        for name, p, a in (("every minute", every, ref), ("every 10 minutes", ten, ans["ten"]),
                           ("geometric monitor", mon, ans["mon"]), ("geometric, uniform weights", uni, ans["uni"])):
            rows.append({"sites": n, **row(name, p, ref, a)})
        print(f"  {n} sites: {time.time() - t0:.0f} s", flush=True)
    return {"batches": int(HOURS_S * 60), "threshold": threshold, "rows": rows}


def plot_threshold(res):
    rows = res["rows"]
    ts = THRESHOLDS
    mon = [next(r for r in rows if r["threshold"] == T and r["scheme"] == "geometric monitor") for T in ts]
    ten = next(r for r in rows if r["scheme"] == "every 10 minutes")
    every = next(r for r in rows if r["scheme"] == "every minute")
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    a.plot(ts, [r["messages"] for r in mon], "o-", label="geometric monitor")
    a.axhline(every["messages"], color="C3", ls="--", label="ship every minute")
    a.axhline(ten["messages"], color="C2", ls=":", label="ship every 10 minutes")
    a.axvline(res["quiet_estimate"], color="grey", lw=0.8)
    a.text(res["quiet_estimate"], a.get_ylim()[1] * 0.5, " median estimated F2 (merged sketch)", color="grey", fontsize=8)
    a.set_xscale("log"); a.set_yscale("log")
    a.set_xlabel("threshold on F2 of the last hour"); a.set_ylabel("messages")
    a.set_title(f"33 sites, {res['batches']} one-minute batches")
    a.legend(fontsize=8)
    lates = [next(r for r in rows if r["threshold"] == T and r["scheme"] == "every 10 minutes") for T in ts]
    w = 0.35
    x = np.arange(len(ts))
    b1 = b.bar(x - w / 2, [r["late"] + r["missed"] for r in mon], w, label="geometric monitor")
    b2 = b.bar(x + w / 2, [r["late"] + r["missed"] for r in lates], w, color="C2", label="ship every 10 minutes")
    b.bar_label(b1, fontsize=8)
    b.bar_label(b2, fontsize=8)
    b.set_xticks(x, [f"{T:.2g}" for T in ts])
    b.set_xlabel("threshold"); b.set_ylabel("crossings seen late or missed")
    b.set_title("vs. the merged sketch every minute")
    b.legend(fontsize=8)
    fig.suptitle(f"Threshold monitoring (ECM §6.2), eps={EPS}: {NOTE}", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(FIG, "monitor_threshold.png"), dpi=110)
    plt.close(fig)


def plot_sites(res):
    rows = res["rows"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name, style in (("every minute", "--"), ("every 10 minutes", ":"), ("geometric monitor", "o-"),
                        ("geometric, uniform weights", "s-")):
        rs = [r for r in rows if r["scheme"] == name]
        a.plot([r["sites"] for r in rs], [r["messages"] for r in rs], style, label=name)
        b.plot([r["sites"] for r in rs], [r["mbytes"] for r in rs], style, label=name)
    for ax, lab in ((a, "messages"), (b, "MB sent")):
        ax.set_xscale("log", base=2); ax.set_yscale("log")
        ax.set_xlabel("sites"); ax.set_ylabel(lab)
        ax.set_xticks(SITES, [str(s) for s in SITES])
        ax.legend(fontsize=8)
    a.set_title(f"threshold {res['threshold']:.2g}, {res['batches']} one-minute batches")
    b.set_title("bytes (sketches, estimates, alerts)")
    fig.suptitle(f"Threshold monitoring against the number of sites, eps={EPS}: {NOTE}", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(FIG, "monitor_sites.png"), dpi=110)
    plt.close(fig)


def table(rt, rs):
    lines = ["# Threshold monitoring (ECM §6.2): messages and bytes", "",
             f"{NOTE}; eps = {EPS}, delta = {DELTA}; range = window = 1 hour; one-minute batches. "
             "Late/missed: crossings of the merged sketch's F2 (evaluated every minute) that a scheme reported "
             "after the minute they happened, or not before the next crossing. Generated by bench/paper/exp_monitor.py.",
             "", f"## Against the threshold (33 sites, {rt['batches']} batches; median estimated F2 (merged sketch) {rt['quiet_estimate']:.3g}, "
             f"peak {rt['peak_estimate']:.3g})", "",
             "| threshold | scheme | messages | MB | syncs | late | missed | max delay (min) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rt["rows"]:
        t = "any" if r["threshold"] is None else f"{r['threshold']:.3g}"
        lines.append(f"| {t} | {r['scheme']} | {r['messages']} | {r['mbytes']:.2f} | {r['syncs']} | "
                     f"{'-' if r['late'] is None else r['late']} | {'-' if r['missed'] is None else r['missed']} | "
                     f"{'-' if r['max_delay'] is None else r['max_delay']} |")
    lines += ["", "Relative tracking (journal Lemma 2: the coordinator's F2 within a factor theta):", "",
              "| theta | messages | MB | syncs |", "|---|---|---|---|"]
    for r in rt["relative"]:
        lines.append(f"| {r['theta']} | {r['messages']} | {r['mbytes']:.2f} | {r['syncs']} |")
    lines += ["", f"## Against the number of sites (threshold {rs['threshold']:.3g}, {rs['batches']} batches)", "",
              "| sites | scheme | messages | MB | syncs | late | missed | max delay (min) |",
              "|---|---|---|---|---|---|---|---|"]
    for r in rs["rows"]:
        lines.append(f"| {r['sites']} | {r['scheme']} | {r['messages']} | {r['mbytes']:.2f} | {r['syncs']} | "
                     f"{r['late']} | {r['missed']} | {r['max_delay']} |")
    return "\n".join(lines) + "\n"


def main():
    os.makedirs(FIG, exist_ok=True)
    os.makedirs(OUT, exist_ok=True)
    t0 = time.time()
    print("monitoring against the threshold ...", flush=True)
    rt = against_threshold()
    print(f"  {time.time() - t0:.0f} s\nmonitoring against the number of sites ...", flush=True)
    rs = against_sites()
    plot_threshold(rt)
    plot_sites(rs)
    with open(os.path.join(OUT, "monitor.json"), "w") as f:
        json.dump({"threshold": rt, "sites": rs, "quick": QUICK}, f, indent=1)
    with open(os.path.join(OUT, "monitor.md"), "w") as f:
        f.write(table(rt, rs))
    print(f"wrote docs/figures/monitor_threshold.png, docs/figures/monitor_sites.png, bench/results/paper/monitor.md "
          f"({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
