-- Takes a question out of future draws (see ops.set_question_active).
CREATE OR REPLACE FUNCTION ops.deactivate_question(p_question bigint) RETURNS void LANGUAGE sql AS $$
    SELECT ops.set_question_active(p_question, false)
$$;
