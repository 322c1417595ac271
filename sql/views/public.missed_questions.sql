-- Every question a player missed: asked (opened before the game ended) and answered wrong or not
-- at all, in a finished game against others (practice draws from these; it does not add to
-- them), from every seat (rooms add seats 3 and 4), with what the player answered, of any type.
-- One line per miss. One branch per seat column so each uses its player index. The one definition
-- of a miss (docs/ARCHITECTURE.md).
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
