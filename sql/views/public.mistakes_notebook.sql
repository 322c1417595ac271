-- The mistakes notebook: the misses practice has not taught since (is_learned: a question
-- answered right in two practice games after a miss is learned; a later miss shows again).
-- For operators: the server reads the notebook with the player's taught questions passed in
-- (LearnedQuestions), so its reads join nothing across shards. A LEFT JOIN (a player has one
-- practice row per question), not NOT EXISTS: Citus plans the misses apart and joins them to the
-- practice rows, where it refuses the correlated subquery (issue 24).
CREATE OR REPLACE VIEW mistakes_notebook AS
SELECT m.* FROM missed_questions m
  LEFT JOIN practice_progress p ON p.player_id = m.player_id AND p.question_id = m.question_id
 WHERE NOT coalesce(is_learned(p.learned_at, m.finished_at), false);
