-- Creates a bank and returns its id.
CREATE OR REPLACE FUNCTION ops.create_bank(
    p_slug text, p_title text, p_description text DEFAULT '',
    p_theme text DEFAULT 'general', p_difficulty text DEFAULT 'mixed'
) RETURNS integer LANGUAGE sql AS $$
    INSERT INTO banks (slug, title, description, theme, difficulty)
    VALUES (p_slug, p_title, p_description, p_theme, p_difficulty)
    RETURNING id
$$;
