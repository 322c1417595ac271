-- Progress that pays for play, and holes found by probing as an attacker (issue 23).
--
-- What a finished game pays is decided in one place, record_progress (with its table
-- progress_rules; sql/functions/public.record_progress.sql states the rules); the engine only
-- reports facts (GameFacts). Streaks are counted in real time (streak_after), imports skip the
-- questions a bank already holds (ops.insert_question). This migration holds their tables.

-- The streak is anchored in real time: `streak_until` is the moment the last counted day ends,
-- in the zone it was counted in. A game before it is the same day whatever zone the player
-- moved to since (hopping from Etc/GMT+12 to Pacific/Kiritimati made a second day a minute
-- later). A game after it goes on with the streak when it falls, in the player's zone now, on
-- the day after the one that moment closes; so a new day is counted only once the last one has
-- really ended, and a move between zones neither gives nor costs a day. The zone can change
-- once in 24 hours (`time_zone_set_at`, the server's setTimeZone).
ALTER TABLE player_progress
    ADD COLUMN streak_until timestamptz,
    ADD COLUMN time_zone_set_at timestamptz;
-- The day counted so far ends at midnight after it, in the player's zone (what day_end computes;
-- written out here so the backfill needs no function).
UPDATE player_progress SET streak_until = ((streak_day + 1)::timestamp AT TIME ZONE time_zone)
 WHERE streak_day IS NOT NULL;

-- The per-player and per-target caps count recent rows (reports an hour, challenges received a
-- minute); imports look for the same question in the bank.
CREATE INDEX question_reports_player ON question_reports (player_id, created_at);
CREATE INDEX challenges_to_recent ON challenges (to_player, created_at);
CREATE INDEX questions_bank_prompt ON questions (bank_id, lower(btrim(prompt)));

-- Gone: the date-based streak step (streak_after replaces it), and record_progress's form
-- without the answered and rivals arrays (its signature changed).
DROP FUNCTION IF EXISTS next_streak(date, integer, date);
DROP FUNCTION IF EXISTS record_progress(uuid[], uuid[], integer[], text[], bigint[], integer[], integer[], boolean[],
                                        boolean[], boolean[], integer[], bigint[]);
