-- Ends a live duel, unrated (reason 'ended', no winner, ratings unchanged). A running
-- server applies it within about a second and both players get the `complete` event.
-- Returns the request's id (see duel_commands). Runs with the owner's rights (operators do not
-- read duels).
CREATE OR REPLACE FUNCTION ops.end_duel(p_duel uuid, p_reason text DEFAULT 'ended by an operator') RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, ops, pg_temp AS $$
DECLARE
    v_state text;
    v_id bigint;
BEGIN
    SELECT state INTO v_state FROM duels WHERE id = p_duel;
    IF v_state IS NULL THEN
        RAISE EXCEPTION 'unknown duel %', p_duel USING ERRCODE = 'no_data_found';
    ELSIF v_state = 'finished' THEN
        RAISE EXCEPTION 'duel % is already finished', p_duel USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO duel_commands (duel_id, command, reason) VALUES (p_duel, 'end', coalesce(p_reason, ''))
    RETURNING id INTO v_id;
    INSERT INTO ops.audit (action, subject, detail)
    VALUES ('end_duel', p_duel::text, jsonb_build_object('reason', p_reason, 'command', v_id));
    PERFORM pg_notify('duel_commands', p_duel::text);
    RETURN v_id;
END
$$;
