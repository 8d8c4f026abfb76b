"""Distributed threshold monitoring: 33 web-server mirrors, an alarm on the self-join size of the last
hour's requests, without shipping every sketch every minute.

Each mirror keeps an ECM-sketch of its requests (key = page). The question, asked every minute: is
F2 (the self-join size, sum over pages of count^2, high when a few pages draw a flash crowd) of the
union of all mirrors' last hour above a threshold? Three ways to answer it:

* ship every mirror's sketch to a coordinator every minute (it then knows the merged sketch);
* ship them every 10 minutes (cheaper, but crossings are seen late, or missed);
* the geometric method (ecmsketch.monitor.ThresholdMonitor, ECM-sketch §6.2): each mirror tests a
  local condition every minute and only a local violation makes everyone ship.

The stream is synthetic, shaped after the WorldCup'98 logs the paper used (33 mirrors with uneven
shares, Zipf page popularity, a daily rhythm and match-time flash crowds): it is generated here,
no data set is shipped. Reference for the crossings: the merged sketch evaluated every minute.

Run: .venv/bin/python examples/monitoring.py   (MONITOR_HOURS=12 by default; under a minute on an idle 2-core box)
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np  # noqa: E402

from ecmsketch.monitor import Cluster, PeriodicShipping, ThresholdMonitor, score_crossings  # noqa: E402

SITES = 33
HOUR = 3600
MINUTE = 60
PAGES = 5_000
EPS, DELTA = 0.1, 0.05
#: the alarm level of F2 over the last hour (quiet hours stay near 1e8; the two flash crowds peak near 2.9e9 and 1.3e9)
THRESHOLD = 5e8


def make_stream(hours, sites=SITES, seed=1998, base=120.0, crowds=((1.5, 1.5, 5.0), (6.0, 2.0, 3.0))):
    """Per minute and mirror, the (pages, timestamps) of its requests: ``10 * base`` requests per
    minute overall on average (1,200 at the default, before the crowds), following a daily rhythm; each crowd (start hour, length in hours, factor) multiplies the
    requests for one hot page set (a match) by ``factor``, ramping up and down."""
    rng = np.random.default_rng(seed)
    share = 1.0 / np.arange(1, sites + 1) ** 0.8
    share = rng.permutation(share / share.sum())
    minutes = int(hours * 60)
    hot = rng.choice(PAGES, 20, replace=False)
    out = []
    for m in range(minutes):
        h = m / 60.0
        rate = base * (1.0 + 0.3 * np.sin(2 * np.pi * h / 24.0))
        crowd = 0.0
        for start, length, factor in crowds:
            x = (h - start) / length
            if 0 <= x <= 1:
                crowd += (factor - 1.0) * np.sin(np.pi * x) ** 2
        n = rng.poisson(rate * (1 + crowd) * MINUTE / 60.0 * 10)
        cnt = rng.multinomial(n, share)
        per = []
        for s in range(sites):
            k = (rng.zipf(1.1, cnt[s]) - 1) % PAGES
            if crowd > 0:  # a share of the requests goes to the match pages
                mask = rng.random(cnt[s]) < crowd / (1 + crowd)
                k[mask] = hot[rng.integers(0, hot.size, int(mask.sum()))]
            ts = m * MINUTE + rng.integers(1, MINUTE + 1, cnt[s])
            per.append((k.astype(np.int64), ts.astype(np.int64)))
        out.append(((m + 1) * MINUTE, per))
    return out


def exact_self_join(stream, range_=HOUR):
    """Brute force over the union of the mirrors: F2 and the total of the last hour, per minute."""
    keys = np.concatenate([k for _, per in stream for k, _ in per])
    ts = np.concatenate([t for _, per in stream for _, t in per])
    order = np.argsort(ts, kind="stable")
    keys, ts = keys[order], ts[order]
    out = []
    for now, _ in stream:
        lo, hi = np.searchsorted(ts, now - range_, side="right"), np.searchsorted(ts, now, side="right")
        c = np.bincount(keys[lo:hi], minlength=PAGES).astype(np.float64)
        out.append((float((c * c).sum()), float(c.sum())))
    return out


def simulate(stream, threshold=THRESHOLD, sites=SITES, periods=(1, 10), eps=EPS, delta=DELTA):
    """Runs the monitor and the periodic baselines on one cluster; returns their per-minute answers
    and traffic."""
    cluster = Cluster(sites, HOUR, eps, delta)
    mon = ThresholdMonitor(cluster, threshold, HOUR)
    base = {p: PeriodicShipping(cluster, threshold, HOUR, period=p) for p in periods}
    answers = {"monitor": []}
    answers.update({p: [] for p in periods})
    estimates = []
    for now, per in stream:
        for s, (k, t) in enumerate(per):
            cluster.ingest(s, k, t)
        cluster.advance(now)
        mon.step()
        answers["monitor"].append(mon.above)
        for p, b in base.items():
            b.step()
            answers[p].append(b.above)
        if 1 in base:
            estimates.append(base[1].estimate)
    return mon, base, answers, estimates


def main():
    hours = float(os.environ.get("MONITOR_HOURS", "12"))
    t0 = time.time()
    stream = make_stream(hours)
    mon, base, answers, estimates = simulate(stream)
    exact_and_total = exact_self_join(stream)
    exact = [f for f, _ in exact_and_total]
    ref = answers[1]  # the merged sketch, every minute
    print(f"{SITES} mirrors, {len(stream)} one-minute batches, "
          f"{sum(len(k) for _, per in stream for k, _ in per)} requests, threshold {THRESHOLD:.3g} on the last hour's F2")
    worst = max(abs(e - x) / max(1.0, a * a) for e, (x, a) in zip(estimates, exact_and_total))
    bound = base[1].merged.info()["inner_product_error_bound"]
    print(f"merged sketch vs exact F2: max error {worst:.4f} x A^2 (certified {bound:.3f}); exact crossings "
          f"{score_crossings([x >= THRESHOLD for x in exact], ref).crossings}, sketch crossings "
          f"{score_crossings(ref, ref).crossings}")
    print(f"{'scheme':<26}{'messages':>10}{'MB sent':>10}{'syncs':>7}{'late':>6}{'missed':>8}{'max delay':>11}")
    rows = [("ship every minute", base[1], ref), ("ship every 10 minutes", base[10], answers[10]),
            ("geometric monitor", mon, answers["monitor"])]
    for name, p, ans in rows:
        sc = score_crossings(ref, ans)
        print(f"{name:<26}{p.traffic.messages:>10}{p.traffic.bytes / 1e6:>10.2f}{p.traffic.syncs:>7}"
              f"{sc.late:>6}{sc.missed:>8}{sc.max_delay:>10}m")
    saved = 1 - mon.traffic.messages / base[1].traffic.messages
    saved_b = 1 - mon.traffic.bytes / base[1].traffic.bytes
    print(f"the monitor saved {saved:.0%} of the messages and {saved_b:.0%} of the bytes of shipping every minute, "
          f"and missed {score_crossings(ref, answers['monitor']).missed} crossings "
          f"({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
