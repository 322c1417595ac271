-- Imports a quiz file of the student apps QuizDuel descends from:
--   {"numberOfQuestions":2,"topic":"General","questions":[{"number":1,
--    "questionSentence":"...","options":{"A":"...","B":"..."},"correctOption":"C"}]}
-- An item's optional "type" (default "single") says what its key is:
--   single:   "options" {"A": …} and "correctOption": "C";
--   multiple: "options" and "correctOption": "A,C" or ["A", "C"];
--   boolean:  "correctOption": "True" or "False" (or true / false), no options;
--   text:     "answers": ["Paris", "Paname"], optional "matching";
--   number:   "answer": 3.14, optional "tolerance".
-- All or nothing: the first bad item raises an error naming its number and field, and nothing
-- is imported. A question the bank already holds is skipped and reported with a NOTICE naming
-- its number (see ops.insert_question). Returns the number of questions added.
CREATE OR REPLACE FUNCTION ops.import_quiz(p_bank text, p_quiz jsonb, p_source text DEFAULT 'quiz-file')
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    -- Questions skipped before this import (duplicates: ops.insert_question counts them).
    v_skipped_before integer := ops.skipped_questions();
    v_bank integer := ops.bank_id(p_bank);
    v_item jsonb;
    v_position integer := 0;
    v_label text;
    v_type text;
    v_letters text[];
    v_choices text[];
    v_correct text;
    v_answer text;
    v_count integer := 0;
BEGIN
    IF jsonb_typeof(p_quiz) IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION 'quiz: the file must be a JSON object' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF jsonb_typeof(p_quiz -> 'questions') IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION 'quiz: "questions" must be an array' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_quiz ? 'numberOfQuestions' AND (p_quiz ->> 'numberOfQuestions') IS DISTINCT FROM jsonb_array_length(p_quiz -> 'questions')::text THEN
        RAISE EXCEPTION 'quiz: "numberOfQuestions" is % but "questions" has % items',
            p_quiz ->> 'numberOfQuestions', jsonb_array_length(p_quiz -> 'questions')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR v_item IN SELECT value FROM jsonb_array_elements(p_quiz -> 'questions') LOOP
        v_position := v_position + 1;
        v_label := coalesce(v_item ->> 'number', v_position::text);
        IF jsonb_typeof(v_item) IS DISTINCT FROM 'object' THEN
            RAISE EXCEPTION 'question %: must be an object', v_label USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF jsonb_typeof(v_item -> 'questionSentence') IS DISTINCT FROM 'string'
           OR btrim(v_item ->> 'questionSentence') = '' THEN
            RAISE EXCEPTION 'question %: "questionSentence" must be a non-empty string', v_label
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        v_type := coalesce(v_item ->> 'type', 'single');
        v_choices := NULL;
        IF v_type IN ('single', 'multiple') THEN
            IF jsonb_typeof(v_item -> 'options') IS DISTINCT FROM 'object' THEN
                RAISE EXCEPTION 'question %: "options" must be an object of lettered options', v_label
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            SELECT array_agg(key ORDER BY key), array_agg(value ORDER BY key)
              INTO v_letters, v_choices
              FROM jsonb_each_text(v_item -> 'options');
            IF v_letters IS NULL OR v_letters <> (SELECT array_agg(chr(ascii('A') + i - 1) ORDER BY i)
                                                     FROM generate_series(1, cardinality(v_letters)) i) THEN
                RAISE EXCEPTION 'question %: "options" must be lettered A, B, C... without gaps', v_label
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            IF NOT ops.choices_valid(v_choices) THEN
                RAISE EXCEPTION 'question %: "options" must be 2 to 6 non-empty, distinct options', v_label
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            v_correct := CASE jsonb_typeof(v_item -> 'correctOption')
                WHEN 'string' THEN v_item ->> 'correctOption'
                WHEN 'array' THEN (SELECT string_agg(e, ',') FROM jsonb_array_elements_text(v_item -> 'correctOption') e)
                END;
            IF v_correct IS NULL OR EXISTS (
                   SELECT 1 FROM regexp_split_to_table(btrim(v_correct), '\s*,\s*') l
                    WHERE NOT (upper(l) = ANY (v_letters)))
               OR (v_type = 'single' AND v_correct LIKE '%,%') THEN
                RAISE EXCEPTION 'question %: "correctOption" must be % of the option letters %', v_label,
                    CASE v_type WHEN 'single' THEN 'one' ELSE 'some' END, v_letters
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            v_answer := upper(v_correct);
        ELSIF v_type = 'boolean' THEN
            v_answer := v_item ->> 'correctOption';
        ELSIF v_type = 'text' THEN
            IF jsonb_typeof(v_item -> 'answers') IS DISTINCT FROM 'array'
               OR EXISTS (SELECT 1 FROM jsonb_array_elements(v_item -> 'answers') e WHERE jsonb_typeof(e) <> 'string') THEN
                RAISE EXCEPTION 'question %: "answers" must be an array of texts', v_label
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            v_answer := (SELECT string_agg(e, '|') FROM jsonb_array_elements_text(v_item -> 'answers') e);
        ELSIF v_type = 'number' THEN
            IF jsonb_typeof(v_item -> 'answer') IS DISTINCT FROM 'number' THEN
                RAISE EXCEPTION 'question %: "answer" must be a number', v_label USING ERRCODE = 'invalid_parameter_value';
            END IF;
            v_answer := v_item ->> 'answer';
        END IF;
        PERFORM ops.insert_question(
            v_bank, v_item ->> 'questionSentence', v_type, v_answer, v_choices,
            CASE WHEN v_type = 'text' THEN v_item ->> 'matching' END,
            CASE WHEN v_type = 'number' THEN (v_item ->> 'tolerance')::double precision END,
            p_source, 'question ' || v_label);
        v_count := v_count + 1;
    END LOOP;
    IF v_count = 0 THEN
        RAISE EXCEPTION 'quiz: no questions' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- Only what was added: the duplicates skipped are not counted.
    RETURN v_count - (ops.skipped_questions() - v_skipped_before);
END
$$;
