-- Issue 25: the questions drawn for a new duel keep their keys, not the draw's rules, as the
-- tables a lane round writes do since migration 024. Every new game writes a row here per
-- question (ten in a ranked game), and each row paid two foreign-key lookups (its duel, its
-- question: a trigger each, locking the row it finds), a second unique index (a question at most
-- once per duel) and a CHECK. Measured at human pace with 4,000 players, the statement that
-- writes them cost 33 µs a row, 0.33 ms of Postgres a game, about 27 µs an answer; in a copy with
-- only the primary key and the question index, about half of that (bench/NOTES.md, items 49
-- and 50).
--
-- What they stated is the draw's to decide (QuizRepository.drawQuestionSets: different active
-- questions of the bank; rooms, practice and recorded games choose different questions too), and
-- the server writes these rows only in the transaction that creates their duel. Nothing deletes
-- duels or questions (a question is edited by adding its new version and retiring the old one,
-- ops.edit_question), so the cascade from duels had nothing to do, and the key to questions,
-- which refused deleting a question once drawn, had nothing to refuse. ops.duel_anomalies lists
-- the rows that break what the dropped constraints said, and the tests, which play every kind of
-- game, expect it empty. What stays: the primary key (one question per index of a duel), NOT
-- NULL, and the index by question (statistics, the mistakes notebook).
-- In a DO block: on a placed Citus cluster a file of several statements is refused (026 says
-- why). A foreign key is dropped alone: Citus handles a dropped foreign key as the only command
-- of its ALTER TABLE.
DO $$
BEGIN
    ALTER TABLE duel_questions DROP CONSTRAINT IF EXISTS duel_questions_duel_id_fkey;
    ALTER TABLE duel_questions DROP CONSTRAINT IF EXISTS duel_questions_question_id_fkey;
    ALTER TABLE duel_questions
        DROP CONSTRAINT IF EXISTS duel_questions_duel_id_question_id_key,
        DROP CONSTRAINT IF EXISTS duel_questions_question_index_check;
END $$;
