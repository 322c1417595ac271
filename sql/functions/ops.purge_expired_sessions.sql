-- Deletes expired sessions and announces them as a logout does (ops.announce_sessions_ended).
-- Returns how many went. Running servers already do this every second; this is for a database
-- without one. Runs with the owner's rights (sessions are not the operator's to read).
CREATE OR REPLACE FUNCTION ops.purge_expired_sessions() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp AS $$
DECLARE
    v_hashes bytea[];
BEGIN
    WITH gone AS (DELETE FROM sessions WHERE expires_at <= now() RETURNING token_hash)
    SELECT array_agg(token_hash) INTO v_hashes FROM gone;
    RETURN ops.announce_sessions_ended(v_hashes);
END
$$;
