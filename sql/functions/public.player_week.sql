-- The Monday of the week a moment falls in for a player (player_day's week, Monday to Sunday
-- in the player's zone): the week of a weekly goal. The one home of that rule for goal_set,
-- goals and record_progress, so that a goal is set and reached in the same week.
CREATE OR REPLACE FUNCTION player_week(p_at timestamptz, p_zone text) RETURNS date LANGUAGE sql IMMUTABLE AS $$
    SELECT date_trunc('week', player_day(p_at, p_zone)::timestamp)::date
$$;
