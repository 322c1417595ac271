-- The practice game that made a question learned. record_progress pays a practice game's
-- learned questions (mistake_learned's XP, weekly goals of mistakes_learned, learned_20), and it
-- found them by `learned_at = now()`, the time the store's countPractice set. That held only where
-- both ran in one transaction and read one clock: a server alone on plain Postgres grants
-- progress in the progress settler's later transaction (bench/NOTES.md, item 38), and on Citus,
-- where both run in the settlement's transaction, the match failed as well (the cluster test of
-- bench/NOTES.md, item 56). So no practice game was paid for what it taught. countPractice now
-- names the game here when it sets learned_at, and record_progress asks for its own game. Rows
-- learned before this migration keep NULL: their games were settled already.
ALTER TABLE practice_progress ADD COLUMN learned_duel uuid;
-- Through EXECUTE: on a placed Citus cluster the constraint is sent to the workers as the text of
-- the command that added it, and the text of this whole file, two commands, is refused there
-- ("cannot insert multiple commands into a prepared statement"; nor may the constraint join the
-- column's command).
DO $$
BEGIN
    EXECUTE 'ALTER TABLE practice_progress ADD CONSTRAINT practice_progress_learned_duel
                 CHECK (learned_duel IS NULL OR learned_at IS NOT NULL)';
END
$$;
