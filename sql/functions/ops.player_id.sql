-- A player by id (uuid text) or by username (any letter case), for the operators' player
-- functions; with the owner's rights, as they are (operators do not read players).
CREATE OR REPLACE FUNCTION ops.player_id(p_player text) RETURNS uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, ops, pg_temp AS $$
DECLARE
    v_id uuid;
BEGIN
    IF p_player ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
        SELECT id INTO v_id FROM players WHERE id = p_player::uuid;
    ELSE
        SELECT id INTO v_id FROM players WHERE lower(username) = lower(p_player);
    END IF;
    IF v_id IS NULL THEN
        RAISE EXCEPTION 'unknown player "%"', p_player USING ERRCODE = 'no_data_found';
    END IF;
    RETURN v_id;
END
$$;
