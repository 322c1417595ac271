-- A question's answer as the duplicate check of ops.insert_question compares it: the right
-- choices' texts rather than their positions (a shuffled choice order is the same question), the
-- accepted texts in order, or the number with its tolerance; lower case, trimmed. It takes the
-- columns, not the row, for the reason ops.question_key gives.
CREATE OR REPLACE FUNCTION ops.question_answer(type text, choices text[], correct_choice integer,
                                               correct_choices integer[], accepted text[],
                                               correct_number double precision, tolerance double precision)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE type
        WHEN 'multiple' THEN (SELECT string_agg(lower(btrim(choices[c + 1])), '|' ORDER BY lower(btrim(choices[c + 1])))
                                FROM unnest(correct_choices) c)
        WHEN 'text' THEN (SELECT string_agg(lower(btrim(a)), '|' ORDER BY lower(btrim(a))) FROM unnest(accepted) a)
        WHEN 'number' THEN correct_number::text || '~' || coalesce(tolerance, 0)::text
        ELSE lower(btrim(choices[correct_choice + 1])) END
$$;

-- The same for a row of questions (plain Postgres only, as ops.question_key's row form).
CREATE OR REPLACE FUNCTION ops.question_answer(q questions) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT ops.question_answer(q.type, q.choices, q.correct_choice, q.correct_choices, q.accepted,
                               q.correct_number, q.tolerance)
$$;
