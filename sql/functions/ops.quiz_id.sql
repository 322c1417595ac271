-- A player's quiz's id by slug; an operator's bank or an unknown slug is an error naming it.
CREATE OR REPLACE FUNCTION ops.quiz_id(p_slug text) RETURNS integer LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_id integer;
BEGIN
    SELECT id INTO v_id FROM banks WHERE slug = p_slug AND owner_id IS NOT NULL;
    IF v_id IS NULL THEN
        RAISE EXCEPTION 'unknown quiz "%"', p_slug USING ERRCODE = 'no_data_found';
    END IF;
    RETURN v_id;
END
$$;
