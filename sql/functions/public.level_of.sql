-- The level reached with `p_xp` XP in all (see level_xp for the curve).
CREATE OR REPLACE FUNCTION level_of(p_xp bigint) RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_level integer := greatest(1, floor((1 + sqrt(1 + 0.08 * greatest(p_xp, 0))) / 2)::integer);
BEGIN
    -- The square root's rounding, mended: the level is the highest one reached.
    WHILE level_xp(v_level + 1) <= p_xp LOOP v_level := v_level + 1; END LOOP;
    WHILE v_level > 1 AND level_xp(v_level) > p_xp LOOP v_level := v_level - 1; END LOOP;
    RETURN v_level;
END
$$;
