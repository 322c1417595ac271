-- Takes a quiz out of the catalog (and out of matchmaking); its owner is notified, sees the reason
-- in `my_quizzes` and may publish it again after fixing it. Open reports about it are resolved.
-- Runs with the owner's rights: operators do not write or notify players themselves.
CREATE OR REPLACE FUNCTION ops.unpublish_quiz(p_slug text, p_reason text) RETURNS void LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp AS $$
DECLARE
    v_id integer := ops.quiz_id(p_slug);
    v_bank banks;
BEGIN
    IF p_reason IS NULL OR btrim(p_reason) = '' THEN
        RAISE EXCEPTION 'a reason is required' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE banks SET published_at = NULL, matchmaking = false, unpublished_reason = btrim(p_reason), updated_at = now()
     WHERE id = v_id RETURNING * INTO v_bank;
    UPDATE question_reports r SET resolved_at = now()
     WHERE r.resolved_at IS NULL
       AND (r.bank_id = v_id OR r.question_id IN (SELECT id FROM questions WHERE bank_id = v_id));
    INSERT INTO ops.audit (action, subject, detail)
    VALUES ('unpublish_quiz', p_slug, jsonb_build_object('reason', btrim(p_reason)));
    PERFORM notify_player(v_bank.owner_id, 'quiz_unpublished',
                          jsonb_build_object('quiz', p_slug, 'title', v_bank.title, 'reason', btrim(p_reason)));
END
$$;
