-- Rows of the tables a lane round writes that break the engine's rules: what CHECK constraints
-- and foreign keys said on them until migration 024 took them off the lane's write path (they
-- cost about 12 % of Postgres's CPU at human pace; the migration says why), and of a new duel's
-- drawn questions (migration 028). The engine (DuelCore)
-- is where these rules live and the server writes these rows only from its steps, so a healthy
-- database lists nothing here; the tests play every kind of game and expect that. One row per
-- broken rule: the table, the row's key as text and a name for the rule (the old constraint's
-- where that name said what it checked).
-- It reads the whole tables: an operator's check, not something to poll.
CREATE OR REPLACE VIEW ops.duel_anomalies AS
SELECT 'duels' AS table_name, d.id::text AS key, c.rule
  FROM duels d
  -- A finished duel's final record, which `history` shows: lane rounds store no other event of
  -- theirs (issue 25), so nothing else would notice it missing.
  LEFT JOIN duel_events f ON f.duel_id = d.id AND f.seq = d.last_seq
 CROSS JOIN LATERAL (VALUES
    ('final_record', d.state <> 'finished' OR f.kind IS NOT DISTINCT FROM 'complete'),
    ('two_players', d.player_a <> d.player_b),
    ('finished_at_iff_finished', (d.state = 'finished') = (d.finished_at IS NOT NULL)),
    ('finish_reason_iff_finished', (d.state = 'finished') = (d.finish_reason IS NOT NULL)),
    ('deadline_until_finished', d.state = 'finished' OR d.next_deadline_ms IS NOT NULL),
    ('winner_seated', d.winner IS NULL OR d.winner = d.player_a OR d.winner = d.player_b),
    ('finish_reason', d.finish_reason IN ('completed', 'forfeit', 'abandoned', 'ended')),
    ('inputs', d.inputs >= 0),
    ('last_seq', d.last_seq >= 1),
    ('mode', d.mode IN ('ranked', 'room', 'challenge', 'practice', 'recorded')),
    ('more_players', d.more_players IS NULL OR (d.mode = 'room' AND cardinality(d.more_players) BETWEEN 1 AND 2
        AND array_position(d.more_players, NULL) IS NULL AND NOT d.player_a = ANY (d.more_players)
        AND NOT d.player_b = ANY (d.more_players) AND d.more_players[1] IS DISTINCT FROM d.more_players[2])),
    ('practice_no_winner', d.mode <> 'practice' OR d.winner IS NULL),
    ('questions_opened', d.questions_opened >= 0),
    ('second_player', (d.mode IN ('practice', 'recorded')) = (d.player_b IS NULL)),
    ('state', d.state IN ('countdown', 'question', 'reveal', 'finished'))) AS c(rule, ok)
 WHERE NOT coalesce(c.ok, true)
UNION ALL
SELECT 'duel_inputs', i.duel_id::text || '/' || i.n, c.rule
  FROM duel_inputs i
 CROSS JOIN LATERAL (VALUES
    ('kind', i.kind IN ('answer', 'forfeit', 'advance', 'disconnected', 'reconnected', 'end', 'lag')),
    ('player_iff_player_input', (i.kind IN ('advance', 'end')) = (i.player_id IS NULL)),
    ('answer_has_one_submission', (i.kind = 'answer') = (i.question_index IS NOT NULL
        AND num_nonnulls(i.choice, i.choices, i.answer_text, i.answer_number) = 1)
        AND (i.kind = 'answer' OR num_nonnulls(i.choice, i.choices, i.answer_text, i.answer_number) = 0)),
    ('lag_iff_lag_input', (i.kind = 'lag') = (i.lag_ms IS NOT NULL)),
    ('lag_ms', i.lag_ms >= 0),
    ('n', i.n >= 1)) AS c(rule, ok)
 WHERE NOT coalesce(c.ok, true)
UNION ALL
SELECT 'duel_answers', a.duel_id::text || '/' || a.question_index || '/' || a.player_id, c.rule
  FROM duel_answers a
 CROSS JOIN LATERAL (VALUES
    ('answer_text', char_length(a.answer_text) <= 200),
    ('points', a.points >= 0 AND (a.correct OR a.points = 0)),
    ('choice', a.choice >= 0),
    ('elapsed_ms', a.elapsed_ms >= 0),
    ('one_kind', num_nonnulls(a.choice, a.choices, a.answer_text, a.answer_number) = 1),
    ('question_drawn', EXISTS (SELECT 1 FROM duel_questions q
                                WHERE q.duel_id = a.duel_id AND q.question_index = a.question_index)),
    ('player_known', EXISTS (SELECT 1 FROM players p WHERE p.id = a.player_id))) AS c(rule, ok)
 WHERE NOT coalesce(c.ok, true)
UNION ALL
-- Migration 028 took the keys and rules of a new duel's drawn questions off its creation. Joins
-- and a count per duel and question, not a lookup per row: ten rows a game add up.
SELECT 'duel_questions', q.duel_id::text || '/' || q.question_index, c.rule
  FROM (SELECT q.duel_id, q.question_index, d.id IS NOT NULL AS duel_known, k.id IS NOT NULL AS question_known,
               count(*) OVER (PARTITION BY q.duel_id, q.question_id) AS uses
          FROM duel_questions q
          LEFT JOIN duels d ON d.id = q.duel_id
          LEFT JOIN questions k ON k.id = q.question_id) q
 CROSS JOIN LATERAL (VALUES
    ('question_index', q.question_index >= 0),
    ('duel_known', q.duel_known),
    ('question_known', q.question_known),
    ('question_once', q.uses = 1)) AS c(rule, ok)
 WHERE NOT coalesce(c.ok, true)
UNION ALL
SELECT 'duel_events', e.duel_id::text || '/' || e.seq, c.rule
  FROM duel_events e
 CROSS JOIN LATERAL (VALUES
    ('kind', e.kind IN ('init', 'question', 'answered', 'reveal', 'complete')),
    ('seq', e.seq >= 1)) AS c(rule, ok)
 WHERE NOT coalesce(c.ok, true);
