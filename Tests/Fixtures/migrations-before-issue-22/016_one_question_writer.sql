-- One writer of questions: the single-choice ops.add_question and ops.edit_question (migrations
-- 002 and 009) wrote their own INSERT and checks, beside ops.insert_question and the typed
-- edit_question of migration 013. They now call those, so a question is validated and stored
-- in one place whatever the tool (errors name the field, as every importer's do).
CREATE OR REPLACE FUNCTION ops.add_question(
    p_bank text, p_prompt text, p_choices text[], p_correct text, p_source text DEFAULT 'manual'
) RETURNS bigint LANGUAGE sql AS $$
    SELECT ops.insert_question(ops.bank_id(p_bank), p_prompt, 'single', p_correct, p_choices, NULL, NULL, p_source)
$$;

CREATE OR REPLACE FUNCTION ops.edit_question(
    p_question bigint, p_prompt text, p_choices text[], p_correct text
) RETURNS bigint LANGUAGE sql AS $$
    SELECT ops.edit_question(p_question, p_prompt, p_type => 'single', p_answer => p_correct, p_choices => p_choices)
$$;
