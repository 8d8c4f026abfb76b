"""examples/streaming_async.py runs as written (fewer micro-batches): async sketches in a streaming
aggregation's state with late rows and a restart answer within epsilon and equal one batch aggregate."""
from __future__ import annotations

import pytest

from conftest import run_example


def test_streaming_async_example_runs():
    lines = run_example("streaming_async.py", STREAM_BATCHES="6")
    assert lines[0] == "3 micro-batches, a restart from the checkpoint, then 3 more"
    assert "merge depth 0, certified epsilon 0.1" in lines[1]
    assert lines[-1].endswith("one batch aggregate over all rows: True")


# ---- examples/streaming.py (issue 13 §1): ECM, EH, deterministic-wave and distinct sketches in the state
@pytest.mark.slow
def test_streaming_example_runs():
    lines = run_example("streaming.py", STREAM_BATCHES="6")
    assert lines[0] == "3 micro-batches, a restart from the checkpoint, then 3 more"
    sites = [x for x in lines if x.startswith("site ")]
    assert len(sites) == 3 and all("merge depth 1" in x for x in sites), sites
    assert lines[-1] == "every count, sum and client's bytes within its certified bound of the exact answer: True"
