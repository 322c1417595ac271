-- Issue 25: the work every instance does every second costs what changed, not what has piled up.
-- The health job (once a second per instance) purged expired sessions and counted the waiting
-- players per bank for the metrics. Both read whole tables that grow with history, not load:
-- `sessions` has a row per device signed in within its lifetime (30 days), and `banks` a row per
-- quiz players ever made. Measured on a database with 200,000 sessions and 100,000 players'
-- quizzes (bench/NOTES.md, item 49): the purge scanned every session, 12-18 ms a call, and the
-- queue lengths hashed every bank, 24-30 ms a call: 4 % of a core per instance, doing nothing.
-- Now 0.3 and 0.7 ms.

-- The purge finds the expired sessions by their expiry, and most seconds there are none.
CREATE INDEX sessions_expiry ON sessions (expires_at);

-- The operators' banks, a handful, without reading the players' quizzes: the metrics' per-bank
-- queue lengths list each of them (QueueRepository.queueLengths), and the players' quizzes are
-- reached from the waiting players instead.
CREATE INDEX banks_operators ON banks (slug) WHERE owner_id IS NULL;
