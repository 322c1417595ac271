-- A text question's accepted answers: 1 to 20 alternatives, none blank, each at most 200
-- characters (what an answer may be). Used by the CHECK on questions (migration 013 includes this
-- file), so the server runs it too.
CREATE OR REPLACE FUNCTION ops.accepted_valid(p_accepted text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT cardinality(p_accepted) BETWEEN 1 AND 20 AND array_ndims(p_accepted) = 1
       AND NOT EXISTS (SELECT 1 FROM unnest(p_accepted) a
                        WHERE a IS NULL OR btrim(a) = '' OR char_length(a) > 200)
$$;
