-- The day (in `p_zone`) whose end is `p_until`: the last counted streak day.
CREATE OR REPLACE FUNCTION streak_last_day(p_until timestamptz, p_zone text) RETURNS date LANGUAGE sql IMMUTABLE AS $$
    SELECT player_day(p_until - interval '1 microsecond', p_zone)
$$;
