-- A multiple question's right choices: 1 or more, distinct, each one of the choices. Used by the
-- CHECK on questions (migration 013 includes this file), so the server runs it too.
CREATE OR REPLACE FUNCTION ops.choice_set_valid(p_set integer[], p_count integer) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT cardinality(p_set) >= 1 AND array_ndims(p_set) = 1
       AND NOT EXISTS (SELECT 1 FROM unnest(p_set) c WHERE c IS NULL OR c < 0 OR c >= p_count)
       AND (SELECT count(DISTINCT c) FROM unnest(p_set) c) = cardinality(p_set)
$$;
