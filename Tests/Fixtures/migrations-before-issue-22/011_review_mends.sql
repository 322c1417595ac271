-- Mends from review of 009 and 010: privileges that must not depend on the roles existing,
-- one owner for "end these sessions" and for "questions a player missed", a safer archive,
-- and checks that state what the store really holds.

-- Operator functions are nobody's by default, whether or not the roles exist yet (009
-- revoked PUBLIC's EXECUTE on the owner-rights ones only when they did, and every other
-- `ops` function was PUBLIC's): the roles below get them by name.
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA ops FROM PUBLIC;
-- Functions the owner creates from now on are not PUBLIC's either; each is granted by name.
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

-- The audit trail names who really acted: whatever an INSERT says, the actor and time are
-- the session's own (operators may insert rows, so a function cannot be the only guard).
CREATE FUNCTION ops.audit_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.actor := session_user;
    NEW.at := now();
    RETURN NEW;
END
$$;
CREATE TRIGGER audit_stamp BEFORE INSERT OR UPDATE ON ops.audit FOR EACH ROW EXECUTE FUNCTION ops.audit_stamp();

-- Sessions that end are announced on `sessions_ended` (payload: token hashes in hex, comma-
-- separated, at most 100 per NOTIFY to stay under the 8000-byte limit), so every instance
-- closes their sockets. The one place that announces them; returns how many.
CREATE FUNCTION ops.announce_sessions_ended(p_hashes bytea[]) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('sessions_ended', string_agg(encode(h, 'hex'), ','))
       FROM (SELECT h, (row_number() OVER () - 1) / 100 AS chunk FROM unnest(p_hashes) AS h) numbered
      GROUP BY chunk;
    RETURN coalesce(cardinality(p_hashes), 0);
END
$$;

CREATE OR REPLACE FUNCTION ops.purge_expired_sessions() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp AS $$
DECLARE
    v_hashes bytea[];
BEGIN
    WITH gone AS (DELETE FROM sessions WHERE expires_at <= now() RETURNING token_hash)
    SELECT array_agg(token_hash) INTO v_hashes FROM gone;
    RETURN ops.announce_sessions_ended(v_hashes);
END
$$;

CREATE OR REPLACE FUNCTION ops.ban_player(p_player text, p_reason text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp AS $$
DECLARE
    v_id uuid := ops.player_id(p_player);
    v_hashes bytea[];
BEGIN
    IF coalesce(btrim(p_reason), '') = '' THEN
        RAISE EXCEPTION 'a ban needs a reason' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE players SET disabled_at = now(), disabled_reason = p_reason WHERE id = v_id AND disabled_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'player "%" is already banned', p_player USING ERRCODE = 'invalid_parameter_value';
    END IF;
    DELETE FROM match_queue WHERE player_id = v_id;
    WITH gone AS (DELETE FROM sessions WHERE player_id = v_id RETURNING token_hash)
    SELECT array_agg(token_hash) INTO v_hashes FROM gone;
    INSERT INTO ops.audit (action, subject, detail)
    VALUES ('ban_player', v_id::text, jsonb_build_object(
        'reason', p_reason, 'sessions_ended', ops.announce_sessions_ended(v_hashes)));
END
$$;

-- Moves the events of duels finished before the cut-off to duel_events_archive, keeping each
-- duel's last event, and deletes their input log. A conflict in the archive is an error, not
-- a lost event; a missing setting or a cut-off in the future is refused; duels already
-- archived are not scanned again.
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
    -- Runs to completion though nothing reads it (Postgres runs every data-modifying WITH).
    inputs AS (
        DELETE FROM duel_inputs i USING old WHERE i.duel_id = old.id)
    SELECT count(*) INTO v_count FROM kept;
    RETURN v_count;
END
$$;
REVOKE EXECUTE ON FUNCTION ops.purge_expired_sessions(), ops.ban_player(text, text),
    ops.archive_events(interval) FROM PUBLIC;

-- Every question a player missed: asked (opened before the game ended) and answered wrong
-- or not at all, in a finished game against others (practice draws from these; it does not
-- add to them). One line per miss. Two branches so each uses its player index.
CREATE VIEW missed_questions AS
SELECT d.player_a AS player_id, d.id AS duel_id, d.bank_id, d.finished_at, dq.question_index, dq.question_id,
       a.choice
  FROM duels d
  JOIN duel_questions dq ON dq.duel_id = d.id AND dq.question_index < d.questions_opened
  LEFT JOIN duel_answers a ON a.duel_id = d.id AND a.question_index = dq.question_index AND a.player_id = d.player_a
 WHERE d.state = 'finished' AND d.mode <> 'practice' AND a.correct IS NOT TRUE
UNION ALL
SELECT d.player_b, d.id, d.bank_id, d.finished_at, dq.question_index, dq.question_id, a.choice
  FROM duels d
  JOIN duel_questions dq ON dq.duel_id = d.id AND dq.question_index < d.questions_opened
  LEFT JOIN duel_answers a ON a.duel_id = d.id AND a.question_index = dq.question_index AND a.player_id = d.player_b
 WHERE d.state = 'finished' AND d.mode <> 'practice' AND d.player_b IS NOT NULL AND a.correct IS NOT TRUE;

-- The mistakes notebook: the misses practice has not taught since (a question answered right
-- in two practice games after a miss is learned; a later miss shows again).
CREATE VIEW mistakes_notebook AS
SELECT m.* FROM missed_questions m
 WHERE NOT EXISTS (SELECT 1 FROM practice_progress p
                    WHERE p.player_id = m.player_id AND p.question_id = m.question_id
                      AND p.learned_at >= m.finished_at);

-- What the store holds: practice games have no winner (a NULL player_b made the old
-- winner check pass for anyone), and only the modes something creates.
ALTER TABLE duels ADD CONSTRAINT duels_practice_no_winner CHECK (mode <> 'practice' OR winner IS NULL);
ALTER TABLE duels DROP CONSTRAINT duels_mode_check;
ALTER TABLE duels ADD CONSTRAINT duels_mode_check CHECK (mode IN ('ranked', 'practice'));

-- Privileges, for whichever roles exist.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_server') THEN
        -- The server runs no operator function; only the upkeep and the announcements.
        REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA ops FROM quizduel_server;
        GRANT EXECUTE ON FUNCTION ops.purge_expired_sessions(), ops.archive_events(interval),
            ops.announce_sessions_ended(bytea[]), ops.choices_valid(text[]) TO quizduel_server;
        GRANT SELECT ON missed_questions, mistakes_notebook TO quizduel_server;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_operator') THEN
        GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ops TO quizduel_operator;
    END IF;
END
$$;
