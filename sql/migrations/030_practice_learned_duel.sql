-- The practice game that made a question learned. record_progress pays a practice game's
-- learned questions (mistake_learned's XP, weekly goals of mistakes_learned, learned_20), and it
-- found them by `learned_at = now()`: true only in the transaction of the store's countPractice,
-- which set learned_at. Since progress is granted apart from the lanes (bench/NOTES.md, item 38)
-- and, on Citus, in a settlement after the lane's commit, record_progress runs in a later
-- transaction, so no practice game was ever paid for what it taught (bench/NOTES.md, item 56).
-- countPractice now names the game here when it sets learned_at, and record_progress asks for
-- its own game. Rows learned before this migration keep NULL: their games were settled already.
ALTER TABLE practice_progress ADD COLUMN learned_duel uuid;
ALTER TABLE practice_progress ADD CONSTRAINT practice_progress_learned_duel
    CHECK (learned_duel IS NULL OR learned_at IS NOT NULL);
