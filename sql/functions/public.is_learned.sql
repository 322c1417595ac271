-- The one definition of "learned" (docs/ARCHITECTURE.md, "Progress"): a miss (a line of
-- missed_questions, at `p_missed_at`, its game's finish) is learned once practice has taught its
-- question since: practice_progress.learned_at (`p_learned_at`, set only by the store's
-- countPractice, on the second practice game that answered it right since the player's last miss)
-- is at or after the miss. NULL (never learned, or learned again from scratch) is not learned.
-- The mistakes notebook, the `learned_count` of `mistakes` and the XP of a practice game
-- (record_progress) all ask this. A single SQL expression, so the planner inlines it.
CREATE OR REPLACE FUNCTION is_learned(p_learned_at timestamptz, p_missed_at timestamptz)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT p_learned_at >= p_missed_at
$$;
