-- Puts a retired bank back into play (see ops.retire_bank).
CREATE OR REPLACE FUNCTION ops.restore_bank(p_slug text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE banks SET retired_at = NULL WHERE id = ops.bank_id(p_slug) AND retired_at IS NOT NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'bank "%" is not retired', p_slug USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO ops.audit (action, subject) VALUES ('restore_bank', p_slug);
END
$$;
