-- Windowed quantiles and top-k from per-site sketches: "p50/p99 latency over the last 5 minutes"
-- and "top pages in the last 10 minutes over all sites", each beside the exact answer recomputed
-- from the raw rows, and the certified bounds the merged sketches carry.
CREATE OR REPLACE TEMP VIEW web_requests AS
SELECT cast(id % 3 AS INT) AS site,
       concat('/page/', CASE WHEN id % 4 = 0 THEN 'home' WHEN id % 7 = 0 THEN 'search'
                             ELSE cast(id % 500 AS STRING) END) AS page,
       round(20 + (id * 7919 % 1000) * 0.25, 2) AS latency_ms,
       timestamp_seconds(1700000000 + id DIV 20) AS ts
FROM range(72000);

CREATE OR REPLACE TEMP VIEW web_sites AS
SELECT site,
       quantile_agg(latency_ms, ts, INTERVAL '1 hour', merge_levels => 1) AS latency,
       top_k_agg(page, ts, INTERVAL '1 hour', merge_levels => 1)          AS pages
FROM web_requests
GROUP BY site;

-- p50 / p99 latency of the last 5 minutes over all sites, the certified rank error, and the exact
-- percentiles
SELECT ecm_quantile(latency, array(0.5, 0.99), INTERVAL '5 minutes') AS p50_p99,
       sketch_info(latency).quantile_rank_error_bound                AS rank_error_bound,
       (SELECT percentile(latency_ms, array(0.5, 0.99)) FROM web_requests
        WHERE ts > (SELECT max(ts) FROM web_requests) - INTERVAL '5 minutes') AS exact_p50_p99
FROM (SELECT quantile_merge(latency) AS latency FROM web_sites);

-- the top 2 pages of the last 10 minutes (keys come back as STRING: the sketch column carries the
-- key type), each with its certified interval [lower, upper], and the exact counts
SELECT ecm_top_k(pages, 2, INTERVAL '10 minutes')          AS top_pages,
       sketch_info(pages).heavy_hitter_error_bound         AS heavy_hitter_error_bound,
       (SELECT collect_list(struct(page, c)) FROM (
          SELECT page, count(*) AS c FROM web_requests
          WHERE ts > (SELECT max(ts) FROM web_requests) - INTERVAL '10 minutes'
          GROUP BY page ORDER BY c DESC, page LIMIT 2)) AS exact_top_pages
FROM (SELECT top_k_merge(pages) AS pages FROM web_sites);
