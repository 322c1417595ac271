-- Issue 25: the input log of an archived duel is kept, not deleted. Lane rounds now store only a
-- game's `complete` of its events; the events between are derived from the duel's input log and
-- start state whenever they are read (docs/ARCHITECTURE.md, "Reading a duel's events"). So the
-- log is now the only record of what happened in a game, and ops.archive_events(), which deleted
-- an old duel's log when it moved its events to duel_events_archive, moves the log here instead
-- (a game's log is about 25 rows of about 100 bytes, where its events were about 45 of 1 KB).
-- Nothing reads this table but operators: `resume` of an archived duel still replays only its
-- final event.
-- The columns are duel_inputs' own, in its order (ops.archive_events names them). No foreign
-- key: on a placed Citus cluster the table is created on the coordinator first (026 says why).
CREATE TABLE duel_inputs_archive (
    LIKE duel_inputs INCLUDING DEFAULTS,
    archived_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (duel_id, n)
);
