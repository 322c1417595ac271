-- Open reports about quizzes (the quiz itself, or one of its questions), newest first.
CREATE OR REPLACE VIEW ops.reported_quizzes AS
SELECT r.id AS report_id, b.slug AS quiz, b.title, p.username AS author, r.question_id, q.prompt, r.reason,
       r.created_at, b.published_at IS NOT NULL AS published
  FROM question_reports r
  LEFT JOIN questions q ON q.id = r.question_id
  JOIN banks b ON b.id = coalesce(r.bank_id, q.bank_id)
  JOIN players p ON p.id = b.owner_id
 WHERE r.resolved_at IS NULL
 ORDER BY r.created_at DESC;
