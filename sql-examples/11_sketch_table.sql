-- A sketch table: one ECM-sketch per site and day in a Parquet table partitioned by day, appended
-- day by day, read back later, merged over days and over sites, and queried for the last 7 days.
-- The window (30 days) covers the whole roll-up. The merge over days (30 daily sketches of a site)
-- costs no level: the days do not overlap in time, so ecm_merge lays them side by side. The merge
-- over sites costs one, which merge_levels => 1 budgets; with ecm_agg's own level for Spark's
-- partial aggregates the planned depth is 2, and the final sketch certifies epsilon 0.1
-- (docs/guide/sketch-tables.md).
CREATE OR REPLACE TEMP VIEW clicks AS
SELECT cast(pmod(xxhash64(id, 7), 33) AS INT)                            AS site,
       concat('/page/', cast(floor(pow(1.0 - rand(3), -1.0)) % 200 AS STRING)) AS url,
       timestamp_seconds(1700006400 + id * 26)                            AS ts
FROM range(99692);

DROP TABLE IF EXISTS site_day_sketches;

-- An external table at a fixed path (any path or object store will do): INSERT OVERWRITE below
-- replaces what an earlier run left there.
CREATE TABLE site_day_sketches (site INT, sketch BINARY, day DATE) USING parquet PARTITIONED BY (day)
LOCATION '/tmp/ecmsketch-sql-examples/site_day_sketches';

-- The first 29 days, one sketch per site and day.
INSERT OVERWRITE TABLE site_day_sketches
SELECT site, ecm_agg(url, ts, INTERVAL '30 days', 0.1, 0.05, merge_levels => 1) AS sketch, to_date(ts) AS day
FROM clicks WHERE to_date(ts) < DATE '2023-12-14'
GROUP BY site, to_date(ts);

-- A day later: append the new day's sketches.
INSERT INTO site_day_sketches
SELECT site, ecm_agg(url, ts, INTERVAL '30 days', 0.1, 0.05, merge_levels => 1) AS sketch, to_date(ts) AS day
FROM clicks WHERE to_date(ts) = DATE '2023-12-14'
GROUP BY site, to_date(ts);

SELECT count(DISTINCT day) AS days, count(DISTINCT site) AS sites, count(*) AS sketches,
       max(sketch_info(sketch).merge_depth) AS max_daily_merge_depth, sum(length(sketch)) AS table_bytes
FROM site_day_sketches;

-- Merge over days (per site: no level, the merge depth stays that of one day), then over sites.
CREATE OR REPLACE TEMP VIEW site_month AS
SELECT site, ecm_merge(sketch) AS sketch FROM site_day_sketches GROUP BY site;

SELECT max(i.merge_depth) AS max_site_merge_depth, max(i.format_version) AS format_version, max(i.size_bytes) AS max_site_bytes
FROM (SELECT sketch_info(sketch) AS i FROM site_month);

CREATE OR REPLACE TEMP VIEW all_sites AS
SELECT ecm_merge(sketch) AS sketch FROM site_month;

SELECT i.merge_depth, i.planned_merge_levels, i.error_bound, i.total_error_bound, i.total_weight, i.size_bytes
FROM (SELECT sketch_info(sketch) AS i FROM all_sites);

-- The last 7 days: top pages and total clicks, beside exact answers from the raw rows.
WITH now AS (SELECT max(ts) AS t FROM clicks),
exact AS (SELECT url, count(*) AS clicks_7d FROM clicks, now WHERE ts > now.t - INTERVAL '7 days' GROUP BY url)
SELECT e.url, e.clicks_7d AS exact_7d, round(ecm_point(a.sketch, e.url, INTERVAL '7 days'), 1) AS est_7d
FROM exact e CROSS JOIN all_sites a
ORDER BY e.clicks_7d DESC LIMIT 5;

SELECT round(ecm_total(sketch, INTERVAL '7 days'), 1) AS est_total_7d,
       (SELECT count(*) FROM clicks WHERE ts > (SELECT max(ts) FROM clicks) - INTERVAL '7 days') AS exact_total_7d
FROM all_sites;
