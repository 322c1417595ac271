-- Puts a question back into draws (see ops.set_question_active).
CREATE OR REPLACE FUNCTION ops.reactivate_question(p_question bigint) RETURNS void LANGUAGE sql AS $$
    SELECT ops.set_question_active(p_question, true)
$$;
