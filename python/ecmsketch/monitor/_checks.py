"""Checks of the monitoring arguments, shared by the modules of :mod:`ecmsketch.monitor`."""
from __future__ import annotations

import math
import numbers
from typing import Any

from .. import SketchError

#: Bytes of a control message (an alert without payload, a request): site id and timestamp.
CONTROL_BYTES = 16


def _real(x: Any, what: str) -> float:
    """A finite real number (Python or numpy), or a SketchError naming ``what``."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(float(x)):
        raise SketchError(f"{what} must be a finite number, got {x!r}")
    return float(x)


def _integer(x: Any, what: str) -> int:
    """An integer (Python or numpy), or a SketchError naming ``what``."""
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise SketchError(f"{what} must be an integer, got {x!r}")
    return int(x)
