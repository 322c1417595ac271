-- The streak after a game at `p_at`, the last counted day ending at `p_until` with `p_streak`.
-- The streak is anchored in real time: `p_until` (player_progress.streak_until) is the moment the
-- last counted day ends, in the zone it was counted in. A game before it is the same day whatever
-- zone the player moved to since (hopping from Etc/GMT+12 to Pacific/Kiritimati made a second day
-- a minute later). A game after it goes on with the streak when it falls, in the player's zone
-- now, on the day after the one that moment closes; so a new day is counted only once the last
-- one has really ended, and a move between zones neither gives nor costs a day.
CREATE OR REPLACE FUNCTION streak_after(p_until timestamptz, p_streak integer, p_at timestamptz, p_zone text)
RETURNS integer LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
        WHEN p_until IS NULL THEN 1
        -- Within the day already counted (or stamped before it): no change.
        WHEN p_at < p_until THEN greatest(p_streak, 1)
        -- On the day after it.
        WHEN player_day(p_at, p_zone) <= streak_last_day(p_until, p_zone) + 1 THEN p_streak + 1
        ELSE 1 END
$$;
