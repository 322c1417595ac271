-- Grants an achievement once and notifies the player the first time: returns the notification's
-- payload (see notification_payload), or NULL when it was already theirs. One grant of
-- grant_achievements, the one home of what a grant writes; with p_announce the notification is
-- also announced at commit, as notify_player does (operators' SQL).
CREATE OR REPLACE FUNCTION grant_achievement(p_player uuid, p_code text, p_announce boolean DEFAULT true) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_payload text := (grant_achievements(ARRAY[p_player], ARRAY[p_code]))[1];
BEGIN
    IF v_payload IS NOT NULL AND p_announce THEN PERFORM pg_notify('player_events', v_payload); END IF;
    RETURN v_payload;
END
$$;
