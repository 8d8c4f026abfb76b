"""The JPype DecayedSketch (no Spark for building): decayed answers against exact ones computed in
numpy over the distinct elements, duplicates at several sites, bytes round trips and merges, and
agreement with the SQL functions (same bytes from the same rows, same answers on the same bytes)."""
from __future__ import annotations

import numpy as np
import pytest

from ecmsketch import SketchError
from ecmsketch.sketches import DecayedSketch

EPS = 0.1


def _stream(seed, n=3000, span=4000):
    rng = np.random.default_rng(seed)
    ids = rng.permutation(10 * n)[:n].astype(np.int64)
    w = rng.integers(1, 6, size=n).astype(np.int64)
    v = rng.integers(1, 40, size=n).astype(np.float64)
    ts = (span - 1 - (rng.random(n) * rng.random(n) * span).astype(np.int64)).astype(np.int64)
    dup = rng.integers(0, n, size=int(n * 0.3 / 0.7))
    idx = rng.permutation(np.concatenate([np.arange(n), dup]))
    return (ids, w, v, ts), idx, rng


def test_sums_against_exact_with_duplicates_over_sites():
    (ids, w, v, ts), idx, rng = _stream(3)
    now = int(ts.max())
    site = rng.integers(0, 12, size=len(idx))
    parts = []
    for k in range(12):
        m = idx[site == k]
        s = DecayedSketch.create(EPS, 0.05, max_weight=8)
        s.add_many(w[m], ts[m], values=v[m], ids=ids[m])
        parts.append(s)
    g = DecayedSketch.merge(parts)
    age = now - ts
    for decay, p, weights in [("exp", 300.0, w * 2.0 ** (-age / 300.0)), ("poly", 1.5, w * (age + 1.0) ** -1.5),
                              ("window", 500, np.where(age < 500, w, 0))]:
        want = float(weights.sum())
        assert abs(g.sum(decay, p) - want) <= EPS * want, decay
    # the same rows in one sketch give the same bytes (duplicate-insensitive, lossless merge)
    one = DecayedSketch.create(EPS, 0.05, max_weight=8)
    one.add_many(w[idx], ts[idx], values=v[idx], ids=ids[idx])
    assert one.to_bytes() == g.to_bytes()
    assert DecayedSketch.from_bytes(g.to_bytes()).to_bytes() == g.to_bytes()


def test_fixed_decay_queries():
    (ids, w, v, ts), idx, _ = _stream(4)
    s = DecayedSketch.create(EPS, 0.05, decay="exp", decay_param=250, max_weight=8)
    s.add_many(w[idx], ts[idx], values=v[idx], ids=[int(x) for x in ids[idx]])
    now = int(ts.max())
    g = np.floor(w * 1024 * 2.0 ** (-(now - ts) / 250.0)) / 1024
    tot = float(g.sum())
    assert s.sum() == s.sum("exp", 250)
    assert abs(s.sum() - tot) <= EPS * tot
    assert abs(s.selectivity(5, 20) - float(g[(v >= 5) & (v <= 20)].sum()) / tot) <= EPS
    med = s.quantile(0.5)
    assert float(g[v <= med].sum()) / tot >= 0.5 - EPS and float(g[v < med].sum()) / tot < 0.5 + EPS
    for x in s.frequent(0.05):
        assert float(g[v == x["value"]].sum()) / tot >= 0.05 - EPS
    with pytest.raises(SketchError, match="was built with decay => 'exp'"):
        s.sum("exp", 100)


def test_string_ids_and_default_identity():
    s = DecayedSketch.create(0.1, 0.05)
    s.add_many([1, 1, 2], [10, 10, 20], ids=["a", "a", "b"])
    assert s.sum("window", 100) == 3.0
    d = DecayedSketch.create(0.1, 0.05)
    d.add_many([1, 1, 1], [10, 10, 11])  # identity (weight, value, ts): two distinct rows
    assert d.sum("window", 100) == 2.0
    with pytest.raises(SketchError, match="max_weight"):
        d.add(5000, 12)
    with pytest.raises(SketchError, match="corrupt sketch"):
        DecayedSketch.from_bytes(d.to_bytes()[:-3])


def test_same_bytes_and_answers_as_sql(spark):
    (ids, w, v, ts), idx, _ = _stream(6, n=1500)
    df = spark.createDataFrame([(int(ids[i]), int(w[i]), float(v[i]), int(ts[i])) for i in idx],
                               "id bigint, w int, v double, ts bigint")
    from ecmsketch import functions as E
    sql = df.agg(E.decayed_agg("w", "ts", 0.1, 0.05, value="v", id="id", max_weight=8).alias("s")).first().s
    py = DecayedSketch.create(0.1, 0.05, max_weight=8)
    py.add_many(w[idx], ts[idx], values=v[idx], ids=ids[idx])
    assert bytes(sql) == py.to_bytes()
    spark.createDataFrame([(py.to_bytes(),)], "s binary").createOrReplaceTempView("decay_py")
    r = spark.sql("SELECT decayed_sum(s, 'exp', 200) AS a, decayed_quantile(s, 0.9, 'poly', 1) AS q FROM decay_py").first()
    assert r.a == py.sum("exp", 200)
    assert r.q == py.quantile(0.9, "poly", 1)
