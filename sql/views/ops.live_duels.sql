-- Games not finished yet, with every seat's name and the mode (a practice game has no second
-- player). `overdue_s` is how far past its next deadline a game is: a healthy game stays near 0
-- (the sweep of any instance fires deadlines within a second), so a game overdue for long, with
-- servers running, is stuck.
CREATE OR REPLACE VIEW ops.live_duels AS
SELECT d.id AS duel_id, b.slug AS bank, pa.username AS player_a, pb.username AS player_b,
       d.state, d.questions_opened, d.last_seq, d.created_at,
       now() - d.created_at AS age,
       round(greatest(0, extract(epoch FROM now()) * 1000 - d.next_deadline_ms) / 1000.0, 1) AS overdue_s,
       d.mode,
       (SELECT array_agg(p.username ORDER BY s.n) FROM unnest(d.more_players) WITH ORDINALITY AS s(id, n)
          JOIN players p ON p.id = s.id) AS more_players
  FROM duels d
  JOIN banks b ON b.id = d.bank_id
  JOIN players pa ON pa.id = d.player_a
  LEFT JOIN players pb ON pb.id = d.player_b
 WHERE d.state <> 'finished'
 ORDER BY d.created_at;
