-- The mistakes notebook: the misses practice has not taught since (is_learned: a question
-- answered right in two practice games after a miss is learned; a later miss shows again).
-- For operators on plain Postgres: the server reads the notebook with the player's taught
-- questions passed in (LearnedQuestions), since Citus refuses this view's join.
CREATE OR REPLACE VIEW mistakes_notebook AS
SELECT m.* FROM missed_questions m
 WHERE NOT EXISTS (SELECT 1 FROM practice_progress p
                    WHERE p.player_id = m.player_id AND p.question_id = m.question_id
                      AND is_learned(p.learned_at, m.finished_at));
