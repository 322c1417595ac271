-- Levels, without end: reaching level L takes 50 × L × (L − 1) XP in all, so each level takes
-- 100 XP more than the one before (level 2 at 100 XP, 3 at 300, 5 at 1,000, 10 at 4,500).
CREATE OR REPLACE FUNCTION level_xp(p_level integer) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT 50::bigint * p_level * (p_level - 1)
$$;
