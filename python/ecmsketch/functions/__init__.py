"""Typed PySpark wrappers for the ecmsketch SQL functions.

Each wrapper builds ``call_function(name, ...)`` with every argument in its positional slot (an
omitted option is a NULL literal, which the SQL functions read as "use the default"), so it works in
classic PySpark and under Spark Connect alike. Column arguments accept a Column or a column name;
option arguments take Python values (or a literal Column).

Windows and ranges: for a TIMESTAMP ``ts`` give a ``datetime.timedelta`` or a string such as
``'10 minutes'``; for integer ``ts`` give an int (ticks, or arrivals for ``window_type='count'``).
``now`` is a ``datetime`` or an int accordingly. Rows with a NULL key, ts or value are skipped.

The wrappers live in one private module per sketch family and are re-exported here, where they
belong (their ``__module__`` is ``ecmsketch.functions``). Their examples run as doctests in the test
suite; they assume ``spark``, a SparkSession built with :func:`ecmsketch.configure`.
"""
from __future__ import annotations

from ._asynchronous import async_count_agg, async_merge, async_quantile, async_quantile_agg, async_sum, async_sum_agg
from ._common import ColumnOrName, Now, Window  # noqa: F401  (the argument types, as before)
from ._counters import dwave_agg, dwave_count, dwave_merge, eh_agg, eh_count, eh_merge
from ._decayed import (decayed_agg, decayed_frequent, decayed_merge, decayed_quantile, decayed_selectivity,
                       decayed_sum)
from ._distinct import distinct_agg, distinct_count, distinct_merge
from ._dyadic import dyadic_agg, dyadic_merge, ecm_heavy_hitters, ecm_quantile, ecm_range_count, ecm_rank, ecm_top_k
from ._windowed import quantile_agg, quantile_merge, top_k_agg, top_k_merge
from ._ecm import ecm_agg, ecm_inner_product, ecm_merge, ecm_point, ecm_self_join, ecm_total, sketch_info

__all__ = [
    "ecm_agg", "ecm_merge", "eh_agg", "eh_merge", "ecm_point", "ecm_inner_product", "ecm_self_join",
    "ecm_total", "eh_count", "sketch_info", "dwave_agg", "dwave_merge", "dwave_count", "distinct_agg",
    "distinct_merge", "distinct_count", "dyadic_agg", "dyadic_merge", "ecm_heavy_hitters", "ecm_top_k",
    "ecm_range_count", "ecm_rank", "ecm_quantile",
    "async_sum_agg", "async_count_agg", "async_quantile_agg", "async_merge", "async_sum", "async_quantile",
    "decayed_agg", "decayed_merge", "decayed_sum", "decayed_quantile", "decayed_frequent", "decayed_selectivity",
    "quantile_agg", "quantile_merge", "top_k_agg", "top_k_merge",
]

for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
