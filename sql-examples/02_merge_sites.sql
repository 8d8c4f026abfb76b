-- Merge the per-site sketches order-preservingly (ECM-sketch §5): the result summarises the
-- union of all sites' streams. merge_levels => 1 above budgeted this level, so the merged
-- sketch still certifies the requested epsilon.
CREATE OR REPLACE TEMP VIEW merged AS
SELECT ecm_merge(sketch) AS sketch FROM site_sketches;

SELECT i.kind, i.window_type, i.window, i.width, i.depth, i.merge_depth, i.planned_merge_levels,
       i.error_bound, i.total_weight, i.size_bytes
FROM (SELECT sketch_info(sketch) AS i FROM merged);
