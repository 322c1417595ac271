-- QuizDuel core schema. Postgres is the source of truth: every invariant the
-- server relies on is stated here as a constraint, so a bug elsewhere fails
-- loudly instead of corrupting a duel.

CREATE SCHEMA IF NOT EXISTS ops;

-- Choices of a question: 2-6 non-empty, distinct options.
CREATE FUNCTION ops.choices_valid(choices text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT cardinality(choices) BETWEEN 2 AND 6
       AND array_ndims(choices) = 1
       AND NOT EXISTS (SELECT 1 FROM unnest(choices) c WHERE c IS NULL OR btrim(c) = '')
       AND (SELECT count(DISTINCT lower(btrim(c))) FROM unnest(choices) c) = cardinality(choices)
$$;

CREATE TABLE players (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    username      text NOT NULL CHECK (username ~ '^[A-Za-z0-9_.-]{3,32}$'),
    -- Argon2id encoded hash (libsodium's crypto_pwhash_str); never a password.
    password_hash text NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
    created_at    timestamptz NOT NULL DEFAULT now()
);
-- Usernames are unique regardless of case: "Ada" and "ada" are one person.
CREATE UNIQUE INDEX players_username_unique ON players (lower(username));

CREATE TABLE sessions (
    -- SHA-256-sized generic hash of the 32-byte token; the token itself is never stored.
    token_hash bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    player_id  uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    CHECK (expires_at > created_at)
);
CREATE INDEX sessions_player ON sessions (player_id);

CREATE TABLE banks (
    id          serial PRIMARY KEY,
    slug        text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    title       text NOT NULL CHECK (btrim(title) <> ''),
    description text NOT NULL DEFAULT '',
    theme       text NOT NULL DEFAULT 'general',
    difficulty  text NOT NULL DEFAULT 'mixed' CHECK (difficulty IN ('easy', 'medium', 'hard', 'mixed')),
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE questions (
    id             bigserial PRIMARY KEY,
    bank_id        integer NOT NULL REFERENCES banks ON DELETE CASCADE,
    prompt         text NOT NULL CHECK (btrim(prompt) <> ''),
    choices        text[] NOT NULL CHECK (ops.choices_valid(choices)),
    correct_choice integer NOT NULL CHECK (correct_choice >= 0 AND correct_choice < cardinality(choices)),
    active         boolean NOT NULL DEFAULT true,
    source         text NOT NULL DEFAULT 'manual',
    -- A random key for drawing questions without sorting the whole bank
    -- (see the draw query in DuelStore): one index probe per question drawn.
    draw_key       double precision NOT NULL DEFAULT random(),
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX questions_draw ON questions (bank_id, draw_key) WHERE active;
CREATE INDEX questions_bank ON questions (bank_id);

-- One rating per player and bank (a student strong in chemistry may be weak in history).
CREATE TABLE ratings (
    player_id   uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    bank_id     integer NOT NULL REFERENCES banks ON DELETE CASCADE,
    rating      double precision NOT NULL DEFAULT 1500,
    deviation   double precision NOT NULL DEFAULT 350 CHECK (deviation > 0 AND deviation <= 350),
    volatility  double precision NOT NULL DEFAULT 0.06 CHECK (volatility > 0),
    games       integer NOT NULL DEFAULT 0 CHECK (games >= 0),
    wins        integer NOT NULL DEFAULT 0 CHECK (wins >= 0),
    losses      integer NOT NULL DEFAULT 0 CHECK (losses >= 0),
    draws       integer NOT NULL DEFAULT 0 CHECK (draws >= 0),
    total_score bigint NOT NULL DEFAULT 0 CHECK (total_score >= 0),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (player_id, bank_id),
    CHECK (games = wins + losses + draws)
);
CREATE INDEX ratings_leaderboard ON ratings (bank_id, rating DESC);

-- A player waits in at most one queue (the primary key).
CREATE TABLE match_queue (
    player_id   uuid PRIMARY KEY REFERENCES players ON DELETE CASCADE,
    bank_id     integer NOT NULL REFERENCES banks ON DELETE CASCADE,
    rating      double precision NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX match_queue_bank ON match_queue (bank_id, enqueued_at);

CREATE TABLE duels (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    bank_id       integer NOT NULL REFERENCES banks,
    player_a      uuid NOT NULL REFERENCES players,
    player_b      uuid NOT NULL REFERENCES players,
    state         text NOT NULL CHECK (state IN ('countdown', 'question', 'reveal', 'finished')),
    -- The rules engine's whole state (DuelCore.Duel), written under the row lock.
    engine        jsonb NOT NULL,
    last_seq      integer NOT NULL CHECK (last_seq >= 1),
    -- When the engine next needs to run (server clock, ms since 1970); null once finished.
    next_deadline_ms bigint,
    created_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz,
    winner        uuid REFERENCES players,
    finish_reason text CHECK (finish_reason IN ('completed', 'forfeit', 'abandoned')),
    CHECK (player_a <> player_b),
    CHECK ((state = 'finished') = (finished_at IS NOT NULL)),
    CHECK ((state = 'finished') = (finish_reason IS NOT NULL)),
    CHECK (state = 'finished' OR next_deadline_ms IS NOT NULL),
    CHECK (winner IS NULL OR winner IN (player_a, player_b))
);
CREATE INDEX duels_deadline ON duels (next_deadline_ms) WHERE state <> 'finished';
CREATE INDEX duels_player_a ON duels (player_a, created_at DESC);
CREATE INDEX duels_player_b ON duels (player_b, created_at DESC);

-- A player is in at most one live duel: a row here while it is live.
CREATE TABLE live_duel_players (
    player_id uuid PRIMARY KEY REFERENCES players ON DELETE CASCADE,
    duel_id   uuid NOT NULL REFERENCES duels ON DELETE CASCADE
);

-- The questions drawn for each duel, for statistics and the mistakes notebook.
CREATE TABLE duel_questions (
    duel_id        uuid NOT NULL REFERENCES duels ON DELETE CASCADE,
    question_index integer NOT NULL CHECK (question_index >= 0),
    question_id    bigint NOT NULL REFERENCES questions,
    PRIMARY KEY (duel_id, question_index),
    UNIQUE (duel_id, question_id)
);
CREATE INDEX duel_questions_question ON duel_questions (question_id);

-- Each player answers each question of a duel at most once.
CREATE TABLE duel_answers (
    duel_id        uuid NOT NULL,
    question_index integer NOT NULL,
    player_id      uuid NOT NULL REFERENCES players,
    choice         integer NOT NULL CHECK (choice >= 0),
    correct        boolean NOT NULL,
    points         integer NOT NULL CHECK (points >= 0 AND (correct OR points = 0)),
    elapsed_ms     integer NOT NULL CHECK (elapsed_ms >= 0),
    answered_at    timestamptz NOT NULL,
    PRIMARY KEY (duel_id, question_index, player_id),
    FOREIGN KEY (duel_id, question_index) REFERENCES duel_questions ON DELETE CASCADE
);
-- At most one correct answer per question of a duel: the first one wins (rule 4).
CREATE UNIQUE INDEX duel_answers_one_winner ON duel_answers (duel_id, question_index) WHERE correct;

-- The duel's change feed: every event, gap-free per duel, so resume works anywhere.
CREATE TABLE duel_events (
    duel_id    uuid NOT NULL REFERENCES duels ON DELETE CASCADE,
    seq        integer NOT NULL CHECK (seq >= 1),
    kind       text NOT NULL CHECK (kind IN ('init', 'question', 'answered', 'reveal', 'complete')),
    at_ms      bigint NOT NULL,
    -- The public duel record after this change (nothing secret: see DuelCore.DuelRecord).
    record     json NOT NULL,
    PRIMARY KEY (duel_id, seq)
);

-- One row per player and finished duel: ratings are applied exactly once (rule 9).
CREATE TABLE rating_history (
    duel_id           uuid NOT NULL REFERENCES duels ON DELETE CASCADE,
    player_id         uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    bank_id           integer NOT NULL REFERENCES banks ON DELETE CASCADE,
    outcome           text NOT NULL CHECK (outcome IN ('win', 'loss', 'draw')),
    score             integer NOT NULL,
    rating_before     double precision NOT NULL,
    rating_after      double precision NOT NULL,
    deviation_before  double precision NOT NULL,
    deviation_after   double precision NOT NULL,
    volatility_before double precision NOT NULL,
    volatility_after  double precision NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (duel_id, player_id)
);
CREATE INDEX rating_history_player ON rating_history (player_id, created_at DESC);

CREATE TABLE question_reports (
    id          bigserial PRIMARY KEY,
    question_id bigint NOT NULL REFERENCES questions ON DELETE CASCADE,
    player_id   uuid REFERENCES players ON DELETE SET NULL,
    reason      text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
    created_at  timestamptz NOT NULL DEFAULT now(),
    resolved_at timestamptz
);
CREATE INDEX question_reports_open ON question_reports (question_id) WHERE resolved_at IS NULL;
