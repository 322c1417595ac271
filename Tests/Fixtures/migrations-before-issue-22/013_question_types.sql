-- Question types (issue 13): single (one right choice, as before), multiple (check all that
-- apply), boolean (True/False), text (typed, matched exactly, case-insensitively or roughly)
-- and number (within a tolerance). Every question keeps its key in typed columns, so an
-- operator reads and queries it with plain SQL; the columns a type does not use are NULL.
-- A multiple question's right choices: 1 or more, distinct, each one of the choices.
CREATE FUNCTION ops.choice_set_valid(p_set integer[], p_count integer) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT cardinality(p_set) >= 1 AND array_ndims(p_set) = 1
       AND NOT EXISTS (SELECT 1 FROM unnest(p_set) c WHERE c IS NULL OR c < 0 OR c >= p_count)
       AND (SELECT count(DISTINCT c) FROM unnest(p_set) c) = cardinality(p_set)
$$;

-- A text question's accepted answers: 1 to 20 alternatives, none blank, each at most 200
-- characters (what an answer may be).
CREATE FUNCTION ops.accepted_valid(p_accepted text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT cardinality(p_accepted) BETWEEN 1 AND 20 AND array_ndims(p_accepted) = 1
       AND NOT EXISTS (SELECT 1 FROM unnest(p_accepted) a
                        WHERE a IS NULL OR btrim(a) = '' OR char_length(a) > 200)
$$;

ALTER TABLE questions
    ADD COLUMN type text NOT NULL DEFAULT 'single'
        CHECK (type IN ('single', 'multiple', 'boolean', 'text', 'number')),
    ADD COLUMN correct_choices integer[],
    ADD COLUMN accepted text[],
    ADD COLUMN matching text CHECK (matching IN ('exact', 'case_insensitive', 'rough')),
    ADD COLUMN correct_number double precision,
    ADD COLUMN tolerance double precision,
    ALTER COLUMN correct_choice DROP NOT NULL;
ALTER TABLE questions DROP CONSTRAINT questions_choices_check;
ALTER TABLE questions DROP CONSTRAINT questions_check;
-- Choices: 2-6 for single and multiple, exactly True and False for boolean, none for the others.
ALTER TABLE questions ADD CONSTRAINT questions_choices_check CHECK (CASE type
    WHEN 'boolean' THEN choices = ARRAY['True', 'False']
    WHEN 'text' THEN cardinality(choices) = 0
    WHEN 'number' THEN cardinality(choices) = 0
    ELSE ops.choices_valid(choices) END);
-- The key: exactly the columns of the question's type.
ALTER TABLE questions ADD CONSTRAINT questions_key_check CHECK (
    (correct_choice IS NOT NULL) = (type IN ('single', 'boolean'))
    AND (correct_choice IS NULL OR (correct_choice >= 0 AND correct_choice < cardinality(choices)))
    AND (correct_choices IS NOT NULL) = (type = 'multiple')
    AND (correct_choices IS NULL OR ops.choice_set_valid(correct_choices, cardinality(choices)))
    AND (accepted IS NOT NULL) = (type = 'text')
    AND (matching IS NOT NULL) = (type = 'text')
    AND (accepted IS NULL OR ops.accepted_valid(accepted))
    AND (correct_number IS NOT NULL) = (type = 'number')
    AND (tolerance IS NOT NULL) = (type = 'number')
    AND (correct_number IS NULL OR correct_number NOT IN ('NaN', 'Infinity', '-Infinity'))
    AND (tolerance IS NULL OR (tolerance >= 0 AND tolerance < 'Infinity')));

-- Answers of every type. A one-choice answer keeps `choice`; the others fill `choices`,
-- `answer_text` or `answer_number` instead: exactly one of the four is set.
ALTER TABLE duel_answers
    ALTER COLUMN choice DROP NOT NULL,
    ADD COLUMN choices integer[],
    ADD COLUMN answer_text text CHECK (char_length(answer_text) <= 200),
    ADD COLUMN answer_number double precision,
    ADD CONSTRAINT duel_answers_one_kind CHECK (num_nonnulls(choice, choices, answer_text, answer_number) = 1);
ALTER TABLE duel_inputs
    ADD COLUMN choices integer[],
    ADD COLUMN answer_text text,
    ADD COLUMN answer_number double precision;
ALTER TABLE duel_inputs DROP CONSTRAINT duel_inputs_check1;
ALTER TABLE duel_inputs ADD CONSTRAINT duel_inputs_answer_check CHECK (
    (kind = 'answer') = (question_index IS NOT NULL AND num_nonnulls(choice, choices, answer_text, answer_number) = 1)
    AND (kind = 'answer' OR num_nonnulls(choice, choices, answer_text, answer_number) = 0));

-- The key as an operator writes it, for every type, parsed into the typed columns by
-- ops.insert_question:
--   single:   the right choice as an index ('2') or a letter ('C');
--   multiple: the right choices, separated by '|' or ',' ('A|C', '0,2');
--   boolean:  'true' or 'false';
--   text:     the accepted answers, separated by '|' ('Paris|Paname');
--   number:   the number ('3.14'); p_tolerance says how far off is still right (default 0).
-- p_matching (text only): 'exact', 'case_insensitive' or 'rough' (the default).
-- Errors name p_label (a row, a question number) and the field, and insert nothing.
CREATE FUNCTION ops.insert_question(
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

-- Adds a question of any type (see ops.insert_question for p_answer). Call it with named
-- arguments, which tells it from the single-choice add_question:
--   SELECT ops.add_question('capitals', 'Capital of France?', p_type => 'text', p_answer => 'Paris');
CREATE FUNCTION ops.add_question(
    p_bank text, p_prompt text, p_type text, p_answer text, p_choices text[] DEFAULT NULL,
    p_matching text DEFAULT NULL, p_tolerance double precision DEFAULT NULL, p_source text DEFAULT 'manual'
) RETURNS bigint LANGUAGE sql AS $$
    SELECT ops.insert_question(ops.bank_id(p_bank), p_prompt, p_type, p_answer, p_choices, p_matching,
                               p_tolerance, p_source)
$$;

-- Replaces a question with a new version of any type (as the single-choice edit_question
-- does: the old one is retired and linked, past games keep pointing at it). Named arguments:
--   SELECT ops.edit_question(42, 'Capital of France?', p_type => 'text', p_answer => 'Paris|Paname');
CREATE FUNCTION ops.edit_question(
    p_question bigint, p_prompt text, p_type text, p_answer text, p_choices text[] DEFAULT NULL,
    p_matching text DEFAULT NULL, p_tolerance double precision DEFAULT NULL
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_old questions%ROWTYPE;
    v_new bigint;
BEGIN
    SELECT * INTO v_old FROM questions WHERE id = p_question FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown question %', p_question USING ERRCODE = 'no_data_found';
    END IF;
    IF v_old.replaced_by IS NOT NULL THEN
        RAISE EXCEPTION 'question % was already replaced by %; edit that one', p_question, v_old.replaced_by
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    v_new := ops.insert_question(v_old.bank_id, p_prompt, p_type, p_answer, p_choices, p_matching, p_tolerance,
                                 v_old.source);
    UPDATE questions SET active = v_old.active WHERE id = v_new;
    UPDATE questions SET active = false, replaced_by = v_new WHERE id = p_question;
    INSERT INTO ops.audit (action, subject, detail)
    VALUES ('edit_question', p_question::text, jsonb_build_object(
        'new_question', v_new, 'prompt', v_old.prompt, 'type', v_old.type, 'key', ops.question_key(v_old)));
    RETURN v_new;
END
$$;

-- A question's key as one line of text, in the form ops.add_question takes it
-- ('C', 'A|C', 'true', 'Paris|Paname (rough)', '3.14 ± 0.01').
CREATE FUNCTION ops.question_key(q questions) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE q.type
        WHEN 'single' THEN chr(ascii('A') + q.correct_choice)
        WHEN 'multiple' THEN (SELECT string_agg(chr(ascii('A') + c), '|' ORDER BY c) FROM unnest(q.correct_choices) c)
        WHEN 'boolean' THEN CASE q.correct_choice WHEN 0 THEN 'true' ELSE 'false' END
        WHEN 'text' THEN array_to_string(q.accepted, '|') || ' (' || q.matching || ')'
        WHEN 'number' THEN q.correct_number::text || CASE WHEN q.tolerance > 0 THEN ' ± ' || q.tolerance::text ELSE '' END
    END
$$;

-- An answer as one line of text: the choice's letter, the letters, the text or the number.
CREATE FUNCTION ops.answer_text(p_choice integer, p_choices integer[], p_text text, p_number double precision)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(chr(ascii('A') + p_choice),
                    (SELECT string_agg(chr(ascii('A') + c), '|' ORDER BY c) FROM unnest(p_choices) c),
                    p_text, p_number::text)
$$;

-- Open Trivia Database "boolean" questions become boolean questions (True/False); the others
-- stay single-choice with the choices shuffled. All or nothing, as before.
CREATE OR REPLACE FUNCTION ops.import_opentdb(p_bank text, p_response jsonb, p_source text DEFAULT 'opentdb')
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
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
    RETURN v_count;
END
$$;

-- CSV, split into rows of fields (RFC 4180: fields in double quotes may hold commas, line
-- breaks and doubled quotes; CRLF or LF line ends; blank lines are skipped). Each row comes
-- with its line number, for error messages.
CREATE FUNCTION ops.csv_rows(p_csv text) RETURNS TABLE (line integer, fields text[])
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_chars text[] := regexp_split_to_array(p_csv, '');
    v_count integer := coalesce(array_length(v_chars, 1), 0);
    v_i integer := 1;
    v_ch text;
    v_field text := '';
    v_row text[] := '{}';
    v_quoted boolean := false;
    v_line integer := 1;
    v_row_line integer := 1;
    v_touched boolean := false;
BEGIN
    WHILE v_i <= v_count LOOP
        v_ch := v_chars[v_i];
        IF v_quoted THEN
            IF v_ch = '"' THEN
                IF v_i < v_count AND v_chars[v_i + 1] = '"' THEN
                    v_field := v_field || '"';
                    v_i := v_i + 1;
                ELSE
                    v_quoted := false;
                END IF;
            ELSE
                IF v_ch = E'\n' THEN v_line := v_line + 1; END IF;
                v_field := v_field || v_ch;
            END IF;
        ELSIF v_ch = '"' AND v_field = '' THEN
            v_quoted := true;
            v_touched := true;
        ELSIF v_ch = ',' THEN
            v_row := v_row || v_field;
            v_field := '';
            v_touched := true;
        ELSIF v_ch = E'\r' AND v_i < v_count AND v_chars[v_i + 1] = E'\n' THEN
            NULL;  -- the LF that follows ends the row
        ELSIF v_ch = E'\n' THEN
            IF v_touched OR v_field <> '' THEN
                line := v_row_line; fields := v_row || v_field;
                RETURN NEXT;
            END IF;
            v_row := '{}'; v_field := ''; v_touched := false;
            v_line := v_line + 1;
            v_row_line := v_line;
        ELSE
            v_field := v_field || v_ch;
        END IF;
        v_i := v_i + 1;
    END LOOP;
    IF v_quoted THEN
        RAISE EXCEPTION 'line %: a quoted field is not closed', v_row_line USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF v_touched OR v_field <> '' THEN
        line := v_row_line; fields := v_row || v_field;
        RETURN NEXT;
    END IF;
END
$$;

-- Imports questions of every type from CSV. The first row names the columns, in any order:
--   prompt, answer (required); type (default single), choices (options separated by '|'),
--   matching (text questions), tolerance (number questions).
-- `answer` is the key as ops.add_question takes it. For example:
--   type,prompt,choices,answer,matching,tolerance
--   single,Capital of Peru?,Lima|Quito|Bogotá,A,,
--   multiple,Which are noble gases?,Neon|Iron|Argon,A|C,,
--   boolean,Water boils at 100 °C at sea level.,,true,,
--   text,Chemical symbol of gold?,,Au,exact,
--   number,How many bones in an adult human?,,206,,0
-- All or nothing: an error names the line and the field, and nothing is imported.
-- Returns the number of questions added.
CREATE FUNCTION ops.import_csv(p_bank text, p_csv text, p_source text DEFAULT 'csv')
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_bank integer := ops.bank_id(p_bank);
    v_header text[];
    v_known text[] := ARRAY['type', 'prompt', 'choices', 'answer', 'matching', 'tolerance'];
    v_column text;
    v_row record;
    v_count integer := 0;
    v_first boolean := true;
    v_tolerance double precision;
    v_choices text[];

BEGIN
    IF p_csv IS NULL OR btrim(p_csv) = '' THEN
        RAISE EXCEPTION 'csv: empty' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR v_row IN SELECT * FROM ops.csv_rows(p_csv) LOOP
        IF v_first THEN
            SELECT array_agg(lower(btrim(h)) ORDER BY n) INTO v_header
              FROM unnest(v_row.fields) WITH ORDINALITY AS u(h, n);
            FOREACH v_column IN ARRAY v_header LOOP
                IF NOT v_column = ANY (v_known) THEN
                    RAISE EXCEPTION 'line %, header: unknown column "%" (known: %)', v_row.line, v_column,
                        array_to_string(v_known, ', ') USING ERRCODE = 'invalid_parameter_value';
                END IF;
            END LOOP;
            IF (SELECT count(DISTINCT h) FROM unnest(v_header) h) <> cardinality(v_header) THEN
                RAISE EXCEPTION 'line %, header: a column is named twice', v_row.line
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            IF NOT ('prompt' = ANY (v_header) AND 'answer' = ANY (v_header)) THEN
                RAISE EXCEPTION 'line %, header: the columns prompt and answer are required', v_row.line
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            v_first := false;
            CONTINUE;
        END IF;
        IF cardinality(v_row.fields) <> cardinality(v_header) THEN
            RAISE EXCEPTION 'line %: % fields, but the header names %', v_row.line, cardinality(v_row.fields),
                cardinality(v_header) USING ERRCODE = 'invalid_parameter_value';
        END IF;
        v_tolerance := NULL;
        IF nullif(btrim(v_row.fields[array_position(v_header, 'tolerance')]), '') IS NOT NULL THEN
            BEGIN
                v_tolerance := btrim(v_row.fields[array_position(v_header, 'tolerance')])::double precision;
            EXCEPTION WHEN invalid_text_representation OR numeric_value_out_of_range THEN
                RAISE EXCEPTION 'line %, tolerance: must be a number', v_row.line USING ERRCODE = 'invalid_parameter_value';
            END;
        END IF;
        SELECT array_agg(btrim(c) ORDER BY n) INTO v_choices
          FROM unnest(string_to_array(nullif(btrim(v_row.fields[array_position(v_header, 'choices')]), ''), '|'))
               WITH ORDINALITY AS u(c, n);
        PERFORM ops.insert_question(
            v_bank, v_row.fields[array_position(v_header, 'prompt')],
            nullif(btrim(v_row.fields[array_position(v_header, 'type')]), ''),
            v_row.fields[array_position(v_header, 'answer')], v_choices,
            nullif(btrim(v_row.fields[array_position(v_header, 'matching')]), ''), v_tolerance,
            p_source, 'line ' || v_row.line);
        v_count := v_count + 1;
    END LOOP;
    IF v_count = 0 THEN
        RAISE EXCEPTION 'csv: no questions after the header' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN v_count;
END
$$;

-- Quality of every question type: its type and key as text, how often answered and right,
-- the rating correlation (as before), and the commonest wrong answer, which for a text
-- question is often an answer the key should accept.
DROP VIEW ops.question_quality;
CREATE VIEW ops.question_quality AS
SELECT q.id AS question_id, b.slug AS bank, q.prompt, q.active, q.correct_choice,
       s.answers, round(s.share_correct::numeric, 3) AS share_correct,
       round(s.r::numeric, 3) AS rating_correlation,
       coalesce(s.answers >= 20 AND s.r <= -0.2, false) AS suspect_key,
       q.type, ops.question_key(q) AS key, w.answer AS common_wrong_answer, w.times AS common_wrong_times
  FROM questions q
  JOIN banks b ON b.id = q.bank_id
  LEFT JOIN LATERAL (
        SELECT count(*) AS answers,
               avg(CASE WHEN da.correct THEN 1.0 ELSE 0.0 END) AS share_correct,
               corr(CASE WHEN da.correct THEN 1.0 ELSE 0.0 END, rh.rating_before) AS r
          FROM duel_questions dq
          JOIN duel_answers da ON da.duel_id = dq.duel_id AND da.question_index = dq.question_index
          LEFT JOIN rating_history rh ON rh.duel_id = da.duel_id AND rh.player_id = da.player_id
         WHERE dq.question_id = q.id
       ) s ON true
  LEFT JOIN LATERAL (
        SELECT ops.answer_text(da.choice, da.choices, lower(btrim(da.answer_text)), da.answer_number) AS answer,
               count(*) AS times
          FROM duel_questions dq
          JOIN duel_answers da ON da.duel_id = dq.duel_id AND da.question_index = dq.question_index
         WHERE dq.question_id = q.id AND NOT da.correct
         GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1
       ) w ON true;

-- Misses keep what the player answered, of any type (columns added at the end).
CREATE OR REPLACE VIEW missed_questions AS
SELECT d.player_a AS player_id, d.id AS duel_id, d.bank_id, d.finished_at, dq.question_index, dq.question_id,
       a.choice, a.choices, a.answer_text, a.answer_number
  FROM duels d
  JOIN duel_questions dq ON dq.duel_id = d.id AND dq.question_index < d.questions_opened
  LEFT JOIN duel_answers a ON a.duel_id = d.id AND a.question_index = dq.question_index AND a.player_id = d.player_a
 WHERE d.state = 'finished' AND d.mode <> 'practice' AND a.correct IS NOT TRUE
UNION ALL
SELECT d.player_b, d.id, d.bank_id, d.finished_at, dq.question_index, dq.question_id, a.choice,
       a.choices, a.answer_text, a.answer_number
  FROM duels d
  JOIN duel_questions dq ON dq.duel_id = d.id AND dq.question_index < d.questions_opened
  LEFT JOIN duel_answers a ON a.duel_id = d.id AND a.question_index = dq.question_index AND a.player_id = d.player_b
 WHERE d.state = 'finished' AND d.mode <> 'practice' AND d.player_b IS NOT NULL AND a.correct IS NOT TRUE
UNION ALL
SELECT s.player_id, d.id, d.bank_id, d.finished_at, dq.question_index, dq.question_id, a.choice,
       a.choices, a.answer_text, a.answer_number
  FROM duels d
  CROSS JOIN LATERAL unnest(d.more_players) AS s(player_id)
  JOIN duel_questions dq ON dq.duel_id = d.id AND dq.question_index < d.questions_opened
  LEFT JOIN duel_answers a ON a.duel_id = d.id AND a.question_index = dq.question_index AND a.player_id = s.player_id
 WHERE d.state = 'finished' AND d.more_players IS NOT NULL AND a.correct IS NOT TRUE;

CREATE OR REPLACE VIEW mistakes_notebook AS
SELECT m.* FROM missed_questions m
 WHERE NOT EXISTS (SELECT 1 FROM practice_progress p
                    WHERE p.player_id = m.player_id AND p.question_id = m.question_id
                      AND p.learned_at >= m.finished_at);

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_operator') THEN
        GRANT SELECT ON ops.question_quality TO quizduel_operator;
    END IF;
END
$$;
