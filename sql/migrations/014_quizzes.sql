-- Quizzes that players make (issue 13): a quiz is a bank with an owner. It is private until its
-- owner publishes it to the catalog; matchmaking stays on operator banks (and quizzes an
-- operator promotes into it). Counters on the row keep the catalog one index scan: plays (games
-- started on the quiz), saves, likes and dislikes. The operators' views and functions for
-- quizzes (ops.quizzes, ops.unpublish_quiz...) live in sql/views and sql/functions.
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

-- Question feedback: likes and dislikes, and the draw weight they give (ops.question_weight,
-- which the server runs when players vote). A question nobody voted
-- on weighs 1; votes move it towards (likes − dislikes) / (likes + dislikes + 10) more, so it
-- takes many votes to count, and the weight stays within [0.25, 2): a new question still comes
-- up at least half as often as the most liked one.
ALTER TABLE questions
    ADD COLUMN likes integer NOT NULL DEFAULT 0 CHECK (likes >= 0),
    ADD COLUMN dislikes integer NOT NULL DEFAULT 0 CHECK (dislikes >= 0),
    ADD COLUMN weight double precision NOT NULL DEFAULT 1 CHECK (weight >= 0.25 AND weight < 2);

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

-- The operators' list of banks shows whose they are and whether matchmaking uses them: this
-- migration dropped ops.bank_questions to recreate it (sql/views/ops.bank_questions.sql).
DROP VIEW IF EXISTS ops.bank_questions;
