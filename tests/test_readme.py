"""The README's examples run as written and print what they promise."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def _blocks(lang: str):
    with open(os.path.join(ROOT, "README.md")) as f:
        return re.findall(rf"```{lang}\n(.*?)```", f.read(), re.S)


def _sql_block(marker: str) -> str:
    """The README's one SQL block that contains `marker` (blocks are found by content, not position)."""
    found = [b for b in _blocks("sql") if marker in b]
    assert len(found) == 1, f"{len(found)} README SQL blocks contain {marker!r}"
    return found[0]


def _run_sql(spark, sql: str):
    rows = None
    for stmt in [s.strip() for s in sql.split(";\n") if s.strip()]:
        stmt = "\n".join(ln for ln in stmt.splitlines() if not ln.strip().startswith("--")).strip().rstrip(";")
        rows = spark.sql(stmt).collect()
    return rows


def test_readme_sql_runs(spark):
    sql = _sql_block("VIEW clicks AS")
    (row,) = _run_sql(spark, sql)
    # the last minute of /p/3: 60 events, one in 7 is /p/3 -> 8 or 9; certified bound is epsilon
    exact = spark.sql("""SELECT count(*) FROM clicks WHERE url = '/p/3'
                         AND ts > (SELECT max(ts) FROM clicks) - INTERVAL '1 minute'""").first()[0]
    assert abs(row.hits_last_minute - exact) <= row.bound * 60
    assert abs(row.total_last_10_minutes - 600) <= row.bound * 600
    assert row.bound <= 0.05


def test_readme_wave_sql_runs(spark):
    sql = _sql_block("VIEW visits AS")
    (row,) = _run_sql(spark, sql)
    # the last hour holds 36,000 visits by all 1,000 users
    last = spark.sql("SELECT max(ts) FROM visits").first()[0]
    exact = spark.sql(f"""SELECT count(*) AS n, count(DISTINCT user_id) AS u FROM visits
                          WHERE ts > timestamp'{last}' - INTERVAL '1 hour'""").first()
    assert exact.n == 36000 and exact.u == 1000
    assert abs(row.visits_last_hour - exact.n) <= 0.01 * exact.n
    assert abs(row.users_last_hour - exact.u) <= 0.1 * exact.u


def test_readme_many_keys_sql_runs(spark):
    sql = _sql_block("VIEW hits AS")
    (row,) = _run_sql(spark, sql)
    # the last 1000 ticks hold 1000 hits spread over 7 urls; /p/9 never occurs; epsilon 0.05
    p0, p3, p9, pnull = row.hits
    singles = spark.sql("SELECT ecm_point(sk, '/p/0', 1000) AS a, ecm_point(sk, '/p/3', 1000) AS b, "
                        "ecm_point(sk, '/p/9', 1000) AS c FROM hits_sketch").first()
    assert [p0, p3, p9] == [singles.a, singles.b, singles.c] and pnull is None
    assert abs(p0 - 1000 / 7) <= 0.05 * 1000 + 1 and abs(p3 - 1000 / 7) <= 0.05 * 1000 + 1 and p9 <= 0.05 * 1000


def test_readme_dyadic_sql_runs(spark):
    sql = _sql_block("dyadic_agg(")
    (row,) = _run_sql(spark, sql)
    # the last 10 minutes hold 6000 requests: page 7 is a third of them, page 42 about 13%
    assert row.top_pages[0].key == 7 and row.top_pages[1].key == 42
    assert 7 in [h.key for h in row.heavy_pages]
    last = spark.sql("SELECT max(ts) FROM requests").first()[0]
    lat = [r[0] for r in spark.sql(f"""SELECT latency_ms FROM requests
                                      WHERE ts > timestamp'{last}' - INTERVAL '5 minutes'""").collect()]
    n = len(lat)
    assert n == 3000
    for q, v in zip((0.5, 0.99), row.p50_p99):
        below, at_most = sum(x < v for x in lat), sum(x <= v for x in lat)
        assert below <= (q + row.rank_bound) * n and at_most >= (q - row.rank_bound) * n
    slow = sum(200.0 <= x <= 1000.0 for x in lat)
    assert abs(row.slow_requests - slow) <= 0.2 * n


def test_readme_wave_python_runs():
    _, code = _blocks("python")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    count, users = map(float, out.stdout.strip().splitlines()[-1].split())
    assert abs(count - 1800) <= 0.01 * 1800 and abs(users - 500) <= 0.1 * 500


def test_readme_python_runs():
    code, _ = _blocks("python")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    last = out.stdout.strip().splitlines()[-1].split()
    est, depth, bound = float(last[0]), int(last[1]), float(last[2])
    assert depth == 2 and bound <= 0.1
    # user 7 has 20 events in the last 1000 ticks of site A plus 2 from site B; total in range ~1002
    assert abs(est - 22) <= bound * 1002


def test_readme_decayed_sql_runs(spark):
    sql = _sql_block("decayed_agg(")
    (row,) = _run_sql(spark, sql)
    exact = spark.sql("""SELECT count(DISTINCT reading_id) AS n FROM readings
                         WHERE ts > (SELECT max(ts) FROM readings) - INTERVAL 900 SECONDS""").first().n
    assert abs(row.last_15_minutes - exact) <= 0.1 * exact
    decayed = spark.sql("""SELECT sum(pow(2, -(unix_seconds(m.now) - unix_seconds(ts)) / 600.0)) AS x
                           FROM (SELECT DISTINCT reading_id, ts FROM readings), (SELECT max(ts) AS now FROM readings) m""").first().x
    assert abs(row.decayed_readings - decayed) <= 0.1 * decayed
    assert 15 <= row.decayed_median_temp <= 31
