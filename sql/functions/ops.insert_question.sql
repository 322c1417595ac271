-- The one writer of questions, used by ops.add_question and every import: stores a question as
-- ops.insert_question_unchecked does (which says how p_answer is written), unless the bank
-- already holds it (the same prompt, type and answer, ignoring case and spacing; a shuffled
-- choice order is the same question, see ops.question_answer). A duplicate is skipped: reported
-- with a NOTICE naming p_label (its line or number), counted in the transaction's setting that
-- ops.skipped_questions reads, and NULL is returned, so imports add only what is new.
CREATE OR REPLACE FUNCTION ops.insert_question(
    p_bank integer, p_prompt text, p_type text, p_answer text, p_choices text[], p_matching text,
    p_tolerance double precision, p_source text, p_label text DEFAULT 'question'
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_id bigint;
    v_same bigint;
BEGIN
    -- Inserted first (the unchecked writer normalizes the answer), then compared; a duplicate
    -- is undone by leaving the block with an error (its savepoint), which needs no DELETE right.
    BEGIN
        v_id := ops.insert_question_unchecked(p_bank, p_prompt, p_type, p_answer, p_choices, p_matching,
                                              p_tolerance, p_source, p_label);
        SELECT o.id INTO v_same
          FROM questions n JOIN questions o
            ON o.bank_id = n.bank_id AND o.id <> n.id AND o.active AND o.type = n.type
           AND lower(btrim(o.prompt)) = lower(btrim(n.prompt)) AND ops.question_answer(o.type, o.choices, o.correct_choice, o.correct_choices, o.accepted, o.correct_number, o.tolerance)
             = ops.question_answer(n.type, n.choices, n.correct_choice, n.correct_choices, n.accepted, n.correct_number, n.tolerance)
         WHERE n.id = v_id
         ORDER BY o.id LIMIT 1;
        IF v_same IS NOT NULL THEN
            RAISE EXCEPTION 'duplicate' USING ERRCODE = 'QD001';
        END IF;
        RETURN v_id;
    EXCEPTION WHEN SQLSTATE 'QD001' THEN
        RAISE NOTICE '%: skipped, the bank already has this question (id %)', p_label, v_same;
        PERFORM set_config('quizduel.skipped_questions', (ops.skipped_questions() + 1)::text, true);
        RETURN NULL;
    END;
END
$$;
