-- Stores a notification and returns its `player_events` payload (notification_payload: the player
-- id, a line break, the event's text): a batch of one of notify_players, the one home of what
-- storing a notification writes. With p_announce it is also announced at commit, and every
-- instance delivers it to the player's connections: operators' functions (ops.*) use that. The server passes false
-- and puts the payload in its transaction's outbox (Sources/DuelStore/Delivery/Outbox.swift),
-- which it delivers itself and announces with the transaction's other events only when another
-- instance must hear them: a NOTIFY in every lane transaction would queue the commits on
-- Postgres's notify lock (bench/NOTES.md, item 22).
CREATE OR REPLACE FUNCTION notify_player(p_player uuid, p_kind text, p_data jsonb, p_announce boolean DEFAULT true) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_payload text := (notify_players(ARRAY[p_player], p_kind, ARRAY[p_data]))[1];
BEGIN
    IF p_announce THEN PERFORM pg_notify('player_events', v_payload); END IF;
    RETURN v_payload;
END
$$;
