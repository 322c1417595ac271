-- A player's progress as `player` objects show it, `p_now` being the server's clock (the
-- streak shows 0 once a whole day without a game has passed since the last counted one).
CREATE OR REPLACE FUNCTION progress_json(p_player uuid, p_now timestamptz DEFAULT now()) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object(
        'xp', coalesce(p.xp, 0), 'level', level_of(coalesce(p.xp, 0)),
        'level_title', t.title, 'level_color', t.color, 'level_line', t.line,
        'level_xp', level_xp(level_of(coalesce(p.xp, 0))), 'next_level_xp', level_xp(level_of(coalesce(p.xp, 0)) + 1),
        'streak', jsonb_build_object(
            'current', CASE WHEN player_day(p_now, p.time_zone) <= streak_last_day(p.streak_until, p.time_zone) + 1
                             THEN p.current_streak ELSE 0 END,
            'best', coalesce(p.best_streak, 0)),
        'time_zone', coalesce(p.time_zone, 'UTC'))
      FROM (SELECT p_player AS id) x
      LEFT JOIN player_progress p ON p.player_id = x.id
      CROSS JOIN LATERAL level_title(level_of(coalesce(p.xp, 0))) t
$$;
