-- Grants an achievement once and notifies the player the first time: returns the notification's
-- payload (see notify_player), or NULL when it was already theirs.
CREATE OR REPLACE FUNCTION grant_achievement(p_player uuid, p_code text, p_announce boolean DEFAULT true) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_title text;
BEGIN
    INSERT INTO player_achievements (player_id, code) VALUES (p_player, p_code) ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN RETURN NULL; END IF;
    SELECT title INTO v_title FROM achievements WHERE code = p_code;
    RETURN notify_player(p_player, 'achievement', jsonb_build_object('code', p_code, 'title', v_title), p_announce);
END
$$;
