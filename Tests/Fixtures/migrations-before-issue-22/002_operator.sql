-- Operator functions and views, in schema "ops". Everything here is meant to be
-- run by hand with psql; see docs/OPERATIONS.md for examples.

-- Creates a bank and returns its id.
CREATE FUNCTION ops.create_bank(
    p_slug text, p_title text, p_description text DEFAULT '',
    p_theme text DEFAULT 'general', p_difficulty text DEFAULT 'mixed'
) RETURNS integer LANGUAGE sql AS $$
    INSERT INTO banks (slug, title, description, theme, difficulty)
    VALUES (p_slug, p_title, p_description, p_theme, p_difficulty)
    RETURNING id
$$;

CREATE FUNCTION ops.bank_id(p_slug text) RETURNS integer LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_id integer;
BEGIN
    SELECT id INTO v_id FROM banks WHERE slug = p_slug;
    IF v_id IS NULL THEN
        RAISE EXCEPTION 'unknown bank "%"', p_slug USING ERRCODE = 'no_data_found';
    END IF;
    RETURN v_id;
END
$$;

-- "2" or 2 is an index (0-based); "C" or "c" is a letter (A = 0).
CREATE FUNCTION ops.choice_index(p_correct text, p_count integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_index integer;
BEGIN
    IF p_correct ~ '^\s*[0-9]+\s*$' THEN
        v_index := btrim(p_correct)::integer;
    ELSIF p_correct ~ '^\s*[A-Za-z]\s*$' THEN
        v_index := ascii(upper(btrim(p_correct))) - ascii('A');
    ELSE
        RAISE EXCEPTION 'correct answer "%" is neither an index nor a letter', p_correct
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF v_index < 0 OR v_index >= p_count THEN
        RAISE EXCEPTION 'correct answer "%" is out of range for % choices', p_correct, p_count
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN v_index;
END
$$;

-- Adds a question; p_correct is an index ('2') or a letter ('C'). Returns its id.
CREATE FUNCTION ops.add_question(
    p_bank text, p_prompt text, p_choices text[], p_correct text, p_source text DEFAULT 'manual'
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_id bigint;
BEGIN
    IF p_choices IS NULL OR NOT ops.choices_valid(p_choices) THEN
        RAISE EXCEPTION 'choices must be 2 to 6 non-empty, distinct options'
            USING ERRCODE = 'check_violation';
    END IF;
    INSERT INTO questions (bank_id, prompt, choices, correct_choice, source)
    VALUES (ops.bank_id(p_bank), btrim(p_prompt), p_choices,
            ops.choice_index(p_correct, cardinality(p_choices)), p_source)
    RETURNING id INTO v_id;
    RETURN v_id;
END
$$;

CREATE FUNCTION ops.add_question(
    p_bank text, p_prompt text, p_choices text[], p_correct integer, p_source text DEFAULT 'manual'
) RETURNS bigint LANGUAGE sql AS $$
    SELECT ops.add_question(p_bank, p_prompt, p_choices, p_correct::text, p_source)
$$;

-- Takes a question out of future draws (running duels keep it) or puts it back.
CREATE FUNCTION ops.set_question_active(p_question bigint, p_active boolean) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE questions SET active = p_active WHERE id = p_question;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown question %', p_question USING ERRCODE = 'no_data_found';
    END IF;
END
$$;

CREATE FUNCTION ops.deactivate_question(p_question bigint) RETURNS void LANGUAGE sql AS $$
    SELECT ops.set_question_active(p_question, false)
$$;

CREATE FUNCTION ops.reactivate_question(p_question bigint) RETURNS void LANGUAGE sql AS $$
    SELECT ops.set_question_active(p_question, true)
$$;

-- Decodes the HTML entities that trivia APIs put in text: named (&quot; &amp;
-- &eacute; ...) and numeric (&#039; &#x27;).
CREATE FUNCTION ops.html_decode(p_text text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    v_out text := '';
    v_rest text := p_text;
    v_match text[];
    v_named constant jsonb := '{
        "quot": "\"", "amp": "&", "apos": "''", "lt": "<", "gt": ">", "nbsp": " ",
        "eacute": "é", "Eacute": "É", "egrave": "è", "ecirc": "ê", "euml": "ë",
        "aacute": "á", "agrave": "à", "acirc": "â", "auml": "ä", "Auml": "Ä", "aring": "å", "atilde": "ã",
        "iacute": "í", "igrave": "ì", "icirc": "î", "iuml": "ï",
        "oacute": "ó", "ograve": "ò", "ocirc": "ô", "ouml": "ö", "Ouml": "Ö", "otilde": "õ", "oslash": "ø",
        "uacute": "ú", "ugrave": "ù", "ucirc": "û", "uuml": "ü", "Uuml": "Ü",
        "ntilde": "ñ", "Ntilde": "Ñ", "ccedil": "ç", "Ccedil": "Ç", "szlig": "ß",
        "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“", "hellip": "…",
        "ndash": "–", "mdash": "—", "deg": "°", "pi": "π", "shy": "", "times": "×", "divide": "÷",
        "prime": "′", "Prime": "″", "trade": "™", "reg": "®", "copy": "©", "euro": "€", "pound": "£"
    }';
    v_pos integer;
    v_entity text;
    v_decoded text;
BEGIN
    LOOP
        v_pos := strpos(v_rest, '&');
        EXIT WHEN v_pos = 0;
        v_out := v_out || left(v_rest, v_pos - 1);
        v_rest := substr(v_rest, v_pos);
        v_match := regexp_match(v_rest, '^&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z]{2,8});');
        v_decoded := NULL;
        IF v_match IS NOT NULL THEN
            v_entity := v_match[1];
            IF v_entity ~ '^#[xX]' THEN
                v_decoded := chr(('x' || lpad(substr(v_entity, 3), 8, '0'))::bit(32)::integer);
            ELSIF v_entity ~ '^#' THEN
                v_decoded := chr(substr(v_entity, 2)::integer);
            ELSE
                v_decoded := v_named ->> v_entity;
            END IF;
        END IF;
        IF v_decoded IS NULL THEN
            v_out := v_out || '&';
            v_rest := substr(v_rest, 2);
        ELSE
            v_out := v_out || v_decoded;
            v_rest := substr(v_rest, length(v_match[1]) + 3);
        END IF;
    END LOOP;
    RETURN v_out || v_rest;
END
$$;

-- Imports a quiz file of the student apps QuizDuel descends from:
--   {"numberOfQuestions":2,"topic":"General","questions":[{"number":1,
--    "questionSentence":"...","options":{"A":"...","B":"..."},"correctOption":"C"}]}
-- All or nothing: the first bad item raises an error naming its number and field,
-- and nothing is imported. Returns the number of questions added.
CREATE FUNCTION ops.import_quiz(p_bank text, p_quiz jsonb, p_source text DEFAULT 'quiz-file')
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_bank integer := ops.bank_id(p_bank);
    v_item jsonb;
    v_position integer := 0;
    v_label text;
    v_letters text[];
    v_choices text[];
    v_correct text;
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
        v_correct := v_item ->> 'correctOption';
        IF jsonb_typeof(v_item -> 'correctOption') IS DISTINCT FROM 'string'
           OR NOT (upper(btrim(v_correct)) = ANY (v_letters)) THEN
            RAISE EXCEPTION 'question %: "correctOption" must be one of the option letters %', v_label, v_letters
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        INSERT INTO questions (bank_id, prompt, choices, correct_choice, source)
        VALUES (v_bank, btrim(v_item ->> 'questionSentence'), v_choices,
                array_position(v_letters, upper(btrim(v_correct))) - 1, p_source);
        v_count := v_count + 1;
    END LOOP;
    IF v_count = 0 THEN
        RAISE EXCEPTION 'quiz: no questions' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN v_count;
END
$$;

-- Imports an Open Trivia Database API response:
--   {"response_code":0,"results":[{"type":"multiple"|"boolean","difficulty":"...",
--    "category":"...","question":"...","correct_answer":"...","incorrect_answers":[...]}]}
-- HTML entities are decoded and the choices shuffled. All or nothing, like import_quiz.
CREATE FUNCTION ops.import_opentdb(p_bank text, p_response jsonb, p_source text DEFAULT 'opentdb')
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
        IF jsonb_typeof(v_item -> 'incorrect_answers') IS DISTINCT FROM 'array'
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(v_item -> 'incorrect_answers') e
                      WHERE jsonb_typeof(e) <> 'string') THEN
            RAISE EXCEPTION 'result %: "incorrect_answers" must be an array of strings', v_number
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        v_correct := ops.html_decode(v_item ->> 'correct_answer');
        -- Shuffle the correct answer in among the wrong ones.
        SELECT array_agg(c ORDER BY random()) INTO v_choices
          FROM (SELECT v_correct AS c
                UNION ALL
                SELECT ops.html_decode(e) FROM jsonb_array_elements_text(v_item -> 'incorrect_answers') e) s;
        IF NOT ops.choices_valid(v_choices) THEN
            RAISE EXCEPTION 'result %: the answers must be 2 to 6 non-empty, distinct options', v_number
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        INSERT INTO questions (bank_id, prompt, choices, correct_choice, source)
        VALUES (v_bank, btrim(ops.html_decode(v_item ->> 'question')), v_choices,
                array_position(v_choices, v_correct) - 1, p_source);
        v_count := v_count + 1;
    END LOOP;
    IF v_count = 0 THEN
        RAISE EXCEPTION 'response: no results' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN v_count;
END
$$;

-- Questions per bank.
CREATE VIEW ops.bank_questions AS
SELECT b.slug, b.title, b.theme, b.difficulty,
       count(q.id) FILTER (WHERE q.active) AS active_questions,
       count(q.id) FILTER (WHERE NOT q.active) AS inactive_questions
  FROM banks b
  LEFT JOIN questions q ON q.bank_id = b.id
 GROUP BY b.id
 ORDER BY b.slug;

-- Per question: how often asked, how often answered correctly, how fast, and open
-- reports. A low correct share or open reports point at a bad question.
CREATE VIEW ops.question_stats AS
SELECT q.id AS question_id, b.slug AS bank, q.prompt, q.active,
       (SELECT count(*) FROM duel_questions dq WHERE dq.question_id = q.id) AS times_asked,
       a.answers,
       round(a.correct_share, 3) AS share_correct,
       round(a.mean_answer_ms) AS mean_answer_ms,
       (SELECT count(*) FROM question_reports r WHERE r.question_id = q.id AND r.resolved_at IS NULL) AS open_reports
  FROM questions q
  JOIN banks b ON b.id = q.bank_id
  LEFT JOIN LATERAL (
        SELECT count(*) AS answers,
               avg(CASE WHEN da.correct THEN 1.0 ELSE 0.0 END) AS correct_share,
               avg(da.elapsed_ms) AS mean_answer_ms
          FROM duel_questions dq
          JOIN duel_answers da ON da.duel_id = dq.duel_id AND da.question_index = dq.question_index
         WHERE dq.question_id = q.id
       ) a ON true;

-- Reports not yet dealt with, newest first.
CREATE VIEW ops.open_reports AS
SELECT r.id AS report_id, r.question_id, b.slug AS bank, q.prompt, r.reason, r.created_at
  FROM question_reports r
  JOIN questions q ON q.id = r.question_id
  JOIN banks b ON b.id = q.bank_id
 WHERE r.resolved_at IS NULL
 ORDER BY r.created_at DESC;

CREATE FUNCTION ops.resolve_report(p_report bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE question_reports SET resolved_at = now() WHERE id = p_report AND resolved_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no open report %', p_report USING ERRCODE = 'no_data_found';
    END IF;
END
$$;
