-- Per active or asked question: its type and key as text, answers and the share correct, and the
-- point-biserial correlation between answering correctly and the answerer's rating before the
-- duel (Pearson's r of a 0/1 variable with a continuous one; rated answers only). A good question
-- is answered correctly more often by stronger players (r > 0). r clearly below 0 on enough
-- answers suggests a wrong answer key: `suspect_key` is set at r <= -0.2 with 20 or more answers.
-- The commonest wrong answer, for a text question, is often an answer the key should accept.
CREATE OR REPLACE VIEW ops.question_quality AS
SELECT q.id AS question_id, b.slug AS bank, q.prompt, q.active, q.correct_choice,
       s.answers, round(s.share_correct::numeric, 3) AS share_correct,
       round(s.r::numeric, 3) AS rating_correlation,
       coalesce(s.answers >= 20 AND s.r <= -0.2, false) AS suspect_key,
       q.type, ops.question_key(q.type, q.correct_choice, q.correct_choices, q.accepted, q.matching,
                                q.correct_number, q.tolerance) AS key, w.answer AS common_wrong_answer, w.times AS common_wrong_times
  FROM questions q
  JOIN banks b ON b.id = q.bank_id
  LEFT JOIN LATERAL (
        SELECT count(*) AS answers,
               avg(CASE WHEN da.correct THEN 1.0 ELSE 0.0 END) AS share_correct,
               corr(CASE WHEN da.correct THEN 1.0 ELSE 0.0 END, rh.rating_before) AS r
          FROM duel_questions dq
          JOIN duel_answers da ON da.duel_id = dq.duel_id AND da.question_index = dq.question_index
          LEFT JOIN rating_history rh ON rh.duel_id = da.duel_id AND rh.player_id = da.player_id
         WHERE dq.question_id = q.id
       ) s ON true
  LEFT JOIN LATERAL (
        SELECT ops.answer_text(da.choice, da.choices, lower(btrim(da.answer_text)), da.answer_number) AS answer,
               count(*) AS times
          FROM duel_questions dq
          JOIN duel_answers da ON da.duel_id = dq.duel_id AND da.question_index = dq.question_index
         WHERE dq.question_id = q.id AND NOT da.correct
         GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1
       ) w ON true;
