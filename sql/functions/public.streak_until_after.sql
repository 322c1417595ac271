-- When the counted day ends after a game at `p_at` (see streak_after).
CREATE OR REPLACE FUNCTION streak_until_after(p_until timestamptz, p_at timestamptz, p_zone text)
RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p_until IS NOT NULL AND p_at < p_until THEN p_until ELSE day_end(p_at, p_zone) END
$$;
