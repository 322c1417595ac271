-- Operator tools: edit questions without rewriting history, retire banks, see and end
-- live duels, ban players, reset ratings (audited), find suspect answer keys, and upkeep.
-- Every function is documented, with a psql example, in docs/OPERATIONS.md.
--
-- Functions that touch players, sessions or duels run with the owner's rights
-- (SECURITY DEFINER, fixed search_path) so that quizduel_operator can call them without
-- reading those tables itself; EXECUTE on them is granted to quizduel_operator only.

-- A question is edited by adding its new version and retiring the old one: duel_questions,
-- answers, reports and mistakes notebooks keep pointing at the version that was asked.
ALTER TABLE questions ADD COLUMN replaced_by bigint REFERENCES questions;

-- A retired bank is out of play (not listed, cannot be queued for) but keeps its questions,
-- ratings and history; restoring it puts it back.
ALTER TABLE banks ADD COLUMN retired_at timestamptz;

-- A banned player cannot sign in (`account_disabled`).
ALTER TABLE players ADD COLUMN disabled_at timestamptz, ADD COLUMN disabled_reason text;

-- An operator may end a stuck duel: unrated, reason 'ended'. The rules engine applies it
-- (input kind 'end'), so its events and seq stay what the engine would write.
ALTER TABLE duels DROP CONSTRAINT duels_finish_reason_check;
ALTER TABLE duels ADD CONSTRAINT duels_finish_reason_check
    CHECK (finish_reason IN ('completed', 'forfeit', 'abandoned', 'ended'));
ALTER TABLE duel_inputs DROP CONSTRAINT duel_inputs_kind_check;
ALTER TABLE duel_inputs ADD CONSTRAINT duel_inputs_kind_check
    CHECK (kind IN ('answer', 'forfeit', 'advance', 'disconnected', 'reconnected', 'end'));
-- Like 'advance', 'end' speaks for no player.
ALTER TABLE duel_inputs DROP CONSTRAINT duel_inputs_check;
ALTER TABLE duel_inputs ADD CONSTRAINT duel_inputs_check CHECK ((kind IN ('advance', 'end')) = (player_id IS NULL));

-- Requests to end a duel, applied by any running server instance (LISTEN duel_commands,
-- and its sweep picks up what no instance heard). done_at is set once applied.
CREATE TABLE duel_commands (
    id           bigserial PRIMARY KEY,
    duel_id      uuid NOT NULL REFERENCES duels ON DELETE CASCADE,
    command      text NOT NULL CHECK (command IN ('end')),
    reason       text NOT NULL DEFAULT '',
    requested_by text NOT NULL DEFAULT session_user,
    requested_at timestamptz NOT NULL DEFAULT now(),
    done_at      timestamptz
);
CREATE INDEX duel_commands_pending ON duel_commands (requested_at) WHERE done_at IS NULL;

-- Who did what to whom: rating resets, bans, ended duels, edited questions, retired banks.
CREATE TABLE ops.audit (
    id      bigserial PRIMARY KEY,
    at      timestamptz NOT NULL DEFAULT now(),
    actor   text NOT NULL DEFAULT session_user,
    action  text NOT NULL,
    subject text NOT NULL,
    detail  jsonb NOT NULL DEFAULT '{}'
);

-- Settings the upkeep functions read; an operator changes them with UPDATE.
CREATE TABLE ops.settings (
    key         text PRIMARY KEY,
    value       text NOT NULL,
    description text NOT NULL
);
INSERT INTO ops.settings (key, value, description) VALUES
    ('event_retention', '180 days',
     'Finished duels older than this have their events moved to duel_events_archive (their complete event stays).');

-- Events of old finished duels, moved out of duel_events by ops.archive_events().
CREATE TABLE duel_events_archive (
    duel_id     uuid NOT NULL,
    seq         integer NOT NULL,
    kind        text NOT NULL,
    at_ms       bigint NOT NULL,
    record      json NOT NULL,
    archived_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (duel_id, seq)
);

-- A player by id (uuid text) or by username (any letter case).
CREATE FUNCTION ops.player_id(p_player text) RETURNS uuid
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

-- Questions ---------------------------------------------------------------------------

-- Replaces a question's text, choices or answer key: adds the new version (active if the
-- old one was), retires the old one and links them. Returns the new question's id.
CREATE FUNCTION ops.edit_question(
    p_question bigint, p_prompt text, p_choices text[], p_correct text
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_old questions%ROWTYPE;
    v_new bigint;
BEGIN
    SELECT * INTO v_old FROM questions WHERE id = p_question FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown question %', p_question USING ERRCODE = 'no_data_found';
    END IF;
    IF v_old.replaced_by IS NOT NULL THEN
        RAISE EXCEPTION 'question % was already replaced by %; edit that one', p_question, v_old.replaced_by
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_choices IS NULL OR NOT ops.choices_valid(p_choices) THEN
        RAISE EXCEPTION 'choices must be 2 to 6 non-empty, distinct options' USING ERRCODE = 'check_violation';
    END IF;
    INSERT INTO questions (bank_id, prompt, choices, correct_choice, active, source)
    VALUES (v_old.bank_id, btrim(p_prompt), p_choices, ops.choice_index(p_correct, cardinality(p_choices)),
            v_old.active, v_old.source)
    RETURNING id INTO v_new;
    UPDATE questions SET active = false, replaced_by = v_new WHERE id = p_question;
    INSERT INTO ops.audit (action, subject, detail)
    VALUES ('edit_question', p_question::text, jsonb_build_object(
        'new_question', v_new, 'prompt', v_old.prompt, 'choices', to_jsonb(v_old.choices),
        'correct_choice', v_old.correct_choice));
    RETURN v_new;
END
$$;

CREATE FUNCTION ops.edit_question(
    p_question bigint, p_prompt text, p_choices text[], p_correct integer
) RETURNS bigint LANGUAGE sql AS $$
    SELECT ops.edit_question(p_question, p_prompt, p_choices, p_correct::text)
$$;

-- Takes a bank out of play: it leaves the `banks` list, `queue` for it is unknown_bank,
-- and its waiters are sent `bank_empty` by the next matcher pass. Duels already running
-- finish normally.
CREATE FUNCTION ops.retire_bank(p_slug text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE banks SET retired_at = now() WHERE id = ops.bank_id(p_slug) AND retired_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'bank "%" is already retired', p_slug USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO ops.audit (action, subject) VALUES ('retire_bank', p_slug);
END
$$;

CREATE FUNCTION ops.restore_bank(p_slug text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE banks SET retired_at = NULL WHERE id = ops.bank_id(p_slug) AND retired_at IS NOT NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'bank "%" is not retired', p_slug USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO ops.audit (action, subject) VALUES ('restore_bank', p_slug);
END
$$;

-- Duels ---------------------------------------------------------------------------------

-- Duels not finished yet. `overdue_s` is how far past its next deadline a duel is: a
-- healthy duel stays near 0 (the sweep of any instance fires deadlines within a second),
-- so a duel overdue for long, with servers running, is stuck.
CREATE VIEW ops.live_duels AS
SELECT d.id AS duel_id, b.slug AS bank, pa.username AS player_a, pb.username AS player_b,
       d.state, d.questions_opened, d.last_seq, d.created_at,
       now() - d.created_at AS age,
       round(greatest(0, extract(epoch FROM now()) * 1000 - d.next_deadline_ms) / 1000.0, 1) AS overdue_s
  FROM duels d
  JOIN banks b ON b.id = d.bank_id
  JOIN players pa ON pa.id = d.player_a
  JOIN players pb ON pb.id = d.player_b
 WHERE d.state <> 'finished'
 ORDER BY d.created_at;

-- Ends a live duel, unrated (reason 'ended', no winner, ratings unchanged). A running
-- server applies it within about a second and both players get the `complete` event.
-- Returns the request's id (see duel_commands).
CREATE FUNCTION ops.end_duel(p_duel uuid, p_reason text DEFAULT 'ended by an operator') RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, ops, pg_temp AS $$
DECLARE
    v_state text;
    v_id bigint;
BEGIN
    SELECT state INTO v_state FROM duels WHERE id = p_duel;
    IF v_state IS NULL THEN
        RAISE EXCEPTION 'unknown duel %', p_duel USING ERRCODE = 'no_data_found';
    ELSIF v_state = 'finished' THEN
        RAISE EXCEPTION 'duel % is already finished', p_duel USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO duel_commands (duel_id, command, reason) VALUES (p_duel, 'end', coalesce(p_reason, ''))
    RETURNING id INTO v_id;
    INSERT INTO ops.audit (action, subject, detail)
    VALUES ('end_duel', p_duel::text, jsonb_build_object('reason', p_reason, 'command', v_id));
    PERFORM pg_notify('duel_commands', p_duel::text);
    RETURN v_id;
END
$$;

-- Players -------------------------------------------------------------------------------

-- Bans a player: sign-in is refused with `account_disabled`, every session ends (their
-- sockets on every instance close with 1008), and a queue entry goes. A live duel goes
-- on without them and is forfeited by abandonment (60 s) unless they come back, which
-- they cannot.
CREATE FUNCTION ops.ban_player(p_player text, p_reason text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, ops, pg_temp AS $$
DECLARE
    v_id uuid := ops.player_id(p_player);
    v_ended integer;
BEGIN
    IF coalesce(btrim(p_reason), '') = '' THEN
        RAISE EXCEPTION 'a ban needs a reason' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE players SET disabled_at = now(), disabled_reason = p_reason WHERE id = v_id AND disabled_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'player "%" is already banned', p_player USING ERRCODE = 'invalid_parameter_value';
    END IF;
    DELETE FROM match_queue WHERE player_id = v_id;
    -- The same announcement a logout makes (100 hashes per NOTIFY, under the 8000-byte limit).
    WITH gone AS (DELETE FROM sessions WHERE player_id = v_id RETURNING token_hash),
    numbered AS (SELECT encode(token_hash, 'hex') AS h, (row_number() OVER ()) / 100 AS chunk FROM gone),
    announced AS (SELECT count(*) AS n, pg_notify('sessions_ended', string_agg(h, ',')) FROM numbered GROUP BY chunk)
    SELECT coalesce(sum(n), 0) INTO v_ended FROM announced;
    INSERT INTO ops.audit (action, subject, detail)
    VALUES ('ban_player', v_id::text, jsonb_build_object('reason', p_reason, 'sessions_ended', v_ended));
END
$$;

CREATE FUNCTION ops.unban_player(p_player text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, ops, pg_temp AS $$
DECLARE
    v_id uuid := ops.player_id(p_player);
BEGIN
    UPDATE players SET disabled_at = NULL, disabled_reason = NULL WHERE id = v_id AND disabled_at IS NOT NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'player "%" is not banned', p_player USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO ops.audit (action, subject) VALUES ('unban_player', v_id::text);
END
$$;

-- Puts a player's rating in one bank back to a new player's (1500, deviation 350,
-- volatility 0.06); games, wins and scores stay. Refused while the player is in a live
-- duel of that bank (its result would overwrite the reset). Audited with the old values.
CREATE FUNCTION ops.reset_rating(p_player text, p_bank text, p_reason text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, ops, pg_temp AS $$
DECLARE
    v_id uuid := ops.player_id(p_player);
    v_bank integer := ops.bank_id(p_bank);
    v_old ratings%ROWTYPE;
BEGIN
    IF coalesce(btrim(p_reason), '') = '' THEN
        RAISE EXCEPTION 'a rating reset needs a reason' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF EXISTS (SELECT 1 FROM live_duel_players l JOIN duels d ON d.id = l.duel_id
                WHERE l.player_id = v_id AND d.bank_id = v_bank) THEN
        RAISE EXCEPTION 'player "%" is in a live duel of bank "%"; try again after it', p_player, p_bank
            USING ERRCODE = 'object_in_use';
    END IF;
    SELECT * INTO v_old FROM ratings WHERE player_id = v_id AND bank_id = v_bank FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'player "%" has no rating in bank "%"', p_player, p_bank USING ERRCODE = 'no_data_found';
    END IF;
    UPDATE ratings SET rating = 1500, deviation = 350, volatility = 0.06, updated_at = now()
     WHERE player_id = v_id AND bank_id = v_bank;
    INSERT INTO ops.audit (action, subject, detail)
    VALUES ('reset_rating', v_id::text, jsonb_build_object(
        'bank', p_bank, 'reason', p_reason, 'rating', v_old.rating, 'deviation', v_old.deviation,
        'volatility', v_old.volatility));
END
$$;

-- Quality -------------------------------------------------------------------------------

-- Per active or asked question: answers by rated players, the share correct, and the
-- point-biserial correlation between answering correctly and the answerer's rating before
-- the duel (Pearson's r of a 0/1 variable with a continuous one). A good question is
-- answered correctly more often by stronger players (r > 0). r clearly below 0 on enough
-- answers suggests a wrong answer key: `suspect_key` is set at r <= -0.2 with 20 or more
-- answers.
CREATE VIEW ops.question_quality AS
SELECT q.id AS question_id, b.slug AS bank, q.prompt, q.active, q.correct_choice,
       s.answers, round(s.share_correct::numeric, 3) AS share_correct,
       round(s.r::numeric, 3) AS rating_correlation,
       coalesce(s.answers >= 20 AND s.r <= -0.2, false) AS suspect_key
  FROM questions q
  JOIN banks b ON b.id = q.bank_id
  LEFT JOIN LATERAL (
        SELECT count(*) AS answers,
               avg(CASE WHEN da.correct THEN 1.0 ELSE 0.0 END) AS share_correct,
               corr(CASE WHEN da.correct THEN 1.0 ELSE 0.0 END, rh.rating_before) AS r
          FROM duel_questions dq
          JOIN duel_answers da ON da.duel_id = dq.duel_id AND da.question_index = dq.question_index
          JOIN rating_history rh ON rh.duel_id = da.duel_id AND rh.player_id = da.player_id
         WHERE dq.question_id = q.id
       ) s ON true;

-- Upkeep --------------------------------------------------------------------------------

-- Deletes expired sessions and announces them as a logout does. Returns how many went.
-- (Running servers already do this every second; this is for a database without one.)
CREATE FUNCTION ops.purge_expired_sessions() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, ops, pg_temp AS $$
DECLARE
    v_count integer;
BEGIN
    WITH gone AS (DELETE FROM sessions WHERE expires_at <= now() RETURNING token_hash),
    numbered AS (SELECT encode(token_hash, 'hex') AS h, (row_number() OVER ()) / 100 AS chunk FROM gone),
    announced AS (SELECT count(*) AS n, pg_notify('sessions_ended', string_agg(h, ',')) FROM numbered GROUP BY chunk)
    SELECT coalesce(sum(n), 0) INTO v_count FROM announced;
    RETURN v_count;
END
$$;

-- Moves the events of duels finished longer ago than p_older_than (default: setting
-- 'event_retention') to duel_events_archive, keeping each duel's last event (its final
-- record, which `history` shows), and deletes their input log (only live duels are ever
-- replayed). Returns how many events moved. Servers run it once an hour.
CREATE FUNCTION ops.archive_events(p_older_than interval DEFAULT NULL) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, ops, pg_temp AS $$
DECLARE
    v_cutoff timestamptz := now() - coalesce(
        p_older_than, (SELECT value::interval FROM ops.settings WHERE key = 'event_retention'));
    v_count integer;
BEGIN
    WITH old AS (
        SELECT id, last_seq FROM duels WHERE state = 'finished' AND finished_at < v_cutoff),
    moved AS (
        DELETE FROM duel_events e USING old WHERE e.duel_id = old.id AND e.seq < old.last_seq
        RETURNING e.*),
    kept AS (
        INSERT INTO duel_events_archive (duel_id, seq, kind, at_ms, record)
        SELECT duel_id, seq, kind, at_ms, record FROM moved
        ON CONFLICT DO NOTHING
        RETURNING 1),
    -- Runs to completion though nothing reads it (Postgres runs every data-modifying WITH).
    inputs AS (
        DELETE FROM duel_inputs i USING old WHERE i.duel_id = old.id)
    SELECT count(*) INTO v_count FROM kept;
    RETURN v_count;
END
$$;

-- Privileges ----------------------------------------------------------------------------
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_server') THEN
        RETURN;
    END IF;
    -- The owner-rights functions are the operator's alone.
    REVOKE EXECUTE ON FUNCTION ops.end_duel(uuid, text), ops.ban_player(text, text), ops.unban_player(text),
        ops.reset_rating(text, text, text), ops.purge_expired_sessions(), ops.archive_events(interval),
        ops.player_id(text) FROM PUBLIC;
    GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ops TO quizduel_operator;
    GRANT SELECT ON ALL TABLES IN SCHEMA ops TO quizduel_operator;
    GRANT UPDATE ON ops.settings TO quizduel_operator;
    GRANT INSERT ON ops.audit TO quizduel_operator;
    GRANT USAGE ON SEQUENCE ops.audit_id_seq TO quizduel_operator;
    GRANT SELECT ON banks, questions TO quizduel_operator;
    -- The server: everything in public (the new tables included), and the hourly upkeep.
    REVOKE EXECUTE ON FUNCTION ops.end_duel(uuid, text), ops.ban_player(text, text), ops.unban_player(text),
        ops.reset_rating(text, text, text), ops.player_id(text) FROM quizduel_server;
    GRANT EXECUTE ON FUNCTION ops.archive_events(interval), ops.purge_expired_sessions() TO quizduel_server;
    GRANT SELECT ON ops.settings TO quizduel_server;
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO quizduel_server;
    GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO quizduel_server;
    -- Objects later migrations create (run by the same owner) get the same grants.
    ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO quizduel_server;
    ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE ON SEQUENCES TO quizduel_server;
    ALTER DEFAULT PRIVILEGES IN SCHEMA ops GRANT EXECUTE ON FUNCTIONS TO quizduel_operator;
    ALTER DEFAULT PRIVILEGES IN SCHEMA ops GRANT SELECT ON TABLES TO quizduel_operator;
END
$$;
