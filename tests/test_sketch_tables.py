"""Sketch columns in tables (issue 13 §2): a daily roll-up of 30 days x 33 sites written to a
Parquet table partitioned by day, a day appended, read back, merged over days and over sites, and
checked against exact answers; stored sketches of format v1 described by sketch_info, and a newer
format version refused with a clear message."""
from __future__ import annotations

import glob
import os

import numpy as np
import pytest

DAY = 1000          # ticks per day
DAYS = 30
SITES = 33
ROWS = 30_000       # about 30 rows per site and day
WINDOW = DAYS * DAY  # the window covers the whole roll-up
GOLDEN = os.path.join(os.path.dirname(__file__), "..", "jvm", "core", "src", "test", "resources", "golden")


@pytest.fixture(scope="module")
def rollup(spark, tmp_path_factory):
    """Per-site, per-day eh_agg and ecm_agg sketches (merge_levels 1, as docs/guide/sketch-tables.md advises) written to a Parquet table
    partitioned by day: days 0..28 first, then day 29 appended; read back as the view `site_days`."""
    spark.sql(f"""SELECT cast(pmod(xxhash64(id, 5), {SITES}) AS INT) AS site,
                         pmod(xxhash64(id, 9), 50) AS key, id AS ts, id DIV {DAY} AS day,
                         1 + pmod(xxhash64(id, 11), 3) AS w
                  FROM range(0, {ROWS})""").createOrReplaceTempView("roll_rows")
    path = str(tmp_path_factory.mktemp("sketch_table") / "site_day_sketches")
    build = f"""SELECT site, day,
                       eh_agg(ts, {WINDOW}, 0.1, value => w, merge_levels => 1) AS eh,
                       ecm_agg(key, ts, {WINDOW}, 0.1, 0.05, value => w, merge_levels => 1) AS ecm
                FROM roll_rows WHERE {{cond}} GROUP BY site, day"""
    spark.sql(build.format(cond=f"day < {DAYS - 1}")).write.partitionBy("day").mode("overwrite").parquet(path)
    spark.sql(build.format(cond=f"day = {DAYS - 1}")).write.partitionBy("day").mode("append").parquet(path)
    spark.read.parquet(path).createOrReplaceTempView("site_days")
    got = spark.table("roll_rows").select("key", "ts", "w").collect()
    rows = {c: np.array([r[c] for r in got], dtype=np.int64) for c in ("key", "ts", "w")}
    return path, rows


def test_table_holds_every_site_and_day(spark, rollup):
    path, _ = rollup
    parts = sorted(os.path.basename(p) for p in glob.glob(os.path.join(path, "day=*")))
    assert len(parts) == DAYS
    r = spark.sql("SELECT count(*) AS n, count(DISTINCT site) AS s, count(DISTINCT day) AS d FROM site_days").first()
    assert (r.n, r.s, r.d) == (SITES * DAYS, SITES, DAYS)


def test_rollup_over_days_and_sites_depth_and_bound(spark, rollup):
    _, rows = rollup
    daily = {(x.site, x.day): x.depth for x in spark.sql(
        "SELECT site, day, sketch_info(eh).merge_depth AS depth FROM site_days").collect()}
    spark.sql("SELECT site, eh_merge(eh) AS eh, ecm_merge(ecm) AS ecm FROM site_days GROUP BY site") \
        .createOrReplaceTempView("site_month")
    per_site = {x.site: x.depth for x in spark.sql(
        "SELECT site, sketch_info(eh).merge_depth AS depth FROM site_month").collect()}
    for site, depth in per_site.items():
        # the days' time spans do not overlap: they are laid side by side, at the depth of the deepest day
        assert depth == max(daily[(site, d)] for d in range(DAYS)), site
    spark.sql("SELECT eh_merge(eh) AS eh, ecm_merge(ecm) AS ecm FROM site_month").createOrReplaceTempView("all_month")
    info = spark.sql("SELECT sketch_info(eh) AS e, sketch_info(ecm) AS c FROM all_month").first()
    assert info.e.merge_depth == max(per_site.values()) + 1
    # a day (1 level: Spark's partial aggregates) + the sites (1): exactly the 2 levels planned, so the
    # certified bound is the epsilon asked for, not less (a level spent on the days would exceed it)
    assert info.e.merge_depth == info.e.planned_merge_levels == 2 == info.c.merge_depth
    assert 0.1 - 1e-9 <= info.e.error_bound <= 0.1 + 1e-12 and 0.1 - 1e-9 <= info.c.total_error_bound <= 0.1 + 1e-12
    assert info.e.total_weight == int(rows["w"].sum())

    ts, w = rows["ts"], rows["w"]
    order = np.argsort(ts)
    cum = np.concatenate([[0], np.cumsum(w[order])])
    sts = ts[order]
    now = int(ts.max())
    ranges = np.unique(np.concatenate([np.arange(1, WINDOW + 1, 97), [DAY, 7 * DAY, WINDOW]]))
    exact = cum[-1] - cum[np.searchsorted(sts, now - ranges, side="right")]
    got = spark.sql(f"""SELECT r, eh_count(eh, r) AS c, ecm_total(ecm, r) AS t
                        FROM all_month CROSS JOIN (SELECT explode(array({",".join(map(str, ranges))})) AS r)
                        ORDER BY r""").collect()
    est = np.array([g.c for g in got])
    tot = np.array([g.t for g in got])
    assert np.all(np.abs(est - exact) <= info.e.error_bound * exact + 1e-9)
    assert np.all(np.abs(tot - exact) <= info.c.total_error_bound * exact + 1e-9)
    # point queries for the last 7 days: an under-estimate never exceeds e f (deterministic)
    recent = ts > now - 7 * DAY
    last7 = {int(k): int(w[recent & (rows["key"] == k)].sum()) for k in np.unique(rows["key"][recent])}
    pts = {x.k: x.p for x in spark.sql(f"""SELECT k, ecm_point(ecm, k, {7 * DAY}) AS p FROM all_month
        CROSS JOIN (SELECT explode(array({",".join(map(str, last7))})) AS k)""").collect()}
    e = info.c.total_error_bound
    assert len(pts) == len(last7) and all(pts[k] >= f * (1 - e) - 1e-9 for k, f in last7.items())


def test_sketch_info_reads_every_stored_sketch_of_every_format_version(spark):
    files = [p for p in sorted(glob.glob(os.path.join(GOLDEN, "*.hex")) + glob.glob(os.path.join(GOLDEN, "v4", "*.hex")))
             if not os.path.basename(p).startswith("bundle")]
    assert len(files) >= 13 + 21
    for p in files:
        with open(p) as f:
            hx = "".join(ln.strip() for ln in f if not ln.startswith("#"))
        i = spark.sql(f"SELECT sketch_info(unhex('{hx}')) AS i").first().i
        # byte 4 is the format version: 4 (with a checksum) for every sketch written since it exists;
        # before: 1, 2 for the segmented roll-ups (eh-segmented, ecm-eh-segmented), 3 for randomized
        # waves planned by version 0.2.0 (distinct-*, ecm-rwave)
        v = int(hx[8:10], 16)
        assert i.format_version == v in (1, 2, 3, 4) and i.size_bytes == len(hx) // 2, p
        assert i.checksum == (v == 4) == (os.path.basename(os.path.dirname(p)) == "v4"), p
        assert i.kind and i.error_bound >= 0, p


def test_a_newer_format_version_is_refused_with_a_clear_message(spark):
    with open(os.path.join(GOLDEN, "eh.hex")) as f:
        hx = "".join(ln.strip() for ln in f if not ln.startswith("#"))
    newer = hx[:8] + "05" + hx[10:]  # byte 4 is the format version (this release reads 1 to 4)
    with pytest.raises(Exception) as err:
        spark.sql(f"SELECT sketch_info(unhex('{newer}')) AS i").collect()
    msg = str(err.value)
    assert "unsupported sketch format version 5" in msg and "newer release" in msg, msg


def test_summed_counts_of_stored_sketches_need_no_merge_level(spark, rollup):
    """sum(eh_count(...)) and sum(ecm_total(...)) over the stored daily sketches, with one explicit
    `now`, answer within the largest bound of the daily sketches (no merge, so no extra level)."""
    _, rows = rollup
    ts, w = rows["ts"], rows["w"]
    now = int(ts.max())
    b = spark.sql("""SELECT max(sketch_info(eh).error_bound) AS e, max(sketch_info(ecm).total_error_bound) AS c
                     FROM site_days""").first()
    assert b.e < 0.1 and b.c < 0.1  # depth <= 1 of a plan for 3 levels
    for r in [1, 7, 500, DAY, 7 * DAY + 3, WINDOW]:
        exact = int(w[ts > now - r].sum())
        got = spark.sql(f"SELECT sum(eh_count(eh, {r}, {now})) AS c, sum(ecm_total(ecm, {r}, {now})) AS t FROM site_days").first()
        assert abs(got.c - exact) <= b.e * exact + 1e-6, (r, got.c, exact)
        assert abs(got.t - exact) <= b.c * exact + 1e-6, (r, got.t, exact)


def _hex(path: str) -> str:
    with open(path) as f:
        return "".join(ln.strip() for ln in f if not ln.startswith("#"))


def test_randomized_wave_sketches_stored_by_version_0_1_0_are_read_queried_and_merged(spark):
    # 0.1.0 planned more randomized-wave instances for the same delta (docs/design/rwave.md, "Instances"):
    # such stored sketches read as the sketch this release builds from the same rows
    from ecmsketch import DistinctSketch, EcmSketch
    for name, cls in (("distinct-full", DistinctSketch), ("distinct-small", DistinctSketch), ("ecm-rwave", EcmSketch)):
        old, new = _hex(os.path.join(GOLDEN, "legacy", f"{name}-v0.1.0.hex")), _hex(os.path.join(GOLDEN, f"{name}.hex"))
        assert old != new
        a, b = cls.from_bytes(bytes.fromhex(old)), cls.from_bytes(bytes.fromhex(new))
        assert a.to_bytes() == b.to_bytes() and a.info()["wave_instances"] == b.info()["wave_instances"]
        assert cls.merge([a, b]).to_bytes() == cls.merge([b, b]).to_bytes()
        if cls is DistinctSketch:
            row = spark.sql(f"""SELECT distinct_count(unhex('{old}'), 40) AS o, distinct_count(unhex('{new}'), 40) AS n,
                                       hex(distinct_merge(s)) AS m
                                FROM VALUES (unhex('{old}')), (unhex('{new}')) AS t(s)""").first()
            assert row.o == row.n == b.count(40)
            assert bytes.fromhex(row.m) == cls.merge([b, b]).to_bytes()
        else:
            row = spark.sql(f"SELECT ecm_point(unhex('{old}'), 2, 6) AS o, ecm_point(unhex('{new}'), 2, 6) AS n").first()
            assert row.o == row.n == b.point(2, 6)
