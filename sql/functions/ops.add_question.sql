-- Adds a question to a bank; returns its id. Every form stores through ops.insert_question, so a
-- question is validated and stored in one place whatever the tool (errors name the field, as
-- every importer's do).

-- Single choice: p_correct is an index ('2') or a letter ('C').
CREATE OR REPLACE FUNCTION ops.add_question(
    p_bank text, p_prompt text, p_choices text[], p_correct text, p_source text DEFAULT 'manual'
) RETURNS bigint LANGUAGE sql AS $$
    SELECT ops.insert_question(ops.bank_id(p_bank), p_prompt, 'single', p_correct, p_choices, NULL, NULL, p_source)
$$;

-- Single choice with the right choice as an integer index.
CREATE OR REPLACE FUNCTION ops.add_question(
    p_bank text, p_prompt text, p_choices text[], p_correct integer, p_source text DEFAULT 'manual'
) RETURNS bigint LANGUAGE sql AS $$
    SELECT ops.add_question(p_bank, p_prompt, p_choices, p_correct::text, p_source)
$$;

-- A question of any type (see ops.insert_question_unchecked for p_answer). Call it with named
-- arguments, which tells it from the single-choice add_question:
--   SELECT ops.add_question('capitals', 'Capital of France?', p_type => 'text', p_answer => 'Paris');
CREATE OR REPLACE FUNCTION ops.add_question(
    p_bank text, p_prompt text, p_type text, p_answer text, p_choices text[] DEFAULT NULL,
    p_matching text DEFAULT NULL, p_tolerance double precision DEFAULT NULL, p_source text DEFAULT 'manual'
) RETURNS bigint LANGUAGE sql AS $$
    SELECT ops.insert_question(ops.bank_id(p_bank), p_prompt, p_type, p_answer, p_choices, p_matching,
                               p_tolerance, p_source)
$$;
