"""Structured Streaming for quantile_agg and top_k_agg: the windowed quantile sketch (BINARY) and the
frequent-items sketch (STRUCT<sketch: BINARY, key_type: STRING>) in a streaming aggregation's state
store, with a checkpoint, in complete and update modes, grouped by site and by window(...) and site.

* 20 micro-batches of in-order rows (200 Zipf string pages, about 2,000 rows a site in a window)
  from a file source, stopped after batches 1 and 8 and restarted from the checkpoint (complete
  mode, grouped by site). Every final quantile sketch answers every q of a grid, and ranks and range
  counts, over ranges from one tick to the whole window, within epsilon times the range's weight of
  the exact answers (a brute-force oracle in numpy). Every final top-k sketch's intervals
  [lower, upper] hold every key's exact weight, a key it leaves out weighs at most e n, its point
  estimates are within e n, and its heavy hitters list every key of weight >= (phi + e) n and none
  below (phi - e) n, e its heavy_hitter_error_bound. The keys come back as Python str: the STRUCT
  keeps the STRING key type through the state store and the sink. The certified bounds and merge
  depth after 20 batches and two restarts equal those after one batch.
* Late rows (10 % of each batch, up to 5 batches behind): groupBy(window(ts, ...), site) in update
  mode; the same checks, and the merge depth of both sketches is 1, the one level Spark's merge of
  the state's runs takes, so the top-k bound stays within epsilon with the default merge_levels.

The quantile sketches are built with delta = 1e-6, so that a chance failure among the ranges checked
is out of reach. Each run of the state holds one batch's rows of one file, so at these sizes the
answers are close to exact; the checks are against the certified bounds. Small row counts and few
batches. Marked slow (it starts streaming queries).
"""
from __future__ import annotations

import os

import numpy as np
import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import BinaryType, LongType, StringType, StructField, StructType

from conftest import latest, run_stream, write_batch

from ecmsketch import functions as E

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("two_partitions")]

Q_EPS = 0.05
K_EPS = 0.1
DELTA = 1e-6
TICKS = 100          # ticks per micro-batch
WINDOW = 1_000       # ticks: ten batches
PER_FILE = 300       # rows per file; two files per micro-batch
SITES = 3
KEYS = 200
SCHEMA = "page string, site int, ts bigint, v double, w bigint"
RANGES = (1, 30, 250, WINDOW)
QS = [0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0]
PHIS = [0.02, 0.05, 0.1, 0.2]
ABSENT = "/absent"




def make_batches(n, late_fraction=0.0, max_late=5, seed=23):
    """Batch k: two files of rows over ticks [k TICKS, (k+1) TICKS); a fraction up to `max_late`
    batches late. Zipf string pages, log-normal values rounded to one decimal (many ties), weights 1-3."""
    rng = np.random.default_rng(seed)
    p = np.arange(1, KEYS + 1, dtype=np.float64) ** -1.1
    p /= p.sum()
    out = []
    for k in range(n):
        files = []
        for _ in range(2):
            n_late = int(PER_FILE * late_fraction) if k else 0
            ts = np.concatenate([rng.integers(k * TICKS, (k + 1) * TICKS, PER_FILE - n_late),
                                 rng.integers(max(0, (k - max_late) * TICKS), k * TICKS, n_late) if n_late else []])
            ts = ts.astype(np.int64)
            if not late_fraction:
                ts.sort()  # in order: every file's rows in time order, every batch after the previous
            pages = rng.choice(KEYS, size=len(ts), p=p)
            vs = np.round(rng.lognormal(3.0, 1.0, len(ts)), 1)
            files.append([{"page": f"/p{int(a)}", "site": int(rng.integers(0, SITES)), "ts": int(t),
                           "v": float(x), "w": int(1 + rng.integers(0, 3))}
                          for a, t, x in zip(pages, ts, vs)])
        out.append(files)
    return out




def sketches():
    return [E.quantile_agg("v", "ts", WINDOW, Q_EPS, delta=DELTA, weight="w").alias("q"),
            E.top_k_agg("page", "ts", WINDOW, K_EPS, value="w").alias("k"),
            F.count("*").alias("n")]


def run(spark, src, ck, name, mode, group):
    """Runs the aggregation over every file present (two a micro-batch), then stops; returns the ids
    of the batches that read rows and the schema of the result."""
    return run_stream(spark, src, ck, name, mode, SCHEMA, group, lambda df: sketches())


def answers(spark, groups, k_type):
    """Every answer of each group's two sketches and their sketch_info, in one Spark job.
    `groups`: (sketch row, the group's rows as dicts); `k_type`: the sink's type of the top-k column.
    Returns one {range: answers} a group."""
    recs = []
    for g, (row, rows) in enumerate(groups):
        exact = {}
        for r in rows:
            exact[r["page"]] = exact.get(r["page"], 0) + r["w"]
        top = sorted(exact, key=lambda p: -exact[p])[:3]
        top += [ABSENT] * (3 - len(top))
        recs += [(g, r, *top, row.q, row.k) for r in RANGES]
    schema = StructType([StructField("g", LongType()), StructField("r", LongType())]
                        + [StructField(f"p{j}", StringType()) for j in range(3)]
                        + [StructField("q", BinaryType()), StructField("k", k_type)])
    df = spark.createDataFrame(recs, schema)
    qarr = "array(" + ", ".join(repr(q) for q in QS) + ")"
    xarr = "array(" + ", ".join(repr(x) for x in XS) + ")"
    hh = ", ".join(f"ecm_heavy_hitters(k, {phi}, r)" for phi in PHIS)
    out = df.selectExpr(
        "g", "r", "p0", "p1", "p2",
        f"ecm_quantile(q, {qarr}, r) AS qs", f"transform({xarr}, x -> ecm_rank(q, x, r)) AS rk",
        f"ecm_range_count(q, {XS[1]}, {XS[3]}, r) AS rc", "ecm_total(q, r) AS qn", "sketch_info(q) AS qi",
        f"ecm_top_k(k, {KEYS + 10}, r) AS items", f"array({hh}) AS hh", "ecm_total(k, r) AS kn",
        f"array(ecm_point(k, p0, r), ecm_point(k, p1, r), ecm_point(k, p2, r), ecm_point(k, '{ABSENT}', r)) AS pt",
        "sketch_info(k) AS ki").collect()
    res = [dict() for _ in groups]
    for o in out:
        res[o.g][o.r] = o
    return res


XS = [3.0, 10.0, 20.0, 40.0, 150.0]  # ranks asked of the quantile sketches (the values' median is about 20)


def check_quantiles(per, rows):
    """The quantile sketch's answers of one group against the exact answers over its `rows`."""
    ts = np.array([r["ts"] for r in rows]); vs = np.array([r["v"] for r in rows]); ws = np.array([r["w"] for r in rows])
    now = int(ts.max())
    checked = 0
    for rng_len, got in per.items():
        assert got.qi.kind == "quantile" and got.qi.quantile_rank_error_bound == Q_EPS, got.qi
        m = ts > now - rng_len
        v, w = vs[m], ws[m]
        n = float(w.sum())
        assert abs(got.qn - n) <= Q_EPS * n + 1e-9, (rng_len, got.qn, n)
        if n == 0:
            assert all(x is None for x in got.qs), (rng_len, got.qs)
            continue
        for q, x in zip(QS, got.qs):
            le, lt = float(w[v <= x].sum()), float(w[v < x].sum())
            assert le >= (q - Q_EPS) * n - 1e-9 and lt <= (q + Q_EPS) * n + 1e-9, \
                f"range {rng_len}: q {q} -> {x}, exact rank in [{lt}, {le}] of {n}, eps {Q_EPS}"
            checked += 1
        for x, rk in zip(XS, got.rk):
            exact = float(w[v <= x].sum())
            assert abs(rk - exact) <= Q_EPS * n + 1e-9, (rng_len, x, rk, exact, n)
        exact = float(w[(v >= XS[1]) & (v <= XS[3])].sum())
        assert abs(got.rc - exact) <= 2 * Q_EPS * n + 1e-9, (rng_len, got.rc, exact, n)
    return checked


def check_top_k(per, rows):
    """The frequent-items sketch's answers of one group against the exact weights over its `rows`."""
    ts = np.array([r["ts"] for r in rows]); ws = np.array([r["w"] for r in rows])
    pages = np.array([r["page"] for r in rows], dtype=object)
    now = int(ts.max())
    for rng_len, got in per.items():
        e = got.ki.heavy_hitter_error_bound
        assert got.ki.kind == "frequent" and got.ki.key_type == "string" and 0 < e <= K_EPS, got.ki
        m = ts > now - rng_len
        exact = {}
        for p, w in zip(pages[m].tolist(), ws[m].tolist()):
            exact[p] = exact.get(p, 0) + w
        n = sum(exact.values())
        assert abs(got.kn - n) <= e * n + 1e-9, (rng_len, got.kn, n)
        assert all(isinstance(it.key, str) for it in got.items), (rng_len, got.items[:2])
        listed = {it.key for it in got.items}
        assert len(listed) == len(got.items)
        for it in got.items:
            f = exact.get(it.key, 0)
            assert it.lower <= f <= it.upper, f"range {rng_len}: key {it.key!r} {f} outside [{it.lower}, {it.upper}]"
            assert it.upper - it.lower <= e * n + 1e-9, (rng_len, it, n)
        for p, f in exact.items():  # a key the sketch does not list has a small weight
            if p not in listed:
                assert f <= e * n + 1e-9, (rng_len, p, f, n)
        for j, key in enumerate([got.p0, got.p1, got.p2, ABSENT]):
            assert abs(got.pt[j] - exact.get(key, 0)) <= e * n + 1e-9, (rng_len, key, got.pt[j], exact.get(key, 0))
        for phi, hh in zip(PHIS, got.hh):
            assert all(isinstance(h.key, str) for h in hh)
            reported = {h.key for h in hh}
            for p, f in exact.items():
                if f >= (phi + e) * n:
                    assert p in reported, f"range {rng_len} phi {phi}: key {p!r} of weight {f}/{n} missing"
            for p in reported:
                assert exact.get(p, 0) >= (phi - e) * n, f"range {rng_len} phi {phi}: key {p!r} reported"


def bounds(per):
    """(merge depth, planned levels, certified bound) of both sketches; the same for every range."""
    out = {(o.qi.merge_depth, o.qi.planned_merge_levels, o.qi.quantile_rank_error_bound,
            o.ki.merge_depth, o.ki.planned_merge_levels, o.ki.heavy_hitter_error_bound) for o in per.values()}
    assert len(out) == 1, out
    return out.pop()


def test_restart_after_1_and_8_of_20_in_order_batches(spark, tmp_path):
    src, ck = str(tmp_path / "src"), str(tmp_path / "ck")
    os.makedirs(src)
    data = make_batches(20)
    by_site = lambda df: [df.site]  # noqa: E731
    write_batch(src, 0, data[0])
    ids1, schema = run(spark, src, ck, "wstream_first", "complete", by_site)
    k_type = schema["k"].dataType
    assert k_type.simpleString() == "struct<sketch:binary,key_type:string>"
    after_one = latest(spark, "wstream_first", ["site"])
    for k in range(1, 8):
        write_batch(src, k, data[k])
    ids2, _ = run(spark, src, ck, "wstream_eight", "complete", by_site)
    assert len(ids1) == 1 and len(ids2) == 7 and min(ids2) > max(ids1)
    for k in range(8, 20):
        write_batch(src, k, data[k])
    ids3, _ = run(spark, src, ck, "wstream_final", "complete", by_site)  # restarted from the checkpoint
    assert len(ids3) == 12 and min(ids3) > max(ids2)
    assert spark.table("wstream_final").schema["k"].dataType == k_type
    final = latest(spark, "wstream_final", ["site"])
    sites = sorted(final)
    assert sites == [(s,) for s in range(SITES)] and sorted(after_one) == sites

    rows = [r for b in data for f in b for r in f]
    first_rows = [r for f in data[0] for r in f]
    groups = [(final[k], [r for r in rows if r["site"] == k[0]]) for k in sites]
    firsts = [(after_one[k], [r for r in first_rows if r["site"] == k[0]]) for k in sites]
    got = answers(spark, groups + firsts, k_type)
    checked = 0
    for j, k in enumerate(sites):
        row, mine = groups[j]
        assert row.n == len(mine)
        checked += check_quantiles(got[j], mine)
        check_top_k(got[j], mine)
        first_row, first_mine = firsts[j]
        assert first_row.n == len(first_mine)
        check_quantiles(got[len(sites) + j], first_mine)
        check_top_k(got[len(sites) + j], first_mine)
        # two runs a batch (two files), one n-way merge of the state's runs: depth 1 after one batch,
        # and after 20 batches and two restarts
        b, b1 = bounds(got[j]), bounds(got[len(sites) + j])
        assert b == b1, (k, b, b1)
        assert b[0] == 1 and b[1] == 1 and b[2] == Q_EPS, (k, b)
        assert b[3] == 1 and b[4] == 1 and b[5] <= K_EPS, (k, b)
    assert checked >= SITES * (len(RANGES) - 1) * len(QS)


def test_late_rows_window_and_site_update_mode(spark, tmp_path):
    src, ck = str(tmp_path / "src"), str(tmp_path / "ck")
    os.makedirs(src)
    data = make_batches(12, late_fraction=0.1, seed=29)
    for k in range(12):
        write_batch(src, k, data[k])
    # tumbling windows of 4 batches over the tick column (as seconds), per site
    group = lambda df: [F.window(F.timestamp_seconds(df.ts), f"{4 * TICKS} seconds"), df.site]  # noqa: E731
    ids, schema = run(spark, src, ck, "wstream_late", "update", group)
    assert len(ids) == 12
    k_type = schema["k"].dataType
    assert k_type.simpleString() == "struct<sketch:binary,key_type:string>"
    out = list(latest(spark, "wstream_late", ["window", "site"]).values())
    rows = [r for b in data for f in b for r in f]
    assert len(out) == 3 * SITES
    groups = []
    for row in out:
        w0 = int(row.window.start.timestamp()); w1 = int(row.window.end.timestamp())
        groups.append((row, [r for r in rows if r["site"] == row.site and w0 <= r["ts"] < w1]))
    # rows of the first window arrive in batches after it: its groups' states absorb late rows
    assert sum(r["ts"] < 4 * TICKS for b in data[4:] for f in b for r in f) > 0
    depths = set()
    for (row, mine), per in zip(groups, answers(spark, groups, k_type)):
        assert row.n == len(mine)
        check_quantiles(per, mine)
        check_top_k(per, mine)
        b = bounds(per)
        depths.add((b[0], b[3]))
        assert b[1] == 1 and b[2] == Q_EPS and b[4] == 1 and b[5] <= K_EPS, b
    assert depths == {(1, 1)}, depths
