-- Takes a player's quiz out of matchmaking (it stays in the catalog). Runs with the owner's
-- rights: operators do not write players' rows themselves.
CREATE OR REPLACE FUNCTION ops.demote_quiz(p_slug text) RETURNS void LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp AS $$
BEGIN
    UPDATE banks SET matchmaking = false WHERE id = ops.quiz_id(p_slug);
    INSERT INTO ops.audit (action, subject, detail) VALUES ('demote_quiz', p_slug, '{}');
END
$$;
