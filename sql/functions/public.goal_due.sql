-- When a weekly goal is due: the end of its week's Sunday in the player's zone (issue 27: a
-- reminder is set before it, and is not sent after it).
CREATE OR REPLACE FUNCTION goal_due(p_week_start date, p_zone text) RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
    SELECT (p_week_start + 7)::timestamp AT TIME ZONE p_zone
$$;
