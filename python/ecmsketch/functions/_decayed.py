"""Wrappers of the time-decayed sketch functions (docs/DESIGN.md, "Decayed sketch")."""
from __future__ import annotations

from typing import Any, Optional

from pyspark.sql import Column
from pyspark.sql.functions import call_function

from ._common import ColumnOrName, Now, _c, _p, _v


def decayed_agg(weight: ColumnOrName, ts: ColumnOrName, epsilon: Optional[float] = None, delta: Optional[float] = None,
                *, value: Optional[ColumnOrName] = None, id: Optional[ColumnOrName] = None, seed: Optional[int] = None,
                decay: Optional[str] = None, decay_param: Optional[float] = None, constant: Optional[float] = None,
                max_weight: Optional[int] = None, resolution: Optional[int] = None) -> Column:
    """Duplicate-insensitive, mergeable, time-decayed sketch (BINARY; docs/DESIGN.md, "Decayed sketch").

    :param weight: integer column in [0, max_weight] (``lit(1)`` for counts): what ``decayed_sum`` adds up.
    :param ts: TIMESTAMP (ages in seconds) or INT/BIGINT ticks; rows may come in any order.
    :param epsilon: relative error of decayed sums (default 0.1); delta: failure probability (default 0.05).
    :param value: numeric column that quantiles, frequent items and selectivity rank (default: the weight).
    :param id: any column; rows with equal ids count once, at one site or many (default: (weight, value, ts)).
    :param decay: unset builds the general sketch (decay chosen at query time); ``'window'``, ``'exp'`` or
        ``'poly'`` with ``decay_param`` builds the sketch for that decay.
    :param constant: C of tau = C / epsilon^2 (default 4, measured in docs/DESIGN.md).
    """
    return call_function("decayed_agg", _c(weight), _c(ts), _p(epsilon), _p(delta), _v(value), _v(id), _p(seed),
                         _p(decay), _p(decay_param), _p(constant), _p(max_weight), _p(resolution))


def decayed_merge(sketch: ColumnOrName) -> Column:
    """Lossless merge of the decayed sketches in a group (an id seen by several counts once); NULLs ignored."""
    return call_function("decayed_merge", _c(sketch))


def decayed_sum(sketch: ColumnOrName, decay: Optional[str] = None, param: Optional[float] = None,
                now: Now = None) -> Column:
    """Estimated decayed sum (DOUBLE) over the distinct elements with ts <= now: ``'window'`` (param W),
    ``'exp'`` (param = half-life), ``'poly'`` (param = alpha); ages in ts units (seconds for TIMESTAMP)."""
    return call_function("decayed_sum", _c(sketch), _p(decay), _p(param), _p(now))


def decayed_quantile(sketch: ColumnOrName, q: Any, decay: Optional[str] = None, param: Optional[float] = None,
                     now: Now = None) -> Column:
    """Decayed q-quantile (DOUBLE) of the values; NULL when nothing has weight."""
    return call_function("decayed_quantile", _c(sketch), _p(q), _p(decay), _p(param), _p(now))


def decayed_frequent(sketch: ColumnOrName, phi: Any, decay: Optional[str] = None, param: Optional[float] = None,
                     now: Now = None) -> Column:
    """Values with estimated decayed share > phi - epsilon/2: ARRAY<STRUCT<value, share>>, largest first."""
    return call_function("decayed_frequent", _c(sketch), _p(phi), _p(decay), _p(param), _p(now))


def decayed_selectivity(sketch: ColumnOrName, lo: Any, hi: Any, decay: Optional[str] = None,
                        param: Optional[float] = None, now: Now = None) -> Column:
    """Estimated decayed fraction (DOUBLE) of the weight whose value lies in [lo, hi]."""
    return call_function("decayed_selectivity", _c(sketch), _p(lo), _p(hi), _p(decay), _p(param), _p(now))
