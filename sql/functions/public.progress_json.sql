-- A player's progress as `player` objects show it, `p_now` being the server's clock (the
-- streak shows 0 once a whole day without a game has passed since the last counted one).
-- The player's row is read first and the title after, in two statements: on Citus the row lives
-- on the player's shard, and a query sent to a shard cannot call a function that reads another
-- table (level_title); Citus also cannot plan a SQL function's query that takes parameters.
CREATE OR REPLACE FUNCTION progress_json(p_player uuid, p_now timestamptz DEFAULT now()) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_xp bigint := 0;
    v_zone text := 'UTC';
    v_until timestamptz;
    v_current integer := 0;
    v_best integer := 0;
    v_level integer;
    t level_titles;
BEGIN
    SELECT p.xp, p.time_zone, p.streak_until, p.current_streak, p.best_streak
      INTO v_xp, v_zone, v_until, v_current, v_best
      FROM player_progress p WHERE p.player_id = p_player;
    v_xp := coalesce(v_xp, 0);
    v_level := level_of(v_xp);
    t := level_title(v_level);
    RETURN jsonb_build_object(
        'xp', v_xp, 'level', v_level,
        'level_title', t.title, 'level_color', t.color, 'level_line', t.line,
        'level_xp', level_xp(v_level), 'next_level_xp', level_xp(v_level + 1),
        'streak', jsonb_build_object(
            'current', CASE WHEN player_day(p_now, coalesce(v_zone, 'UTC')) <= streak_last_day(v_until, coalesce(v_zone, 'UTC')) + 1
                             THEN coalesce(v_current, 0) ELSE 0 END,
            'best', coalesce(v_best, 0)),
        'time_zone', coalesce(v_zone, 'UTC'));
END
$$;
