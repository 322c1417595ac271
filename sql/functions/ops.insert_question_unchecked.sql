-- Validates a question and stores it, duplicate or not (ops.insert_question checks for those;
-- ops.edit_question writes here directly). The key as an operator writes it, for every type,
-- parsed into the typed columns:
--   single:   the right choice as an index ('2') or a letter ('C');
--   multiple: the right choices, separated by '|' or ',' ('A|C', '0,2');
--   boolean:  'true' or 'false';
--   text:     the accepted answers, separated by '|' ('Paris|Paname');
--   number:   the number ('3.14'); p_tolerance says how far off is still right (default 0).
-- p_matching (text only): 'exact', 'case_insensitive' or 'rough' (the default).
-- Errors name p_label (a row, a question number) and the field, and insert nothing.
CREATE OR REPLACE FUNCTION ops.insert_question_unchecked(
    p_bank integer, p_prompt text, p_type text, p_answer text, p_choices text[], p_matching text,
    p_tolerance double precision, p_source text, p_label text DEFAULT 'question'
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_type text := lower(btrim(coalesce(p_type, 'single')));
    v_choices text[] := coalesce(p_choices, '{}');
    v_parts text[];
    v_id bigint;
    v_correct integer;
    v_set integer[];
    v_accepted text[];
    v_number double precision;
    v_matching text;
BEGIN
    IF p_prompt IS NULL OR btrim(p_prompt) = '' THEN
        RAISE EXCEPTION '%, prompt: must not be empty', p_label USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF v_type NOT IN ('single', 'multiple', 'boolean', 'text', 'number') THEN
        RAISE EXCEPTION '%, type: must be single, multiple, boolean, text or number, not "%"', p_label, p_type
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_answer IS NULL OR btrim(p_answer) = '' THEN
        RAISE EXCEPTION '%, answer: must not be empty', p_label USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF v_type IN ('single', 'multiple') AND NOT ops.choices_valid(v_choices) THEN
        RAISE EXCEPTION '%, choices: must be 2 to 6 non-empty, distinct options', p_label
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF v_type IN ('boolean', 'text', 'number') AND cardinality(v_choices) > 0
       AND NOT (v_type = 'boolean' AND v_choices = ARRAY['True', 'False']) THEN
        RAISE EXCEPTION '%, choices: a % question has none', p_label, v_type USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_matching IS NOT NULL AND v_type <> 'text' THEN
        RAISE EXCEPTION '%, matching: only for text questions', p_label USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_tolerance IS NOT NULL AND v_type <> 'number' THEN
        RAISE EXCEPTION '%, tolerance: only for number questions', p_label USING ERRCODE = 'invalid_parameter_value';
    END IF;
    BEGIN
        CASE v_type
        WHEN 'single' THEN
            v_correct := ops.choice_index(p_answer, cardinality(v_choices));
        WHEN 'multiple' THEN
            v_parts := regexp_split_to_array(btrim(p_answer), '\s*[|,]\s*');
            SELECT array_agg(ops.choice_index(c, cardinality(v_choices)) ORDER BY n) INTO v_set
              FROM unnest(v_parts) WITH ORDINALITY AS u(c, n);
            IF NOT ops.choice_set_valid(v_set, cardinality(v_choices)) THEN
                RAISE EXCEPTION 'the right choices must be distinct' USING ERRCODE = 'invalid_parameter_value';
            END IF;
        WHEN 'boolean' THEN
            CASE lower(btrim(p_answer))
            WHEN 'true' THEN v_correct := 0;
            WHEN 'false' THEN v_correct := 1;
            ELSE RAISE EXCEPTION 'must be true or false, not "%"', p_answer USING ERRCODE = 'invalid_parameter_value';
            END CASE;
            v_choices := ARRAY['True', 'False'];
        WHEN 'text' THEN
            SELECT array_agg(btrim(a) ORDER BY n) INTO v_accepted
              FROM unnest(string_to_array(p_answer, '|')) WITH ORDINALITY AS u(a, n) WHERE btrim(a) <> '';
            IF v_accepted IS NULL OR NOT ops.accepted_valid(v_accepted) THEN
                RAISE EXCEPTION 'the accepted answers must be 1 to 20 texts of at most 200 characters, separated by |'
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            v_matching := lower(btrim(coalesce(p_matching, 'rough')));
            IF v_matching NOT IN ('exact', 'case_insensitive', 'rough') THEN
                RAISE EXCEPTION 'matching must be exact, case_insensitive or rough, not "%"', p_matching
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        WHEN 'number' THEN
            IF btrim(p_answer) !~ '^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$' THEN
                RAISE EXCEPTION 'must be a number, not "%"', p_answer USING ERRCODE = 'invalid_parameter_value';
            END IF;
            v_number := btrim(p_answer)::double precision;
            IF coalesce(p_tolerance, 0) < 0 OR coalesce(p_tolerance, 0) = 'Infinity' OR p_tolerance = 'NaN' THEN
                RAISE EXCEPTION 'tolerance must be a finite number from 0' USING ERRCODE = 'invalid_parameter_value';
            END IF;
        END CASE;
    EXCEPTION WHEN invalid_parameter_value OR numeric_value_out_of_range THEN
        RAISE EXCEPTION '%, answer: %', p_label, SQLERRM USING ERRCODE = 'invalid_parameter_value';
    END;
    INSERT INTO questions (bank_id, prompt, choices, correct_choice, source, type, correct_choices, accepted,
                           matching, correct_number, tolerance)
    VALUES (p_bank, btrim(p_prompt), v_choices, v_correct, coalesce(p_source, 'manual'), v_type, v_set, v_accepted,
            v_matching, v_number, CASE WHEN v_type = 'number' THEN coalesce(p_tolerance, 0) END)
    RETURNING id INTO v_id;
    RETURN v_id;
END
$$;
