-- Operator tools: edit questions without rewriting history, retire banks, see and end
-- live duels, ban players, reset ratings (audited), find suspect answer keys, and upkeep.
-- Every function is documented, with a psql example, in docs/OPERATIONS.md. The functions and
-- views live in sql/functions and sql/views (who may run them: sql/grants.sql); this migration
-- holds the tables they work on.

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

-- Privileges ----------------------------------------------------------------------------
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_server') THEN
        RETURN;
    END IF;
    GRANT SELECT ON ALL TABLES IN SCHEMA ops TO quizduel_operator;
    GRANT UPDATE ON ops.settings TO quizduel_operator;
    GRANT INSERT ON ops.audit TO quizduel_operator;
    GRANT USAGE ON SEQUENCE ops.audit_id_seq TO quizduel_operator;
    GRANT SELECT ON banks, questions TO quizduel_operator;
    -- The server: everything in public (the new tables included), and the upkeep's settings.
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
