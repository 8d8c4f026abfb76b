"""Faults: corrupted, truncated and hostile sketch bytes fed to every SQL function that takes a
sketch, and to the bytes-level classes' ``from_bytes``. Each fails with the library's message (the
SketchException text, prefixed with the function's name), never with a JVM crash, an out-of-memory
error or a bare stack trace, and the JVM keeps serving queries afterwards.

The functions come from the SQL function table (``ecmsketch.spark.SqlFunctions.all``), so a new function
that takes a sketch is fuzzed here as soon as it is registered; a new required argument needs a
value in ``ARG_VALUES`` (the test says so). Everything is seeded.
"""
from __future__ import annotations

import inspect
import struct
import time

import numpy as np
import pytest

import ecmsketch.sketches as sketches
from ecmsketch import SketchError
from conftest import USER_ERROR, error_message, rows_df

#: Parameters that take a sketch (BINARY); every other required parameter needs a value below.
SKETCH_PARAMS = {"sketch", "a", "b"}
#: Values of the other required parameters, as SQL literals.
ARG_VALUES = {"key": "'k1'", "phi": "0.1", "k": "3", "lo": "0", "hi": "100", "x": "5", "q": "0.5"}

#: Failures that are never acceptable, whatever the input.
FATAL = ("OutOfMemoryError", "StackOverflowError", "NegativeArraySizeException", "ArrayIndexOutOfBoundsException",
         "IndexOutOfBoundsException", "NullPointerException", "ClassCastException", "ArithmeticException",
         "IllegalArgumentException", "hs_err_pid", "Java heap space")
#: How the library's refusals of bad bytes begin (core SketchException texts).
REFUSALS = ("corrupt sketch", "not an ecmsketch sketch", "unsupported sketch format version", "expected ",
            "cannot merge", "cannot combine", "count-based sketches cannot be merged", "total weight overflows",
            "key type mismatch")

HEADER = 60  # docs/FORMAT.md: the common header


def function_table(spark):
    """(name, group, [(param, required)]) of every registered ecmsketch SQL function."""
    fns = spark._jvm.ecmsketch.spark.SqlFunctions.all()
    out = []
    for i in range(fns.size()):
        f = fns.apply(i)
        ps = f.params()
        params = [(ps.apply(j).name(), not ps.apply(j).default().isDefined()) for j in range(ps.size())]
        out.append((f.name(), f.group(), params))
    return out


def sketch_functions(spark):
    """The functions that take a sketch, with the SQL call over a view whose column `s` holds sketches."""
    calls = []
    for name, group, params in function_table(spark):
        if not any(p in SKETCH_PARAMS for p, _ in params):
            continue
        args = []
        for p, required in params:
            if not required:
                continue
            if p in SKETCH_PARAMS:
                args.append("s")
            else:
                assert p in ARG_VALUES, f"{name}: add a value for its required parameter {p!r} to ARG_VALUES"
                args.append(ARG_VALUES[p])
        calls.append((name, group == "agg_funcs", f"{name}({', '.join(args)})"))
    return calls


# --------------------------------------------------------------------------- valid inputs and mutations


@pytest.fixture(scope="module")
def valid_sketches(spark):
    """One valid sketch of every kind and cell family the aggregates make, from the same rows."""
    n = 600
    rng = np.random.default_rng(13)
    rows_df(spark, {"key": [f"k{int(i)}" for i in rng.integers(0, 40, n)], "k": [int(i) for i in rng.integers(0, 40, n)],
                    "ts": list(range(n))},
            "key string, k bigint, ts bigint", partitions=2).createOrReplaceTempView("fault_rows")
    row = spark.sql("""
        SELECT ecm_agg(key, ts, 500) AS ecm_eh, ecm_agg(key, ts, 500, cell => 'dwave') AS ecm_dwave,
               ecm_agg(key, ts, 500, cell => 'rwave') AS ecm_rwave, eh_agg(ts, 500) AS eh, dwave_agg(ts, 500) AS dwave,
               distinct_agg(key, ts, 500) AS distinct, dyadic_agg(k, ts, 500) AS dyadic,
               dyadic_agg(k, ts, 500, cell => 'dwave') AS dyadic_dwave
        FROM fault_rows""").collect()[0]
    return {c: bytes(row[c]) for c in row.asDict()}


def put_varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def mutations(valid: dict, seed: int) -> dict:
    """Category -> list of corrupted byte strings, drawn from every valid sketch (seeded)."""
    rng = np.random.default_rng(seed)
    out = {c: [] for c in ("bit_flips", "truncated", "random", "huge_lengths", "empty", "trailing", "wrong_kind")}
    kinds = list(valid)
    for name, b in valid.items():
        n = len(b)
        for _ in range(2):  # a few bit flips, anywhere
            c = bytearray(b)
            for _ in range(int(rng.integers(1, 4))):
                i = int(rng.integers(0, n))
                c[i] ^= 1 << int(rng.integers(0, 8))
            out["bit_flips"].append(bytes(c))
        out["truncated"].append(b[:int(rng.integers(0, n))])
        out["random"].append(rng.integers(0, 256, int(rng.integers(1, 300)), dtype=np.uint8).tobytes())
        # a huge length field: an int32 and a maximal varint written into the body
        i = int(rng.integers(HEADER, n - 4))
        out["huge_lengths"].append(b[:i] + struct.pack("<i", 0x7FFFFFFF) + b[i + 4:])
        i = int(rng.integers(HEADER, n - 1))
        out["huge_lengths"].append(b[:i] + put_varint(2 ** 62) + b[i + 1:])
        out["empty"].append(b"")
        out["trailing"].append(b + bytes(rng.integers(0, 256, int(rng.integers(1, 9)), dtype=np.uint8)))
        out["wrong_kind"].append(valid[kinds[(kinds.index(name) + 1) % len(kinds)]])
    for c in out.values():
        rng.shuffle(c)
    return out


#: Categories in which every input must be refused (a proper prefix, random bytes, no bytes and
#: trailing bytes never decode; bit flips, overwritten fields and other kinds may give a valid sketch).
ALWAYS_REFUSED = {"truncated", "random", "empty", "trailing"}


def check_refusal(fn: str, msg: str, decode_error: bool) -> None:
    """A data error of the library: Spark's USER_RAISED_EXCEPTION carrying the SketchException text
    prefixed with the function's name; for bytes that cannot decode, the decoder's refusal."""
    for bad in FATAL:
        assert bad not in msg, f"{fn}: {bad} on corrupt input:\n{msg[:3000]}"
    assert f"{USER_ERROR}{fn}: " in msg, \
        f"{fn}: the library's message (prefixed with the function name) is missing:\n{msg[:3000]}"
    if decode_error:
        assert any(r in msg for r in REFUSALS[:3]), f"{fn}: not a refusal of bad bytes:\n{msg[:3000]}"


def test_function_table_lists_every_sketch_function(spark):
    names = {name for name, _, _ in sketch_functions(spark)}
    table = {n for n, _, _ in function_table(spark)}  # once: each call is ~100 py4j round trips
    registered = {r.name for r in spark.catalog.listFunctions() if r.name in table}
    assert registered == table, "the table and the session's functions differ"
    # the functions of today's table; new ones join automatically
    assert {"ecm_merge", "eh_merge", "dwave_merge", "distinct_merge", "dyadic_merge", "ecm_point", "ecm_total",
            "ecm_inner_product", "eh_count", "dwave_count", "distinct_count", "ecm_quantile", "sketch_info"} <= names


def test_sql_functions_refuse_corrupt_sketch_columns(spark, valid_sketches):
    """Per function, three columns: inputs that can never decode (truncated, random, empty, trailing
    bytes), mutated sketches (bit flips, huge length fields) and valid sketches of another kind; each
    shuffled, over two partitions. (Every single input is decoded by the from_bytes test below: the
    decoder is the same; here the point is what reaches the Spark user.)"""
    calls = sketch_functions(spark)
    cats = mutations(valid_sketches, seed=2026)
    columns = {
        "never_decodes": [b for c in sorted(ALWAYS_REFUSED) for b in cats[c]],
        "mutated": cats["bit_flips"] + cats["huge_lengths"],
        "wrong_kind": cats["wrong_kind"],
    }
    started = time.monotonic()
    stats = {}
    for col, inputs in columns.items():
        order = np.random.default_rng(len(inputs)).permutation(len(inputs))
        spark.createDataFrame([(bytearray(inputs[i]), int(i) % 3) for i in order], "s binary, g int") \
            .repartition(2).createOrReplaceTempView("fault_col")
        for fn, is_agg, call in calls:
            sql = f"SELECT g, {call} AS r FROM fault_col GROUP BY g" if is_agg else f"SELECT {call} AS r FROM fault_col"
            try:
                spark.sql(sql).collect()
                ok = True
            except Exception as e:  # noqa: BLE001 - the message is checked
                ok = False
                check_refusal(fn, error_message(e), decode_error=col == "never_decodes")
            if col == "never_decodes":
                assert not ok, f"{fn} accepted a column of bytes that cannot decode"
            stats.setdefault(col, [0, 0])[0 if ok else 1] += 1
    # the JVM is alive and well
    assert spark.sql("SELECT eh_count(eh_agg(id, 10)) FROM range(100)").collect()[0][0] > 0
    elapsed = time.monotonic() - started
    print(f"\nfuzzed {len(calls)} functions x {len(columns)} columns in {elapsed:.1f} s: "
          + ", ".join(f"{c} {a} accepted/{r} refused" for c, (a, r) in stats.items()))
    # wrong kinds are refused by every kind-specific function (sketch_info takes any kind)
    assert stats["wrong_kind"][1] >= len(calls) - 2


def bytes_classes():
    """The bytes-level classes with from_bytes (every public class of ecmsketch.sketches)."""
    return [getattr(sketches, n) for n in sketches.__all__
            if inspect.isclass(getattr(sketches, n)) and hasattr(getattr(sketches, n), "from_bytes")]


_MX = []


def thread_allocated_bytes() -> int:
    """Bytes the current thread has allocated in the JPype JVM (HotSpot's per-thread counter)."""
    if not _MX:
        import jpype

        from ecmsketch import _jvm
        _jvm.api()  # starts the JVM
        mx = jpype.JClass("java.lang.management.ManagementFactory").getThreadMXBean()
        _MX.append(jpype.JObject(mx, jpype.JClass("com.sun.management.ThreadMXBean")).getCurrentThreadAllocatedBytes)
    return int(_MX[0]())


def decode_allocation(cls, b: bytes):
    """(refusal message or None, bytes allocated) of one from_bytes call."""
    before = thread_allocated_bytes()
    try:
        cls.from_bytes(b)
        msg = None
    except SketchError as e:
        msg = str(e)
    return msg, thread_allocated_bytes() - before


def test_from_bytes_refuses_corrupt_bytes_without_huge_allocations(valid_sketches):
    """Every bytes-level class decodes many corrupted inputs: each is refused with a SketchError or
    decodes; no decode allocates much more than its input warrants (a length field is validated
    before the array it sizes is allocated: measured warm, after class loading), and the whole run
    stays within its time budget."""
    classes = bytes_classes()
    assert {c.__name__ for c in classes} >= {"EcmSketch", "ExpHistogram", "DetWave", "DistinctSketch", "DyadicSketch"}
    started = time.monotonic()
    inputs = []
    for seed in range(2):
        for c in mutations(valid_sketches, seed).values():
            inputs.extend(c)
    # body offsets of every kind overwritten with a huge int32 and a huge varint
    for b in valid_sketches.values():
        for i in range(HEADER, len(b) - 4, max(1, (len(b) - HEADER) // 20)):
            inputs.append(b[:i] + struct.pack("<i", 0x7FFFFFFF) + b[i + 4:])
            inputs.append(b[:i] + put_varint(2 ** 31 - 1) + b[i + 1:])
    refused = accepted = 0
    measured = []
    for cls in classes:
        for b in inputs:
            msg, allocated = decode_allocation(cls, b)
            if msg is None:
                accepted += 1
            else:
                for bad in FATAL:
                    assert bad not in msg, f"{cls.__name__}.from_bytes: {bad}:\n{msg[:2000]}"
                assert any(r in msg for r in REFUSALS), f"{cls.__name__}.from_bytes: unexpected refusal {msg[:500]}"
                refused += 1
            measured.append((allocated / (len(b) + 1024), cls, b))
    # the largest allocations again, warm (the first decodes also load and initialize classes)
    measured.sort(key=lambda m: -m[0])
    worst = max(((decode_allocation(cls, b)[1] / (len(b) + 1024), cls.__name__, len(b)) for _, cls, b in measured[:30]),
                key=lambda m: m[0])
    elapsed = time.monotonic() - started
    print(f"\nfrom_bytes: {len(inputs)} inputs x {len(classes)} classes: {refused} refused, {accepted} accepted, "
          f"{elapsed:.1f} s; worst warm allocation/(input + 1 KiB) {worst[0]:.0f} ({worst[1]}, {worst[2]} bytes); "
          f"cold {measured[0][0]:.0f}")
    assert refused > accepted
    # a decode allocates its objects (tens of bytes per input byte), never arrays sized by a corrupt field
    assert worst[0] < 2000, f"{worst[1]}.from_bytes allocated {worst[0]:.0f} x (input + 1 KiB) for a {worst[2]}-byte input"
    assert elapsed < 60
