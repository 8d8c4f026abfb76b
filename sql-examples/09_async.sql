-- Sums, counts and latency quantiles over a timestamp window from a stream whose rows arrive in any
-- timestamp order (Xu-Tirthapura-Busch async sketches): three sites each see a share of the events,
-- late and out of order; async_merge gives the bytes of one sketch over all events, and the answers
-- are within epsilon (relative, or of the rank) with probability >= 1 - delta. Each beside the exact
-- answer recomputed from the raw rows.
CREATE OR REPLACE TEMP VIEW events AS
SELECT id AS event_id,
       cast(id % 3 AS INT) AS site,
       cast(1 + (id * 7919) % 500 AS BIGINT) AS bytes_sent,
       cast(((id * 104729) % 1000) * 0.25 AS DOUBLE) AS latency_ms,
       -- event time: mostly recent, every 20th event up to 30 minutes late
       timestamp_seconds(1700000000 + id DIV 20 - CASE WHEN id % 20 = 0 THEN (id * 31) % 1800 ELSE 0 END) AS ts
FROM range(100000);

CREATE OR REPLACE TEMP VIEW site_async AS
SELECT site,
       async_sum_agg(bytes_sent, ts, INTERVAL '2 hours', 0.1, 0.01, id => event_id) AS traffic,
       async_count_agg(ts, INTERVAL '2 hours', 0.1, 0.01, id => event_id)           AS requests,
       async_quantile_agg(latency_ms, ts, INTERVAL '2 hours', 0.1, 0.01, id => event_id) AS latency
FROM events
GROUP BY site;

-- bytes and requests of the last 15 minutes over all sites, and the exact answers
SELECT async_sum(traffic, INTERVAL '15 minutes')  AS bytes_15m,
       (SELECT sum(bytes_sent) FROM events
        WHERE ts > (SELECT max(ts) FROM events) - INTERVAL '15 minutes') AS exact_bytes_15m,
       async_sum(requests, INTERVAL '15 minutes') AS requests_15m,
       (SELECT count(*) FROM events
        WHERE ts > (SELECT max(ts) FROM events) - INTERVAL '15 minutes') AS exact_requests_15m,
       sketch_info(traffic).error_bound           AS relative_error_bound
FROM (SELECT async_merge(traffic) AS traffic, async_merge(requests) AS requests FROM site_async);

-- median and p90 latency of the last hour, and the exact percentiles of the same rows
SELECT async_quantile(latency, array(0.5, 0.9), INTERVAL '1 hour') AS p50_p90,
       (SELECT percentile(latency_ms, array(0.5, 0.9)) FROM events
        WHERE ts > (SELECT max(ts) FROM events) - INTERVAL '1 hour') AS exact_p50_p90,
       sketch_info(latency).retained AS retained_samples
FROM (SELECT async_merge(latency) AS latency FROM site_async);
