-- Everything a batch of finished games grants, in the transaction that finishes them: the facts
-- of the games that pay (one row per player and game), XP, the streak, weekly goals reached,
-- level-ups and achievements, each announced as a notification. Arrays: one element per player
-- and game (every player of a game, paid or not: the rules look at the others).
--
-- What a finished game pays is decided here (with the table progress_rules); the engine only
-- reports facts (GameFacts). The rules, stated in docs/PROTOCOL.md ("Progress"):
--   * a game pays a player (XP, a game counted, a streak day, goals, achievements) only when
--     they answered at least one question of it, right or wrong;
--   * a first place (and a win) counts only when another player was still in the game when its
--     first question opened: others leaving before any question give nothing; a recorded
--     opponent is no player (the engine counts no rival for it), so a recorded game pays as
--     practice does: its right answers, and the game played to its end;
--   * a game on one's own quiz pays its owner nothing: the owner knows every key;
--   * a streak day is counted once per real day whatever the time zone (streak_after), and the
--     zone can change once in 24 hours (the server's setTimeZone).
-- game_progress's primary key makes a second grant for the same game fail that transaction, as
-- rating_history does for ratings.
CREATE OR REPLACE FUNCTION record_progress(
    p_duels uuid[], p_players uuid[], p_banks integer[], p_modes text[], p_finished_ms bigint[],
    p_correct integer[], p_questions integer[], p_first boolean[], p_won boolean[], p_stayed boolean[],
    p_seats integer[], p_fastest bigint[], p_answered integer[], p_rivals integer[]
) RETURNS SETOF text LANGUAGE plpgsql
-- Its statements want generic plans, planned once per session: left to choose, the plan cache
-- kept re-planning the larger ones on every call (their custom plans looked cheaper), about 3 ms
-- a call; with the index-driven (LATERAL) statements the generic plans are the good ones, and a
-- call takes about 0.5 ms (bench/NOTES.md, item 22). The lanes, its only callers, set
-- plan_cache_mode = force_generic_plan for their sessions on plain Postgres; on Citus they do not,
-- since Citus plans each distributed statement with its parameters' values. So the setting is the
-- session's, not this function's (issue 24).
AS $$
DECLARE
    v_correct integer := (SELECT xp FROM progress_rules WHERE rule = 'correct_answer');
    v_first integer := (SELECT xp FROM progress_rules WHERE rule = 'first_place');
    v_practice integer := (SELECT xp FROM progress_rules WHERE rule = 'practice_finished');
    v_learned integer := (SELECT xp FROM progress_rules WHERE rule = 'mistake_learned');
    v_goal integer := (SELECT xp FROM progress_rules WHERE rule = 'goal_reached');
    v_players uuid[];
    v_player uuid;
    v_before bigint[];
    v_xp_before bigint;
    v_progress player_progress;
    v_had text[];
    v_codes text[];
    -- The achievements the games earned, granted together at the end (grant_achievements).
    v_grant_players uuid[] := '{}';
    v_grant_codes text[] := '{}';
    v_rating double precision;
    v_learned_now integer;
    v_question bigint;
    v_learned_at timestamptz;
    -- The notifications' payloads, returned for the server to deliver (not announced here).
    v_out text[] := '{}';
    r record;
    v_title level_titles;
BEGIN
    -- The facts of the games that pay, once per game and player (the primary key refuses a
    -- second grant), with the XP they give. The pay rules are the header's.
    INSERT INTO game_progress (duel_id, player_id, bank_id, mode, finished_at, correct, questions, first_place, won,
                               stayed, players, fastest_correct_ms, learned, xp)
    SELECT f.duel_id, f.player_id, f.bank_id, f.mode, to_timestamp(f.finished_ms / 1000.0), f.correct, f.questions,
           f.first_place AND f.rivals > 0, f.won AND f.rivals > 0, f.stayed, f.players, f.fastest, 0,
           f.correct * v_correct + (CASE WHEN f.first_place AND f.rivals > 0 THEN v_first ELSE 0 END)
           + (CASE WHEN f.mode IN ('practice', 'recorded') AND f.stayed THEN v_practice ELSE 0 END)
      FROM unnest(p_duels, p_players, p_banks, p_modes, p_finished_ms, p_correct, p_questions, p_first, p_won,
                  p_stayed, p_seats, p_fastest, p_answered, p_rivals)
           AS f(duel_id, player_id, bank_id, mode, finished_ms, correct, questions, first_place, won, stayed,
                players, fastest, answered, rivals)
     WHERE f.answered > 0
       AND NOT EXISTS (SELECT 1 FROM banks b WHERE b.id = f.bank_id AND b.owner_id = f.player_id);
    -- Practice games: the questions of the notebook they made learned (is_learned; countPractice
    -- ran just before, in this transaction, and set their learned_at to now()). A statement of
    -- its own, run only for them: planning the notebook's view took milliseconds, and inside the
    -- statement above it was planned again on every call (bench/NOTES.md, item 22).
    IF 'practice' = ANY (p_modes) THEN
        -- A practice game and a question at a time: on Citus the player's practice rows and the
        -- games of their misses live in different placements, which one statement cannot join.
        FOR r IN
            SELECT k.duel_id, k.player_id FROM unnest(p_duels, p_players, p_modes) AS k(duel_id, player_id, mode)
             WHERE k.mode = 'practice'
        LOOP
            v_learned_now := 0;
            FOR v_question, v_learned_at IN
                SELECT p.question_id, p.learned_at FROM practice_progress p
                 WHERE p.player_id = r.player_id AND p.last_duel = r.duel_id AND p.learned_at = now()
            LOOP
                IF EXISTS (SELECT 1 FROM missed_questions m
                            WHERE m.player_id = r.player_id AND m.question_id = v_question
                              AND is_learned(v_learned_at, m.finished_at)) THEN
                    v_learned_now := v_learned_now + 1;
                END IF;
            END LOOP;
            IF v_learned_now > 0 THEN
                UPDATE game_progress g SET learned = v_learned_now, xp = g.xp + v_learned_now * v_learned
                 WHERE g.duel_id = r.duel_id AND g.player_id = r.player_id;
            END IF;
        END LOOP;
    END IF;

    -- XP, games and the streak (streak_after). Per player: one UPDATE by primary key each. The
    -- batch's rows are found by LATERAL lookups, one index probe each: with joins on the arrays
    -- (and an UPDATE ... FROM), the cached generic plans hashed scans of whole tables on every
    -- call, and those tables grow with every game and player (bench/NOTES.md, item 22).
    v_players := '{}';
    v_before := '{}';
    FOR r IN
        SELECT b.player_id, sum(b.xp) AS xp, count(*) AS games, max(b.finished_at) AS at
          FROM unnest(p_duels, p_players) AS k(duel_id, player_id)
         CROSS JOIN LATERAL (SELECT * FROM game_progress g
                              WHERE g.duel_id = k.duel_id AND g.player_id = k.player_id) b
         GROUP BY b.player_id
    LOOP
        -- One upsert a player: a first game inserts the row with the game's figures (from the
        -- column defaults: no streak, zone UTC), a later one adds them. Postgres 15 builds a
        -- table's CHECKs for each statement that writes it (about 25 µs: bench/NOTES.md, item 36),
        -- and a first game took four statements here (a lookup, an INSERT of the defaults, this
        -- UPDATE and a read of the XP before), a later game three (item 48).
        INSERT INTO player_progress AS p (player_id, xp, games, current_streak, best_streak, streak_until, streak_day)
        VALUES (r.player_id, r.xp, r.games, streak_after(NULL, 0, r.at, 'UTC'), streak_after(NULL, 0, r.at, 'UTC'),
                streak_until_after(NULL, r.at, 'UTC'), player_day(r.at, 'UTC'))
        ON CONFLICT (player_id) DO UPDATE
           SET xp = p.xp + r.xp, games = p.games + r.games,
               current_streak = streak_after(p.streak_until, p.current_streak, r.at, p.time_zone),
               best_streak = greatest(p.best_streak, streak_after(p.streak_until, p.current_streak, r.at, p.time_zone)),
               streak_until = streak_until_after(p.streak_until, r.at, p.time_zone),
               streak_day = greatest(p.streak_day, player_day(r.at, p.time_zone))
        RETURNING p.xp - r.xp INTO v_xp_before;
        v_players := v_players || r.player_id;
        v_before := v_before || v_xp_before;
    END LOOP;

    -- Weekly goals of these players' current weeks that these games reached. A player at a time:
    -- on Citus each statement then locks rows of one shard (Citus refuses FOR UPDATE across shards).
    FOREACH v_player IN ARRAY v_players LOOP
    FOR r IN
        SELECT w.*, pp.time_zone FROM weekly_goals w JOIN player_progress pp ON pp.player_id = w.player_id
         WHERE w.player_id = v_player AND w.reached_at IS NULL
           AND w.week_start = date_trunc('week', pp.streak_day)::date
         FOR UPDATE OF w
    LOOP
        IF goal_reached(r.player_id, r.kind, r.bank_id, r.week_start, r.time_zone, r.target) THEN
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

    -- Achievements these games may have earned, from the facts that paid (first_place and won as
    -- counted above), judged a game at a time: on Citus the game's row, the player's progress and
    -- achievements sit on the player's shard, and a rival's rating (giant_slayer) on the rival's,
    -- which one statement could not join. They are granted together after the loop (each once:
    -- grant_achievements, which also skips one a player already holds).
    FOR r IN
        SELECT b.* FROM unnest(p_duels, p_players) AS k(duel_id, player_id)
         CROSS JOIN LATERAL (SELECT * FROM game_progress b
                              WHERE b.duel_id = k.duel_id AND b.player_id = k.player_id) b
    LOOP
        SELECT * INTO v_progress FROM player_progress p WHERE p.player_id = r.player_id;
        -- What the player held before this call: the conditions below are not even evaluated
        -- for it. One earned by an earlier game of this call is judged again and granted once
        -- (grant_achievements).
        SELECT coalesce(array_agg(pa.code), '{}') INTO v_had FROM player_achievements pa WHERE pa.player_id = r.player_id;
        v_codes := '{}';
        IF 'first_game' <> ALL (v_had) THEN v_codes := v_codes || 'first_game'::text; END IF;
        IF 'first_win' <> ALL (v_had) AND r.won THEN v_codes := v_codes || 'first_win'::text; END IF;
        IF 'perfect_game' <> ALL (v_had) AND r.stayed AND r.questions >= 5 AND r.correct = r.questions THEN
            v_codes := v_codes || 'perfect_game'::text;
        END IF;
        IF 'speedster' <> ALL (v_had) AND coalesce(r.fastest_correct_ms <= 1000, false) THEN
            v_codes := v_codes || 'speedster'::text;
        END IF;
        IF 'room_champion' <> ALL (v_had) AND r.mode = 'room' AND r.won AND r.players >= 3 THEN
            v_codes := v_codes || 'room_champion'::text;
        END IF;
        IF 'games_50' <> ALL (v_had) AND v_progress.games >= 50 THEN v_codes := v_codes || 'games_50'::text; END IF;
        IF 'streak_7' <> ALL (v_had) AND v_progress.current_streak >= 7 THEN v_codes := v_codes || 'streak_7'::text; END IF;
        IF 'level_10' <> ALL (v_had) AND level_of(v_progress.xp) >= 10 THEN v_codes := v_codes || 'level_10'::text; END IF;
        IF 'giant_slayer' <> ALL (v_had) AND r.mode = 'ranked' AND r.won THEN
            v_rating := (SELECT me.rating_before FROM rating_history me
                          WHERE me.duel_id = r.duel_id AND me.player_id = r.player_id);
            IF EXISTS (SELECT 1 FROM rating_history them
                        WHERE them.duel_id = r.duel_id AND them.player_id <> r.player_id
                          AND them.rating_before >= v_rating + 200) THEN
                v_codes := v_codes || 'giant_slayer'::text;
            END IF;
        END IF;
        IF 'ranked_streak_5' <> ALL (v_had) AND r.mode = 'ranked' AND r.won AND (
            SELECT count(*) = 5 AND bool_and(won) FROM (
                SELECT g.won FROM game_progress g WHERE g.player_id = r.player_id AND g.mode = 'ranked'
                 ORDER BY g.finished_at DESC LIMIT 5) last5) THEN
            v_codes := v_codes || 'ranked_streak_5'::text;
        END IF;
        IF 'bank_100' <> ALL (v_had) AND r.correct > 0 AND (
            SELECT sum(g.correct) >= 100 FROM game_progress g WHERE g.player_id = r.player_id AND g.bank_id = r.bank_id) THEN
            v_codes := v_codes || 'bank_100'::text;
        END IF;
        IF 'learned_20' <> ALL (v_had) AND r.learned > 0 AND (
            SELECT sum(g.learned) >= 20 FROM game_progress g WHERE g.player_id = r.player_id) THEN
            v_codes := v_codes || 'learned_20'::text;
        END IF;
        v_grant_players := v_grant_players || array_fill(r.player_id, ARRAY[cardinality(v_codes)]);
        v_grant_codes := v_grant_codes || v_codes;
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
            v_grant_players := v_grant_players || r.owner_id;
            v_grant_codes := v_grant_codes || 'quiz_played_10'::text;
        END IF;
    END LOOP;
    IF cardinality(v_grant_players) > 0 THEN
        v_out := v_out || grant_achievements(v_grant_players, v_grant_codes);
    END IF;
    RETURN QUERY SELECT p FROM unnest(v_out) AS p WHERE p IS NOT NULL;
END
$$;
