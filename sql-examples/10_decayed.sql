-- Time-decayed sums that count each reading once, however many gateways relayed it (Cormode,
-- Tirthapura and Xu): sensors send readings through two gateways each, so about a third of the rows
-- are duplicates; per-gateway decayed sketches merge without double counting, beside the exact
-- answers recomputed over the DISTINCT readings.
CREATE OR REPLACE TEMP VIEW readings AS
SELECT cast(id % 5 AS INT) AS gateway, rid AS reading_id, cast(15 + rid % 17 AS INT) AS temp,
       timestamp_seconds(1700000000 + rid DIV 4) AS ts
FROM (SELECT id, id DIV 3 * 2 + id % 3 DIV 2 AS rid FROM range(30000));

-- one sketch per gateway, built without a decay: the decay is chosen at query time
CREATE OR REPLACE TEMP VIEW gateway_sketches AS
SELECT gateway, decayed_agg(1, ts, 0.1, 0.05, value => temp, id => reading_id) AS sk
FROM readings
GROUP BY gateway;

-- distinct readings, decayed with a 10-minute half-life, and the last 15 minutes' count, over all
-- gateways; the exact answers over DISTINCT readings beside them
SELECT decayed_sum(sk, 'exp', 600)                 AS decayed_readings,
       (SELECT sum(pow(2, -(unix_seconds(m.now) - unix_seconds(ts)) / 600.0))
        FROM (SELECT DISTINCT reading_id, ts FROM readings),
             (SELECT max(ts) AS now FROM readings) m)   AS exact_decayed_readings,
       decayed_sum(sk, 'window', 900)              AS last_15_minutes,
       (SELECT count(DISTINCT reading_id) FROM readings
        WHERE ts > (SELECT max(ts) FROM readings) - INTERVAL 900 SECONDS) AS exact_last_15_minutes,
       decayed_quantile(sk, 0.5, 'exp', 600)       AS decayed_median_temp,
       decayed_selectivity(sk, 25, 40, 'exp', 600) AS share_at_least_25
FROM (SELECT decayed_merge(sk) AS sk FROM gateway_sketches);
