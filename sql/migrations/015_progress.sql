-- Progress a student can see (issue 14): XP and levels, streaks, achievements, weekly goals and
-- notifications. Every grant happens in the transaction that finishes the game (record_progress,
-- called by the store with the finished games' facts), and game_progress's primary key makes a
-- second grant for the same game fail that transaction, as rating_history does for ratings.
-- The functions that grant, read and notify live in sql/functions; this migration holds their
-- tables.

-- The XP each fact is worth: the one table of rules.
CREATE TABLE progress_rules (
    rule        text PRIMARY KEY,
    xp          integer NOT NULL CHECK (xp >= 0),
    description text NOT NULL
);
INSERT INTO progress_rules VALUES
    ('correct_answer', 10, 'each question answered right, in any game'),
    ('first_place', 40, 'a win or a shared first place in a game of two or more'),
    ('practice_finished', 20, 'a practice game played to its end'),
    ('mistake_learned', 25, 'each question of the mistakes notebook a practice game made learned'),
    ('goal_reached', 100, 'a weekly goal reached');

-- Each range of levels has a title, a badge colour and a line for the start screen.
CREATE TABLE level_titles (
    from_level integer PRIMARY KEY CHECK (from_level >= 1),
    title      text NOT NULL,
    color      text NOT NULL CHECK (color ~ '^#[0-9a-f]{6}$'),
    line       text NOT NULL
);
INSERT INTO level_titles VALUES
    (1, 'Newcomer', '#6b7280', 'You''re just getting started.'),
    (3, 'Learner', '#2563eb', 'You''re finding your feet.'),
    (5, 'Scholar', '#059669', 'Knowledge is piling up.'),
    (10, 'Expert', '#d97706', 'People ask you for answers now.'),
    (20, 'Master', '#dc2626', 'Few questions still surprise you.'),
    (35, 'Grandmaster', '#7c3aed', 'A quiz legend in the making.'),
    (50, 'Legend', '#111827', 'There is no quiz you fear.');

-- Each player's progress. `time_zone`: an IANA name the player sent (auth, profile_update);
-- streak days are counted in it.
CREATE TABLE player_progress (
    player_id          uuid PRIMARY KEY REFERENCES players ON DELETE CASCADE,
    xp                 bigint NOT NULL DEFAULT 0 CHECK (xp >= 0),
    games              integer NOT NULL DEFAULT 0 CHECK (games >= 0),
    time_zone          text NOT NULL DEFAULT 'UTC',
    -- The last day (in the player's time zone) on which they completed a game.
    streak_day         date,
    current_streak     integer NOT NULL DEFAULT 0 CHECK (current_streak >= 0),
    best_streak        integer NOT NULL DEFAULT 0 CHECK (best_streak >= current_streak),
    -- Notifications up to this id are seen (notifications_seen).
    notifications_seen bigint NOT NULL DEFAULT 0
);

-- One row per player and finished game: its facts and the XP they gave.
CREATE TABLE game_progress (
    duel_id            uuid NOT NULL,
    player_id          uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    bank_id            integer NOT NULL,
    mode               text NOT NULL,
    finished_at        timestamptz NOT NULL,
    correct            integer NOT NULL CHECK (correct >= 0),
    questions          integer NOT NULL CHECK (questions >= correct),
    first_place        boolean NOT NULL,
    won                boolean NOT NULL,
    stayed             boolean NOT NULL,
    players            integer NOT NULL CHECK (players BETWEEN 1 AND 4),
    fastest_correct_ms bigint,
    learned            integer NOT NULL DEFAULT 0 CHECK (learned >= 0),
    xp                 integer NOT NULL CHECK (xp >= 0),
    PRIMARY KEY (duel_id, player_id)
);
CREATE INDEX game_progress_player ON game_progress (player_id, finished_at);
CREATE INDEX game_progress_bank ON game_progress (bank_id, player_id);

-- Achievements: one table of definitions operators can read; each granted once, with its time.
CREATE TABLE achievements (
    code        text PRIMARY KEY,
    title       text NOT NULL,
    description text NOT NULL,
    sort        integer NOT NULL UNIQUE
);
INSERT INTO achievements VALUES
    ('first_game', 'First steps', 'Finish your first game.', 1),
    ('first_win', 'First win', 'Win a game against others.', 2),
    ('perfect_game', 'Perfect game', 'Answer every question right in a game of five or more.', 3),
    ('speedster', 'Quick draw', 'Answer right within one second of a question opening.', 4),
    ('ranked_streak_5', 'On a roll', 'Win 5 ranked duels in a row.', 5),
    ('giant_slayer', 'Giant slayer', 'Beat a player rated 200 or more above you in a ranked duel.', 6),
    ('room_champion', 'Room champion', 'Win a room game of three or four players.', 7),
    ('games_50', 'Regular', 'Finish 50 games.', 8),
    ('bank_100', 'Specialist', 'Answer 100 questions right in one bank.', 9),
    ('learned_20', 'Learner of mistakes', 'Learn 20 questions of your mistakes notebook.', 10),
    ('streak_7', 'Week of learning', 'Play on 7 days in a row.', 11),
    ('level_10', 'Expert', 'Reach level 10.', 12),
    ('goal_reached', 'Goal getter', 'Reach a weekly goal.', 13),
    ('quiz_author', 'Author', 'Publish a quiz of your own.', 14),
    ('quiz_played_10', 'Crowd pleaser', 'Have a quiz you made played by 10 other players.', 15);
CREATE TABLE player_achievements (
    player_id  uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    code       text NOT NULL REFERENCES achievements,
    granted_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (player_id, code)
);

-- Weekly goals: one per player, week, kind and bank (no bank: any). Weeks start on Monday in
-- the player's time zone.
CREATE TABLE weekly_goals (
    player_id  uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    week_start date NOT NULL CHECK (extract(isodow FROM week_start) = 1),
    kind       text NOT NULL CHECK (kind IN ('wins', 'games', 'correct_answers', 'mistakes_learned')),
    bank_id    integer REFERENCES banks ON DELETE CASCADE,
    target     integer NOT NULL CHECK (target BETWEEN 1 AND 10000),
    set_at     timestamptz NOT NULL DEFAULT now(),
    reached_at timestamptz
);
CREATE UNIQUE INDEX weekly_goals_one ON weekly_goals (player_id, week_start, kind, coalesce(bank_id, 0));

-- Notifications, kept per player and sent live as `notification` events.
CREATE TABLE notifications (
    id         bigserial PRIMARY KEY,
    player_id  uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    kind       text NOT NULL CHECK (kind IN ('challenge_received', 'challenge_expired', 'achievement', 'level_up',
                                             'goal_reached', 'report_resolved', 'quiz_unpublished', 'quiz_promoted')),
    data       jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX notifications_player ON notifications (player_id, id DESC);
CREATE INDEX notifications_age ON notifications (created_at);

-- Privileges: operators read the rules and definitions. The functions (record_progress,
-- notify_player, progress_json, the level curve...) live in sql/functions, and sql/grants.sql gives
-- them to the server.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_operator') THEN
        GRANT SELECT ON progress_rules, level_titles, achievements TO quizduel_operator;
    END IF;
END
$$;
