-- One ECM-sketch type with pluggable cells: exponential histograms ('eh', the default),
-- deterministic waves ('dwave') or randomized waves ('rwave'). Point queries work for all of them;
-- totals, inner products and self-joins need deterministic cells and are refused for 'rwave'.
CREATE OR REPLACE TEMP VIEW cell_sketches AS
SELECT ecm_agg(url, ts, INTERVAL '10 minutes', 0.1, 0.1)                      AS eh,
       ecm_agg(url, ts, INTERVAL '10 minutes', 0.1, 0.1, cell => 'dwave')     AS dw,
       ecm_agg(url, ts, INTERVAL '10 minutes', 0.25, 0.1, cell => 'rwave')    AS rw
FROM events;

SELECT ecm_point(eh, '/page/1', INTERVAL '1 minute') AS eh_point,
       ecm_point(dw, '/page/1', INTERVAL '1 minute') AS dwave_point,
       ecm_point(rw, '/page/1', INTERVAL '1 minute') AS rwave_point,
       (SELECT count(*) FROM events WHERE url = '/page/1'
          AND ts > (SELECT max(ts) FROM events) - INTERVAL '1 minute') AS exact,
       length(eh) AS eh_bytes, length(dw) AS dwave_bytes, length(rw) AS rwave_bytes
FROM cell_sketches;

SELECT i.cell_kind, i.cell_epsilon, i.cell_delta, i.wave_capacity, i.wave_instances, i.point_error_bound,
       i.inner_product_error_bound
FROM (SELECT sketch_info(rw) AS i FROM cell_sketches);
