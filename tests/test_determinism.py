"""Determinism: the same rows in the same partitions give byte-identical sketches on every run, for
every aggregate (task retries and speculative execution rely on it): plain, after a seeded shuffle
of the rows within partitions (late rows, out-of-order runs), after a merge aggregate, and grouped
over many groups through the object hash aggregate's sort-based fallback. Randomized-wave cells
included: their event ids derive from the partition, the run and its rows (docs/design/rwave.md, "Event ids").
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from conftest import rows_df

#: (name, SQL aggregate over rows with columns key, k, ts); the merge aggregates are derived. The dyadic
#: ones use 16 levels (k < 1000), 64 candidates and epsilon 0.2, delta 0.1: the same code paths at a
#: fraction of the time (300 groups; at the defaults each group's sketch is 45 KB, mostly empty cells).
AGGREGATES = [
    ("ecm_eh", "ecm_agg(key, ts, 2000)", "ecm_merge"),
    ("ecm_dwave", "ecm_agg(key, ts, 2000, cell => 'dwave')", "ecm_merge"),
    ("ecm_rwave", "ecm_agg(key, ts, 2000, cell => 'rwave')", "ecm_merge"),
    ("ecm_count", "ecm_agg(key, ts, 2000, window_type => 'count')", None),
    ("eh", "eh_agg(ts, 2000)", "eh_merge"),
    ("eh_value", "eh_agg(ts, 2000, value => v)", "eh_merge"),
    ("dwave", "dwave_agg(ts, 2000)", "dwave_merge"),
    ("dwave_value", "dwave_agg(ts, 2000, value => v, max_arrivals => 100000)", "dwave_merge"),
    ("distinct", "distinct_agg(key, ts, 2000)", "distinct_merge"),
    ("dyadic", "dyadic_agg(k, ts, 2000, 0.2, 0.1, universe_bits => 16)", "dyadic_merge"),
    ("dyadic_dwave", "dyadic_agg(k, ts, 2000, 0.2, 0.1, universe_bits => 16, cell => 'dwave')", "dyadic_merge"),
    ("dyadic_strings", "dyadic_agg(key, ts, 2000, 0.2, 0.1, universe_bits => 16, candidates => 64)", "dyadic_merge"),
    ("async_sum", "async_sum_agg(v + 1, ts, 2000)", "async_merge"),
    ("async_quantile", "async_quantile_agg(k, ts, 2000)", "async_merge"),
    ("decayed", "decayed_agg(1, ts, id => key)", "decayed_merge"),
]

N = 6000
GROUPS = 300


@pytest.fixture(scope="module")
def det_rows(spark):
    rng = np.random.default_rng(4242)
    ts = np.sort(rng.integers(0, 20_000, N))
    # ts is also the arrival sequence number for window_type => 'count' (unique per group below)
    seq = np.arange(N)
    df = rows_df(spark, {"key": [f"k{int(i)}" for i in rng.zipf(1.3, N) % 200], "k": [int(i) for i in rng.integers(0, 1000, N)],
                         "ts": [int(t) for t in ts], "seq": [int(s) for s in seq], "v": [int(x) for x in rng.integers(0, 5, N)],
                         "g": [int(x) for x in rng.integers(0, GROUPS, N)], "site": [int(x) for x in rng.integers(0, 4, N)]},
                 "key string, k bigint, ts bigint, seq bigint, v bigint, g int, site int", partitions=4)
    df.createOrReplaceTempView("det_rows")
    # the same rows in the same partitions, each partition's rows in a seeded random order
    df.sortWithinPartitions(__import__("pyspark.sql.functions", fromlist=["rand"]).rand(7)) \
        .createOrReplaceTempView("det_shuffled")
    return df


def digest(rows) -> str:
    h = hashlib.sha256()
    for r in rows:
        for x in r:
            h.update(b"\x00" if x is None else bytes(x) if isinstance(x, (bytes, bytearray)) else str(x).encode())
        h.update(b"\n")
    return h.hexdigest()


def run(spark, sql: str) -> str:
    return digest(spark.sql(sql).collect())


def queries(agg: str, merge):
    count_window = "window_type => 'count'" in agg
    a = agg.replace("ts,", "seq,") if count_window else agg
    out = {
        "whole": f"SELECT {a} FROM det_rows",
        "shuffled": f"SELECT {a} FROM det_shuffled",
        "per_group": f"SELECT g, {a} AS s FROM det_rows GROUP BY g ORDER BY g",
    }
    if merge:
        out["merged"] = (f"SELECT {merge}(s) FROM (SELECT site, {a} AS s FROM det_shuffled GROUP BY site)")
    return out


@pytest.mark.parametrize("name,agg,merge", AGGREGATES)
def test_same_rows_same_bytes(spark, det_rows, name, agg, merge):
    """Two runs of each query in one session give the same bytes; so does the grouped query run
    through the sort-based fallback (threshold 2 buffers per task), which must also agree with the
    hash-based path."""
    for what, sql in queries(agg, merge).items():
        first, second = run(spark, sql), run(spark, sql)
        assert first == second, f"{name} {what}: two runs differ"
    sql = queries(agg, merge)["per_group"]
    key = "spark.sql.objectHashAggregate.sortBased.fallbackThreshold"
    runs = {}
    try:
        for threshold in ("2", "1000000"):  # sort-based fallback in every task; hash aggregation only
            spark.conf.set(key, threshold)
            runs[threshold] = [run(spark, sql) for _ in range(2)]
            info = f"SELECT g, sketch_info(s) AS i FROM ({sql})"
            runs[threshold].append([(r.g, r.i.merge_depth, r.i.total_weight, r.i.first_ts, r.i.last_ts)
                                    for r in spark.sql(info).collect()])
    finally:
        spark.conf.unset(key)
    fallback, hashed = runs["2"], runs["1000000"]
    assert fallback[0] == fallback[1], f"{name}: two runs through the sort-based fallback differ"
    assert hashed[0] == hashed[1], f"{name}: two runs of the hash aggregate differ"
    # The two paths split a group's rows differently into runs (the fallback merges a task's hash-map
    # buffers with its sorted ones), so their bytes may differ; their rows, timestamps and certified
    # depth may not.
    assert len(fallback[2]) == GROUPS and fallback[2] == hashed[2], f"{name}: the fallback changes the sketches' state"


def fallback_tasks(plan) -> int:
    """Sum of the 'number of sort fallback tasks' metric over the plan's object hash aggregates."""
    total = 0
    if plan.nodeName() == "ObjectHashAggregate":
        m = plan.metrics().get("numTasksFallBacked")
        total += int(m.get().value()) if m.isDefined() else 0
    ch = plan.children()
    for i in range(ch.size()):
        total += fallback_tasks(ch.apply(i))
    return total


def test_fallback_path_is_taken(spark, det_rows):
    """The grouped queries above reach the sort-based fallback with threshold 2 (the metric counts
    the tasks that fell back), so the comparison is not vacuous; with a threshold of 10^6 they do not."""
    counts = {}
    for threshold in ("2", "1000000"):
        spark.conf.set("spark.sql.adaptive.enabled", "false")
        spark.conf.set("spark.sql.objectHashAggregate.sortBased.fallbackThreshold", threshold)
        try:
            df = spark.sql("SELECT g, eh_agg(ts, 2000) AS s FROM det_rows GROUP BY g")
            assert len(df.collect()) == GROUPS
            counts[threshold] = fallback_tasks(df._jdf.queryExecution().executedPlan())
        finally:
            spark.conf.unset("spark.sql.adaptive.enabled")
            spark.conf.unset("spark.sql.objectHashAggregate.sortBased.fallbackThreshold")
    small, default = counts.values()
    assert small > 0 and default == 0, counts
