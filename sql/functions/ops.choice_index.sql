-- "2" or 2 is an index (0-based); "C" or "c" is a letter (A = 0).
CREATE OR REPLACE FUNCTION ops.choice_index(p_correct text, p_count integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_index integer;
BEGIN
    IF p_correct ~ '^\s*[0-9]+\s*$' THEN
        v_index := btrim(p_correct)::integer;
    ELSIF p_correct ~ '^\s*[A-Za-z]\s*$' THEN
        v_index := ascii(upper(btrim(p_correct))) - ascii('A');
    ELSE
        RAISE EXCEPTION 'correct answer "%" is neither an index nor a letter', p_correct
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF v_index < 0 OR v_index >= p_count THEN
        RAISE EXCEPTION 'correct answer "%" is out of range for % choices', p_correct, p_count
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN v_index;
END
$$;
