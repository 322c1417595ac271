-- Per question: how often asked, how often answered correctly, how fast, and open
-- reports. A low correct share or open reports point at a bad question.
-- Aggregates joined by question, not a lookup per question: Citus refuses a subquery over
-- distributed tables that reads the outer (reference) table of questions (issue 24). A filter on
-- question_id reaches every aggregate; one on bank aggregates every answer first (an operator's
-- look: docs/SCALING.md has its cost).
CREATE OR REPLACE VIEW ops.question_stats AS
SELECT q.id AS question_id, b.slug AS bank, q.prompt, q.active,
       coalesce(asked.times, 0) AS times_asked,
       coalesce(a.answers, 0) AS answers,
       round(a.correct_share, 3) AS share_correct,
       round(a.mean_answer_ms) AS mean_answer_ms,
       coalesce(r.open, 0) AS open_reports
  FROM questions q
  JOIN banks b ON b.id = q.bank_id
  LEFT JOIN (SELECT question_id, count(*) AS times FROM duel_questions GROUP BY question_id) asked
         ON asked.question_id = q.id
  LEFT JOIN (SELECT question_id, count(*) AS answers, avg(CASE WHEN correct THEN 1.0 ELSE 0.0 END) AS correct_share,
                    avg(elapsed_ms) AS mean_answer_ms
               FROM ops.question_answers GROUP BY question_id) a
         ON a.question_id = q.id
  LEFT JOIN (SELECT question_id, count(*) AS open FROM question_reports WHERE resolved_at IS NULL GROUP BY question_id) r
         ON r.question_id = q.id;
