-- Issue 25: a duel's start state in a table of its own, out of the row every lane round updates.
-- A round rewrites each duel's row (its phase, last seq, deadline, input count), and Postgres logs
-- each new row version in the WAL less only the bytes it shares with the old one at either end.
-- The start state (the engine's state right after `init`: the questions and the players, about
-- 1 KB of JSON, written once) sat between the phase and the counters, so every round that changed
-- a duel's phase logged it again: 1,150-1,200 bytes a row, a third of the WAL at human pace
-- (pg_waldump --stats, bench/NOTES.md item 43). The WAL is what each commit, and so each answer,
-- waits to flush; under 10,000 players its volume made Postgres create and zero-fill a new 16 MB
-- segment every one or two seconds (each a 50-80 ms stall of every commit while the database is
-- young), and it brings the next checkpoint nearer. Postgres moves a value out of line (TOAST)
-- only from rows of about 2 KB, whatever the table's toast_tuple_target, so it moves here.
-- Now an update of a duel's row logs about 110 bytes.
CREATE TABLE duel_starts (
    -- No foreign key to duels: on a Citus cluster placed before this migration the table is
    -- created on the coordinator first, where a key to a distributed table is refused (as for
    -- duel_settlements). The server writes a duel's start in the transaction that creates it, and
    -- duels are never deleted.
    duel_id uuid PRIMARY KEY,
    -- What a duel's state is rebuilt from, with its `duel_inputs` replayed in order.
    base_state json NOT NULL
);
-- New duels leave duels.base_state null. Those created before keep their start there, and the
-- server (and ops.question_answers) reads it when duel_starts has no row: moving the rows would
-- rewrite every duel once, and an older server on this database still writes the column (so
-- migrations only add; docs/OPERATIONS.md says why versions before and after this one should not
-- run side by side).
-- In a DO block: on a placed Citus cluster the coordinator sends this command's text to the
-- workers, and a file of several statements would be sent whole, which they refuse ("cannot
-- insert multiple commands into a prepared statement"); PL/pgSQL runs it as a text of its own.
DO $$
BEGIN
    ALTER TABLE duels ALTER COLUMN base_state DROP NOT NULL;
END $$;
