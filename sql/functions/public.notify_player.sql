-- Stores a notification and returns its `player_events` payload (the player id, a line break,
-- the event's text). With p_announce it is also announced at commit, and every instance delivers
-- it to the player's connections: operators' functions (ops.*) use that. The server passes false
-- and puts the payload in its transaction's outbox (Sources/DuelStore/Delivery/Outbox.swift),
-- which it delivers itself and announces with the transaction's other events only when another
-- instance must hear them: a NOTIFY in every lane transaction would queue the commits on
-- Postgres's notify lock (bench/NOTES.md, item 22).
CREATE OR REPLACE FUNCTION notify_player(p_player uuid, p_kind text, p_data jsonb, p_announce boolean DEFAULT true) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_row notifications;
    v_payload text;
BEGIN
    INSERT INTO notifications (player_id, kind, data) VALUES (p_player, p_kind, p_data) RETURNING * INTO v_row;
    v_payload := p_player::text || E'\n' || jsonb_build_object(
        'op', 'event', 'event', 'notification', 'table', 'notifications', 'type', 'INSERT',
        'commit_timestamp', to_char(v_row.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'server_time_ms', (extract(epoch FROM clock_timestamp()) * 1000)::bigint,
        'record', notification_json(v_row))::text;
    IF p_announce THEN PERFORM pg_notify('player_events', v_payload); END IF;
    RETURN v_payload;
END
$$;
