-- A bank's id by slug; an unknown slug is an error naming it.
CREATE OR REPLACE FUNCTION ops.bank_id(p_slug text) RETURNS integer LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_id integer;
BEGIN
    SELECT id INTO v_id FROM banks WHERE slug = p_slug;
    IF v_id IS NULL THEN
        RAISE EXCEPTION 'unknown bank "%"', p_slug USING ERRCODE = 'no_data_found';
    END IF;
    RETURN v_id;
END
$$;
