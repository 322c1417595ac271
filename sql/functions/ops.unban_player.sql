-- Lifts a ban: the player may sign in again. Runs with the owner's rights (players are not the
-- operator's to read).
CREATE OR REPLACE FUNCTION ops.unban_player(p_player text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, ops, pg_temp AS $$
DECLARE
    v_id uuid := ops.player_id(p_player);
BEGIN
    UPDATE players SET disabled_at = NULL, disabled_reason = NULL WHERE id = v_id AND disabled_at IS NOT NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'player "%" is not banned', p_player USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO ops.audit (action, subject) VALUES ('unban_player', v_id::text);
END
$$;
