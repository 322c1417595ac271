-- Per question: how often asked, how often answered correctly, how fast, and open
-- reports. A low correct share or open reports point at a bad question.
CREATE OR REPLACE VIEW ops.question_stats AS
SELECT q.id AS question_id, b.slug AS bank, q.prompt, q.active,
       (SELECT count(*) FROM duel_questions dq WHERE dq.question_id = q.id) AS times_asked,
       a.answers,
       round(a.correct_share, 3) AS share_correct,
       round(a.mean_answer_ms) AS mean_answer_ms,
       (SELECT count(*) FROM question_reports r WHERE r.question_id = q.id AND r.resolved_at IS NULL) AS open_reports
  FROM questions q
  JOIN banks b ON b.id = q.bank_id
  LEFT JOIN LATERAL (
        SELECT count(*) AS answers,
               avg(CASE WHEN da.correct THEN 1.0 ELSE 0.0 END) AS correct_share,
               avg(da.elapsed_ms) AS mean_answer_ms
          FROM duel_questions dq
          JOIN duel_answers da ON da.duel_id = dq.duel_id AND da.question_index = dq.question_index
         WHERE dq.question_id = q.id
       ) a ON true;
