-- Reports not yet dealt with, newest first.
CREATE OR REPLACE VIEW ops.open_reports AS
SELECT r.id AS report_id, r.question_id, b.slug AS bank, q.prompt, r.reason, r.created_at
  FROM question_reports r
  JOIN questions q ON q.id = r.question_id
  JOIN banks b ON b.id = q.bank_id
 WHERE r.resolved_at IS NULL
 ORDER BY r.created_at DESC;
