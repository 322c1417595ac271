-- A question's key as one line of text, in the form ops.add_question takes it
-- ('C', 'A|C', 'true', 'Paris|Paname (rough)', '3.14 ± 0.01'). The server's SQL uses this column
-- form: a function of the table's row type cannot run on a Citus shard (issue 24).
CREATE OR REPLACE FUNCTION ops.question_key(type text, correct_choice integer, correct_choices integer[],
                                            accepted text[], matching text, correct_number double precision,
                                            tolerance double precision)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE type
        WHEN 'single' THEN chr(ascii('A') + correct_choice)
        WHEN 'multiple' THEN (SELECT string_agg(chr(ascii('A') + c), '|' ORDER BY c) FROM unnest(correct_choices) c)
        WHEN 'boolean' THEN CASE correct_choice WHEN 0 THEN 'true' ELSE 'false' END
        WHEN 'text' THEN array_to_string(accepted, '|') || ' (' || matching || ')'
        WHEN 'number' THEN correct_number::text || CASE WHEN tolerance > 0 THEN ' ± ' || tolerance::text ELSE '' END
    END
$$;

-- The same for a row of questions, as operators write it: `SELECT ops.question_key(q) FROM
-- questions q`. Plain Postgres only: on Citus a query over a reference table runs on a shard,
-- whose rows are of the shard's own type, so use the column form there.
CREATE OR REPLACE FUNCTION ops.question_key(q questions) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT ops.question_key(q.type, q.correct_choice, q.correct_choices, q.accepted, q.matching,
                            q.correct_number, q.tolerance)
$$;
