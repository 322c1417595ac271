-- Quizzes that players make (issue 13): a quiz is a bank with an owner. It is private until its
-- owner publishes it to the catalog; matchmaking stays on operator banks (and quizzes an
-- operator promotes into it). Counters on the row keep the catalog one index scan: plays (games
-- started on the quiz), saves, likes and dislikes.
ALTER TABLE banks
    ADD COLUMN owner_id uuid REFERENCES players ON DELETE CASCADE,
    ADD COLUMN matchmaking boolean NOT NULL DEFAULT true,
    ADD COLUMN published_at timestamptz,
    ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN plays integer NOT NULL DEFAULT 0 CHECK (plays >= 0),
    ADD COLUMN saves integer NOT NULL DEFAULT 0 CHECK (saves >= 0),
    ADD COLUMN likes integer NOT NULL DEFAULT 0 CHECK (likes >= 0),
    ADD COLUMN dislikes integer NOT NULL DEFAULT 0 CHECK (dislikes >= 0),
    -- Why an operator took it out of the catalog (ops.unpublish_quiz); NULL otherwise.
    ADD COLUMN unpublished_reason text;
-- A player's quiz is in matchmaking only while published and promoted by an operator.
ALTER TABLE banks ADD CONSTRAINT banks_quiz_matchmaking
    CHECK (owner_id IS NULL OR NOT matchmaking OR published_at IS NOT NULL);
-- What players write is capped (operators' banks keep their old freedom).
ALTER TABLE banks ADD CONSTRAINT banks_quiz_lengths
    CHECK (owner_id IS NULL OR (char_length(title) <= 80 AND char_length(description) <= 500
                                AND char_length(theme) BETWEEN 1 AND 40));
CREATE INDEX banks_owner ON banks (owner_id, created_at) WHERE owner_id IS NOT NULL;
CREATE INDEX banks_catalog ON banks (published_at DESC) WHERE published_at IS NOT NULL AND retired_at IS NULL;

-- Question feedback: likes and dislikes, and the draw weight they give. A question nobody voted
-- on weighs 1; votes move it towards (likes − dislikes) / (likes + dislikes + 10) more, so it
-- takes many votes to count, and the weight stays within [0.25, 2): a new question still comes
-- up at least half as often as the most liked one.
ALTER TABLE questions
    ADD COLUMN likes integer NOT NULL DEFAULT 0 CHECK (likes >= 0),
    ADD COLUMN dislikes integer NOT NULL DEFAULT 0 CHECK (dislikes >= 0),
    ADD COLUMN weight double precision NOT NULL DEFAULT 1 CHECK (weight >= 0.25 AND weight < 2);

CREATE FUNCTION ops.question_weight(p_likes integer, p_dislikes integer) RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$
    SELECT greatest(0.25, 1 + (p_likes - p_dislikes)::double precision / (p_likes + p_dislikes + 10))
$$;

-- A player's saved ("downloaded") quizzes: their library.
CREATE TABLE quiz_saves (
    player_id uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    bank_id   integer NOT NULL REFERENCES banks ON DELETE CASCADE,
    saved_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (player_id, bank_id)
);

-- One vote per player and quiz, and per player and question (`rate`): 1 like, -1 dislike.
CREATE TABLE quiz_votes (
    player_id uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    bank_id   integer NOT NULL REFERENCES banks ON DELETE CASCADE,
    value     smallint NOT NULL CHECK (value IN (-1, 1)),
    voted_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (player_id, bank_id)
);
CREATE TABLE question_votes (
    player_id   uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    question_id bigint NOT NULL REFERENCES questions ON DELETE CASCADE,
    value       smallint NOT NULL CHECK (value IN (-1, 1)),
    voted_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (player_id, question_id)
);

-- Authoring writes per player, for the rate limit (the last minute is all that is kept).
CREATE TABLE authoring_log (
    player_id uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    at        timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX authoring_log_player ON authoring_log (player_id, at);

-- Reports cover quizzes: a report names a question or a quiz.
ALTER TABLE question_reports
    ALTER COLUMN question_id DROP NOT NULL,
    ADD COLUMN bank_id integer REFERENCES banks ON DELETE CASCADE,
    ADD CONSTRAINT question_reports_subject CHECK (num_nonnulls(question_id, bank_id) = 1);
CREATE INDEX question_reports_open_quiz ON question_reports (bank_id) WHERE resolved_at IS NULL AND bank_id IS NOT NULL;

-- Operators --------------------------------------------------------------------------------

-- Every player's quiz with its author, state and counts.
CREATE VIEW ops.quizzes AS
SELECT b.slug AS quiz, b.title, p.username AS author, b.theme, b.difficulty,
       b.published_at, b.matchmaking AND b.published_at IS NOT NULL AS in_matchmaking, b.retired_at AS deleted_at,
       (SELECT count(*) FROM questions q WHERE q.bank_id = b.id AND q.active) AS questions,
       b.plays, b.saves, b.likes, b.dislikes,
       (SELECT count(*) FROM question_reports r WHERE r.bank_id = b.id AND r.resolved_at IS NULL) AS open_reports,
       b.unpublished_reason, b.created_at
  FROM banks b JOIN players p ON p.id = b.owner_id
 ORDER BY b.created_at DESC;

-- Each author's published quizzes, most played first.
CREATE VIEW ops.author_quizzes AS
SELECT author, quiz, title, published_at, questions, plays, saves, likes, dislikes, open_reports
  FROM ops.quizzes
 WHERE published_at IS NOT NULL AND deleted_at IS NULL
 ORDER BY author, plays DESC;

-- Open reports about quizzes (the quiz itself, or one of its questions), newest first.
CREATE VIEW ops.reported_quizzes AS
SELECT r.id AS report_id, b.slug AS quiz, b.title, p.username AS author, r.question_id, q.prompt, r.reason,
       r.created_at, b.published_at IS NOT NULL AS published
  FROM question_reports r
  LEFT JOIN questions q ON q.id = r.question_id
  JOIN banks b ON b.id = coalesce(r.bank_id, q.bank_id)
  JOIN players p ON p.id = b.owner_id
 WHERE r.resolved_at IS NULL
 ORDER BY r.created_at DESC;

CREATE FUNCTION ops.quiz_id(p_slug text) RETURNS integer LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_id integer;
BEGIN
    SELECT id INTO v_id FROM banks WHERE slug = p_slug AND owner_id IS NOT NULL;
    IF v_id IS NULL THEN
        RAISE EXCEPTION 'unknown quiz "%"', p_slug USING ERRCODE = 'no_data_found';
    END IF;
    RETURN v_id;
END
$$;

-- Takes a quiz out of the catalog (and out of matchmaking); its owner sees the reason in
-- `my_quizzes` and may publish it again after fixing it. Open reports about it are resolved.
CREATE FUNCTION ops.unpublish_quiz(p_slug text, p_reason text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_id integer := ops.quiz_id(p_slug);
BEGIN
    IF p_reason IS NULL OR btrim(p_reason) = '' THEN
        RAISE EXCEPTION 'a reason is required' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE banks SET published_at = NULL, matchmaking = false, unpublished_reason = btrim(p_reason), updated_at = now()
     WHERE id = v_id;
    UPDATE question_reports r SET resolved_at = now()
     WHERE r.resolved_at IS NULL
       AND (r.bank_id = v_id OR r.question_id IN (SELECT id FROM questions WHERE bank_id = v_id));
    INSERT INTO ops.audit (action, subject, detail)
    VALUES ('unpublish_quiz', p_slug, jsonb_build_object('reason', btrim(p_reason)));
END
$$;

-- Puts a published quiz into matchmaking (`banks` lists it, `queue` takes it), or takes it out.
CREATE FUNCTION ops.promote_quiz(p_slug text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_id integer := ops.quiz_id(p_slug);
BEGIN
    IF NOT EXISTS (SELECT 1 FROM banks WHERE id = v_id AND published_at IS NOT NULL AND retired_at IS NULL) THEN
        RAISE EXCEPTION 'quiz "%" is not published', p_slug USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE banks SET matchmaking = true WHERE id = v_id;
    INSERT INTO ops.audit (action, subject, detail) VALUES ('promote_quiz', p_slug, '{}');
END
$$;

CREATE FUNCTION ops.demote_quiz(p_slug text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE banks SET matchmaking = false WHERE id = ops.quiz_id(p_slug);
    INSERT INTO ops.audit (action, subject, detail) VALUES ('demote_quiz', p_slug, '{}');
END
$$;

-- The operators' list of banks shows whose they are and whether matchmaking uses them.
DROP VIEW ops.bank_questions;
CREATE VIEW ops.bank_questions AS
SELECT b.slug, b.title, b.theme, b.difficulty,
       count(q.id) FILTER (WHERE q.active) AS active_questions,
       count(q.id) FILTER (WHERE NOT q.active) AS inactive_questions,
       p.username AS owner, b.matchmaking AND (b.owner_id IS NULL OR b.published_at IS NOT NULL) AS in_matchmaking
  FROM banks b
  LEFT JOIN questions q ON q.bank_id = b.id
  LEFT JOIN players p ON p.id = b.owner_id
 GROUP BY b.id, p.username
 ORDER BY b.slug;

-- Operators' functions that write players' rows run with the owner's rights; the server runs
-- the checks of the question columns (it inserts players' questions) and the weight function.
ALTER FUNCTION ops.unpublish_quiz(text, text) SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp;
ALTER FUNCTION ops.promote_quiz(text) SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp;
ALTER FUNCTION ops.demote_quiz(text) SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp;
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_operator') THEN
        GRANT SELECT ON ops.quizzes, ops.author_quizzes, ops.reported_quizzes, ops.bank_questions TO quizduel_operator;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_server') THEN
        GRANT EXECUTE ON FUNCTION ops.choice_set_valid(integer[], integer), ops.accepted_valid(text[]),
            ops.question_weight(integer, integer) TO quizduel_server;
    END IF;
END
$$;

-- The student apps' quiz files take every question type too (issue 13). An item's optional
-- "type" (default "single") says what its key is:
--   single:   "options" {"A": …} and "correctOption": "C" (as before);
--   multiple: "options" and "correctOption": "A,C" or ["A", "C"];
--   boolean:  "correctOption": "True" or "False" (or true / false), no options;
--   text:     "answers": ["Paris", "Paname"], optional "matching";
--   number:   "answer": 3.14, optional "tolerance".
-- All or nothing, errors naming the question's number and field, as before.
CREATE OR REPLACE FUNCTION ops.import_quiz(p_bank text, p_quiz jsonb, p_source text DEFAULT 'quiz-file')
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
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
    RETURN v_count;
END
$$;
