-- Grants a batch of achievements, the one home of what a grant writes (grant_achievement is a
-- batch of one): each (player, code) once, those a player already holds skipped, each new one
-- notified (not announced: the server delivers the payloads). Returns the notifications' payloads in the order of their ids, which
-- follow the order given. record_progress gathers a batch's grants and calls this once: a grant
-- per call was two single-row statements and three function calls, about 100 µs a grant and
-- half of record_progress's time while new players earn their first achievements
-- (bench/NOTES.md, item 42).
--
-- Each write is one INSERT ... SELECT from arrays, the form Citus runs through the coordinator,
-- and its rows come back through RETURNING into arrays (no data-modifying CTE); the
-- notifications are notify_players'.
CREATE OR REPLACE FUNCTION grant_achievements(p_players uuid[], p_codes text[]) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
    -- Asked for, each pair once, in the order of its first occurrence.
    v_players uuid[];
    v_codes text[];
    -- Granted now (not held before), then their notifications' data.
    v_granted_players uuid[] := '{}';
    v_granted_codes text[] := '{}';
    v_data jsonb[];
    r record;
BEGIN
    SELECT array_agg(w.player_id ORDER BY w.o), array_agg(w.code ORDER BY w.o) INTO v_players, v_codes
      FROM (SELECT g.player_id, g.code, min(g.o) AS o
              FROM unnest(p_players, p_codes) WITH ORDINALITY AS g(player_id, code, o)
             GROUP BY g.player_id, g.code) w;
    IF v_players IS NULL THEN RETURN '{}'; END IF;
    FOR r IN
        INSERT INTO player_achievements (player_id, code)
        SELECT w.player_id, w.code FROM unnest(v_players, v_codes) WITH ORDINALITY AS w(player_id, code, o)
         ORDER BY w.o
        ON CONFLICT DO NOTHING
        RETURNING player_id, code
    LOOP
        v_granted_players := v_granted_players || r.player_id;
        v_granted_codes := v_granted_codes || r.code;
    END LOOP;
    IF cardinality(v_granted_players) = 0 THEN RETURN '{}'; END IF;
    -- The granted ones in the order asked (RETURNING's order is not promised on Citus), so that
    -- the notifications' ids follow it, with their titles read first (into the data): an INSERT whose SELECT
    -- reads a Citus table (achievements is a reference table) is planned as a query on it, and
    -- the column defaults, the id's nextval among them, would run wherever that query runs, so
    -- a worker's sequence range could hand out the ids. From arrays alone, they are the
    -- coordinator's, as every other notification's.
    SELECT array_agg(w.player_id ORDER BY w.o), array_agg(jsonb_build_object('code', w.code, 'title', a.title) ORDER BY w.o)
      INTO v_granted_players, v_data
      FROM unnest(v_players, v_codes) WITH ORDINALITY AS w(player_id, code, o)
      JOIN unnest(v_granted_players, v_granted_codes) AS g(player_id, code)
           ON g.player_id = w.player_id AND g.code = w.code
      JOIN achievements a ON a.code = w.code;
    RETURN notify_players(v_granted_players, 'achievement', v_data);
END
$$;
