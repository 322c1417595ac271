-- Issue 25: the tables every lane round writes keep their keys, not the engine's rules.
-- Postgres 15 reads and plans every CHECK constraint of a table from its stored text each time a
-- statement writes that table (ExecRelCheck: stringToNode, then ExecPrepareExpr), however few
-- rows it writes; and each foreign key costs a lookup that locks the referenced row, per row.
-- A lane round writes duels, duel_inputs, duel_answers and duel_events in one statement, 190
-- rounds a second at human pace with 4,000 players, and these constraints were about 12 % of
-- Postgres's CPU there, 80-95 µs per answer (bench/NOTES.md, item 36).
--
-- What they stated is the engine's to decide (DuelCore: the phases, the input and event kinds,
-- the scoring, who may win): it is the one home of those rules, and the server writes these rows
-- only from the engine's steps (a new duel's row and first events, then the lanes' rounds;
-- ops.archive_events only deletes). What stays is what guards against races and bad keys cheaply:
-- the primary keys (an input's number, an event's seq, an answer per question and player),
-- NOT NULL, the one right answer per question (duel_answers_one_winner, which two instances
-- racing on one duel would otherwise break), and the foreign keys of duels itself (checked only
-- when a key column changes: at creation, and `winner` once at the end).
-- ops.duel_anomalies lists the rows that break what the dropped constraints said, for operators
-- and for the tests, which play every kind of game and expect it empty.
ALTER TABLE duels
    DROP CONSTRAINT IF EXISTS duels_check,
    DROP CONSTRAINT IF EXISTS duels_check1,
    DROP CONSTRAINT IF EXISTS duels_check2,
    DROP CONSTRAINT IF EXISTS duels_check3,
    DROP CONSTRAINT IF EXISTS duels_check4,
    DROP CONSTRAINT IF EXISTS duels_finish_reason_check,
    DROP CONSTRAINT IF EXISTS duels_inputs_check,
    DROP CONSTRAINT IF EXISTS duels_last_seq_check,
    DROP CONSTRAINT IF EXISTS duels_mode_check,
    DROP CONSTRAINT IF EXISTS duels_more_players,
    DROP CONSTRAINT IF EXISTS duels_practice_no_winner,
    DROP CONSTRAINT IF EXISTS duels_questions_opened_check,
    DROP CONSTRAINT IF EXISTS duels_second_player,
    DROP CONSTRAINT IF EXISTS duels_state_check;

ALTER TABLE duel_inputs
    DROP CONSTRAINT IF EXISTS duel_inputs_answer_check,
    DROP CONSTRAINT IF EXISTS duel_inputs_check,
    DROP CONSTRAINT IF EXISTS duel_inputs_kind_check,
    DROP CONSTRAINT IF EXISTS duel_inputs_lag_check,
    DROP CONSTRAINT IF EXISTS duel_inputs_lag_ms_check,
    DROP CONSTRAINT IF EXISTS duel_inputs_n_check;

-- The answer's question and player are the duel's (the engine accepts no other); duels are never
-- deleted (ops.archive_events trims the logs of old ones), so the cascade from duel_questions
-- had nothing to do; duel_inputs never had a key to duels, and duel_events lost its own in
-- migration 005.
ALTER TABLE duel_answers
    DROP CONSTRAINT IF EXISTS duel_answers_answer_text_check,
    DROP CONSTRAINT IF EXISTS duel_answers_check,
    DROP CONSTRAINT IF EXISTS duel_answers_choice_check,
    DROP CONSTRAINT IF EXISTS duel_answers_elapsed_ms_check,
    DROP CONSTRAINT IF EXISTS duel_answers_one_kind,
    DROP CONSTRAINT IF EXISTS duel_answers_duel_id_question_index_fkey,
    DROP CONSTRAINT IF EXISTS duel_answers_player_id_fkey;

ALTER TABLE duel_events
    DROP CONSTRAINT IF EXISTS duel_events_kind_check,
    DROP CONSTRAINT IF EXISTS duel_events_seq_check;
