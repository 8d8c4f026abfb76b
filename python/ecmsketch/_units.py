"""Conversions of Python time values to sketch ticks (microseconds for TIMESTAMP sketches)."""
from __future__ import annotations

import datetime as _dt
import re
from typing import Optional, Union

TimeLike = Union[int, _dt.datetime]
RangeLike = Union[int, str, _dt.timedelta]

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_UNITS = {
    "us": 1, "microsecond": 1, "microseconds": 1, "ms": 1000, "millisecond": 1000, "milliseconds": 1000,
    "s": 1_000_000, "sec": 1_000_000, "second": 1_000_000, "seconds": 1_000_000,
    "m": 60_000_000, "min": 60_000_000, "minute": 60_000_000, "minutes": 60_000_000,
    "h": 3_600_000_000, "hour": 3_600_000_000, "hours": 3_600_000_000,
    "d": 86_400_000_000, "day": 86_400_000_000, "days": 86_400_000_000,
    "week": 604_800_000_000, "weeks": 604_800_000_000,
}


def timedelta_micros(d: _dt.timedelta) -> int:
    """Exact microseconds of a timedelta."""
    return (d.days * 86_400 + d.seconds) * 1_000_000 + d.microseconds


def datetime_micros(t: _dt.datetime) -> int:
    """Microseconds since the epoch; a naive datetime is taken as UTC."""
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.timezone.utc)
    return timedelta_micros(t - _EPOCH)


def parse_interval(s: str) -> int:
    """Microseconds of an interval string such as '10 minutes' or '1 hour 30 minutes'."""
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*([a-zA-Z]+)", s)
    rest = re.sub(r"(\d+(?:\.\d+)?)\s*([a-zA-Z]+)", "", s).strip()
    if not parts or rest:
        raise ValueError(f"cannot parse {s!r} as an interval such as '10 minutes'")
    total = 0
    for num, unit in parts:
        u = _UNITS.get(unit.lower())
        if u is None:
            raise ValueError(f"unknown interval unit {unit!r} in {s!r} (months and years have no fixed length)")
        total += round(float(num) * u)
    return total


def range_ticks(r: Optional[RangeLike], micros: bool) -> Optional[int]:
    """A query range in the sketch's ticks; None means the whole window."""
    if r is None:
        return None
    if isinstance(r, bool):
        raise TypeError("range must be an int, a timedelta or an interval string")
    if isinstance(r, _dt.timedelta):
        if not micros:
            raise ValueError("range is a timedelta but the sketch counts integer ticks; give an int")
        return timedelta_micros(r)
    if isinstance(r, str):
        if micros:
            return parse_interval(r)
        try:
            return int(r)
        except ValueError:
            raise ValueError(f"range {r!r} must be a number of ticks for a sketch of integer timestamps") from None
    if isinstance(r, int) or hasattr(r, "__index__"):
        if micros:
            raise ValueError("range for a sketch of timestamps must be a timedelta or a string such as '10 minutes'")
        return int(r)
    raise TypeError(f"range must be an int, a timedelta or an interval string, got {type(r).__name__}")


def time_ticks(t: Optional[TimeLike], micros: bool, what: str = "now") -> Optional[int]:
    """A point in time in the sketch's ticks; None means the sketch's last timestamp."""
    if t is None:
        return None
    if isinstance(t, _dt.datetime):
        if not micros:
            raise ValueError(f"{what} is a datetime but the sketch counts integer ticks; give an int")
        return datetime_micros(t)
    if isinstance(t, bool):
        raise TypeError(f"{what} must be an int or a datetime")
    if isinstance(t, int) or hasattr(t, "__index__"):
        return int(t)
    if isinstance(t, float) and t.is_integer():
        return int(t)
    raise TypeError(f"{what} must be an int or a datetime, got {t!r}")


def window_ticks(w: Optional[RangeLike], micros: bool) -> int:
    """The window length in ticks; None means unbounded."""
    if w is None:
        return 2**63 - 1
    if isinstance(w, str) and w.strip().lower() == "unbounded":
        return 2**63 - 1
    r = range_ticks(w, micros)
    assert r is not None
    if r <= 0:
        raise ValueError(f"window must be positive, got {w!r}")
    return r
