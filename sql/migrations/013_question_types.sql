-- Question types (issue 13): single (one right choice, as before), multiple (check all that
-- apply), boolean (True/False), text (typed, matched exactly, case-insensitively or roughly)
-- and number (within a tolerance). Every question keeps its key in typed columns, so an
-- operator reads and queries it with plain SQL; the columns a type does not use are NULL.
-- Writing and reading keys (ops.insert_question, ops.add_question, ops.edit_question,
-- ops.import_csv, ops.question_key...) is in sql/functions.

-- The key's CHECK below calls these two (ops.choices_valid comes from migration 001): their
-- files are included here, where the table first needs them.
\ir ../functions/ops.choice_set_valid.sql
\ir ../functions/ops.accepted_valid.sql

ALTER TABLE questions
    ADD COLUMN type text NOT NULL DEFAULT 'single'
        CHECK (type IN ('single', 'multiple', 'boolean', 'text', 'number')),
    ADD COLUMN correct_choices integer[],
    ADD COLUMN accepted text[],
    ADD COLUMN matching text CHECK (matching IN ('exact', 'case_insensitive', 'rough')),
    ADD COLUMN correct_number double precision,
    ADD COLUMN tolerance double precision,
    ALTER COLUMN correct_choice DROP NOT NULL;
ALTER TABLE questions DROP CONSTRAINT questions_choices_check;
ALTER TABLE questions DROP CONSTRAINT questions_check;
-- Choices: 2-6 for single and multiple, exactly True and False for boolean, none for the others.
ALTER TABLE questions ADD CONSTRAINT questions_choices_check CHECK (CASE type
    WHEN 'boolean' THEN choices = ARRAY['True', 'False']
    WHEN 'text' THEN cardinality(choices) = 0
    WHEN 'number' THEN cardinality(choices) = 0
    ELSE ops.choices_valid(choices) END);
-- The key: exactly the columns of the question's type.
ALTER TABLE questions ADD CONSTRAINT questions_key_check CHECK (
    (correct_choice IS NOT NULL) = (type IN ('single', 'boolean'))
    AND (correct_choice IS NULL OR (correct_choice >= 0 AND correct_choice < cardinality(choices)))
    AND (correct_choices IS NOT NULL) = (type = 'multiple')
    AND (correct_choices IS NULL OR ops.choice_set_valid(correct_choices, cardinality(choices)))
    AND (accepted IS NOT NULL) = (type = 'text')
    AND (matching IS NOT NULL) = (type = 'text')
    AND (accepted IS NULL OR ops.accepted_valid(accepted))
    AND (correct_number IS NOT NULL) = (type = 'number')
    AND (tolerance IS NOT NULL) = (type = 'number')
    AND (correct_number IS NULL OR correct_number NOT IN ('NaN', 'Infinity', '-Infinity'))
    AND (tolerance IS NULL OR (tolerance >= 0 AND tolerance < 'Infinity')));

-- Answers of every type. A one-choice answer keeps `choice`; the others fill `choices`,
-- `answer_text` or `answer_number` instead: exactly one of the four is set.
ALTER TABLE duel_answers
    ALTER COLUMN choice DROP NOT NULL,
    ADD COLUMN choices integer[],
    ADD COLUMN answer_text text CHECK (char_length(answer_text) <= 200),
    ADD COLUMN answer_number double precision,
    ADD CONSTRAINT duel_answers_one_kind CHECK (num_nonnulls(choice, choices, answer_text, answer_number) = 1);
ALTER TABLE duel_inputs
    ADD COLUMN choices integer[],
    ADD COLUMN answer_text text,
    ADD COLUMN answer_number double precision;
ALTER TABLE duel_inputs DROP CONSTRAINT duel_inputs_check1;
ALTER TABLE duel_inputs ADD CONSTRAINT duel_inputs_answer_check CHECK (
    (kind = 'answer') = (question_index IS NOT NULL AND num_nonnulls(choice, choices, answer_text, answer_number) = 1)
    AND (kind = 'answer' OR num_nonnulls(choice, choices, answer_text, answer_number) = 0));

-- ops.question_quality gained columns of every type: this migration dropped it to recreate it
-- (sql/views/ops.question_quality.sql).
DROP VIEW IF EXISTS ops.question_quality;
