-- Every stored answer with its question: what ops.question_stats and ops.question_quality
-- aggregate. `answer` is what was sent, as text (lower-cased and trimmed for text answers, so
-- spellings group); `rating_before` is the answerer's rating in the bank when a ranked game
-- began (the engine's start state holds it: `duel_starts`, or for a duel created before
-- migration 026 `duels.base_state`; null for unrated games). Its tables are all keyed by duel, so
-- on Citus each shard reads its own (issue 24): the views above aggregate it by question, which
-- Citus merges on the coordinator.
CREATE OR REPLACE VIEW ops.question_answers AS
SELECT dq.question_id, da.duel_id, da.player_id, da.correct, da.elapsed_ms,
       ops.answer_text(da.choice, da.choices, lower(btrim(da.answer_text)), da.answer_number) AS answer,
       CASE WHEN d.mode = 'ranked' THEN
           (SELECT (p -> 'rating' ->> 'rating')::float8
              FROM json_array_elements(coalesce(s.base_state, d.base_state) -> 'players') p
             WHERE p ->> 'id' = da.player_id::text)
       END AS rating_before
  FROM duel_answers da
  JOIN duel_questions dq ON dq.duel_id = da.duel_id AND dq.question_index = da.question_index
  JOIN duels d ON d.id = da.duel_id
  LEFT JOIN duel_starts s ON s.duel_id = da.duel_id;
