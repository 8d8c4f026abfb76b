"""max_bytes (issue 14): an ECM-sketch planned for a memory budget, in Python and in SQL. The bytes
stay within the budget on an adversarial stream, info()/sketch_info report the certified bound and
the largest size the plan allows, the bound holds against exact counts, and bad budgets are refused."""
from __future__ import annotations

import numpy as np
import pytest

from ecmsketch import EcmSketch, SketchError


def test_python_budget_holds_on_an_adversarial_stream_and_info_reports_it():
    s = EcmSketch.create(max_bytes=65536, delta=0.05, window=10_000)
    info = s.info()
    assert info["max_size_bytes"] <= 65536
    assert info["point_error_bound"] <= info["epsilon"]
    rng = np.random.default_rng(3)
    n = 50_000
    keys = rng.integers(0, 2 ** 40, size=n)
    ts = np.cumsum(rng.integers(0, 400, size=n))
    ws = 2 ** rng.integers(0, 40, size=n)
    s.add_many(keys, ts, ws)
    assert len(s.to_bytes()) <= 65536
    # a larger budget certifies a smaller bound
    assert EcmSketch.create(max_bytes=1 << 20, delta=0.05, window=10_000).info()["epsilon"] < info["epsilon"]


def test_python_budgeted_sketch_within_its_bound():
    s = EcmSketch.create(max_bytes=32768, delta=0.05, window=2000)
    rng = np.random.default_rng(5)
    n = 30_000
    keys = (np.abs(rng.normal(size=n)) * 30).astype(np.int64)
    ts = np.cumsum(rng.integers(0, 2, size=n))
    s.add_many(keys, ts)
    bound = s.info()["point_error_bound"]
    now = int(ts[-1])
    inw = ts > now - 2000
    exact = np.bincount(keys[inw], minlength=200)
    l1 = int(inw.sum())
    bad = sum(1 for k in range(200) if abs(s.point(k) - exact[k]) > bound * l1 + 1e-9)
    assert bad <= 0.05 * 200


def test_python_errors():
    with pytest.raises(SketchError, match="max_bytes 300 is too small"):
        EcmSketch.create(max_bytes=300, window=100)
    with pytest.raises(SketchError, match="not both"):
        EcmSketch.create(0.1, max_bytes=65536, window=100)
    with pytest.raises(SketchError, match="max_bytes needs 'eh' cells"):
        EcmSketch.create(max_bytes=1 << 20, window=100, cell="dwave")


def test_sql_max_bytes(spark):
    rng = np.random.default_rng(7)
    n = 20_000
    rows = [(int(k), int(t), int(w)) for k, t, w in zip(rng.integers(0, 10 ** 6, size=n),
                                                       np.cumsum(rng.integers(0, 50, size=n)),
                                                       2 ** rng.integers(0, 30, size=n))]
    spark.createDataFrame(rows, "k long, t long, w long").createOrReplaceTempView("mb_rows")
    r = spark.sql("SELECT length(s) AS n, sketch_info(s) AS i FROM "
                  "(SELECT ecm_agg(k, t, 5000, value => w, max_bytes => 65536) AS s FROM mb_rows)").collect()[0]
    assert r["n"] <= 65536 and r["i"]["max_size_bytes"] <= 65536
    py = EcmSketch.create(max_bytes=65536, window=5000, merge_levels=0)
    assert r["i"]["epsilon"] == py.info()["epsilon"] and r["i"]["width"] == py.info()["width"]
    with pytest.raises(Exception, match="give epsilon or max_bytes, not both"):
        spark.sql("SELECT ecm_agg(k, t, 5000, 0.1, max_bytes => 65536) FROM mb_rows").collect()
    with pytest.raises(Exception, match="is too small"):
        spark.sql("SELECT ecm_agg(k, t, 5000, max_bytes => 100) FROM mb_rows").collect()
