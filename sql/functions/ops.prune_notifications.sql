-- Notifications older than the retention are pruned (the server's upkeep calls this).
CREATE OR REPLACE FUNCTION ops.prune_notifications(p_keep interval DEFAULT interval '90 days') RETURNS integer
LANGUAGE sql AS $$
    WITH gone AS (DELETE FROM notifications WHERE created_at < now() - p_keep RETURNING 1)
    SELECT count(*)::integer FROM gone
$$;
