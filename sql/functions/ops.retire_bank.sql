-- Takes a bank out of play: it leaves the `banks` list, `queue` for it is unknown_bank,
-- and its waiters are sent `bank_empty` by the next matcher pass. Duels already running
-- finish normally.
CREATE OR REPLACE FUNCTION ops.retire_bank(p_slug text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE banks SET retired_at = now() WHERE id = ops.bank_id(p_slug) AND retired_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'bank "%" is already retired', p_slug USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO ops.audit (action, subject) VALUES ('retire_bank', p_slug);
END
$$;
