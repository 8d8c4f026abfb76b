"""The sites: a :class:`Cluster` of ECM-sketches and the Count-Min :func:`matrix` of one."""
from __future__ import annotations

import numbers
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .. import SketchError
from .. import _jvm
from .._convert import call, jlong
from .._units import range_ticks, time_ticks
from ..sketches import DEFAULT_SEED, EcmSketch
from ._checks import _integer

__all__ = ["Cluster", "matrix"]


def matrix(sketch: EcmSketch, range: Any = None, now: Any = None) -> np.ndarray:
    """The plain Count-Min matrix (depth x width) of ``sketch`` for (now - range, now], in one JVM call
    (range and now as :meth:`EcmSketch.point` takes them)."""
    if not isinstance(sketch, EcmSketch):
        raise SketchError(f"matrix needs an EcmSketch, got {type(sketch).__name__}")
    i = sketch._j
    flat = np.asarray(call(_jvm.api().ecmMatrix, i, jlong(range_ticks(range, sketch._micros)),
                           jlong(time_ticks(now, sketch._micros))), dtype=np.float64)
    return flat.reshape(int(i.depth()), int(i.width()))


class Cluster:
    """n sites, each with an ECM-sketch of one configuration (integer ticks, time-based window)."""

    def __init__(self, n_sites: int, window: int, epsilon: float = 0.1, delta: float = 0.05, *,
                 optimize_for: str = "inner_product", cell: str = "eh", seed: int = DEFAULT_SEED):
        if isinstance(n_sites, bool) or not isinstance(n_sites, numbers.Integral) or n_sites < 1:
            raise SketchError(f"n_sites must be a positive integer, got {n_sites!r}")
        self.n = int(n_sites)
        self.window = _integer(window, "window (integer ticks)")
        self.sketches = [EcmSketch.create(epsilon, delta, window, optimize_for=optimize_for, cell=cell, seed=seed)
                         for _ in range(n_sites)]
        for i, s in enumerate(self.sketches):
            s._j.setEventSalt(0x51735 + i)  # distinct event ids per site for randomized waves
        self._bytes: List[Optional[bytes]] = [None] * n_sites
        self._matrices: Dict[Tuple[int, int, int], np.ndarray] = {}
        self.now: Optional[int] = None

    def ingest(self, site: int, keys: Any, timestamps: Any, values: Any = None) -> None:
        """Adds a batch at one site (timestamps at or after its last one)."""
        site = self._site(site)
        if timestamps is None or keys is None:
            raise SketchError("ingest needs keys and timestamps (sequences of equal length)")
            raise SketchError(f"site must be in [0, {self.n}), got {site}")
        if len(timestamps):
            self.sketches[site].add_many(keys, timestamps, values)
            self._bytes[site] = None
            self._matrices.clear()

    def advance(self, now: int) -> None:
        """Ends an update batch: the clock moves to ``now`` (no earlier than any timestamp added)."""
        now = _integer(now, "now")
        if self.now is not None and now < self.now:
            raise SketchError(f"now must not go back: {now} < {self.now}")
        for s in self.sketches:
            if s.last_ts is not None and s.last_ts > now:
                raise SketchError(f"now {now} precedes a site's last timestamp {s.last_ts}")
        if now != self.now:
            self._matrices.clear()
        self.now = now

    def _site(self, site: Any) -> int:
        site = _integer(site, "site")
        if not 0 <= site < self.n:
            raise SketchError(f"site must be in [0, {self.n}), got {site}")
        return site

    def sketch_bytes(self, site: int) -> bytes:
        """The site's sketch as shipped (its bytes as `to_bytes` writes them; cached until the site's next batch)."""
        site = self._site(site)
        b = self._bytes[site]
        if b is None:
            b = self._bytes[site] = self.sketches[site].to_bytes()
        return b

    def local_matrix(self, site: int, range: int, now: Optional[int] = None) -> np.ndarray:
        """The site's Count-Min matrix for (now - range, now] (read-only; shared by the protocols
        that read the same site, range and time until the site's next batch)."""
        site = self._site(site)
        t = self.now if now is None else now
        if t is None:
            raise SketchError("local_matrix needs a time: call advance(now) first")
        key = (site, min(_integer(range, "range"), self.window), _integer(t, "now"))
        m = self._matrices.get(key)
        if m is None:
            m = matrix(self.sketches[site], key[1], key[2])
            m.setflags(write=False)
            self._matrices[key] = m
        return m
