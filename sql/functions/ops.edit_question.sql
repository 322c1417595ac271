-- Replaces a question's text, choices or answer key: adds the new version (active if the old one
-- was), retires the old one and links them (questions.replaced_by), so duel_questions, answers,
-- reports and mistakes notebooks keep pointing at the version that was asked. Returns the new
-- question's id.

-- Any type, with named arguments:
--   SELECT ops.edit_question(42, 'Capital of France?', p_type => 'text', p_answer => 'Paris|Paname');
-- The new version is written unchecked: editing replaces a question while the old one is still
-- active, and a duplicate of the question it replaces is the point of an edit.
CREATE OR REPLACE FUNCTION ops.edit_question(
    p_question bigint, p_prompt text, p_type text, p_answer text, p_choices text[] DEFAULT NULL,
    p_matching text DEFAULT NULL, p_tolerance double precision DEFAULT NULL
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_old questions%ROWTYPE;
    v_new bigint;
BEGIN
    SELECT * INTO v_old FROM questions WHERE id = p_question FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown question %', p_question USING ERRCODE = 'no_data_found';
    END IF;
    IF v_old.replaced_by IS NOT NULL THEN
        RAISE EXCEPTION 'question % was already replaced by %; edit that one', p_question, v_old.replaced_by
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    v_new := ops.insert_question_unchecked(v_old.bank_id, p_prompt, p_type, p_answer, p_choices, p_matching,
                                           p_tolerance, v_old.source);
    UPDATE questions SET active = v_old.active WHERE id = v_new;
    UPDATE questions SET active = false, replaced_by = v_new WHERE id = p_question;
    INSERT INTO ops.audit (action, subject, detail)
    VALUES ('edit_question', p_question::text, jsonb_build_object(
        'new_question', v_new, 'prompt', v_old.prompt, 'type', v_old.type, 'key', ops.question_key(v_old.type, v_old.correct_choice, v_old.correct_choices, v_old.accepted,
                                   v_old.matching, v_old.correct_number, v_old.tolerance)));
    RETURN v_new;
END
$$;

-- Single choice: p_correct is an index ('2') or a letter ('C'); the typed form above does the work.
CREATE OR REPLACE FUNCTION ops.edit_question(
    p_question bigint, p_prompt text, p_choices text[], p_correct text
) RETURNS bigint LANGUAGE sql AS $$
    SELECT ops.edit_question(p_question, p_prompt, p_type => 'single', p_answer => p_correct, p_choices => p_choices)
$$;

-- Single choice with the right choice as an integer index.
CREATE OR REPLACE FUNCTION ops.edit_question(
    p_question bigint, p_prompt text, p_choices text[], p_correct integer
) RETURNS bigint LANGUAGE sql AS $$
    SELECT ops.edit_question(p_question, p_prompt, p_choices, p_correct::text)
$$;
