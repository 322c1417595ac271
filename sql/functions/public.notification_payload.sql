-- A stored notification's `player_events` payload: the player id, a line break, the event's text.
-- One home for the event's form, used by notify_players (a batch's notifications of one kind, in
-- one statement; notify_player and grant_achievements call it). VOLATILE because it reads the clock
-- (server_time_ms), and a plain SQL expression so that the planner inlines it: an uninlined call
-- cost about 30 µs a row (bench/NOTES.md, item 35).
CREATE OR REPLACE FUNCTION notification_payload(p_player uuid, p_id bigint, p_kind text, p_data jsonb, p_created_at timestamptz)
RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT p_player::text || E'\n' || jsonb_build_object(
        'op', 'event', 'event', 'notification', 'table', 'notifications', 'type', 'INSERT',
        'commit_timestamp', to_char(p_created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'server_time_ms', (extract(epoch FROM clock_timestamp()) * 1000)::bigint,
        'record', notification_json(p_id, p_kind, p_data, p_created_at))::text
$$;
