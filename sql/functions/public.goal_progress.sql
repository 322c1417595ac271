-- Progress towards a weekly goal (games that finished in the week, in the player's time zone).
-- PL/pgSQL, not SQL: Citus cannot plan a SQL function's query that takes parameters.
CREATE OR REPLACE FUNCTION goal_progress(p_player uuid, p_kind text, p_bank integer, p_week date, p_zone text)
RETURNS integer LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT coalesce(CASE p_kind
        WHEN 'wins' THEN count(*) FILTER (WHERE g.first_place AND g.players >= 2)
        WHEN 'games' THEN count(*)
        WHEN 'correct_answers' THEN sum(g.correct)
        WHEN 'mistakes_learned' THEN sum(g.learned)
        END, 0)::integer
      FROM game_progress g
     WHERE g.player_id = p_player AND (p_bank IS NULL OR g.bank_id = p_bank)
       AND g.finished_at >= (p_week::timestamp AT TIME ZONE p_zone)
       AND g.finished_at < ((p_week + 7)::timestamp AT TIME ZONE p_zone));
END
$$;
