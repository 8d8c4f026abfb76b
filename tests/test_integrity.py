"""Format version 4 carries a CRC32C of the bytes (docs/FORMAT.md, "Header").

* A tamper campaign through the Python bytes API: 300 mutants of a sketch of each of twelve cases (every kind) (bit
  flips, byte overwrites, truncations and extensions, spread over the header, the checksum and the
  body). Every one must be refused with :class:`SketchError` when it is decoded: none answers.
* Stored bytes of versions 1 to 3 (no checksum) still read, and ``ecmsketch.sketch_info(bytes)`` (as
  SQL's ``sketch_info``) says whether bytes carried a checksum.
* The Scala 2.12 jar (Spark 3.5) and the 2.13 jar (Spark 4.x) write the same bytes for the same rows.
"""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import integrity_cases
from ecmsketch import SketchError
from ecmsketch.sketches import EcmSketch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLEAN = ("corrupt sketch: ", "not an ecmsketch sketch", "unsupported sketch format version")


@pytest.fixture(scope="module")
def cases():
    return integrity_cases.build()


def _mutants(b: bytes, rnd: np.random.Generator, n: int):
    """n mutants of b: (what, bytes), each region (header, checksum, body start, middle, end) alike."""
    size = len(b)
    regions = [(0, 60), (60, 64), (64, min(size, 128)), (size // 2 - 32, size // 2 + 32), (size - 32, size)]
    for i in range(n):
        lo, hi = regions[i % len(regions)]
        at = int(rnd.integers(lo, hi))
        kind = (i // len(regions)) % 4
        m = bytearray(b)
        if kind == 0:
            m[at] ^= 1 << int(rnd.integers(0, 8))
            yield f"bit flip at {at}", bytes(m)
        elif kind == 1:
            m[at] ^= int(rnd.integers(1, 256))
            yield f"overwrite at {at}", bytes(m)
        elif kind == 2:
            yield f"truncation to {at}", bytes(m[:at])
        else:
            extra = rnd.integers(0, 256, int(rnd.integers(1, 9)), dtype=np.uint8).tobytes()
            yield f"extension by {len(extra)}", bytes(m) + extra


def test_every_kind_is_written_as_version_4_with_a_checksum(cases):
    for name, (s, query) in cases.items():
        b = s.to_bytes()
        assert b[4] == 4 and b[7] & 8, name
        again = type(s).from_bytes(b)
        assert again.to_bytes() == b and query(again) == query(s), name
        info = again.info()
        assert info["format_version"] == 4 and info["checksum"] is True and info["size_bytes"] == len(b), name


def test_3600_mutants_of_twelve_kinds_are_all_refused(cases):
    rnd = np.random.default_rng(20261127)
    refused = 0
    for name, (s, query) in cases.items():
        b = s.to_bytes()
        cls = type(s)
        for what, m in _mutants(b, rnd, 300):
            assert m != b
            try:
                answer = query(cls.from_bytes(m))
            except SketchError as e:
                assert str(e).startswith(CLEAN), f"{name}, {what}: {e}"
                refused += 1
            else:
                pytest.fail(f"{name}, {what}: the mutant was accepted and answered {answer}")
    assert len(cases) == 12 and refused == 3600


def test_a_checksum_mismatch_names_itself():
    s = EcmSketch.create(epsilon=0.1, delta=0.1, window=100)
    s.add(1, 5)
    b = bytearray(s.to_bytes())
    b[-1] ^= 0x10
    with pytest.raises(SketchError, match=r"^corrupt sketch: checksum mismatch \(stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}"):
        EcmSketch.from_bytes(bytes(b))


def test_stored_bytes_without_a_checksum_still_read():
    """A version-1 ECM-sketch (the golden file) reads, answers, and re-encodes as version 4."""
    path = os.path.join(ROOT, "jvm", "core", "src", "test", "resources", "golden", "ecm-eh.hex")
    text = "".join(l.strip() for l in open(path) if not l.startswith("#"))
    old = bytes.fromhex(text)
    assert old[4] == 1
    s = EcmSketch.from_bytes(old)
    v4 = s.to_bytes()
    assert v4[4] == 4 and len(v4) == len(old) + 4 and v4[64:] == old[60:]
    assert EcmSketch.from_bytes(v4).point(1, 10) == s.point(1, 10)


def test_sketch_info_of_bytes_says_which_version_and_whether_a_checksum():
    """Every golden file, of every format version: sketch_info(bytes) reports the bytes' own version,
    checksum and size, as SQL's sketch_info does; info() of the decoded sketch describes it as written now."""
    from ecmsketch import sketch_info
    golden = os.path.join(ROOT, "jvm", "core", "src", "test", "resources", "golden")
    files = [p for p in sorted(glob.glob(os.path.join(golden, "*.hex")) + glob.glob(os.path.join(golden, "v4", "*.hex")))
             if not os.path.basename(p).startswith("bundle")]
    seen = set()
    for p in files:
        b = bytes.fromhex("".join(l.strip() for l in open(p) if not l.startswith("#")))
        i = sketch_info(b)
        assert i["format_version"] == b[4] and i["checksum"] == (b[4] == 4) and i["size_bytes"] == len(b), p
        seen.add(b[4])
    assert seen == {1, 2, 3, 4}
    old = bytes.fromhex("".join(l.strip() for l in open(os.path.join(golden, "eh.hex")) if not l.startswith("#")))
    good = integrity_cases.build()["dwave"][0].to_bytes()
    with pytest.raises(SketchError, match="checksum mismatch"):
        sketch_info(good[:-1] + bytes([good[-1] ^ 1]))
    from ecmsketch import ExpHistogram
    assert ExpHistogram.from_bytes(old).info()["checksum"] is True  # as to_bytes writes it


def _scala_libraries():
    """(2.12 jars, 2.13 jars) of the Scala library, from the tested pyspark venvs (make test sets up both)."""
    found = {}
    for venv in [os.path.dirname(os.path.dirname(sys.executable))] + glob.glob(os.path.join(ROOT, ".venv*")):
        for jar in glob.glob(os.path.join(venv, "lib", "python*", "site-packages", "pyspark", "jars", "scala-library-2.1[23].*.jar")):
            found.setdefault(os.path.basename(jar)[len("scala-library-"):][:4], jar)
    missing = {"2.12", "2.13"} - set(found)
    assert not missing, (f"no scala-library {sorted(missing)} jar in the pyspark venvs: 'make test' sets up pyspark "
                         "3.5 (Scala 2.12) and 4.x (Scala 2.13)")
    return found["2.12"], found["2.13"]


def _bytes_from(scala_lib: str, tmp_path, stored=None):
    """What tests/integrity_cases.py prints under the Scala library `scala_lib` (with `stored`: those
    bytes decoded and encoded again)."""
    env = dict(os.environ, ECMSKETCH_SCALA_LIB=scala_lib,
               PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "tests"), os.path.join(ROOT, "python")]))
    args = [sys.executable, os.path.join(ROOT, "tests", "integrity_cases.py")]
    if stored is not None:
        path = tmp_path / f"stored-{len(os.listdir(tmp_path))}.json"
        path.write_text(json.dumps(stored))
        args.append(str(path))
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_scala_212_and_213_jars_write_identical_bytes(tmp_path):
    lib212, lib213 = _scala_libraries()
    a, b = _bytes_from(lib212, tmp_path), _bytes_from(lib213, tmp_path)
    assert a["scala"] == "2.12" and b["scala"] == "2.13"
    assert a["bytes"].keys() == b["bytes"].keys() and len(a["bytes"]) == 12
    same = {k for k in a["bytes"] if a["bytes"][k] == b["bytes"][k]}
    assert same == set(a["bytes"]) - integrity_cases.RANDOM_SALTS, f"different bytes for {set(a['bytes']) - same}"
    # each line reads the other's bytes and writes them again unchanged, random salts included
    a2, b2 = _bytes_from(lib212, tmp_path, b["bytes"]), _bytes_from(lib213, tmp_path, a["bytes"])
    assert a2["scala"] == "2.12" and b2["scala"] == "2.13"
    assert a2["bytes"] == b["bytes"] and b2["bytes"] == a["bytes"]


@pytest.mark.parametrize("bad, phrase", [(None, "must be bytes"), ("abc", "must be bytes"), (b"", "not an ecmsketch sketch"),
                                         (b"ECMS\x04", "too short for a version-4 sketch")])
def test_sketch_info_refuses_what_is_not_a_sketch(bad, phrase):
    from ecmsketch import sketch_info
    with pytest.raises(SketchError, match=phrase):
        sketch_info(bad)
