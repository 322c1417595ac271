-- An answer as one line of text: the choice's letter, the letters, the text or the number.
CREATE OR REPLACE FUNCTION ops.answer_text(p_choice integer, p_choices integer[], p_text text, p_number double precision)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(chr(ascii('A') + p_choice),
                    (SELECT string_agg(chr(ascii('A') + c), '|' ORDER BY c) FROM unnest(p_choices) c),
                    p_text, p_number::text)
$$;
