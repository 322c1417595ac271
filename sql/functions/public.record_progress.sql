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
--   * a practice game's learned questions pay only for misses in games that paid the player
--     (else games left unanswered would supply misses to learn for free; a notebook practice
--     game is of one bank, so one's own quiz's misses are practised on it and pay nothing anyway);
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
    v_correct integer;
    v_first integer;
    v_practice integer;
    v_learned integer;
    v_goal integer;
    -- The players these games paid, each once in id order, with what the games gave them.
    v_players uuid[] := '{}';
    v_gained bigint[] := '{}';
    v_games integer[] := '{}';
    v_at timestamptz[] := '{}';
    -- Their XP before these games (in the order the update returned them).
    v_updated uuid[] := '{}';
    v_before bigint[] := '{}';
    v_player uuid;
    v_codes text[];
    -- The achievements the games earned, granted together at the end (grant_achievements).
    v_grant_players uuid[] := '{}';
    v_grant_codes text[] := '{}';
    -- Level-ups, notified together (notify_players).
    v_level_players uuid[] := '{}';
    v_level_data jsonb[] := '{}';
    -- What the rules read (see below): progress and held achievements by player, the history
    -- sums and the ranked winners who beat a rival rated 200 above them ('duel/player').
    v_progress jsonb;
    v_had jsonb;
    v_bank_totals jsonb;
    v_learned_totals jsonb := '{}';
    v_rated jsonb;
    v_slayers text[] := '{}';
    v_held jsonb;
    v_mine jsonb;
    v_xp bigint;
    v_learned_now integer;
    -- Players whose practice games of this batch made questions learned (learned_20's candidates).
    v_learners uuid[] := '{}';
    v_question bigint;
    v_learned_at timestamptz;
    v_missed_in uuid;
    -- The notifications' payloads, returned for the server to deliver (not announced here).
    v_out text[] := '{}';
    r record;
    v_title level_titles;
BEGIN
    SELECT max(xp) FILTER (WHERE rule = 'correct_answer'), max(xp) FILTER (WHERE rule = 'first_place'),
           max(xp) FILTER (WHERE rule = 'practice_finished'), max(xp) FILTER (WHERE rule = 'mistake_learned'),
           max(xp) FILTER (WHERE rule = 'goal_reached')
      INTO v_correct, v_first, v_practice, v_learned, v_goal
      FROM progress_rules
     -- By key: the callers' sessions refuse sequential scans (enable_seqscan = off), whose
     -- penalty in the cost then had Postgres compile the statement (JIT) on every call.
     WHERE rule IN ('correct_answer', 'first_place', 'practice_finished', 'mistake_learned', 'goal_reached');
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
    -- named the game in learned_duel, in this transaction or an earlier one). A statement of
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
                 WHERE p.player_id = r.player_id AND p.learned_duel = r.duel_id
            LOOP
                -- Only a miss in a game that paid the player counts: games left unanswered would
                -- otherwise be a free supply of misses to learn for XP (bench/NOTES.md, item 56). The notebook itself keeps every miss. The
                -- misses' games and the player's rows are on different shards on Citus, so
                -- game_progress is probed once for each miss instead of joined.
                FOR v_missed_in IN
                    SELECT m.duel_id FROM missed_questions m
                     WHERE m.player_id = r.player_id AND m.question_id = v_question
                       AND is_learned(v_learned_at, m.finished_at)
                LOOP
                    IF EXISTS (SELECT 1 FROM game_progress g WHERE g.duel_id = v_missed_in AND g.player_id = r.player_id) THEN
                        v_learned_now := v_learned_now + 1;
                        EXIT;
                    END IF;
                END LOOP;
            END LOOP;
            IF v_learned_now > 0 THEN
                UPDATE game_progress g SET learned = v_learned_now, xp = g.xp + v_learned_now * v_learned
                 WHERE g.duel_id = r.duel_id AND g.player_id = r.player_id;
                v_learners := v_learners || r.player_id;
            END IF;
        END LOOP;
    END IF;

    -- XP, games and the streak (streak_after), for every player of the batch at once: one
    -- statement for the batch, where one a player paid a statement's fixed cost for each
    -- (bench/NOTES.md, item 55). The batch's rows are found by LATERAL lookups, one index probe
    -- each: with joins on the arrays the cached generic plans hashed scans of whole tables on
    -- every call, and those tables grow with every game and player (bench/NOTES.md, item 22).
    FOR r IN
        SELECT b.player_id, sum(b.xp) AS xp, count(*)::integer AS games, max(b.finished_at) AS at
          FROM unnest(p_duels, p_players) AS k(duel_id, player_id)
         CROSS JOIN LATERAL (SELECT * FROM game_progress g
                              WHERE g.duel_id = k.duel_id AND g.player_id = k.player_id) b
         GROUP BY b.player_id
         ORDER BY b.player_id
    LOOP
        v_players := v_players || r.player_id;
        v_gained := v_gained || r.xp;
        v_games := v_games || r.games;
        v_at := v_at || r.at;
    END LOOP;
    -- A first game's row (the column defaults: no streak, zone UTC, which the update below
    -- then moves exactly as a later game's), then one update for all. Both take the rows in one
    -- order that depends only on the ids (the key's order; on Citus the shards' first), so two
    -- transactions that share players wait for each other rather than deadlock.
    INSERT INTO player_progress (player_id)
    SELECT u.player_id FROM unnest(v_players) AS u(player_id) ORDER BY u.player_id
    ON CONFLICT (player_id) DO NOTHING;
    FOR r IN
        UPDATE player_progress p
           SET xp = p.xp + u.xp, games = p.games + u.games,
               current_streak = streak_after(p.streak_until, p.current_streak, u.at, p.time_zone),
               best_streak = greatest(p.best_streak, streak_after(p.streak_until, p.current_streak, u.at, p.time_zone)),
               streak_until = streak_until_after(p.streak_until, u.at, p.time_zone),
               streak_day = greatest(p.streak_day, player_day(u.at, p.time_zone))
          FROM unnest(v_players, v_gained, v_games, v_at) AS u(player_id, xp, games, at)
         WHERE p.player_id = u.player_id AND p.player_id = ANY (v_players)
        RETURNING p.player_id, p.xp - u.xp AS before
    LOOP
        v_updated := v_updated || r.player_id;
        v_before := v_before || r.before;
    END LOOP;

    -- Weekly goals of the weeks these games finished in (in each player's zone) that they
    -- reached: not the week of streak_day, the player's latest day, which a change of zone or a
    -- game settled after a later one puts past the games' own week (bench/NOTES.md, item 56).
    -- Only the players with a goal still open are looked at, then a player at a time: on Citus
    -- each statement then locks rows of one shard (Citus refuses FOR UPDATE across shards).
    FOR v_player IN
        SELECT DISTINCT w.player_id FROM weekly_goals w
         WHERE w.player_id = ANY (v_players) AND w.reached_at IS NULL
         ORDER BY w.player_id
    LOOP
    FOR r IN
        SELECT w.*, pp.time_zone FROM weekly_goals w JOIN player_progress pp ON pp.player_id = w.player_id
         WHERE w.player_id = v_player AND w.reached_at IS NULL
           AND w.week_start IN (SELECT player_week(g.finished_at, pp.time_zone)
                                  FROM game_progress g WHERE g.player_id = v_player AND g.duel_id = ANY (p_duels))
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

    -- What the rules below read besides the games' rows, a statement per table for the whole
    -- batch rather than a few a row (each statement's fixed cost was most of this function's
    -- time: bench/NOTES.md, item 55): the players' progress after these games and goals, and
    -- the achievements they held before this batch's judging (a goal_reached granted above
    -- included; the conditions below are not even evaluated for those). Each reads one table by the players' ids: on Citus a join of two distributed
    -- tables through the arrays is refused, as is a LIMIT in a LATERAL subquery of them.
    SELECT coalesce(jsonb_object_agg(p.player_id, jsonb_build_array(p.xp, p.games, p.current_streak)), '{}')
      INTO v_progress
      FROM player_progress p WHERE p.player_id = ANY (v_players);
    SELECT coalesce(jsonb_object_agg(h.player_id, h.codes), '{}') INTO v_had
      FROM (SELECT pa.player_id, jsonb_agg(pa.code) AS codes FROM player_achievements pa
             WHERE pa.player_id = ANY (v_players) GROUP BY pa.player_id) h;

    -- Level-ups: one notification per player, for the level reached, stored together.
    FOR i IN 1 .. cardinality(v_updated) LOOP
        v_xp := (v_progress -> v_updated[i]::text ->> 0)::bigint;
        IF level_of(v_xp) > level_of(v_before[i]) THEN
            v_title := level_title(level_of(v_xp));
            v_level_players := v_level_players || v_updated[i];
            v_level_data := v_level_data || jsonb_build_object(
                'level', level_of(v_xp), 'title', v_title.title, 'color', v_title.color);
        END IF;
    END LOOP;
    v_out := v_out || notify_players(v_level_players, 'level_up', v_level_data);

    -- The history three achievements need, read for the batch's candidates alone (a player who
    -- holds one is not one of its candidates): right answers per player and bank (bank_100),
    -- mistakes learned per player (learned_20), and the ratings before the ranked games won
    -- (giant_slayer: a rival rated 200 or more above the winner, from the rival's row).
    SELECT coalesce(jsonb_object_agg(t.player_id::text || '/' || t.bank_id, t.total), '{}') INTO v_bank_totals
      FROM (SELECT g.player_id, g.bank_id, sum(g.correct) AS total FROM game_progress g
             WHERE g.player_id = ANY (ARRAY(SELECT k.player_id FROM unnest(p_players, p_correct) AS k(player_id, correct)
                                             WHERE k.correct > 0 AND NOT coalesce((v_had -> k.player_id::text) ? 'bank_100', false)))
               AND g.bank_id = ANY (p_banks)
               -- The index finds the players' games in the batch's banks; only the banks each
               -- of them played here are summed.
               AND g.player_id::text || '/' || g.bank_id = ANY (ARRAY(SELECT k.player_id::text || '/' || k.bank_id
                                                                      FROM unnest(p_players, p_banks) AS k(player_id, bank_id)))
             GROUP BY g.player_id, g.bank_id) t;
    IF cardinality(v_learners) > 0 THEN
        SELECT coalesce(jsonb_object_agg(t.player_id, t.total), '{}') INTO v_learned_totals
          FROM (SELECT g.player_id, sum(g.learned) AS total FROM game_progress g
                 WHERE g.player_id = ANY (ARRAY(SELECT k.player_id FROM unnest(v_learners) AS k(player_id)
                                                 WHERE NOT coalesce((v_had -> k.player_id::text) ? 'learned_20', false)))
                 GROUP BY g.player_id) t;
    END IF;
    IF 'ranked' = ANY (p_modes) THEN
        -- One aggregate of whole rows, so that a duel, a player and a rating stay together.
        SELECT coalesce(jsonb_agg(jsonb_build_array(h.duel_id, h.player_id, h.rating_before)), '[]') INTO v_rated
          FROM rating_history h
         WHERE h.duel_id = ANY (ARRAY(SELECT k.duel_id FROM unnest(p_duels, p_players, p_modes, p_won)
                                                        AS k(duel_id, player_id, mode, won)
                                       WHERE k.mode = 'ranked' AND k.won
                                         AND NOT coalesce((v_had -> k.player_id::text) ? 'giant_slayer', false)));
        SELECT coalesce(array_agg((me.entry ->> 0) || '/' || (me.entry ->> 1)), '{}') INTO v_slayers
          FROM jsonb_array_elements(v_rated) AS me(entry)
         WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(v_rated) AS them(entry)
                        WHERE them.entry ->> 0 = me.entry ->> 0 AND them.entry ->> 1 <> me.entry ->> 1
                          AND (them.entry ->> 2)::double precision >= (me.entry ->> 2)::double precision + 200);
    END IF;

    -- Achievements these games may have earned, from the facts that paid (first_place and won as
    -- counted above), judged a game at a time from the rows read above: only ranked_streak_5
    -- reads more, for its candidates alone (Citus refuses its LIMIT for a batch). They are
    -- granted together after the loop (each once: grant_achievements, which also skips one a
    -- player already holds); one earned by an earlier game of this call is judged again and
    -- granted once.
    FOR r IN
        SELECT b.* FROM unnest(p_duels, p_players) AS k(duel_id, player_id)
         CROSS JOIN LATERAL (SELECT * FROM game_progress b
                              WHERE b.duel_id = k.duel_id AND b.player_id = k.player_id) b
    LOOP
        v_held := coalesce(v_had -> r.player_id::text, '[]');
        v_mine := v_progress -> r.player_id::text;
        v_codes := '{}';
        IF NOT v_held ? 'first_game' THEN v_codes := v_codes || 'first_game'::text; END IF;
        IF NOT v_held ? 'first_win' AND r.won THEN v_codes := v_codes || 'first_win'::text; END IF;
        IF NOT v_held ? 'perfect_game' AND r.stayed AND r.questions >= 5 AND r.correct = r.questions THEN
            v_codes := v_codes || 'perfect_game'::text;
        END IF;
        IF NOT v_held ? 'speedster' AND coalesce(r.fastest_correct_ms <= 1000, false) THEN
            v_codes := v_codes || 'speedster'::text;
        END IF;
        IF NOT v_held ? 'room_champion' AND r.mode = 'room' AND r.won AND r.players >= 3 THEN
            v_codes := v_codes || 'room_champion'::text;
        END IF;
        IF NOT v_held ? 'games_50' AND (v_mine ->> 1)::integer >= 50 THEN v_codes := v_codes || 'games_50'::text; END IF;
        IF NOT v_held ? 'streak_7' AND (v_mine ->> 2)::integer >= 7 THEN v_codes := v_codes || 'streak_7'::text; END IF;
        IF NOT v_held ? 'level_10' AND level_of((v_mine ->> 0)::bigint) >= 10 THEN v_codes := v_codes || 'level_10'::text; END IF;
        IF NOT v_held ? 'giant_slayer' AND r.mode = 'ranked' AND r.won
           AND r.duel_id::text || '/' || r.player_id = ANY (v_slayers) THEN
            v_codes := v_codes || 'giant_slayer'::text;
        END IF;
        -- The run is the last five ranked results up to this game, from the ratings (written
        -- before this function in every path), each a win this function paid as one: a ranked
        -- loss without an answer has no game_progress row but still breaks the run, and a rated
        -- win that paid nothing (no answer, or no rival at the first question) does not extend
        -- it (bench/NOTES.md, item 56). A player's ranked games are rated in different
        -- transactions (one live game at a time), so created_at orders them; the id only makes
        -- the order total.
        IF NOT v_held ? 'ranked_streak_5' AND r.mode = 'ranked' AND r.won THEN
            IF (SELECT count(*) = 5 AND bool_and(h.outcome = 'win' AND coalesce(g.won, false)) FROM (
                    SELECT h.duel_id, h.outcome FROM rating_history h
                     WHERE h.player_id = r.player_id
                       AND h.created_at <= (SELECT t.created_at FROM rating_history t
                                             WHERE t.player_id = r.player_id AND t.duel_id = r.duel_id)
                     ORDER BY h.created_at DESC, h.duel_id DESC LIMIT 5) h
                  LEFT JOIN game_progress g ON g.player_id = r.player_id AND g.duel_id = h.duel_id) THEN
                v_codes := v_codes || 'ranked_streak_5'::text;
            END IF;
        END IF;
        IF NOT v_held ? 'bank_100' AND r.correct > 0
           AND coalesce((v_bank_totals ->> (r.player_id::text || '/' || r.bank_id))::bigint >= 100, false) THEN
            v_codes := v_codes || 'bank_100'::text;
        END IF;
        IF NOT v_held ? 'learned_20' AND r.learned > 0
           AND coalesce((v_learned_totals ->> r.player_id::text)::bigint >= 20, false) THEN
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
