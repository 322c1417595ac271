-- A question's key as one line of text, in the form ops.add_question takes it
-- ('C', 'A|C', 'true', 'Paris|Paname (rough)', '3.14 ± 0.01').
CREATE OR REPLACE FUNCTION ops.question_key(q questions) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE q.type
        WHEN 'single' THEN chr(ascii('A') + q.correct_choice)
        WHEN 'multiple' THEN (SELECT string_agg(chr(ascii('A') + c), '|' ORDER BY c) FROM unnest(q.correct_choices) c)
        WHEN 'boolean' THEN CASE q.correct_choice WHEN 0 THEN 'true' ELSE 'false' END
        WHEN 'text' THEN array_to_string(q.accepted, '|') || ' (' || q.matching || ')'
        WHEN 'number' THEN q.correct_number::text || CASE WHEN q.tolerance > 0 THEN ' ± ' || q.tolerance::text ELSE '' END
    END
$$;
