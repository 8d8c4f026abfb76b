-- Heavy hitters, quantiles and range counts over a sliding window, from per-site dyadic sketches
-- (ECM-sketch §6.1): "top pages in the last 10 minutes over all sites" and "p50/p99 latency over
-- the last 5 minutes", each beside the exact answer recomputed from the raw rows.
CREATE OR REPLACE TEMP VIEW requests AS
SELECT cast(id % 4 AS INT) AS site,
       cast(CASE WHEN id % 3 = 0 THEN 7 WHEN id % 5 = 0 THEN 42 ELSE id % 1000 END AS INT) AS page,
       cast((id % 100) * 2.5 AS DOUBLE) AS latency_ms,
       timestamp_seconds(1700000000 + id DIV 10) AS ts
FROM range(60000);

CREATE OR REPLACE TEMP VIEW site_dyadic AS
SELECT site, dyadic_agg(page, ts, INTERVAL '1 hour', merge_levels => 1) AS pages,
       dyadic_agg(latency_ms, ts, INTERVAL '1 hour', merge_levels => 1) AS latency
FROM requests
GROUP BY site;

-- top 3 pages of the last 10 minutes over all sites, and the exact top 3 (pages 7 and 42 stand out;
-- hundreds of other pages tie for third place, so the third key may differ from the exact one)
SELECT ecm_top_k(pages, 3, INTERVAL '10 minutes') AS top_pages,
       (SELECT collect_list(page) FROM (
          SELECT page, count(*) AS c FROM requests
          WHERE ts > (SELECT max(ts) FROM requests) - INTERVAL '10 minutes'
          GROUP BY page ORDER BY c DESC, page LIMIT 3)) AS exact_top_pages
FROM (SELECT dyadic_merge(pages) AS pages FROM site_dyadic);

-- p50 / p99 latency of the last 5 minutes, the certified rank error (a fraction of the range's
-- total; observed errors are far smaller), and the exact percentiles
SELECT ecm_quantile(latency, array(0.5, 0.99), INTERVAL '5 minutes') AS p50_p99,
       sketch_info(latency).quantile_rank_error_bound                AS rank_error_bound,
       (SELECT percentile(latency_ms, array(0.5, 0.99)) FROM requests
        WHERE ts > (SELECT max(ts) FROM requests) - INTERVAL '5 minutes') AS exact_p50_p99,
       ecm_range_count(latency, 200.0, 1000.0, INTERVAL '5 minutes') AS slow_requests
FROM (SELECT dyadic_merge(latency) AS latency FROM site_dyadic);
