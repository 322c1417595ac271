-- Imports an Open Trivia Database API response:
--   {"response_code":0,"results":[{"type":"multiple"|"boolean","difficulty":"...",
--    "category":"...","question":"...","correct_answer":"...","incorrect_answers":[...]}]}
-- HTML entities are decoded. "boolean" questions become boolean questions (True/False); the
-- others stay single-choice with the choices shuffled. All or nothing, like import_quiz; a
-- question the bank already holds is skipped and reported with a NOTICE naming its result number
-- (see ops.insert_question). Returns the number of questions added.
CREATE OR REPLACE FUNCTION ops.import_opentdb(p_bank text, p_response jsonb, p_source text DEFAULT 'opentdb')
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    -- Questions skipped before this import (duplicates: ops.insert_question counts them).
    v_skipped_before integer := ops.skipped_questions();
    v_bank integer := ops.bank_id(p_bank);
    v_item jsonb;
    v_number integer := 0;
    v_correct text;
    v_choices text[];
    v_count integer := 0;
BEGIN
    IF jsonb_typeof(p_response) IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION 'response: must be a JSON object' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF (p_response ->> 'response_code') IS DISTINCT FROM '0' THEN
        RAISE EXCEPTION 'response: "response_code" is %, not 0', coalesce(p_response ->> 'response_code', 'missing')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF jsonb_typeof(p_response -> 'results') IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION 'response: "results" must be an array' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR v_item IN SELECT value FROM jsonb_array_elements(p_response -> 'results') LOOP
        v_number := v_number + 1;
        IF jsonb_typeof(v_item) IS DISTINCT FROM 'object' THEN
            RAISE EXCEPTION 'result %: must be an object', v_number USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF (v_item ->> 'type') IS NULL OR (v_item ->> 'type') NOT IN ('multiple', 'boolean') THEN
            RAISE EXCEPTION 'result %: "type" must be "multiple" or "boolean"', v_number
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF jsonb_typeof(v_item -> 'question') IS DISTINCT FROM 'string' OR btrim(v_item ->> 'question') = '' THEN
            RAISE EXCEPTION 'result %: "question" must be a non-empty string', v_number
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF jsonb_typeof(v_item -> 'correct_answer') IS DISTINCT FROM 'string' THEN
            RAISE EXCEPTION 'result %: "correct_answer" must be a string', v_number
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        v_correct := ops.html_decode(v_item ->> 'correct_answer');
        IF v_item ->> 'type' = 'boolean' THEN
            IF lower(v_correct) NOT IN ('true', 'false') THEN
                RAISE EXCEPTION 'result %: "correct_answer" of a boolean question must be True or False', v_number
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            PERFORM ops.insert_question(v_bank, ops.html_decode(v_item ->> 'question'), 'boolean', v_correct,
                                        NULL, NULL, NULL, p_source, 'result ' || v_number);
        ELSE
            IF jsonb_typeof(v_item -> 'incorrect_answers') IS DISTINCT FROM 'array'
               OR EXISTS (SELECT 1 FROM jsonb_array_elements(v_item -> 'incorrect_answers') e
                          WHERE jsonb_typeof(e) <> 'string') THEN
                RAISE EXCEPTION 'result %: "incorrect_answers" must be an array of strings', v_number
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            -- Shuffle the correct answer in among the wrong ones.
            SELECT array_agg(c ORDER BY random()) INTO v_choices
              FROM (SELECT v_correct AS c
                    UNION ALL
                    SELECT ops.html_decode(e) FROM jsonb_array_elements_text(v_item -> 'incorrect_answers') e) s;
            IF NOT ops.choices_valid(v_choices) THEN
                RAISE EXCEPTION 'result %: the answers must be 2 to 6 non-empty, distinct options', v_number
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            PERFORM ops.insert_question(v_bank, ops.html_decode(v_item ->> 'question'), 'single',
                                        (array_position(v_choices, v_correct) - 1)::text, v_choices, NULL, NULL,
                                        p_source, 'result ' || v_number);
        END IF;
        v_count := v_count + 1;
    END LOOP;
    IF v_count = 0 THEN
        RAISE EXCEPTION 'response: no results' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- Only what was added: the duplicates skipped are not counted.
    RETURN v_count - (ops.skipped_questions() - v_skipped_before);
END
$$;
