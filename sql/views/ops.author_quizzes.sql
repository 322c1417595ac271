-- Each author's published quizzes, most played first.
CREATE OR REPLACE VIEW ops.author_quizzes AS
SELECT author, quiz, title, published_at, questions, plays, saves, likes, dislikes, open_reports
  FROM ops.quizzes
 WHERE published_at IS NOT NULL AND deleted_at IS NULL
 ORDER BY author, plays DESC;
