-- Per active or asked question: its type and key as text, answers and the share correct, and the
-- point-biserial correlation between answering correctly and the answerer's rating before the
-- duel (Pearson's r of a 0/1 variable with a continuous one; rated answers only). A good question
-- is answered correctly more often by stronger players (r > 0). r clearly below 0 on enough
-- answers suggests a wrong answer key: `suspect_key` is set at r <= -0.2 with 20 or more answers.
-- The commonest wrong answer, for a text question, is often an answer the key should accept.
-- Aggregates of ops.question_answers joined by question, as ops.question_stats (which says why).
CREATE OR REPLACE VIEW ops.question_quality AS
SELECT q.id AS question_id, b.slug AS bank, q.prompt, q.active, q.correct_choice,
       coalesce(s.answers, 0) AS answers, round(s.share_correct::numeric, 3) AS share_correct,
       round(s.r::numeric, 3) AS rating_correlation,
       coalesce(s.answers >= 20 AND s.r <= -0.2, false) AS suspect_key,
       q.type, ops.question_key(q.type, q.correct_choice, q.correct_choices, q.accepted, q.matching,
                                q.correct_number, q.tolerance) AS key, w.answer AS common_wrong_answer, w.times AS common_wrong_times
  FROM questions q
  JOIN banks b ON b.id = q.bank_id
  LEFT JOIN (SELECT question_id, count(*) AS answers, avg(CASE WHEN correct THEN 1.0 ELSE 0.0 END) AS share_correct,
                    corr(CASE WHEN correct THEN 1.0 ELSE 0.0 END, rating_before) AS r
               FROM ops.question_answers GROUP BY question_id) s
         ON s.question_id = q.id
  LEFT JOIN (SELECT DISTINCT ON (question_id) question_id, answer, times
               FROM (SELECT question_id, answer, count(*) AS times FROM ops.question_answers
                      WHERE NOT correct GROUP BY question_id, answer) wrong
              ORDER BY question_id, times DESC, answer) w
         ON w.question_id = q.id;
