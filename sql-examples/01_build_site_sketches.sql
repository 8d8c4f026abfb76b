-- Build one ECM-sketch per site over a 10-minute sliding window of TIMESTAMPs.
-- Each site (or each cluster) would run this over its own events; the BINARY sketches can be
-- stored in a table and shipped anywhere.
CREATE OR REPLACE TEMP VIEW events AS
SELECT cast(id % 5 AS INT)                                  AS site,
       concat('/page/', cast(floor(pow(1.0 - rand(1), -1.0)) % 500 AS STRING)) AS url,
       timestamp_seconds(1700000000 + cast(id / 20 AS BIGINT)) AS ts
FROM range(200000);

CREATE OR REPLACE TEMP VIEW site_sketches AS
SELECT site,
       ecm_agg(url, ts, INTERVAL '10 minutes', 0.05, 0.01, merge_levels => 1) AS sketch
FROM events
GROUP BY site;

SELECT site, length(sketch) AS bytes, sketch_info(sketch).merge_depth AS merge_depth,
       sketch_info(sketch).error_bound AS error_bound
FROM site_sketches ORDER BY site;
