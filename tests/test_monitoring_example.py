"""examples/monitoring.py runs as written (fewer hours): 33 mirrors, an alarm on the last hour's
self-join size; the geometric monitor misses no crossing of the merged sketch and sends far fewer
messages and bytes than shipping every sketch every minute."""
from __future__ import annotations

import re

from conftest import run_example


def test_monitoring_example_runs():
    lines = run_example("monitoring.py", MONITOR_HOURS="4")
    assert lines[0].startswith("33 mirrors, 240 one-minute batches")
    err, bound = map(float, re.search(r"max error ([\d.]+) x A\^2 \(certified ([\d.]+)\)", lines[1]).groups())
    assert err <= bound
    rows = {ln[:26].strip(): ln[26:].split() for ln in lines[3:6]}
    every, periodic, mon = rows["ship every minute"], rows["ship every 10 minutes"], rows["geometric monitor"]
    assert int(every[0]) == 33 * 240 and int(every[2]) == 240 and every[3:5] == ["0", "0"]
    assert int(periodic[0]) == 33 * 24 and int(periodic[3]) + int(periodic[4]) >= 1  # late or missed
    assert mon[4] == "0"  # no crossing missed
    assert int(mon[0]) < int(every[0]) / 2 and float(mon[1]) < float(every[1]) / 4
    saved = re.search(r"the monitor saved (\d+)% of the messages and (\d+)% of the bytes", lines[-1])
    assert saved and int(saved.group(1)) >= 50 and lines[-1].count("missed 0 crossings") == 1
