-- A question's answer as the duplicate check of ops.insert_question compares it: the right
-- choices' texts rather than their positions (a shuffled choice order is the same question), the
-- accepted texts in order, or the number with its tolerance; lower case, trimmed.
CREATE OR REPLACE FUNCTION ops.question_answer(q questions) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE q.type
        WHEN 'multiple' THEN (SELECT string_agg(lower(btrim(q.choices[c + 1])), '|' ORDER BY lower(btrim(q.choices[c + 1])))
                                FROM unnest(q.correct_choices) c)
        WHEN 'text' THEN (SELECT string_agg(lower(btrim(a)), '|' ORDER BY lower(btrim(a))) FROM unnest(q.accepted) a)
        WHEN 'number' THEN q.correct_number::text || '~' || coalesce(q.tolerance, 0)::text
        ELSE lower(btrim(q.choices[q.correct_choice + 1])) END
$$;
