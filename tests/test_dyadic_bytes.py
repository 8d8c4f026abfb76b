"""The JPype DyadicSketch (no Spark for building): answers against exact ones computed in Python,
bytes round trips, merges, and agreement with the SQL functions on the same sketch bytes."""
from __future__ import annotations

import numpy as np
import pytest

from ecmsketch import SketchError
from ecmsketch.sketches import DyadicSketch


def _zipf_ints(rng, n, distinct=300, bits=24):
    ids = rng.integers(-(1 << (bits - 1)), 1 << (bits - 1), size=distinct)
    p = np.arange(1, distinct + 1, dtype=np.float64) ** -1.1
    return ids[rng.choice(distinct, size=n, p=p / p.sum())].astype(np.int64)


def test_integer_keys_against_exact(spark):
    rng = np.random.default_rng(5)
    keys = _zipf_ints(rng, 20_000)
    ts = np.sort(rng.integers(0, 10_000, size=20_000))
    s = DyadicSketch.create(0.05, 0.01, 4000, universe_bits=24)
    s.add_many(keys, ts)
    info = s.info()
    e, a_now = info["total_error_bound"], int(ts.max())
    for r in (100, 1000, 4000):
        m = ts > a_now - r
        ks, counts = np.unique(keys[m], return_counts=True)
        freqs = dict(zip(ks.tolist(), counts.tolist()))
        a = int(m.sum())
        assert abs(s.total(r) - a) <= e * a + 1e-9
        hh = s.heavy_hitters(0.03, r)
        got = {x["key"] for x in hh}
        assert {k for k, f in freqs.items() if f >= (0.03 + 0.05) * a} <= got
        for x in hh:
            assert x["lower"] <= freqs.get(x["key"], 0) <= x["upper"] + 1e-9
        top = s.top_k(3, r)
        assert [x["estimate"] for x in top] == sorted((x["estimate"] for x in top), reverse=True)
        srt = np.sort(keys[m])
        for q, v in zip((0.25, 0.5, 0.95), s.quantile([0.25, 0.5, 0.95], r)):
            assert isinstance(v, int)
            below, at_most = np.searchsorted(srt, v, "left"), np.searchsorted(srt, v, "right")
            assert below < (q + 2 * e / (1 - e)) * a and at_most >= (q - info["quantile_rank_error_bound"]) * a
        f = int(((srt >= -1000) & (srt <= 10**6)).sum())
        rc = s.range_count(-1000, 10**6, r)
        assert (1 - e) * f - 1e-9 <= rc <= f + info["range_error_bound"] * a
        assert (1 - e) * int((srt <= 0).sum()) - 1e-9 <= s.rank(0, r)
    k = max(freqs, key=freqs.get)
    assert s.point(k) >= (1 - e) * freqs[k]


def test_bytes_merge_and_errors(spark):
    rng = np.random.default_rng(9)
    parts = []
    for i in range(3):
        p = DyadicSketch.create(0.1, 0.05, 2000, universe_bits=16, merge_levels=1)
        p.add_many(_zipf_ints(rng, 3000, bits=16), np.arange(3000))
        parts.append(p)
    b = parts[0].to_bytes()
    again = DyadicSketch.from_bytes(b)
    assert again.to_bytes() == b and again.top_k(3) == parts[0].top_k(3)
    m = DyadicSketch.merge([parts[0], parts[1].to_bytes(), parts[2]])
    assert m.merge_depth == 1 and m.info()["total_weight"] == 9000
    assert abs(m.total() - 6000) <= m.info()["total_error_bound"] * 6000  # the window holds ts 1000..2999 of each site
    f = DyadicSketch.create(0.1, 0.05, 100)
    f.add_many([0.5, 1.5, 1.5, -2.25], [1, 2, 3, 4])
    assert f.quantile(0.5) == pytest.approx(0.5, rel=1e-5) and isinstance(f.quantile(0.9), float)
    assert f.top_k(1)[0]["key"] == pytest.approx(1.5, rel=1e-5)
    with pytest.raises(SketchError, match="outside the dyadic sketch's universe"):
        parts[0].add(1 << 20, 5000)
    with pytest.raises(SketchError, match="holds bigint keys; cannot add a string key"):
        parts[0].add_many(["a"], [5000])
    with pytest.raises(SketchError, match="deterministic cells"):
        DyadicSketch.create(cell="rwave")


def test_sql_and_python_agree(spark):
    rows = [(int(k), int(t)) for k, t in zip(_zipf_ints(np.random.default_rng(2), 5000, bits=20), range(5000))]
    df = spark.createDataFrame(rows, "k bigint, ts bigint").coalesce(1)
    r = df.selectExpr("dyadic_agg(k, ts, 3000, universe_bits => 20) AS s").selectExpr(
        "s", "ecm_top_k(s, 4) AS top", "ecm_quantile(s, 0.5) AS q", "ecm_range_count(s, -5000, 5000, 1000) AS rc").first()
    s = DyadicSketch.from_bytes(bytes(r.s))
    assert [x["key"] for x in s.top_k(4)] == [x.key for x in r.top]
    assert float(s.quantile(0.5)) == r.q
    assert s.range_count(-5000, 5000, 1000) == r.rc
