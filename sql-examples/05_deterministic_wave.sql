-- Deterministic waves (Gibbons & Tirthapura): a sliding-window count, or with value => a sum
-- (the sum wave), with a deterministic relative error and O(1) worst-case time per row.
-- Uses the `events` view of 01_build_site_sketches.sql.
CREATE OR REPLACE TEMP VIEW site_waves AS
SELECT site,
       dwave_agg(ts, INTERVAL '10 minutes', 0.05, merge_levels => 1) AS hits,
       dwave_agg(ts, INTERVAL '10 minutes', 0.05, value => length(url), merge_levels => 1) AS url_chars
FROM events
GROUP BY site;

-- Merge the sites and ask for the last minute and the last 10 minutes, beside the exact answers.
SELECT dwave_count(hits, INTERVAL '1 minute')            AS hits_last_minute,
       (SELECT count(*) FROM events
        WHERE ts > (SELECT max(ts) FROM events) - INTERVAL '1 minute') AS exact_last_minute,
       dwave_count(hits)                                 AS hits_last_10_minutes,
       dwave_count(url_chars, INTERVAL '1 minute')       AS url_chars_last_minute,
       sketch_info(hits).error_bound                     AS error_bound
FROM (SELECT dwave_merge(hits) AS hits, dwave_merge(url_chars) AS url_chars FROM site_waves);

-- max_arrivals (U) caps the memory ahead of time. If more than U rows fall within one window,
-- queries reaching back into that stretch fail with an error naming max_arrivals (never a silent
-- wrong answer); ranges after it still answer within the bound.
SELECT dwave_count(dwave_agg(ts, INTERVAL '10 minutes', 0.05, max_arrivals => 100000), INTERVAL '1 minute')
       AS hits_last_minute_bounded_memory
FROM events;
