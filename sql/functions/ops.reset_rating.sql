-- Puts a player's rating in one bank back to a new player's (1500, deviation 350,
-- volatility 0.06); games, wins and scores stay. Refused while the player is in a live
-- duel of that bank (its result would overwrite the reset). Audited with the old values. Runs
-- with the owner's rights (operators do not read players or ratings).
CREATE OR REPLACE FUNCTION ops.reset_rating(p_player text, p_bank text, p_reason text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, ops, pg_temp AS $$
DECLARE
    v_id uuid := ops.player_id(p_player);
    v_bank integer := ops.bank_id(p_bank);
    v_old ratings%ROWTYPE;
BEGIN
    IF coalesce(btrim(p_reason), '') = '' THEN
        RAISE EXCEPTION 'a rating reset needs a reason' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF EXISTS (SELECT 1 FROM live_duel_players l JOIN duels d ON d.id = l.duel_id
                WHERE l.player_id = v_id AND d.bank_id = v_bank) THEN
        RAISE EXCEPTION 'player "%" is in a live duel of bank "%"; try again after it', p_player, p_bank
            USING ERRCODE = 'object_in_use';
    END IF;
    SELECT * INTO v_old FROM ratings WHERE player_id = v_id AND bank_id = v_bank FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'player "%" has no rating in bank "%"', p_player, p_bank USING ERRCODE = 'no_data_found';
    END IF;
    UPDATE ratings SET rating = 1500, deviation = 350, volatility = 0.06, updated_at = now()
     WHERE player_id = v_id AND bank_id = v_bank;
    INSERT INTO ops.audit (action, subject, detail)
    VALUES ('reset_rating', v_id::text, jsonb_build_object(
        'bank', p_bank, 'reason', p_reason, 'rating', v_old.rating, 'deviation', v_old.deviation,
        'volatility', v_old.volatility));
END
$$;
