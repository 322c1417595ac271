-- Bans a player: sign-in is refused with `account_disabled`, every session ends (their sockets
-- on every instance close with 1008, announced by ops.announce_sessions_ended as a logout is),
-- and a queue entry goes. A live duel goes on without them and is forfeited by abandonment
-- (60 s) unless they come back, which they cannot. Runs with the owner's rights (players and
-- sessions are not the operator's to read).
CREATE OR REPLACE FUNCTION ops.ban_player(p_player text, p_reason text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp AS $$
DECLARE
    v_id uuid := ops.player_id(p_player);
    v_hashes bytea[];
BEGIN
    IF coalesce(btrim(p_reason), '') = '' THEN
        RAISE EXCEPTION 'a ban needs a reason' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE players SET disabled_at = now(), disabled_reason = p_reason WHERE id = v_id AND disabled_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'player "%" is already banned', p_player USING ERRCODE = 'invalid_parameter_value';
    END IF;
    DELETE FROM match_queue WHERE player_id = v_id;
    WITH gone AS (DELETE FROM sessions WHERE player_id = v_id RETURNING token_hash)
    SELECT array_agg(token_hash) INTO v_hashes FROM gone;
    INSERT INTO ops.audit (action, subject, detail)
    VALUES ('ban_player', v_id::text, jsonb_build_object(
        'reason', p_reason, 'sessions_ended', ops.announce_sessions_ended(v_hashes)));
END
$$;
