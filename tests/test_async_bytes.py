"""The JPype AsyncSum and AsyncQuantile (no Spark for building): rows in any order, answers against
exact ones computed in Python, lossless merges, bytes round trips, and the same bytes as SQL."""
from __future__ import annotations

import numpy as np
import pytest

from ecmsketch import SketchError
from ecmsketch import functions as E
from ecmsketch.sketches import AsyncQuantile, AsyncSum

EPS = 0.2
Q_EPS = 0.3
DELTA = 0.01


def _stream(seed, n=40_000, span=100_000):
    rng = np.random.default_rng(seed)
    ts = rng.integers(0, span, size=n).astype(np.int64)
    v = rng.integers(1, 50, size=n).astype(np.int64)
    x = np.round(rng.normal(100.0, 15.0, size=n), 6)
    return ts, v, x


def _distinct_in(ts, vals, now, r):
    """The distinct (value, ts) elements with ts in (now - r, now]."""
    m = ts > now - r
    return set(zip(vals[m].tolist(), ts[m].tolist()))


def _rank_ok(xs, x, q, eps):
    xs = np.asarray(sorted(xs))
    n = len(xs)
    return np.count_nonzero(xs <= x) >= (q - eps) * n and np.count_nonzero(xs < x) <= (q + eps) * n


def test_sum_in_any_order_against_exact():
    ts, v, _ = _stream(1)
    now = int(ts.max())
    sks = []
    for order in (np.argsort(ts), np.argsort(-ts), np.random.default_rng(2).permutation(len(ts))):
        s = AsyncSum.create(EPS, DELTA, 50_000)
        for chunk in np.array_split(order, 7):  # several batches, each in any order
            s.add_many(v[chunk], ts[chunk])
        sks.append(s.to_bytes())
        for r in (100, 5_000, 50_000):
            exact = sum(p[0] for p in _distinct_in(ts, v, now, r))
            assert abs(s.sum(r) - exact) <= EPS * exact, r
        assert s.sum(0) == 0.0
    assert sks[0] == sks[1] == sks[2]
    i = AsyncSum.from_bytes(sks[0]).info()
    assert i["kind"] == "async" and i["measure"] == "sum" and 0 < i["retained"] < len(ts) // 2


def test_quantile_in_any_order_against_exact():
    ts, _, x = _stream(3)
    now = int(ts.max())
    s = AsyncQuantile.create(Q_EPS, DELTA, 60_000)
    order = np.random.default_rng(4).permutation(len(ts))
    s.add_many(x[order], ts[order])
    for r in (1_000, 60_000):
        xs = [p[0] for p in _distinct_in(ts, x, now, r)]
        got = s.quantile([0.05, 0.5, 0.95], r)
        for q, g in zip((0.05, 0.5, 0.95), got):
            assert _rank_ok(xs, g, q, Q_EPS), (r, q)
        assert s.quantile(0.5, r) == got[1]
    assert s.quantile(0.5, 0) is None
    assert AsyncQuantile.from_bytes(s.to_bytes()).to_bytes() == s.to_bytes()


def test_now_and_range():
    s = AsyncSum.create(window=100)
    s.add_many([5, 7, 11], [100, 50, 60])
    assert s.sum() == 23.0
    assert s.sum(50, 140) == 5.0  # (90, 140]
    assert s.sum(41, 100) == 16.0  # (59, 100]: ts 60 and 100
    with pytest.raises(SketchError, match="exceeds the sketch window"):
        s.sum(101)
    with pytest.raises(SketchError, match="must not precede"):
        s.sum(10, 99)


def test_merge_is_lossless_and_hierarchical():
    ts, v, x = _stream(5, n=20_000)
    sites = np.random.default_rng(6).integers(0, 16, size=len(ts))
    one = AsyncSum.create(EPS, DELTA, 30_000)
    one.add_many(v, ts)
    qone = AsyncQuantile.create(Q_EPS, DELTA, 30_000)
    qone.add_many(x, ts)
    parts, qparts = [], []
    for k in range(16):
        m = sites == k
        p = AsyncSum.create(EPS, DELTA, 30_000)
        p.add_many(v[m], ts[m])
        parts.append(p.to_bytes())
        q = AsyncQuantile.create(Q_EPS, DELTA, 30_000)
        q.add_many(x[m], ts[m])
        qparts.append(q)
    assert AsyncSum.merge(parts).to_bytes() == one.to_bytes()
    tree = AsyncSum.merge([AsyncSum.merge(parts[i:i + 4]) for i in range(0, 16, 4)])
    assert tree.to_bytes() == one.to_bytes() and tree.merge_depth == 0
    assert AsyncQuantile.merge(qparts).to_bytes() == qone.to_bytes()
    with pytest.raises(SketchError, match="epsilon"):
        AsyncSum.merge([one, AsyncSum.create(0.3, DELTA, 30_000)])
    with pytest.raises(SketchError, match="expected an async quantile sketch"):
        AsyncQuantile.from_bytes(one.to_bytes())


def test_ids_and_duplicates():
    s = AsyncSum.create(count=True)
    s.add_many([1, 1, 1], [10, 10, 11])
    assert s.sum() == 2.0  # (1, 10) twice is one element
    c = AsyncSum.create(count=True, ids=True)
    c.add_many([1, 1, 1, 1], [10, 10, 11, 11], ids=["a", "b", "c", "c"])
    assert c.sum() == 3.0  # ("c", 1, 11) twice is one element
    c.add(1, 12, id="d")
    assert c.sum() == 4.0 and c.info()["identity"] == "(id, value, ts)"
    with pytest.raises(SketchError, match="give ids"):
        c.add(1, 13)
    with pytest.raises(SketchError, match="takes no ids"):
        s.add(1, 13, id=5)
    with pytest.raises(SketchError, match="weight 1"):
        s.add(2, 13)
    with pytest.raises(SketchError, match="positive integer weights"):
        AsyncSum.create().add(0, 1)
    with pytest.raises(SketchError, match="NaN"):
        AsyncQuantile.create().add(float("nan"), 1)


def test_same_bytes_as_sql(spark):
    ts, v, x = _stream(7, n=5_000)
    ids = np.arange(len(ts), dtype=np.int64) * 7919
    df = spark.createDataFrame([(int(a), int(b), float(c), int(d)) for a, b, c, d in zip(v, ts, x, ids)],
                               "v bigint, ts bigint, x double, id bigint").repartition(3)
    row = df.agg(E.async_sum_agg("v", "ts", 40_000, EPS, DELTA).alias("s"),
                 E.async_count_agg("ts", 40_000, EPS, DELTA, id="id").alias("c"),
                 E.async_quantile_agg("x", "ts", 40_000, Q_EPS, DELTA).alias("q")).first()
    s = AsyncSum.create(EPS, DELTA, 40_000)
    s.add_many(v, ts)
    c = AsyncSum.create(EPS, DELTA, 40_000, count=True, ids=True)
    c.add_many(np.ones_like(v), ts, ids=ids)
    q = AsyncQuantile.create(Q_EPS, DELTA, 40_000)
    q.add_many(x, ts)
    assert bytes(row.s) == s.to_bytes()
    assert bytes(row.c) == c.to_bytes()
    assert bytes(row.q) == q.to_bytes()
    rows = np.count_nonzero(ts > ts.max() - 5_000)
    assert abs(c.sum(5_000) - rows) <= EPS * rows
