"""Bad arguments to the bytes-level sketch objects: each one raises ecmsketch.SketchError with a
message naming the argument and the problem (docs/guide/python-api.md: "Bad input raises
ecmsketch.SketchError with a message that names the problem"), never an OverflowError, a JPype
conversion error, a recursion, a wrapped-around timestamp or a silently truncated value. The
datetime cases: a sketch of integer ticks refuses datetimes in batches as it does in single adds,
so a batch never turns into microseconds on a sketch counting seconds."""
from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from ecmsketch import DetWave, DistinctSketch, EcmSketch, ExpHistogram, SketchError
from ecmsketch.sketches import AsyncQuantile, AsyncSum, DecayedSketch, DyadicSketch

D0 = dt.datetime(2024, 1, 1)
BIG = 2 ** 64


def refused(f, *fragments: str) -> str:
    """f() raises SketchError whose message contains every fragment."""
    with pytest.raises(SketchError) as e:
        f()
    msg = str(e.value)
    for frag in fragments:
        assert frag in msg, msg
    return msg


# ------------------------------------------------------------------ datetimes on integer-tick sketches

DATETIME_BATCHES = {
    "EH add_many list": lambda: ExpHistogram.create(0.1, window=3600).add_many([D0]),
    "EH add_many datetime64": lambda: ExpHistogram.create(0.1, window=3600).add_many(np.array([D0], dtype="datetime64[s]")),
    "DW add_many": lambda: DetWave.create(0.1, window=3600).add_many([D0, D0]),
    "ECM add_many": lambda: EcmSketch.create(0.1, window=3600).add_many([1], [D0]),
    "distinct add_many": lambda: DistinctSketch.create(window=3600).add_many([1], [D0]),
    "dyadic add": lambda: DyadicSketch.create(0.2, 0.2, window=3600, universe_bits=8).add(1, D0),
    "dyadic add_many": lambda: DyadicSketch.create(0.2, 0.2, window=3600, universe_bits=8).add_many([1], [D0]),
    "decayed add": lambda: DecayedSketch.create().add(1, D0),
    "async add_many": lambda: AsyncSum.create().add_many([1], np.array([D0], dtype="datetime64[us]")),
    "mixed ints and datetimes": lambda: ExpHistogram.create(0.1, window=3600).add_many([5, D0]),
}


@pytest.mark.parametrize("name", sorted(DATETIME_BATCHES))
def test_datetimes_are_refused_by_integer_tick_sketches(name):
    refused(DATETIME_BATCHES[name], "datetimes", "integer ticks")


def test_datetimes_in_batches_are_microseconds_on_timestamp_sketches():
    """The same batches on sketches of TIMESTAMPs: microseconds since the epoch, as single adds."""
    us = 1704067200 * 1_000_000
    a = ExpHistogram.create(0.1, window="1 hour", timestamps="timestamp")
    a.add_many([D0, D0 + dt.timedelta(seconds=1)])
    b = ExpHistogram.create(0.1, window="1 hour", timestamps="timestamp")
    b.add(D0)
    b.add(D0 + dt.timedelta(seconds=1))
    assert a.last_ts == b.last_ts == us + 1_000_000
    assert a.to_bytes() == b.to_bytes()
    c = ExpHistogram.create(0.1, window="1 hour", timestamps="timestamp")
    c.add_many(np.array([D0, D0 + dt.timedelta(seconds=1)], dtype="datetime64[ms]"))
    assert c.to_bytes() == a.to_bytes()
    refused(lambda: c.add_many(np.array(["NaT"], dtype="datetime64[us]")), "NaT")


# ------------------------------------------------------------------ values beyond BIGINT in batches


@pytest.mark.parametrize("ts, fragment", [
    (np.array([2 ** 63 + 5], dtype=np.uint64), "9223372036854775813"),
    (np.array([1e19]), "1e+19"),
    (np.array([-1e19]), "-1e+19"),
    (np.array([2.0 ** 63]), "9.223372036854776e+18"),
    ([BIG], str(BIG)),
])
def test_batch_timestamps_beyond_bigint_are_refused_not_wrapped(ts, fragment):
    h = ExpHistogram.create(0.1, window=1000)
    refused(lambda: h.add_many(ts), "timestamps must fit in a BIGINT", fragment)
    assert h.last_ts is None  # nothing was added
    e = EcmSketch.create(0.1, window=1000)
    refused(lambda: e.add_many([1], ts), "timestamps must fit in a BIGINT")


def test_batch_timestamps_at_the_bigint_limits_are_taken():
    h = ExpHistogram.create(0.1)
    h.add_many(np.array([-2 ** 63, 2 ** 63 - 1], dtype=object))
    assert h.last_ts == 2 ** 63 - 1
    h = ExpHistogram.create(0.1)
    h.add_many(np.array([2 ** 63 - 1], dtype=np.uint64))
    assert h.last_ts == 2 ** 63 - 1


def test_batch_weights_beyond_bigint_are_named_not_wrapped():
    msg = refused(lambda: ExpHistogram.create(0.1, window=1000).add_many([1], np.array([2 ** 64 - 1], dtype=np.uint64)),
                  "values must fit in a BIGINT", "18446744073709551615")
    assert "-1" not in msg


def test_batches_must_be_one_dimensional():
    refused(lambda: ExpHistogram.create(0.1).add_many(np.zeros((2, 2), dtype=np.int64)), "one-dimensional", "(2, 2)")
    refused(lambda: ExpHistogram.create(0.1).add_many([1, 2], np.ones((1, 2), dtype=np.int64)), "one-dimensional")


# ------------------------------------------------------------------ scalars beyond BIGINT / INT


def ecm() -> EcmSketch:
    """A small ECM-sketch holding one row."""
    s = EcmSketch.create(0.1, 0.1, window=1000)
    s.add(1, 10)
    return s


def dyadic() -> DyadicSketch:
    """A small dyadic sketch of 8-bit integer keys holding one row."""
    s = DyadicSketch.create(0.2, 0.2, window=1000, universe_bits=8)
    s.add(1, 10)
    return s


@pytest.mark.parametrize("name, f, fragment", [
    ("point range", lambda: ecm().point(1, range=BIG), "range must fit in a BIGINT"),
    ("point now", lambda: ecm().point(1, now=BIG), "now must fit in a BIGINT"),
    ("point float now", lambda: ecm().point(1, now=1e30), "now must fit in a BIGINT"),
    ("window", lambda: EcmSketch.create(0.1, window=2 ** 70), "window must fit in a BIGINT"),
    ("seed", lambda: EcmSketch.create(0.1, seed=2 ** 70), "seed must fit in a BIGINT"),
    ("max_arrivals", lambda: DetWave.create(0.1, max_arrivals=2 ** 70), "max_arrivals must fit in a BIGINT"),
    ("distinct ts", lambda: DistinctSketch.create().add(1, BIG), "ts must fit in a BIGINT"),
    ("async value", lambda: AsyncSum.create().add(BIG, 1), "value must fit in a BIGINT"),
    ("tradeoff", lambda: AsyncSum.create(tradeoff=2 ** 40), "tradeoff must fit in a 32-bit INT"),
    ("dyadic key", lambda: dyadic().point(BIG), "key must fit in a BIGINT"),
    ("top_k", lambda: dyadic().top_k(2 ** 40), "k must fit in a 32-bit INT"),
    ("universe_bits", lambda: DyadicSketch.create(universe_bits=2 ** 40), "universe_bits must fit in a 32-bit INT"),
])
def test_scalars_out_of_range_name_the_argument(name, f, fragment):
    refused(f, fragment)


# ------------------------------------------------------------------ other bad arguments


@pytest.mark.parametrize("name, f, fragment", [
    ("window 0", lambda: ExpHistogram.create(0.1, window=0), "window must be positive"),
    ("interval on ticks", lambda: ExpHistogram.create(0.1, window="10 minutes"), "must be a number of ticks"),
    ("float window", lambda: ExpHistogram.create(0.1, window=10.5), "window must be an int, a timedelta or an interval"),
    ("timedelta on ticks", lambda: ExpHistogram.create(0.1, window=dt.timedelta(1)), "window is a timedelta"),
    ("int range on timestamps",
     lambda: ExpHistogram.create(0.1, window="1 hour", timestamps="timestamp").count(range=10), "range for a sketch of timestamps"),
    ("bad unit", lambda: ExpHistogram.create(0.1, window="1 hour", timestamps="timestamp").count(range="10 mins"),
     "unknown interval unit 'mins'"),
    ("seed str", lambda: EcmSketch.create(0.1, seed="x"), "seed must be an integer, got 'x'"),
    ("seed None", lambda: EcmSketch.create(0.1, seed=None), "seed must be an integer, got None"),
    ("seed 1.5", lambda: EcmSketch.create(0.1, seed=1.5), "seed must be an integer, got 1.5"),
    ("merge_levels 64", lambda: EcmSketch.create(0.1, merge_levels=64), "merge_levels must be in [0, 63], got 64"),
    ("merge_levels -1", lambda: EcmSketch.create(0.1, merge_levels=-1), "merge_levels must be in [0, 63], got -1"),
    ("merge_levels 1.0", lambda: EcmSketch.create(0.1, merge_levels=1.0), "merge_levels must be an integer"),
    ("dyadic q str", lambda: dyadic().quantile("0.5"), "q must be a number or a sequence of numbers, got '0.5'"),
    ("dyadic q item", lambda: dyadic().quantile([0.5, None]), "got an item None"),
    ("async q str", lambda: AsyncQuantile.create().quantile("0.5"), "q must be a number or a sequence of numbers"),
    ("decayed value str", lambda: DecayedSketch.create().add(1, 5, value="x"), "values must be numbers"),
    ("bytes as str", lambda: EcmSketch.from_bytes("abc"), "must be bytes, bytearray or memoryview, got str"),
    ("merge of ints", lambda: EcmSketch.merge([1]), "must be bytes, bytearray or memoryview, got int"),
])
def test_bad_arguments_raise_sketch_errors(name, f, fragment):
    refused(f, fragment)


def test_numpy_integers_are_accepted_where_ints_are():
    a = EcmSketch.create(0.1, merge_levels=np.int64(1), seed=np.int32(7))
    b = EcmSketch.create(0.1, merge_levels=1, seed=7)
    assert a.to_bytes() == b.to_bytes()
    d = dyadic()
    assert d.quantile(np.int64(1)) == d.quantile(1) == d.quantile(1.0)
    assert d.quantile(np.array([0.5, 1.0])) == [d.quantile(0.5), d.quantile(1.0)]


def test_error_bound_works_on_every_class_and_is_the_certified_bound():
    """error_bound is sketch_info's field on every class (dyadic, async and decayed sketches raised a
    Java attribute error): for the ECM, EH, wave and distinct sketches the JVM sketch's own bound
    (what the property read before), for async and decayed sketches the epsilon they were built with,
    for a dyadic sketch its heavy-hitter bound at the current merge depth (below the epsilon asked
    for until the planned merges happen)."""
    for s in (ecm(), ExpHistogram.create(0.1), DetWave.create(0.1), DistinctSketch.create()):
        assert s.error_bound == float(s._j.errorBound()), type(s).__name__
    merged = EcmSketch.merge([ecm(), ecm()])
    assert merged.error_bound == float(merged._j.errorBound()) > ecm().error_bound
    for s in (AsyncSum.create(0.2), AsyncQuantile.create(0.2), DecayedSketch.create(0.2)):
        assert s.error_bound == 0.2, type(s).__name__
    d = dyadic()
    assert d.error_bound == d.info()["heavy_hitter_error_bound"] and 0 < d.error_bound < 1


def test_merge_takes_one_sketch_or_its_bytes_outside_a_list():
    s = ecm()
    assert EcmSketch.merge(s.to_bytes()).to_bytes() == EcmSketch.merge([s.to_bytes()]).to_bytes()
    assert EcmSketch.merge(s).to_bytes() == EcmSketch.merge([s]).to_bytes()
    h = ExpHistogram.create(0.1, window=100)
    h.add_many([1, 2, 3])
    assert ExpHistogram.merge(bytearray(h.to_bytes())).count() == ExpHistogram.merge([h]).count()
