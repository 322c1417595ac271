-- Choices of a question: 2-6 non-empty, distinct options. Used by the CHECK on questions
-- (migration 001 includes this file), so the server runs it too.
CREATE OR REPLACE FUNCTION ops.choices_valid(choices text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT cardinality(choices) BETWEEN 2 AND 6
       AND array_ndims(choices) = 1
       AND NOT EXISTS (SELECT 1 FROM unnest(choices) c WHERE c IS NULL OR btrim(c) = '')
       AND (SELECT count(DISTINCT lower(btrim(c))) FROM unnest(choices) c) = cardinality(choices)
$$;
