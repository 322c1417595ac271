-- The end of the day `p_at` falls on in `p_zone`, as a moment.
CREATE OR REPLACE FUNCTION day_end(p_at timestamptz, p_zone text) RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
    SELECT (player_day(p_at, p_zone) + 1)::timestamp AT TIME ZONE p_zone
$$;
