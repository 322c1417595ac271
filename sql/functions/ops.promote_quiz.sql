-- Puts a published player's quiz into matchmaking (`banks` lists it, `queue` takes it) and tells
-- its owner. Runs with the owner's rights: operators do not write or notify players themselves.
CREATE OR REPLACE FUNCTION ops.promote_quiz(p_slug text) RETURNS void LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp AS $$
DECLARE
    v_id integer := ops.quiz_id(p_slug);
    v_bank banks;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM banks WHERE id = v_id AND published_at IS NOT NULL AND retired_at IS NULL) THEN
        RAISE EXCEPTION 'quiz "%" is not published', p_slug USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE banks SET matchmaking = true WHERE id = v_id RETURNING * INTO v_bank;
    INSERT INTO ops.audit (action, subject, detail) VALUES ('promote_quiz', p_slug, '{}');
    PERFORM notify_player(v_bank.owner_id, 'quiz_promoted', jsonb_build_object('quiz', p_slug, 'title', v_bank.title));
END
$$;
