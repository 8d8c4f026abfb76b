"""Extrema of the monitored functions over a ball (the geometric method's local test)."""
from __future__ import annotations

import math
from typing import Tuple

import numpy as np

from .. import SketchError

__all__ = ["water_level", "self_join_extrema", "point_extrema"]


def water_level(levels: np.ndarray, radius: float) -> float:
    """The largest lambda with sum_j max(0, lambda - levels[j])^2 <= radius^2 (water-filling)."""
    x = np.sort(np.asarray(levels, dtype=np.float64).ravel())
    if not float(radius) >= 0:
        raise SketchError(f"radius must be non-negative, got {radius}")
    r2 = float(radius) ** 2
    if x.size == 0:
        raise SketchError("water_level needs at least one level")
    s1 = 0.0
    s2 = 0.0
    for k in range(1, x.size + 1):
        s1 += x[k - 1]
        s2 += x[k - 1] ** 2
        # k * lam^2 - 2 * s1 * lam + s2 - r2 = 0, the larger root
        disc = max(0.0, s1 * s1 - k * (s2 - r2))
        lam = (s1 + math.sqrt(disc)) / k
        if k == x.size or lam <= x[k]:
            return lam
    raise AssertionError("unreachable")


def self_join_extrema(center: np.ndarray, radius: float) -> Tuple[float, float]:
    """Min and max of F(V) = min_j ||V_j||^2 over the ball ||V - center|| <= radius (Frobenius norm;
    rows j of the d x w matrix ``center``): min_j max(0, rho_j - radius)^2 and lambda^2 with
    sum_j max(0, lambda - rho_j)^2 = radius^2, rho_j = ||center_j||."""
    c = np.asarray(center, dtype=np.float64)
    if c.ndim != 2:
        raise SketchError(f"center must be a d x w matrix, got shape {c.shape}")
    if not radius >= 0:
        raise SketchError(f"radius must be non-negative, got {radius}")
    rho = np.sqrt((c * c).sum(axis=1))
    lo = float(np.min(np.maximum(0.0, rho - radius)) ** 2)
    hi = water_level(rho, radius) ** 2
    return lo, hi


def point_extrema(center: np.ndarray, radius: float) -> Tuple[float, float]:
    """Min and max of f(v) = min_j v_j over the ball ||v - center|| <= radius: min_j center_j - radius,
    and the water level lambda with sum_j max(0, lambda - center_j)^2 = radius^2."""
    c = np.asarray(center, dtype=np.float64).ravel()
    if c.size == 0:
        raise SketchError("point_extrema needs at least one cell")
    if not radius >= 0:
        raise SketchError(f"radius must be non-negative, got {radius}")
    return float(c.min() - radius), water_level(c, radius)
