-- Questions per bank (active and retired), whose bank it is (an operator's, or a player's quiz)
-- and whether matchmaking uses it.
CREATE OR REPLACE VIEW ops.bank_questions AS
SELECT b.slug, b.title, b.theme, b.difficulty,
       count(q.id) FILTER (WHERE q.active) AS active_questions,
       count(q.id) FILTER (WHERE NOT q.active) AS inactive_questions,
       p.username AS owner, b.matchmaking AND (b.owner_id IS NULL OR b.published_at IS NOT NULL) AS in_matchmaking
  FROM banks b
  LEFT JOIN questions q ON q.bank_id = b.id
  LEFT JOIN players p ON p.id = b.owner_id
 GROUP BY b.id, p.username
 ORDER BY b.slug;
