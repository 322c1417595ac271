-- Rooms for operators: code, bank, host, settings, members and the current game.
CREATE OR REPLACE VIEW ops.rooms AS
SELECT r.code, b.slug AS bank, h.username AS host, r.questions, r.answer_ms, r.max_players, r.games,
       (SELECT array_agg(p.username ORDER BY m.joined_at) FROM room_members m JOIN players p ON p.id = m.player_id
         WHERE m.room_id = r.id) AS members,
       r.duel_id AS current_duel, r.created_at
  FROM rooms r JOIN banks b ON b.id = r.bank_id JOIN players h ON h.id = r.host
 ORDER BY r.created_at;
