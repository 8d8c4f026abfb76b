"""Structured Streaming for ecm_agg, eh_agg, dwave_agg and distinct_agg (issue 13 §1): the sketches
in a streaming aggregation's state store, with a checkpoint, in update and complete modes, grouped by
site and by window(...) and site.

* 30 micro-batches from a file source, stopped after batch 12 and restarted from the checkpoint: every
  final sketch answers within its certified bound of the exact answers over all rows (a brute-force
  oracle in numpy), and its certified bound after 30 in-order batches equals the bound after one.
  Complete mode (a memory sink recovers from a checkpoint only in complete mode).
* Late rows (5 % of each batch, up to 10 batches behind): groupBy(window(ts, ...), site) in update
  mode, answers within the bound, and the merge depth stays 1.

Small row counts and few batches: the whole file runs in about a minute. Marked slow (it starts
streaming queries); it runs in `make test`.
"""
from __future__ import annotations

import os

import numpy as np
import pytest
from pyspark.sql import functions as F

from conftest import latest, run_stream, write_batch

from ecmsketch import functions as E

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("two_partitions")]

EPS = 0.1
DELTA = 0.05
TICKS = 100          # ticks per micro-batch
WINDOW = 1_000       # ticks: ten batches
PER_FILE = 150       # rows per file; two files per micro-batch
SITES = 3
KEYS = 40
SCHEMA = "key bigint, site int, ts bigint, v bigint"




def make_batches(n, late_fraction=0.0, seed=13):
    """Batch k: two files of rows over ticks [k TICKS, (k+1) TICKS); a fraction up to 10 batches late."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        files = []
        for _ in range(2):
            n_late = int(PER_FILE * late_fraction) if k else 0
            ts = np.concatenate([rng.integers(k * TICKS, (k + 1) * TICKS, PER_FILE - n_late),
                                 rng.integers(max(0, (k - 10) * TICKS), k * TICKS, n_late) if n_late else []])
            ts = ts.astype(np.int64)
            if not late_fraction:
                ts.sort()  # in order: every file's rows in time order, every batch after the previous
            keys = np.minimum(rng.zipf(1.3, len(ts)), KEYS) - 1
            files.append([{"key": int(a), "site": int(rng.integers(0, SITES)), "ts": int(t), "v": int(1 + rng.integers(0, 5))}
                          for a, t in zip(keys, ts)])
        out.append(files)
    return out




def sketches(df):
    return [E.ecm_agg("key", "ts", WINDOW, EPS, DELTA, value="v").alias("m"),
            E.eh_agg("ts", WINDOW, EPS, value="v").alias("e"),
            E.dwave_agg("ts", WINDOW, EPS).alias("d"),
            E.distinct_agg("key", "ts", WINDOW, EPS, DELTA).alias("x"),
            F.count("*").alias("n")]


def run(spark, src, ck, name, mode, group):
    """Runs the aggregation over every file present (two a micro-batch), then stops."""
    return run_stream(spark, src, ck, name, mode, SCHEMA, group, sketches)[0]


RANGES = (50, 300, WINDOW)


def answers(spark, groups):
    """Every answer of each group's four sketches and their sketch_info, in one Spark job.
    `groups`: (sketch row, the group's rows as dicts); returns one (info, {range: answers}) a group."""
    recs = []
    for g, (row, rows) in enumerate(groups):
        ks = np.bincount(np.array([r["key"] for r in rows], dtype=np.int64), minlength=3)
        top = [int(k) for k in ks.argsort()[::-1][:3]]
        recs += [(g, r, *top, row.m, row.e, row.d, row.x) for r in RANGES]
    df = spark.createDataFrame(recs, "g int, r bigint, k0 bigint, k1 bigint, k2 bigint, "
                                     "m binary, e binary, d binary, x binary")
    out = df.select("g", "r", "k0", "k1", "k2",
                    E.ecm_total("m", F.col("r")).alias("t"), E.eh_count("e", F.col("r")).alias("ec"),
                    E.dwave_count("d", F.col("r")).alias("dc"), E.distinct_count("x", F.col("r")).alias("xc"),
                    *[E.ecm_point("m", F.col(f"k{j}"), F.col("r")).alias(f"p{j}") for j in range(3)],
                    *[E.sketch_info(c).alias(f"i{c}") for c in "medx"]).collect()
    res = {}
    for o in out:
        info, per = res.setdefault(o.g, (o, {}))
        per[o.r] = o
    return [res[g] for g in range(len(groups))]


def check_answers(info, per, rows):
    """The answers of one group against the exact answers over its `rows` (a brute-force oracle)."""
    ts = np.array([r["ts"] for r in rows]); vs = np.array([r["v"] for r in rows]); ks = np.array([r["key"] for r in rows])
    now = int(ts.max())
    for r in RANGES:
        got = per[r]
        m = ts > now - r
        total, count = vs[m].sum(), m.sum()
        assert abs(got.t - total) <= info.im.total_error_bound * total + 1e-9, (r, got.t, total)
        assert abs(got.ec - total) <= info.ie.error_bound * total + 1e-9, (r, got.ec, total)
        assert abs(got.dc - count) <= info.id.error_bound * count + 1e-9, (r, got.dc, count)
        exact_distinct = len(set(ks[m].tolist()))
        assert abs(got.xc - exact_distinct) <= info.ix.error_bound * exact_distinct + 1e-9, (r, got.xc, exact_distinct)
        for j in range(3):
            f = vs[m & (ks == got[f"k{j}"])].sum()
            assert abs(got[f"p{j}"] - f) <= info.im.point_error_bound * total + 1e-9, (r, j, got[f"p{j}"], f)


def bounds(i):
    return (i.im.merge_depth, i.im.total_error_bound, i.ie.merge_depth, i.ie.error_bound,
            i.id.merge_depth, i.id.error_bound, i.ix.error_bound)


def test_restart_after_12_of_30_in_order_batches(spark, tmp_path):
    src, ck = str(tmp_path / "src"), str(tmp_path / "ck")
    os.makedirs(src)
    data = make_batches(30)
    by_site = lambda df: [df.site]  # noqa: E731
    write_batch(src, 0, data[0])
    ids1 = run(spark, src, ck, "stream_first", "complete", by_site)
    after_one = latest(spark, "stream_first", ["site"])
    for k in range(1, 12):
        write_batch(src, k, data[k])
    ids2 = run(spark, src, ck, "stream_twelve", "complete", by_site)
    assert len(ids1) == 1 and len(ids2) == 11 and min(ids2) > max(ids1)
    for k in range(12, 30):
        write_batch(src, k, data[k])
    ids3 = run(spark, src, ck, "stream_final", "complete", by_site)  # restarted from the checkpoint
    assert len(ids3) == 18 and min(ids3) > max(ids2)
    final = latest(spark, "stream_final", ["site"])
    assert sorted(final) == [(s,) for s in range(SITES)]

    rows = [r for b in data for f in b for r in f]
    sites = sorted(final)
    groups = [(final[k], [r for r in rows if r["site"] == k[0]]) for k in sites]
    got = answers(spark, groups + [(after_one[k], []) for k in sites])
    for j, k in enumerate(sites):
        row, mine = groups[j]
        assert row.n == len(mine)
        info, per = got[j]
        check_answers(info, per, mine)
        first = got[len(sites) + j][0]
        # the bound after 30 in-order batches (and a restart) is the bound after one
        assert bounds(info) == bounds(first), (k, bounds(info), bounds(first))
        assert info.im.merge_depth <= 1 and info.ie.error_bound <= EPS and info.id.error_bound <= EPS


def test_late_rows_window_and_site_update_mode(spark, tmp_path):
    src, ck = str(tmp_path / "src"), str(tmp_path / "ck")
    os.makedirs(src)
    data = make_batches(12, late_fraction=0.05, seed=17)
    for k in range(12):
        write_batch(src, k, data[k])
    # tumbling windows of 4 batches over the tick column (as seconds), per site
    group = lambda df: [F.window(F.timestamp_seconds(df.ts), f"{4 * TICKS} seconds"), df.site]  # noqa: E731
    ids = run(spark, src, ck, "stream_late", "update", group)
    assert len(ids) == 12
    out = list(latest(spark, "stream_late", ["window", "site"]).values())
    rows = [r for b in data for f in b for r in f]
    assert len(out) == 3 * SITES
    groups = []
    for row in out:
        w0 = int(row.window.start.timestamp()); w1 = int(row.window.end.timestamp())
        groups.append((row, [r for r in rows if r["site"] == row.site and w0 <= r["ts"] < w1]))
    for (row, mine), (info, per) in zip(groups, answers(spark, groups)):
        assert row.n == len(mine)
        check_answers(info, per, mine)
        assert info.im.merge_depth <= 1 and info.ie.merge_depth <= 1 and info.id.merge_depth <= 1
        assert info.ie.error_bound <= EPS and info.id.error_bound <= EPS and info.im.total_error_bound <= EPS
