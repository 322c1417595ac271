-- Issue 27, item 3: every player gets a first game. A recorded game is one player against a
-- recording (a past player's answers and timings on the same questions, or the house's), which
-- the engine keeps in the game's state: like practice, the game has no second account
-- (player_b NULL), and it is unrated.
ALTER TABLE duels DROP CONSTRAINT duels_mode_check;
ALTER TABLE duels ADD CONSTRAINT duels_mode_check CHECK (mode IN ('ranked', 'room', 'challenge', 'practice', 'recorded'));
ALTER TABLE duels DROP CONSTRAINT duels_second_player;
ALTER TABLE duels ADD CONSTRAINT duels_second_player CHECK ((mode IN ('practice', 'recorded')) = (player_b IS NULL));
