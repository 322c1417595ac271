-- Takes a question out of future draws (running duels keep it) or puts it back.
CREATE OR REPLACE FUNCTION ops.set_question_active(p_question bigint, p_active boolean) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE questions SET active = p_active WHERE id = p_question;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown question %', p_question USING ERRCODE = 'no_data_found';
    END IF;
END
$$;
