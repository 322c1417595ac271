-- Moves the events of duels finished longer ago than p_older_than (default: setting
-- 'event_retention') to duel_events_archive, keeping each duel's last event (its final record,
-- which `history` shows), and moves their input log to duel_inputs_archive (migration 029): the
-- servers derive a duel's events from its log, and for duels whose rounds stored only their
-- `complete`, the log is the only record of the game between its start's rows and its end.
-- Returns how many events moved. Servers run it once an hour; with the owner's rights, an
-- operator may too (operators do not read duels).
-- A conflict in the archive is an error, not a lost event; a missing setting or a cut-off in the
-- future is refused; duels already archived are not scanned again.
CREATE OR REPLACE FUNCTION ops.archive_events(p_older_than interval DEFAULT NULL) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp AS $$
DECLARE
    v_cutoff timestamptz := now() - coalesce(
        p_older_than, (SELECT value::interval FROM ops.settings WHERE key = 'event_retention'));
    v_count integer;
BEGIN
    IF v_cutoff IS NULL OR v_cutoff > now() THEN
        RAISE EXCEPTION 'event retention must be a positive interval (got %)',
            coalesce(p_older_than::text, (SELECT value FROM ops.settings WHERE key = 'event_retention'), 'none')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    WITH old AS (
        SELECT d.id, d.last_seq FROM duels d
         WHERE d.state = 'finished' AND d.finished_at < v_cutoff
           AND EXISTS (SELECT 1 FROM duel_events e WHERE e.duel_id = d.id AND e.seq < d.last_seq)),
    moved AS (
        DELETE FROM duel_events e USING old WHERE e.duel_id = old.id AND e.seq < old.last_seq
        RETURNING e.*),
    kept AS (
        INSERT INTO duel_events_archive (duel_id, seq, kind, at_ms, record)
        SELECT duel_id, seq, kind, at_ms, record FROM moved
        RETURNING 1),
    inputs AS (
        DELETE FROM duel_inputs i USING old WHERE i.duel_id = old.id
        RETURNING i.*),
    -- Runs to completion though nothing reads it (Postgres runs every data-modifying WITH).
    kept_inputs AS (
        INSERT INTO duel_inputs_archive (duel_id, n, kind, player_id, question_index, choice, at_ms,
                                         choices, answer_text, answer_number, lag_ms)
        SELECT duel_id, n, kind, player_id, question_index, choice, at_ms,
               choices, answer_text, answer_number, lag_ms FROM inputs)
    SELECT count(*) INTO v_count FROM kept;
    RETURN v_count;
END
$$;
