"""Sketches of every kind built through the bytes-level API from fixed, seeded rows (test_integrity).

Run as a script, it prints the Scala line of the JVM it used and the hex of every case as JSON, so a
test can compare what the Scala 2.12 and 2.13 jars write for the same rows. Given a JSON file of
such hex (another run's), it prints each case decoded and encoded again instead.
"""
from __future__ import annotations

import json
import sys
from typing import Any, Callable, Dict, Tuple

import numpy as np

from ecmsketch.sketches import (AsyncQuantile, AsyncSum, DecayedSketch, DetWave, DistinctSketch, DyadicSketch,
                                EcmSketch, ExpHistogram, FrequentSketch, QuantileSketch)


def _rows(seed: int, n: int = 2000, keys: int = 150, span: int = 600):
    rnd = np.random.default_rng(seed)
    ts = np.sort(rnd.integers(0, span, n)).astype(np.int64)
    ks = rnd.integers(0, keys, n).astype(np.int64)
    vs = rnd.integers(1, 4, n).astype(np.int64)
    return ks, ts, vs


def build() -> Dict[str, Tuple[Any, Callable[[Any], Any]]]:
    """Name -> (sketch, a query of it), one of every sketch kind, cell kind and key type."""
    ks, ts, vs = _rows(1)
    out: Dict[str, Tuple[Any, Callable[[Any], Any]]] = {}

    e = EcmSketch.create(epsilon=0.1, delta=0.1, window=500)
    e.add_many(ks, ts, vs)
    out["ecm-eh"] = (e, lambda s: s.point(7))

    d = EcmSketch.create(epsilon=0.1, delta=0.1, window=500, cell="dwave")
    d.add_many([f"page-{k}" for k in ks], ts, vs)
    out["ecm-dwave-strings"] = (d, lambda s: s.point("page-7"))

    r = EcmSketch.create(epsilon=0.3, delta=0.2, window=500, cell="rwave")
    r.add_many(ks, ts)
    out["ecm-rwave"] = (r, lambda s: s.point(7))

    a, b = ExpHistogram.create(0.05, window=400), ExpHistogram.create(0.05, window=400)
    a.add_many(ts[ts < 300], vs[ts < 300])
    b.add_many(ts[ts >= 300] + 1, vs[ts >= 300])
    out["eh-rollup"] = (ExpHistogram.merge([a, b]), lambda s: s.count(100))

    w = DetWave.create(0.1, window=500, max_arrivals=10_000)
    w.add_many(ts, vs)
    out["dwave"] = (w, lambda s: s.count(100))

    x = DistinctSketch.create(0.2, 0.1, window=1000)
    x.add_many([f"user-{k}" for k in ks], ts)
    out["distinct"] = (x, lambda s: s.count(300))

    q = DyadicSketch.create(0.25, 0.25, window=500, universe_bits=10)
    q.add_many(ks, ts, vs)
    out["dyadic"] = (q, lambda s: s.quantile(0.5))

    u = AsyncSum.create(0.3, 0.2, window=500)
    order = np.random.default_rng(2).permutation(len(ts))  # out of order, as async streams arrive
    u.add_many(vs[order], ts[order])
    out["async-sum"] = (u, lambda s: s.sum(200))

    p = AsyncQuantile.create(0.3, 0.2, window=500)
    p.add_many((ks[order] * 1.5).astype(np.float64), ts[order])
    out["async-quantile"] = (p, lambda s: s.quantile(0.5))

    g = DecayedSketch.create(0.3, 0.2, decay="exp", decay_param=0.01, max_weight=4)
    g.add_many(vs, ts, ids=ks)
    out["decayed"] = (g, lambda s: s.sum())

    h = QuantileSketch(0.05, window=500)
    h.add_many((ks * 1.5).astype(np.float64), ts, vs)
    out["quantile"] = (h, lambda s: s.quantile([0.1, 0.5, 0.9], range=200))

    f = FrequentSketch(0.05, window=500)
    f.add_many([f"page-{k}" for k in ks], ts, vs)
    out["frequent-strings"] = (f, lambda s: [(t["key"], t["lower"], t["upper"]) for t in s.top_k(3, range=200)])
    return out


#: Cases whose bytes differ from run to run, by design: the randomized-wave cells of an ECM-sketch draw
#: the salts of their event ids at random (docs/rwave.md). Their bytes still decode and encode alike.
RANDOM_SALTS = {"ecm-rwave"}


if __name__ == "__main__":
    from ecmsketch import _jvm
    cases = build()
    if len(sys.argv) > 1:
        with open(sys.argv[1]) as f:
            stored = json.load(f)
        out = {name: type(cases[name][0]).from_bytes(bytes.fromhex(hx)).to_bytes().hex() for name, hx in stored.items()}
    else:
        out = {name: s.to_bytes().hex() for name, (s, _) in cases.items()}
    print(json.dumps({"scala": _jvm.scala_library()[0], "bytes": out}))
    sys.stdout.flush()
