-- The title, badge colour and start-screen line of a level (level_titles: each row covers the
-- levels from its own up to the next row's).
CREATE OR REPLACE FUNCTION level_title(p_level integer) RETURNS level_titles LANGUAGE sql STABLE AS $$
    SELECT * FROM level_titles WHERE from_level <= p_level ORDER BY from_level DESC LIMIT 1
$$;
