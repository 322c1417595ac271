-- Marks a report dealt with. A resolved report about a player's quiz (or one of its questions)
-- tells the quiz's owner; so it runs with the owner's rights (operators do not notify players
-- themselves).
CREATE OR REPLACE FUNCTION ops.resolve_report(p_report bigint) RETURNS void LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp AS $$
DECLARE
    v_bank banks;
BEGIN
    UPDATE question_reports SET resolved_at = now() WHERE id = p_report AND resolved_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no open report %', p_report USING ERRCODE = 'no_data_found';
    END IF;
    SELECT b.* INTO v_bank FROM question_reports r LEFT JOIN questions q ON q.id = r.question_id
      JOIN banks b ON b.id = coalesce(r.bank_id, q.bank_id) WHERE r.id = p_report;
    IF v_bank.owner_id IS NOT NULL THEN
        PERFORM notify_player(v_bank.owner_id, 'report_resolved',
                              jsonb_build_object('quiz', v_bank.slug, 'title', v_bank.title));
    END IF;
END
$$;
