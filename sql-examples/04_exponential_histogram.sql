-- Exponential histograms: sliding-window counts (or sums) with a deterministic error bound.
-- Integer timestamps (ticks) and a count-based window over arrival sequence numbers.
SELECT round(eh_count(h, 1000), 1) AS est_last_1000_ticks,
       (SELECT count(*) FROM range(100000) WHERE id > 99999 - 1000) AS exact,
       sketch_info(h).error_bound AS bound
FROM (SELECT eh_agg(id, 50000, 0.02) AS h FROM range(100000));

SELECT round(eh_count(h, 500), 1) AS est_weight_of_last_500_arrivals,
       (SELECT sum(id % 7) FROM range(10000) WHERE id > 9999 - 500) AS exact
FROM (SELECT eh_agg(id, 2000, 0.05, value => id % 7, window_type => 'count') AS h FROM range(10000));
