-- Every player's quiz with its author, state and counts.
CREATE OR REPLACE VIEW ops.quizzes AS
SELECT b.slug AS quiz, b.title, p.username AS author, b.theme, b.difficulty,
       b.published_at, b.matchmaking AND b.published_at IS NOT NULL AS in_matchmaking, b.retired_at AS deleted_at,
       (SELECT count(*) FROM questions q WHERE q.bank_id = b.id AND q.active) AS questions,
       b.plays, b.saves, b.likes, b.dislikes,
       (SELECT count(*) FROM question_reports r WHERE r.bank_id = b.id AND r.resolved_at IS NULL) AS open_reports,
       b.unpublished_reason, b.created_at
  FROM banks b JOIN players p ON p.id = b.owner_id
 ORDER BY b.created_at DESC;
