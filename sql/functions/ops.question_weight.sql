-- A question's draw weight from its likes and dislikes (the rule is stated with the columns, in
-- migration 014): 1 without votes, within [0.25, 2). The server computes it when players vote.
CREATE OR REPLACE FUNCTION ops.question_weight(p_likes integer, p_dislikes integer) RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$
    SELECT greatest(0.25, 1 + (p_likes - p_dislikes)::double precision / (p_likes + p_dislikes + 10))
$$;
