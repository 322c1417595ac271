-- The one definition of a weekly goal reached: its progress (goal_progress) has come to its
-- target. Asked when a goal is set (`goal_set`, a goal already reached is marked so at once)
-- and by record_progress after each batch of finished games; weekly_goals.reached_at records it.
CREATE OR REPLACE FUNCTION goal_reached(p_player uuid, p_kind text, p_bank integer, p_week date, p_zone text,
                                        p_target integer)
RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT goal_progress(p_player, p_kind, p_bank, p_week, p_zone) >= p_target
$$;
