-- Issue 25: on plain Postgres a game's progress is granted in a transaction of its own, beside
-- the lane, not in the lane's round.
-- The round that ends a game writes its ratings (docs/PROTOCOL.md, rule 9), practice counts, live
-- markers and reopened room as before, and records here that the game still owes its players'
-- progress (record_progress: XP, streaks, goals, achievements, notifications). The lane's
-- progress settler grants the progress of the games recorded within a short window in one
-- transaction that deletes their records, and only then are the games' `complete`s sent. A crash
-- in between leaves the record, which the sweep settles; the delete makes it once.
-- At human pace about 40 rounds a second ended a game or two and each paid record_progress's
-- fixed cost of about 1 ms on the lane's backend, while every other input of the lane waited
-- (bench/NOTES.md, item 38).
-- On Citus every record owes everything (the round writes none of the players' rows), so the
-- column stays false there (docs/ARCHITECTURE.md, "Settling a finished game").
ALTER TABLE duel_settlements
    ADD COLUMN IF NOT EXISTS progress_only boolean NOT NULL DEFAULT false;
