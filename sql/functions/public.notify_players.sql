-- Stores a batch of notifications of one kind, in the order given, and returns their
-- `player_events` payloads (notification_payload) in the order of their ids: the one home of
-- what storing a notification writes. notify_player is a batch of one; grant_achievements and
-- record_progress store a batch's achievements and level-ups with one statement each, where a
-- call per notification paid a statement's fixed cost for every row. Nothing is announced here:
-- the server delivers the payloads itself (notify_player announces for operators' SQL).
--
-- One INSERT ... SELECT from arrays, the form Citus runs through the coordinator, so the ids'
-- nextval is the coordinator's, as every other notification's; its rows come back through
-- RETURNING (no data-modifying CTE).
CREATE OR REPLACE FUNCTION notify_players(p_players uuid[], p_kind text, p_data jsonb[]) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
    v_players uuid[] := '{}';
    v_ids bigint[] := '{}';
    v_data jsonb[] := '{}';
    v_at timestamptz[] := '{}';
    r record;
BEGIN
    IF coalesce(cardinality(p_players), 0) = 0 THEN RETURN '{}'; END IF;
    FOR r IN
        INSERT INTO notifications (player_id, kind, data)
        SELECT n.player_id, p_kind, n.data
          FROM unnest(p_players, p_data) WITH ORDINALITY AS n(player_id, data, o)
         ORDER BY n.o
        RETURNING player_id, id, data, created_at
    LOOP
        v_players := v_players || r.player_id;
        v_ids := v_ids || r.id;
        v_data := v_data || r.data;
        v_at := v_at || r.created_at;
    END LOOP;
    RETURN (SELECT array_agg(notification_payload(n.player_id, n.id, p_kind, n.data, n.created_at) ORDER BY n.id)
              FROM unnest(v_players, v_ids, v_data, v_at) AS n(player_id, id, data, created_at));
END
$$;
