-- Query the merged sketch: hits per URL in the last minute and in the whole 10-minute window,
-- total traffic and the self-join size, beside exact answers from the raw events.
WITH now AS (SELECT max(ts) AS t FROM events),
exact AS (
  SELECT url, count(*) AS last_minute
  FROM events, now WHERE ts > now.t - INTERVAL '1 minute' GROUP BY url)
SELECT e.url,
       e.last_minute                                               AS exact_last_minute,
       round(ecm_point(m.sketch, e.url, INTERVAL '1 minute'), 1)   AS est_last_minute,
       round(ecm_point(m.sketch, e.url), 1)                        AS est_window
FROM exact e CROSS JOIN merged m
ORDER BY e.last_minute DESC LIMIT 5;

SELECT round(ecm_total(sketch, '1 minute'), 1)       AS est_total_last_minute,
       (SELECT count(*) FROM events WHERE ts > (SELECT max(ts) FROM events) - INTERVAL '1 minute') AS exact_total,
       round(ecm_self_join(sketch, '1 minute'), 1)   AS est_self_join_last_minute
FROM merged;
