-- The day a moment falls on for a player, in the player's zone (its week: player_week).
CREATE OR REPLACE FUNCTION player_day(p_at timestamptz, p_zone text) RETURNS date LANGUAGE sql IMMUTABLE AS $$
    SELECT (p_at AT TIME ZONE p_zone)::date
$$;
