"""The buffered single-add path of EcmSketch / ExpHistogram / DetWave (issue 14): adds are buffered in
Python and cross to the JVM in batches, flushed before every read. Answers and bytes must equal those
of a sketch fed one add at a time straight through the JVM, whatever the interleaving of adds and
reads; bad adds fail at the call that makes them, leaving the earlier adds in place."""
from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from ecmsketch import DetWave, EcmSketch, ExpHistogram, SketchError
from ecmsketch import sketches as sk_mod
from ecmsketch._convert import jbytes


def _stream(n, seed, ties=True):
    rng = np.random.default_rng(seed)
    steps = rng.integers(0, 3 if ties else 1, size=n) + (0 if ties else 1)
    ts = np.cumsum(steps).astype(np.int64)
    keys = (rng.zipf(1.3, size=n) % 300).astype(np.int64)
    return keys, ts


def _jvm_add(ref, key, t, v=1):
    """One add straight through the JVM object (the unbuffered reference)."""
    ref._jo.add(jbytes(key) if isinstance(key, bytes) else key, t, v)


@pytest.mark.parametrize("cell", ["eh", "dwave", "rwave"])
def test_interleaved_adds_and_reads_equal_unbuffered(cell):
    keys, ts = _stream(8_000, 3)
    rng = np.random.default_rng(4)
    weights = np.where(rng.random(len(keys)) < 0.1, rng.integers(0, 5, size=len(keys)), 1)
    s = EcmSketch.create(0.1, 0.05, window=3000, cell=cell)
    ref = EcmSketch.create(0.1, 0.05, window=3000, cell=cell)
    for x in (s, ref):
        x._jo.setEventSalt(1414)  # randomized-wave cells draw from a random per-sketch salt
    read_at = set(rng.choice(len(keys), size=25, replace=False).tolist()) | {len(keys) - 1}
    reads = 0
    for i, (k, t, w) in enumerate(zip(keys.tolist(), ts.tolist(), weights.tolist())):
        s.add(k, t) if w == 1 else s.add(k, t, w)
        _jvm_add(ref, k, t, w)
        if i in read_at:
            q = int(keys[rng.integers(0, i + 1)])
            assert s.point(q) == ref.point(q)
            assert s.point(q, 500) == ref.point(q, 500)
            assert s.last_ts == t
            if cell != "rwave":
                assert s.total(700) == ref.total(700)
            assert s.to_bytes() == ref.to_bytes()
            reads += 1
    assert reads >= 15
    assert s.info() == ref.info()


def test_large_stream_crosses_buffer_limit(monkeypatch):
    monkeypatch.setattr(sk_mod, "BUFFER_ROWS", 1000)
    keys, ts = _stream(5_500, 5)
    s = EcmSketch.create(0.1, 0.05, window=2000)
    ref = EcmSketch.create(0.1, 0.05, window=2000)
    for k, t in zip(keys.tolist(), ts.tolist()):
        s.add(k, t)
        _jvm_add(ref, k, t)
    assert len(s._bt) < 1000
    assert s.to_bytes() == ref.to_bytes()


@pytest.mark.parametrize("kind", ["str", "bytes"])
def test_string_and_bytes_keys(kind):
    keys, ts = _stream(3_000, 6)
    conv = (lambda k: f"k{k}") if kind == "str" else (lambda k: b"\x00k" + str(k).encode())
    s = EcmSketch.create(0.1, 0.05, window=1000)
    ref = EcmSketch.create(0.1, 0.05, window=1000)
    for i, (k, t) in enumerate(zip(keys.tolist(), ts.tolist())):
        s.add(conv(k), t)
        _jvm_add(ref, conv(k), t)
        if i % 997 == 0:
            assert s.point(conv(k)) == ref.point(conv(k))
    assert s.to_bytes() == ref.to_bytes()


def test_timestamp_sketch_with_datetimes():
    base = dt.datetime(2024, 1, 1)
    s = EcmSketch.create(0.1, 0.05, window="1 hour", timestamps="timestamp")
    ref = EcmSketch.create(0.1, 0.05, window="1 hour", timestamps="timestamp")
    for i in range(2000):
        t = base + dt.timedelta(seconds=3 * i)
        s.add(i % 17, t)
        ref._jo.add(i % 17, int((t - dt.datetime(1970, 1, 1)).total_seconds()) * 1_000_000, 1)
    assert s.point(3, "10 minutes") == ref.point(3, "10 minutes")
    assert s.to_bytes() == ref.to_bytes()


def test_merge_and_inner_product_flush_every_input():
    a = EcmSketch.create(0.1, 0.05, window=1000)
    b = EcmSketch.create(0.1, 0.05, window=1000)
    ra = EcmSketch.create(0.1, 0.05, window=1000)
    rb = EcmSketch.create(0.1, 0.05, window=1000)
    for t in range(1, 600):
        a.add(t % 7, t)
        b.add(t % 5, t)
        _jvm_add(ra, t % 7, t)
        _jvm_add(rb, t % 5, t)
    assert a._bt and b._bt  # both hold unsent adds
    assert a.inner_product(b) == ra.inner_product(rb)
    for t in range(600, 700):
        a.add(1, t)
        _jvm_add(ra, 1, t)
    assert EcmSketch.merge([a, b]).to_bytes() == EcmSketch.merge([ra, rb]).to_bytes()
    assert a.info()["total_weight"] == 699


def test_bad_adds_fail_at_their_call_and_keep_earlier_adds():
    s = EcmSketch.create(0.1, 0.05, window=1000)
    for t in range(1, 50):
        s.add(1, t)
    with pytest.raises(SketchError, match="non-decreasing: got 10 after 49"):
        s.add(1, 10)
    with pytest.raises(SketchError, match="weight must be non-negative"):
        s.add(1, 60, -1)
    with pytest.raises(SketchError, match="key"):
        s.add("a", 60)  # a string key after integer keys
    with pytest.raises(SketchError, match="BIGINT"):
        s.add(2 ** 63, 60)
    with pytest.raises(SketchError, match="value must be an integer"):
        s.add(1, 60, 1.5)
    assert s.total() == 49 and s.point(1) == 49
    s.add(1, 49)  # an equal timestamp is fine in a time-based window
    assert s.total() == 50


def test_count_window_refuses_a_repeated_sequence_number():
    s = EcmSketch.create(0.1, 0.05, window=100, window_type="count")
    for t in range(1, 20):
        s.add(t % 3, t)
    with pytest.raises(SketchError, match="unique arrival sequence numbers; got 19 twice"):
        s.add(0, 19)
    assert s.total() == 19


def test_weight_overflow_is_reported_by_the_add_that_causes_it():
    s = EcmSketch.create(0.1, 0.05, window=1000)
    s.add(1, 1)
    s.add(1, 2, 2 ** 62)
    s.add(1, 3, 2 ** 62 - 10)
    with pytest.raises(SketchError, match="overflows"):
        s.add(1, 4, 100)
    assert s.info()["total_weight"] == 2 ** 63 - 9


def test_overflow_at_the_boundary_fails_at_its_call_and_loses_nothing():
    # 2^62 + 2^62 = 2^63 does not fit: the second add must fail itself, not the next read
    s = EcmSketch.create(0.1, 0.05, window=1000)
    s.add(1, 1, 2 ** 62)
    with pytest.raises(SketchError, match="overflows"):
        s.add(1, 2, 2 ** 62)
    assert s.total() == 2 ** 62 and s.info()["total_weight"] == 2 ** 62
    for cls in (ExpHistogram, DetWave):
        c = cls.create(0.1, window=1000)
        c.add(1, 2 ** 62)
        with pytest.raises(SketchError, match="overflows"):
            c.add(2, 2 ** 62)
        assert c.info()["total_weight"] == 2 ** 62


def test_overflow_after_fast_path_flushes_fails_at_its_call(monkeypatch):
    # unit adds on the fast path flush on their own; the total they leave must still be checked
    import ecmsketch.sketches as S
    monkeypatch.setattr(S, "BUFFER_ROWS", 100)
    s = EcmSketch.create(0.1, 0.05, window=1000)
    s.add(1, 1, 2 ** 62 - 10)
    for t in range(2, 102):
        s.add(7, t)
    with pytest.raises(SketchError, match="overflows"):
        s.add(1, 200, 2 ** 62 - 5)
    assert s.info()["total_weight"] == 2 ** 62 - 10 + 100


@pytest.mark.parametrize("bad", [dict(ts=2 ** 64), dict(value=2 ** 63), dict(ts=-2 ** 63 - 1)])
def test_out_of_range_adds_name_the_argument(bad):
    s = EcmSketch.create(0.1, 0.05, window=1000)
    what = "ts" if "ts" in bad else "value"
    with pytest.raises(SketchError, match=f"{what} must fit in a BIGINT"):
        s.add(1, bad.get("ts", 5), bad.get("value", 1))
    c = ExpHistogram.create(0.1, window=1000)
    with pytest.raises(SketchError, match=f"{what} must fit in a BIGINT"):
        c.add(bad.get("ts", 5), bad.get("value", 1))
    with pytest.raises(SketchError, match="max_bytes must fit in a BIGINT"):
        EcmSketch.create(window=1000, max_bytes=2 ** 70)
    with pytest.raises(SketchError, match="max_bytes must be a positive BIGINT"):
        EcmSketch.create(window=1000, max_bytes=0)


@pytest.mark.parametrize("cls", [ExpHistogram, DetWave])
def test_counters_buffered_equal_unbuffered(cls):
    _, ts = _stream(8_000, 7)
    s, ref = cls.create(0.05, window=1500), cls.create(0.05, window=1500)
    for i, t in enumerate(ts.tolist()):
        v = 3 if i % 11 == 0 else 1
        s.add(t, v)
        ref._jo.add(t, v)
        if i % 1999 == 0:
            assert s.count(300) == ref.count(300)
            assert s.to_bytes() == ref.to_bytes()
    assert s.to_bytes() == ref.to_bytes()
    with pytest.raises(SketchError, match="non-decreasing"):
        s.add(int(ts[-1]) - 1)
    assert s.to_bytes() == ref.to_bytes()


@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_add_many_numpy_equals_single_adds(sort, weighted):
    keys, ts = _stream(30_000, 8)
    vals = np.random.default_rng(2).integers(1, 4, size=len(ts)).astype(np.int64) if weighted else None
    if not sort:
        p = np.random.default_rng(1).permutation(len(ts))
        keys_in, ts_in = keys[p], ts[p]
        vals_in = None if vals is None else vals[p]
        order = np.argsort(ts_in, kind="stable")
        keys, ts = keys_in[order], ts_in[order]
        vals = None if vals is None else vals_in[order]
    else:
        keys_in, ts_in, vals_in = keys, ts, vals
    s = EcmSketch.create(0.05, 0.01, window=5000)
    s.add_many(keys_in, ts_in, vals_in)
    ref = EcmSketch.create(0.05, 0.01, window=5000)
    ws = [1] * len(ts) if vals is None else vals.tolist()
    for k, t, w in zip(keys.tolist(), ts.tolist(), ws):
        _jvm_add(ref, k, t, w)
    assert s.info()["total_weight"] == sum(ws)
    assert s.to_bytes() == ref.to_bytes()
    # single adds after a batch continue from its last timestamp
    s.add(5, int(ts[-1]))
    _jvm_add(ref, 5, int(ts[-1]))
    assert s.to_bytes() == ref.to_bytes()
    with pytest.raises(SketchError, match="precede"):
        s.add_many(np.array([1], dtype=np.int64), np.array([int(ts[-1]) - 1], dtype=np.int64))


def test_counter_add_many_weighted_sorted():
    ts = np.arange(5000, dtype=np.int64) // 3
    vs = (np.arange(5000) % 4).astype(np.int64)
    s, ref = ExpHistogram.create(0.05, window=400), ExpHistogram.create(0.05, window=400)
    s.add_many(ts, vs)
    for t, v in zip(ts.tolist(), vs.tolist()):
        ref._jo.add(t, v)
    assert s.info()["total_weight"] == int(vs.sum())
    assert s.to_bytes() == ref.to_bytes()
