"""Conversions of Python time values to sketch ticks (microseconds for TIMESTAMP sketches). Bad
values raise :class:`ecmsketch.SketchError` naming the argument."""
from __future__ import annotations

import datetime as _dt
import re
from typing import Optional, Union

from . import SketchError

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


#: The BIGINT (the JVM's long) range, which every integer passed to the JVM must fit.
I64_MIN, I64_MAX = -2 ** 63, 2 ** 63 - 1


def not_bigint(what: str, v: object) -> SketchError:
    """The error for a value ``v`` of ``what`` beyond the BIGINT range."""
    return SketchError(f"{what} must fit in a BIGINT (64-bit signed integer), got {v}")


def bigint(v: int, what: str) -> int:
    """``v`` if it fits in a BIGINT, else a SketchError naming ``what``."""
    if not I64_MIN <= v <= I64_MAX:
        raise not_bigint(what, v)
    return v


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
        raise SketchError(f"cannot parse {s!r} as an interval such as '10 minutes'")
    total = 0
    for num, unit in parts:
        u = _UNITS.get(unit.lower())
        if u is None:
            raise SketchError(f"unknown interval unit {unit!r} in {s!r} (months and years have no fixed length)")
        total += round(float(num) * u)
    return total


def range_ticks(r: Optional[RangeLike], micros: bool, what: str = "range") -> Optional[int]:
    """A query range in the sketch's ticks; None means the whole window."""
    if r is None:
        return None
    if isinstance(r, bool):
        raise SketchError(f"{what} must be an int, a timedelta or an interval string, got {r!r}")
    if isinstance(r, _dt.timedelta):
        if not micros:
            raise SketchError(f"{what} is a timedelta but the sketch counts integer ticks; give an int")
        return bigint(timedelta_micros(r), what)
    if isinstance(r, str):
        if micros:
            return bigint(parse_interval(r), what)
        try:
            return bigint(int(r), what)
        except ValueError:
            raise SketchError(f"{what} {r!r} must be a number of ticks for a sketch of integer timestamps") from None
    if isinstance(r, int) or hasattr(r, "__index__"):
        if micros:
            raise SketchError(f"{what} for a sketch of timestamps must be a timedelta or a string such as '10 minutes'")
        return bigint(int(r), what)
    raise SketchError(f"{what} must be an int, a timedelta or an interval string, got {type(r).__name__}")


def time_ticks(t: Optional[TimeLike], micros: bool, what: str = "now") -> Optional[int]:
    """A point in time in the sketch's ticks; None means the sketch's last timestamp."""
    if t is None:
        return None
    if isinstance(t, _dt.datetime):
        if not micros:
            raise SketchError(f"{what} is a datetime but the sketch counts integer ticks; give an int")
        return bigint(datetime_micros(t), what)
    if isinstance(t, bool):
        raise SketchError(f"{what} must be an int or a datetime, got {t!r}")
    if isinstance(t, int) or hasattr(t, "__index__"):
        return bigint(int(t), what)
    if isinstance(t, float) and t.is_integer():
        return bigint(int(t), what)
    raise SketchError(f"{what} must be an int or a datetime, got {t!r}")


def window_ticks(w: Optional[RangeLike], micros: bool) -> int:
    """The window length in ticks; None means unbounded."""
    if w is None:
        return 2**63 - 1
    if isinstance(w, str) and w.strip().lower() == "unbounded":
        return 2**63 - 1
    r = range_ticks(w, micros, "window")
    assert r is not None
    if r <= 0:
        raise SketchError(f"window must be positive, got {w!r}")
    return r
