-- The answer path writes what a step changed, not the whole engine state
-- (docs/ARCHITECTURE.md, "One answer, socket to socket").
--
-- A duel's engine state is rebuilt from two things the server writes once
-- each: `base_state`, the engine state the input log starts from (the state
-- right after `init` for every duel created since this migration), and
-- `duel_inputs`, every input that changed the duel, in order. The engine is
-- pure, so replaying the inputs on the base rebuilds exactly the state an
-- instance holds in memory. `inputs` counts the logged inputs: it is the
-- version an instance compares with the state it holds.

ALTER TABLE duels RENAME COLUMN engine TO base_state;
COMMENT ON COLUMN duels.base_state IS
    'Engine state (DuelCore.Duel, as the server encodes it) that duel_inputs start from; written once, read only by the server.';

ALTER TABLE duels
    ADD COLUMN inputs integer NOT NULL DEFAULT 0 CHECK (inputs >= 0),
    -- How many questions were opened (asked): what the mistakes notebook counts.
    ADD COLUMN questions_opened integer NOT NULL DEFAULT 0 CHECK (questions_opened >= 0);

-- Duels stored before this migration kept their whole state in base_state.
UPDATE duels SET questions_opened = json_array_length(base_state -> 'rounds')
 WHERE json_typeof(base_state -> 'rounds') = 'array';

-- A finishing batch removes its duels' markers by duel id, and the sweep finds
-- live duels through them.
CREATE INDEX live_duel_players_duel ON live_duel_players (duel_id);

-- Nearly every step changes a duel's deadline and often its state: an index on
-- them made every update write new entries in every index of the table. The
-- sweep goes through live_duel_players instead, and free room on each page
-- lets the ~20 updates of a duel's life stay on its page (HOT updates).
DROP INDEX duels_deadline;
ALTER TABLE duels SET (fillfactor = 50);

-- duel_inputs and duel_events carry no foreign keys: only the duel lanes write
-- them, in the transaction that holds the duel's row lock (so the duel exists),
-- and the engine accepts inputs from the duel's own players only. Each foreign
-- key check was an index probe plus a FOR KEY SHARE lock on a row the
-- transaction already holds: dropping the ones on these two tables (about five
-- checks per answer) took the batch statement from 1.34 ms to 0.85 ms
-- (pg_stat_statements, 300 bots). Deleting a duel deletes its inputs and
-- events explicitly. duel_answers keeps its foreign keys (one row per answer).
ALTER TABLE duel_events DROP CONSTRAINT duel_events_duel_id_fkey;

CREATE TABLE duel_inputs (
    duel_id        uuid NOT NULL,
    -- 1, 2, 3... per duel: the order the engine applied them in.
    n              integer NOT NULL CHECK (n >= 1),
    kind           text NOT NULL CHECK (kind IN ('answer', 'forfeit', 'advance', 'disconnected', 'reconnected')),
    player_id      uuid,
    question_index integer,
    choice         integer,
    -- The server time the input carried (ms since 1970).
    at_ms          bigint NOT NULL,
    PRIMARY KEY (duel_id, n),
    CHECK ((kind = 'advance') = (player_id IS NULL)),
    CHECK ((kind = 'answer') = (question_index IS NOT NULL AND choice IS NOT NULL))
);

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_server') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON duel_inputs TO quizduel_server;
    END IF;
END
$$;
