-- Sliding-window distinct counts that merge across sites: "distinct URLs in the last 10 minutes
-- over all sites", which approx_count_distinct cannot answer from per-site summaries over a
-- window. Randomized waves over the values: epsilon 0.1 with probability 1 - delta = 0.95.
CREATE OR REPLACE TEMP VIEW site_distinct AS
SELECT site, distinct_agg(url, ts, INTERVAL '10 minutes') AS urls
FROM events
GROUP BY site;

SELECT distinct_count(urls, INTERVAL '1 minute')  AS urls_last_minute,
       (SELECT count(DISTINCT url) FROM events
        WHERE ts > (SELECT max(ts) FROM events) - INTERVAL '1 minute') AS exact_last_minute,
       distinct_count(urls)                       AS urls_last_10_minutes,
       sketch_info(urls).wave_instances           AS instances,
       length(urls)                               AS bytes
FROM (SELECT distinct_merge(urls) AS urls FROM site_distinct);
