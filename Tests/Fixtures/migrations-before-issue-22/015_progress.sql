-- Progress a student can see (issue 14): XP and levels, streaks, achievements, weekly goals and
-- notifications. Every grant happens in the transaction that finishes the game (record_progress,
-- called by the store with the finished games' facts), and game_progress's primary key makes a
-- second grant for the same game fail that transaction, as rating_history does for ratings.

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

-- Levels, without end: reaching level L takes 50 × L × (L − 1) XP in all, so each level takes
-- 100 XP more than the one before (level 2 at 100 XP, 3 at 300, 5 at 1,000, 10 at 4,500).
CREATE FUNCTION level_xp(p_level integer) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT 50::bigint * p_level * (p_level - 1)
$$;
CREATE FUNCTION level_of(p_xp bigint) RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_level integer := greatest(1, floor((1 + sqrt(1 + 0.08 * greatest(p_xp, 0))) / 2)::integer);
BEGIN
    -- The square root's rounding, mended: the level is the highest one reached.
    WHILE level_xp(v_level + 1) <= p_xp LOOP v_level := v_level + 1; END LOOP;
    WHILE v_level > 1 AND level_xp(v_level) > p_xp LOOP v_level := v_level - 1; END LOOP;
    RETURN v_level;
END
$$;

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
CREATE FUNCTION level_title(p_level integer) RETURNS level_titles LANGUAGE sql STABLE AS $$
    SELECT * FROM level_titles WHERE from_level <= p_level ORDER BY from_level DESC LIMIT 1
$$;

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

-- The notification record as clients see it.
CREATE FUNCTION notification_json(n notifications) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object('id', n.id, 'kind', n.kind, 'data', n.data,
                              'created_at', to_char(n.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
$$;

-- Stores a notification and returns its `player_events` payload (the player id, a line break,
-- the event's text). With p_announce it is also announced at commit (delivered by every
-- instance holding the player, as room and challenge events are); games' notifications are not:
-- a NOTIFY in the lanes' transactions would queue every commit on Postgres's notify lock, so the
-- server delivers those itself (bench/NOTES.md, item 22).
CREATE FUNCTION notify_player(p_player uuid, p_kind text, p_data jsonb, p_announce boolean DEFAULT true) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_row notifications;
    v_payload text;
BEGIN
    INSERT INTO notifications (player_id, kind, data) VALUES (p_player, p_kind, p_data) RETURNING * INTO v_row;
    v_payload := p_player::text || E'\n' || jsonb_build_object(
        'op', 'event', 'event', 'notification', 'table', 'notifications', 'type', 'INSERT',
        'commit_timestamp', to_char(v_row.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'server_time_ms', (extract(epoch FROM clock_timestamp()) * 1000)::bigint,
        'record', notification_json(v_row))::text;
    IF p_announce THEN PERFORM pg_notify('player_events', v_payload); END IF;
    RETURN v_payload;
END
$$;

-- Grants an achievement once and notifies the player the first time: returns the notification's
-- payload (see notify_player), or NULL when it was already theirs.
CREATE FUNCTION grant_achievement(p_player uuid, p_code text, p_announce boolean DEFAULT true) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_title text;
BEGIN
    INSERT INTO player_achievements (player_id, code) VALUES (p_player, p_code) ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN RETURN NULL; END IF;
    SELECT title INTO v_title FROM achievements WHERE code = p_code;
    RETURN notify_player(p_player, 'achievement', jsonb_build_object('code', p_code, 'title', v_title), p_announce);
END
$$;

-- The day a moment falls on for a player, and the Monday of its week.
CREATE FUNCTION player_day(p_at timestamptz, p_zone text) RETURNS date LANGUAGE sql IMMUTABLE AS $$
    SELECT (p_at AT TIME ZONE p_zone)::date
$$;

-- The streak after a game on `p_day`, the last counted day being `p_last` with `p_streak`.
CREATE FUNCTION next_streak(p_last date, p_streak integer, p_day date) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
        WHEN p_last IS NULL THEN 1
        -- The same day, or a game stamped before the last counted one: no change.
        WHEN p_day <= p_last THEN greatest(p_streak, 1)
        WHEN p_day = p_last + 1 THEN p_streak + 1
        ELSE 1 END
$$;

-- Progress towards a weekly goal (games that finished in the week, in the player's time zone).
CREATE FUNCTION goal_progress(p_player uuid, p_kind text, p_bank integer, p_week date, p_zone text)
RETURNS integer LANGUAGE sql STABLE AS $$
    SELECT coalesce(CASE p_kind
        WHEN 'wins' THEN count(*) FILTER (WHERE g.first_place AND g.players >= 2)
        WHEN 'games' THEN count(*)
        WHEN 'correct_answers' THEN sum(g.correct)
        WHEN 'mistakes_learned' THEN sum(g.learned)
        END, 0)::integer
      FROM game_progress g
     WHERE g.player_id = p_player AND (p_bank IS NULL OR g.bank_id = p_bank)
       AND g.finished_at >= (p_week::timestamp AT TIME ZONE p_zone)
       AND g.finished_at < ((p_week + 7)::timestamp AT TIME ZONE p_zone)
$$;

-- Everything a batch of finished games grants, in the transaction that finishes them: the facts
-- (one row per player and game), XP, the streak day, weekly goals reached, level-ups and
-- achievements, each announced as a notification. Arrays: one element per player and game.
CREATE FUNCTION record_progress(
    p_duels uuid[], p_players uuid[], p_banks integer[], p_modes text[], p_finished_ms bigint[],
    p_correct integer[], p_questions integer[], p_first boolean[], p_won boolean[], p_stayed boolean[],
    p_seats integer[], p_fastest bigint[]
) RETURNS SETOF text LANGUAGE plpgsql
-- Generic plans, planned once per session: left to choose, the plan cache kept re-planning the
-- larger statements on every call (their custom plans looked cheaper), which cost about 3 ms a
-- call; with the index-driven (LATERAL) statements the generic plans are the good ones, and a
-- call takes about 0.5 ms (bench/NOTES.md, item 22).
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_correct integer := (SELECT xp FROM progress_rules WHERE rule = 'correct_answer');
    v_first integer := (SELECT xp FROM progress_rules WHERE rule = 'first_place');
    v_practice integer := (SELECT xp FROM progress_rules WHERE rule = 'practice_finished');
    v_learned integer := (SELECT xp FROM progress_rules WHERE rule = 'mistake_learned');
    v_goal integer := (SELECT xp FROM progress_rules WHERE rule = 'goal_reached');
    v_players uuid[];
    v_before bigint[];
    -- The notifications' payloads, returned for the server to deliver (not announced here).
    v_out text[] := '{}';
    r record;
    v_title level_titles;
BEGIN
    -- The facts, once per game and player (the primary key refuses a second grant), with the
    -- XP they give.
    INSERT INTO game_progress (duel_id, player_id, bank_id, mode, finished_at, correct, questions, first_place, won,
                               stayed, players, fastest_correct_ms, learned, xp)
    SELECT f.duel_id, f.player_id, f.bank_id, f.mode, to_timestamp(f.finished_ms / 1000.0), f.correct, f.questions,
           f.first_place, f.won, f.stayed, f.players, f.fastest, 0,
           f.correct * v_correct + (CASE WHEN f.first_place THEN v_first ELSE 0 END)
           + (CASE WHEN f.mode = 'practice' AND f.stayed THEN v_practice ELSE 0 END)
      FROM unnest(p_duels, p_players, p_banks, p_modes, p_finished_ms, p_correct, p_questions, p_first, p_won,
                  p_stayed, p_seats, p_fastest)
           AS f(duel_id, player_id, bank_id, mode, finished_ms, correct, questions, first_place, won, stayed,
                players, fastest);
    -- Practice games: the questions of the notebook they made learned (countPractice ran just
    -- before, in this transaction). A statement of its own, run only for them: planning the
    -- notebook's view took milliseconds, and inside the statement above it was planned again
    -- on every call (bench/NOTES.md, item 22).
    IF 'practice' = ANY (p_modes) THEN
        UPDATE game_progress g
           SET learned = l.n, xp = g.xp + l.n * v_learned
          FROM (SELECT k.duel_id, k.player_id, (
                    SELECT count(*) FROM practice_progress p
                     WHERE p.player_id = k.player_id AND p.last_duel = k.duel_id AND p.learned_at = now()
                       AND EXISTS (SELECT 1 FROM missed_questions m
                                    WHERE m.player_id = p.player_id AND m.question_id = p.question_id)) AS n
                  FROM unnest(p_duels, p_players, p_modes) AS k(duel_id, player_id, mode)
                 WHERE k.mode = 'practice') l
         WHERE g.duel_id = l.duel_id AND g.player_id = l.player_id AND l.n > 0;
    END IF;

    -- XP, games and the streak day, counted in the player's time zone.
    INSERT INTO player_progress (player_id) SELECT DISTINCT unnest(p_players) ON CONFLICT DO NOTHING;
    -- Per player: one UPDATE by primary key each. The batch's rows are found by LATERAL
    -- lookups, one index probe each: with joins on the arrays (and an UPDATE ... FROM), the
    -- cached generic plans hashed scans of whole tables on every call, and those tables grow
    -- with every game and player (bench/NOTES.md, item 22).
    v_players := '{}';
    v_before := '{}';
    FOR r IN
        SELECT b.player_id, sum(b.xp) AS xp, count(*) AS games, max(player_day(b.finished_at, pp.time_zone)) AS day
          FROM unnest(p_duels, p_players) AS k(duel_id, player_id)
         CROSS JOIN LATERAL (SELECT * FROM game_progress g
                              WHERE g.duel_id = k.duel_id AND g.player_id = k.player_id) b
         CROSS JOIN LATERAL (SELECT time_zone FROM player_progress pp WHERE pp.player_id = b.player_id) pp
         GROUP BY b.player_id
    LOOP
        UPDATE player_progress p
           SET xp = p.xp + r.xp, games = p.games + r.games,
               current_streak = next_streak(p.streak_day, p.current_streak, r.day),
               best_streak = greatest(p.best_streak, next_streak(p.streak_day, p.current_streak, r.day)),
               streak_day = greatest(p.streak_day, r.day)
         WHERE p.player_id = r.player_id;
        v_players := v_players || r.player_id;
        v_before := v_before || (SELECT xp - r.xp FROM player_progress WHERE player_id = r.player_id);
    END LOOP;

    -- Weekly goals of these players' current weeks that these games reached.
    FOR r IN
        SELECT w.*, pp.time_zone FROM weekly_goals w JOIN player_progress pp ON pp.player_id = w.player_id
         WHERE w.player_id = ANY (v_players) AND w.reached_at IS NULL
           AND w.week_start = date_trunc('week', pp.streak_day)::date
         FOR UPDATE OF w
    LOOP
        IF goal_progress(r.player_id, r.kind, r.bank_id, r.week_start, r.time_zone) >= r.target THEN
            UPDATE weekly_goals SET reached_at = now()
             WHERE player_id = r.player_id AND week_start = r.week_start AND kind = r.kind
               AND coalesce(bank_id, 0) = coalesce(r.bank_id, 0);
            UPDATE player_progress SET xp = xp + v_goal WHERE player_id = r.player_id;
            v_out := v_out || notify_player(r.player_id, 'goal_reached', jsonb_build_object(
                'kind', r.kind, 'bank', (SELECT slug FROM banks WHERE id = r.bank_id), 'target', r.target, 'xp', v_goal),
                false);
            v_out := v_out || grant_achievement(r.player_id, 'goal_reached', false);
        END IF;
    END LOOP;

    -- Level-ups: one notification per player, for the level reached.
    FOR r IN
        SELECT k.player_id, k.before, p.xp AS after
          FROM unnest(v_players, v_before) AS k(player_id, before)
         CROSS JOIN LATERAL (SELECT xp FROM player_progress p WHERE p.player_id = k.player_id) p
    LOOP
        IF level_of(r.after) > level_of(r.before) THEN
            v_title := level_title(level_of(r.after));
            v_out := v_out || notify_player(r.player_id, 'level_up', jsonb_build_object(
                'level', level_of(r.after), 'title', v_title.title, 'color', v_title.color), false);
        END IF;
    END LOOP;

    -- Achievements these games may have earned (each granted once: grant_achievement).
    FOR r IN
        SELECT DISTINCT b.player_id, a.code
          FROM unnest(p_duels, p_players) AS k(duel_id, player_id)
         CROSS JOIN LATERAL (SELECT * FROM game_progress b
                              WHERE b.duel_id = k.duel_id AND b.player_id = k.player_id) b
         CROSS JOIN LATERAL (SELECT * FROM player_progress p WHERE p.player_id = b.player_id) p
          -- What the player already has: the conditions below are not even evaluated for it.
          CROSS JOIN LATERAL (SELECT coalesce(array_agg(pa.code), '{}') AS had
                                FROM player_achievements pa WHERE pa.player_id = b.player_id) h
          CROSS JOIN LATERAL (VALUES
              ('first_game', CASE WHEN 'first_game' <> ALL (h.had) THEN true END),
              ('first_win', CASE WHEN 'first_win' <> ALL (h.had) THEN b.won END),
              ('perfect_game', CASE WHEN 'perfect_game' <> ALL (h.had) THEN b.stayed AND b.questions >= 5 AND b.correct = b.questions END),
              ('speedster', CASE WHEN 'speedster' <> ALL (h.had) THEN coalesce(b.fastest_correct_ms <= 1000, false) END),
              ('room_champion', CASE WHEN 'room_champion' <> ALL (h.had) THEN b.mode = 'room' AND b.won AND b.players >= 3 END),
              ('games_50', CASE WHEN 'games_50' <> ALL (h.had) THEN p.games >= 50 END),
              ('streak_7', CASE WHEN 'streak_7' <> ALL (h.had) THEN p.current_streak >= 7 END),
              ('level_10', CASE WHEN 'level_10' <> ALL (h.had) THEN level_of(p.xp) >= 10 END),
              ('giant_slayer', CASE WHEN 'giant_slayer' <> ALL (h.had) THEN b.mode = 'ranked' AND b.won AND EXISTS (
                  SELECT 1 FROM rating_history me JOIN rating_history them
                    ON them.duel_id = me.duel_id AND them.player_id <> me.player_id
                   WHERE me.duel_id = b.duel_id AND me.player_id = b.player_id
                     AND them.rating_before >= me.rating_before + 200) END),
              ('ranked_streak_5', CASE WHEN 'ranked_streak_5' <> ALL (h.had) THEN b.mode = 'ranked' AND b.won AND (
                  SELECT count(*) = 5 AND bool_and(won) FROM (
                      SELECT g.won FROM game_progress g WHERE g.player_id = b.player_id AND g.mode = 'ranked'
                       ORDER BY g.finished_at DESC LIMIT 5) last5) END),
              ('bank_100', CASE WHEN 'bank_100' <> ALL (h.had) THEN b.correct > 0 AND (
                  SELECT sum(g.correct) >= 100 FROM game_progress g
                   WHERE g.player_id = b.player_id AND g.bank_id = b.bank_id) END),
              ('learned_20', CASE WHEN 'learned_20' <> ALL (h.had) THEN b.learned > 0 AND (
                  SELECT sum(g.learned) >= 20 FROM game_progress g WHERE g.player_id = b.player_id) END)
          ) AS a(code, earned)
         WHERE a.earned
    LOOP
        v_out := v_out || grant_achievement(r.player_id, r.code, false);
    END LOOP;

    -- A quiz played by 10 other players: its owner's, whoever played it last. Only players'
    -- quizzes are counted, and only until the owner has it: counting an operator's bank's
    -- players on every completion grew with the bank's history (bench/NOTES.md, item 22).
    FOR r IN
        SELECT DISTINCT bk.id, bk.owner_id FROM banks bk WHERE bk.id = ANY (p_banks) AND bk.owner_id IS NOT NULL
    LOOP
        IF NOT EXISTS (SELECT 1 FROM player_achievements pa WHERE pa.player_id = r.owner_id AND pa.code = 'quiz_played_10')
           AND (SELECT count(DISTINCT g.player_id) FROM game_progress g
                 WHERE g.bank_id = r.id AND g.player_id <> r.owner_id) >= 10 THEN
            v_out := v_out || grant_achievement(r.owner_id, 'quiz_played_10', false);
        END IF;
    END LOOP;
    RETURN QUERY SELECT p FROM unnest(v_out) AS p WHERE p IS NOT NULL;
END
$$;

-- A player's progress as `player` objects show it, `p_now` being the server's clock (the
-- streak shows 0 once a day without a game has passed).
CREATE FUNCTION progress_json(p_player uuid, p_now timestamptz DEFAULT now()) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object(
        'xp', coalesce(p.xp, 0), 'level', level_of(coalesce(p.xp, 0)),
        'level_title', t.title, 'level_color', t.color, 'level_line', t.line,
        'level_xp', level_xp(level_of(coalesce(p.xp, 0))), 'next_level_xp', level_xp(level_of(coalesce(p.xp, 0)) + 1),
        'streak', jsonb_build_object(
            'current', CASE WHEN p.streak_day >= player_day(p_now, p.time_zone) - 1 THEN p.current_streak ELSE 0 END,
            'best', coalesce(p.best_streak, 0)),
        'time_zone', coalesce(p.time_zone, 'UTC'))
      FROM (SELECT p_player AS id) x
      LEFT JOIN player_progress p ON p.player_id = x.id
      CROSS JOIN LATERAL level_title(level_of(coalesce(p.xp, 0))) t
$$;

-- Notifications older than the retention are pruned (the server's upkeep calls this).
CREATE FUNCTION ops.prune_notifications(p_keep interval DEFAULT interval '90 days') RETURNS integer
LANGUAGE sql AS $$
    WITH gone AS (DELETE FROM notifications WHERE created_at < now() - p_keep RETURNING 1)
    SELECT count(*)::integer FROM gone
$$;

-- Operators' actions on a player's quiz notify its owner.
CREATE OR REPLACE FUNCTION ops.unpublish_quiz(p_slug text, p_reason text) RETURNS void LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp AS $$
DECLARE
    v_id integer := ops.quiz_id(p_slug);
    v_bank banks;
BEGIN
    IF p_reason IS NULL OR btrim(p_reason) = '' THEN
        RAISE EXCEPTION 'a reason is required' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE banks SET published_at = NULL, matchmaking = false, unpublished_reason = btrim(p_reason), updated_at = now()
     WHERE id = v_id RETURNING * INTO v_bank;
    UPDATE question_reports r SET resolved_at = now()
     WHERE r.resolved_at IS NULL
       AND (r.bank_id = v_id OR r.question_id IN (SELECT id FROM questions WHERE bank_id = v_id));
    INSERT INTO ops.audit (action, subject, detail)
    VALUES ('unpublish_quiz', p_slug, jsonb_build_object('reason', btrim(p_reason)));
    PERFORM notify_player(v_bank.owner_id, 'quiz_unpublished',
                          jsonb_build_object('quiz', p_slug, 'title', v_bank.title, 'reason', btrim(p_reason)));
END
$$;

CREATE OR REPLACE FUNCTION ops.promote_quiz(p_slug text) RETURNS void LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp AS $$
DECLARE
    v_id integer := ops.quiz_id(p_slug);
    v_bank banks;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM banks WHERE id = v_id AND published_at IS NOT NULL AND retired_at IS NULL) THEN
        RAISE EXCEPTION 'quiz "%" is not published', p_slug USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE banks SET matchmaking = true WHERE id = v_id RETURNING * INTO v_bank;
    INSERT INTO ops.audit (action, subject, detail) VALUES ('promote_quiz', p_slug, '{}');
    PERFORM notify_player(v_bank.owner_id, 'quiz_promoted', jsonb_build_object('quiz', p_slug, 'title', v_bank.title));
END
$$;

-- A resolved report about a player's quiz (or one of its questions) tells the quiz's owner.
CREATE OR REPLACE FUNCTION ops.resolve_report(p_report bigint) RETURNS void LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, public, ops, pg_temp AS $$
DECLARE
    v_bank banks;
BEGIN
    UPDATE question_reports SET resolved_at = now() WHERE id = p_report AND resolved_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no open report %', p_report USING ERRCODE = 'no_data_found';
    END IF;
    SELECT b.* INTO v_bank FROM question_reports r LEFT JOIN questions q ON q.id = r.question_id
      JOIN banks b ON b.id = coalesce(r.bank_id, q.bank_id) WHERE r.id = p_report;
    IF v_bank.owner_id IS NOT NULL THEN
        PERFORM notify_player(v_bank.owner_id, 'report_resolved',
                              jsonb_build_object('quiz', v_bank.slug, 'title', v_bank.title));
    END IF;
END
$$;

-- Privileges. Operators' functions that notify a quiz's owner run with the owner's rights
-- (SECURITY DEFINER above): operators do not touch players' rows themselves.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_operator') THEN
        GRANT SELECT ON progress_rules, level_titles, achievements TO quizduel_operator;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_server') THEN
        GRANT EXECUTE ON FUNCTION level_xp(integer), level_of(bigint), level_title(integer), notification_json(notifications),
            notify_player(uuid, text, jsonb, boolean), grant_achievement(uuid, text, boolean), player_day(timestamptz, text),
            next_streak(date, integer, date), goal_progress(uuid, text, integer, date, text),
            record_progress(uuid[], uuid[], integer[], text[], bigint[], integer[], integer[], boolean[], boolean[],
                            boolean[], integer[], bigint[]),
            progress_json(uuid, timestamptz), ops.prune_notifications(interval) TO quizduel_server;
    END IF;
END
$$;
