"""The one key-conversion function, ecmsketch._convert.jvm_keys: every accepted key type (single keys
and batches) with the Java value it becomes, every refused input with its exact message, and the
sketch classes all converting keys through it."""
from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pytest

from ecmsketch import DistinctSketch, EcmSketch, SketchError
from ecmsketch import _convert, _jvm
from ecmsketch._convert import BYTES, LONGS, STRINGS, jvm_keys

MAX, MIN = 2 ** 63 - 1, -2 ** 63


@pytest.fixture(scope="module", autouse=True)
def jvm():
    _jvm.api()  # JArray and friends need a running JVM


def java_class(x) -> str:
    return str(x.getClass().getName())


# --------------------------------------------------------------------------------------- single keys


@pytest.mark.parametrize("key, kind, value", [
    (0, LONGS, 0),
    (-17, LONGS, -17),
    (MAX, LONGS, MAX),
    (MIN, LONGS, MIN),
    (np.int64(MAX), LONGS, MAX),
    (np.int8(-4), LONGS, -4),
    (np.uint64(MAX), LONGS, MAX),
    ("", STRINGS, ""),
    ("ключ", STRINGS, "ключ"),
    (np.str_("a"), STRINGS, "a"),
    (b"", BYTES, b""),
    (b"a\x00", BYTES, b"a\x00"),
    (bytearray(b"\x00\xff"), BYTES, b"\x00\xff"),
    (np.bytes_(b"z"), BYTES, b"z"),
])
def test_single_key_accepted(key, kind, value):
    k = jvm_keys(key, "key", single=True)
    assert (k.kind, k.single, len(k)) == (kind, True, 1)
    assert k.values == value and type(k.values) is type(value)  # plain Python int, str or bytes
    j = k.jvm()
    if kind == BYTES:
        assert java_class(j) == "[B" and bytes(j) == value  # every byte kept, trailing NULs too
    else:
        assert type(j) is type(value) and j == value  # JPype passes a Python int as long, a str as String


@pytest.mark.parametrize("key, message", [
    (None, "key must be str, bytes or int, got None"),
    (True, "key must be str, bytes or int, got True"),
    (False, "key must be str, bytes or int, got False"),
    (np.bool_(True), "key must be str, bytes or int, got bool"),
    (1.0, "key must be str, bytes or int, got float"),
    (np.float64(2), "key must be str, bytes or int, got float64"),
    (memoryview(b"a"), "key must be str, bytes or int, got memoryview"),
    ([1], "key must be str, bytes or int, got list"),
    ((1,), "key must be str, bytes or int, got tuple"),
    (dt.datetime(2024, 1, 1), "key must be str, bytes or int, got datetime"),
    (MAX + 1, "key must be an integer that fits in BIGINT, got 9223372036854775808"),
    (MIN - 1, "key must be an integer that fits in BIGINT, got -9223372036854775809"),
    (np.uint64(2 ** 64 - 1), "key must be an integer that fits in BIGINT, got 18446744073709551615"),
])
def test_single_key_refused(key, message):
    with pytest.raises(SketchError, match=f"^{re.escape(message)}$"):
        jvm_keys(key, "key", single=True)


def test_single_key_message_names_what():
    with pytest.raises(SketchError, match=r"^value must be str, bytes or int, got None$"):
        jvm_keys(None, "value", single=True)
    with pytest.raises(SketchError, match=r"^value must be an integer that fits in BIGINT"):
        jvm_keys(2 ** 70, "value", single=True)


# ------------------------------------------------------------------------------------------ batches


def gen(items):
    return (x for x in items)


@pytest.mark.parametrize("name, keys, kind, expected", [
    ("list of ints", [3, -1, MAX, MIN], LONGS, [3, -1, MAX, MIN]),
    ("tuple of ints", (1, 2), LONGS, [1, 2]),
    ("generator of ints", gen([5, 6]), LONGS, [5, 6]),
    ("range", range(3), LONGS, [0, 1, 2]),
    ("Python and numpy ints", [1, np.int64(2), np.uint8(3)], LONGS, [1, 2, 3]),
    ("int64 array", np.array([9, -9], dtype=np.int64), LONGS, [9, -9]),
    ("int8 array", np.array([-128, 127], dtype=np.int8), LONGS, [-128, 127]),
    ("uint64 array within BIGINT", np.array([0, MAX], dtype=np.uint64), LONGS, [0, MAX]),
    ("object array of ints", np.array([1, MAX], dtype=object), LONGS, [1, MAX]),
    ("object array of numpy ints", np.array([np.int32(4), np.int64(5)], dtype=object), LONGS, [4, 5]),
    ("list of str", ["a", "", "ключ"], STRINGS, ["a", "", "ключ"]),
    ("list of numpy str", [np.str_("a"), "b"], STRINGS, ["a", "b"]),
    ("str array", np.array(["a", "bb"]), STRINGS, ["a", "bb"]),
    ("object array of str", np.array(["x", "y"], dtype=object), STRINGS, ["x", "y"]),
    ("list of bytes", [b"a\x00", b"\x00", b""], BYTES, [b"a\x00", b"\x00", b""]),
    ("bytes and bytearray", [bytearray(b"p\x00"), b"q"], BYTES, [b"p\x00", b"q"]),
    ("object array of bytes", np.array([b"a\x00", b"b"], dtype=object), BYTES, [b"a\x00", b"b"]),
    ("list of numpy bytes", [np.bytes_(b"a"), b"b"], BYTES, [b"a", b"b"]),
    ("empty list", [], LONGS, []),
    ("empty int array", np.array([], dtype=np.int64), LONGS, []),
    ("empty str array", np.array([], dtype=str), LONGS, []),
    ("empty float array", np.array([]), LONGS, []),
])
def test_batch_accepted(name, keys, kind, expected):
    k = jvm_keys(keys, "keys")
    assert (k.kind, k.single, len(k)) == (kind, False, len(expected)), name
    assert [x.item() if isinstance(x, np.generic) else x for x in k.values] == expected, name
    if kind == LONGS:
        assert k.values.dtype == np.int64
    # the Java array, as given and in a permuted order
    order = np.arange(len(expected))[::-1]
    for o, exp in ((None, expected), (order, [expected[i] for i in order])):
        j = k.jvm(o)
        if kind == LONGS:
            assert java_class(j) == "[J" and list(j) == exp, name
        elif kind == STRINGS:
            assert java_class(j) == "[Ljava.lang.String;" and [str(x) for x in j] == exp, name
        else:
            assert java_class(j) == "[[B" and [bytes(x) for x in j] == exp, name


def test_batch_jvm_order_is_a_permutation_of_the_keys():
    keys = np.array([10, 20, 30, 40])
    k = jvm_keys(keys, "keys")
    assert list(k.jvm(np.array([2, 0, 3, 1]))) == [30, 10, 40, 20]
    assert list(keys) == [10, 20, 30, 40]  # the caller's array is not reordered


MIX = "keys must be all integers, all strings or all bytes, got "


@pytest.mark.parametrize("name, keys, message", [
    ("numpy 'S' array", np.array([b"a\x00", b"b"]),
     "numpy bytes arrays (dtype 'S') cannot hold trailing NUL bytes, so keys would change; "
     "pass a list or an object array of bytes"),
    ("ints and str", [1, "a"], MIX + "a mix of int, str"),
    ("bytes and str", [b"a", "a"], MIX + "a mix of bytes, str"),
    ("bool and int", [True, 1], MIX + "a mix of bool, int"),
    ("None and str", ["a", None], MIX + "a mix of NoneType, str"),
    ("bytearray, bytes and int", [bytearray(b"a"), b"b", 3], MIX + "a mix of bytearray, bytes, int"),
    ("numpy int and str", [np.int64(1), "1"], MIX + "a mix of int, str"),
    ("object array of int and str", np.array([1, "a"], dtype=object), MIX + "a mix of int, str"),
    ("list of bools", [True, False], MIX + "booleans"),
    ("bool array", np.array([True, False]), MIX + "booleans"),
    ("list of floats", [1.5, 2.0], MIX + "dtype float64"),
    ("float array", np.array([1.0, 2.0]), MIX + "dtype float64"),
    ("float32 array", np.array([1.0], dtype=np.float32), MIX + "dtype float32"),
    ("datetime64 array", np.array(["2024-01-01"], dtype="datetime64[D]"), MIX + "dtype datetime64[D]"),
    ("list of None", [None, None], MIX + "dtype object"),
    ("list of memoryviews", [memoryview(b"a"), memoryview(b"b")], MIX + "dtype object"),
    ("list of datetimes", [dt.datetime(2024, 1, 1)], MIX + "dtype object"),
    ("int beyond BIGINT", [MAX + 1, 1], "keys must be integers that fit in BIGINT, got 9223372036854775808"),
    ("int below BIGINT", [1, MIN - 1], "keys must be integers that fit in BIGINT, got -9223372036854775809"),
    ("int of 65 bits", [2 ** 64, 1], "keys must be integers that fit in BIGINT, got 18446744073709551616"),
    ("uint64 beyond BIGINT", np.array([2 ** 64 - 1, 1], dtype=np.uint64),
     "keys must be integers that fit in BIGINT, got 18446744073709551615"),
    ("object array beyond BIGINT", np.array([MAX + 1], dtype=object),
     "keys must be integers that fit in BIGINT, got 9223372036854775808"),
    ("2-D array", np.array([[1, 2], [3, 4]]), "keys must be a one-dimensional batch, got an array of shape (2, 2)"),
    ("0-D array", np.array(5), "keys must be a one-dimensional batch, got an array of shape ()"),
])
def test_batch_refused(name, keys, message):
    with pytest.raises(SketchError, match=f"^{re.escape(message)}$"):
        jvm_keys(keys, "keys")


def test_batch_message_names_what():
    with pytest.raises(SketchError, match=r"^values must be all integers, all strings or all bytes, got booleans$"):
        jvm_keys([True], "values")
    with pytest.raises(SketchError, match=r"so values would change"):
        jvm_keys(np.array([b"a"]), "values")


def test_a_batch_is_not_a_single_key():
    """A str or bytes given as a batch is a sequence of characters or byte values, not one key."""
    k = jvm_keys("ab", "keys")
    assert (k.kind, k.single, list(k.values)) == (STRINGS, False, ["a", "b"])
    assert list(jvm_keys(b"ab", "keys").values) == [97, 98] and jvm_keys(b"ab", "keys").kind == LONGS
    with pytest.raises(SketchError, match="got list"):
        jvm_keys(["ab"], "key", single=True)


# ------------------------------------------------------------------------ one function for every class


def test_every_sketch_class_converts_keys_through_jvm_keys(monkeypatch):
    import importlib
    import pkgutil
    import sys

    import ecmsketch.sketches as sketches

    calls = []

    def spy(keys, what="key", *, single=False):
        calls.append((what, single))
        return _convert.jvm_keys(keys, what, single=single)

    # every module of the package that calls jvm_keys (one per sketch family) calls the spy
    modules = [sketches] + [importlib.import_module(f"{sketches.__name__}.{m.name}")
                            for m in pkgutil.iter_modules(sketches.__path__)]
    patched = [m.__name__ for m in modules if hasattr(m, "jvm_keys")]
    assert {"ecmsketch.sketches.ecm", "ecmsketch.sketches.distinct"} <= set(patched), patched
    for name in patched:
        monkeypatch.setattr(sys.modules[name], "jvm_keys", spy)
    e = EcmSketch.create(window=100)
    e.add("a", 1)
    e.add_many(["a", "b"], [2, 3])
    assert e.point("a") == 2.0
    d = DistinctSketch.create(0.2, 0.1, 100)
    d.add(b"x\x00", 1)
    d.add_many([b"x", b"x\x00"], [2, 3])
    assert d.count() == 2.0
    assert calls == [("key", True), ("keys", False), ("key", True), ("value", True), ("values", False)]
    # and the refusals the classes raise are the function's
    with pytest.raises(SketchError, match=r"^keys must be all integers, all strings or all bytes, got a mix"):
        e.add_many([1, "a"], [4, 5])
    with pytest.raises(SketchError, match=r"^values must be all integers, all strings or all bytes, got a mix"):
        d.add_many([1, "a"], [4, 5])
    with pytest.raises(SketchError, match=r"^key must be an integer that fits in BIGINT"):
        e.point(2 ** 63)
    with pytest.raises(SketchError, match=r"^value must be str, bytes or int, got None$"):
        d.add(None, 6)


def test_batches_and_single_adds_build_identical_sketches():
    """Every accepted batch form builds the bytes of the same keys added one at a time."""
    for keys in ([7, -2, MAX], np.array([7, -2, MAX], dtype=np.int64),
                 np.array([7, -2, MAX], dtype=object), ["k", "", "ключ"], np.array(["k", "", "ключ"]),
                 [b"a\x00", b"", bytearray(b"\x00")]):
        ts = [3, 1, 2]  # unsorted: keys follow their timestamps
        for cls in ("ecm", "distinct"):
            one = EcmSketch.create(window=100) if cls == "ecm" else DistinctSketch.create(0.2, 0.1, 100)
            batch = EcmSketch.create(window=100) if cls == "ecm" else DistinctSketch.create(0.2, 0.1, 100)
            for i in np.argsort(ts, kind="stable"):
                k = keys[i]
                k = k.item() if isinstance(k, np.generic) else k
                one.add(k, ts[i])
            batch.add_many(keys, ts)
            assert batch.to_bytes() == one.to_bytes(), (cls, keys)
    empty = EcmSketch.create(window=100)
    empty.add_many([], [])
    assert empty.to_bytes() == EcmSketch.create(window=100).to_bytes() and empty.info()["key_type"] == "none"
