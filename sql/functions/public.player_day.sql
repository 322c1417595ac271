-- The day a moment falls on for a player, and the Monday of its week.
CREATE OR REPLACE FUNCTION player_day(p_at timestamptz, p_zone text) RETURNS date LANGUAGE sql IMMUTABLE AS $$
    SELECT (p_at AT TIME ZONE p_zone)::date
$$;
