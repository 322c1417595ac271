-- Games of one to four players (issue 12): every seat in its own row.

-- Every seat of every game. duels.player_a/player_b keep the first two seats (the indexes that
-- history and the operators' views use); games of three or four players have their other
-- seats only here. Written for every game, so that "the players of a game" has one answer.
CREATE TABLE duel_players (
    duel_id   uuid NOT NULL REFERENCES duels ON DELETE CASCADE,
    seat      int  NOT NULL CHECK (seat BETWEEN 0 AND 3),
    player_id uuid NOT NULL REFERENCES players,
    PRIMARY KEY (duel_id, seat),
    UNIQUE (duel_id, player_id)
);
CREATE INDEX duel_players_player ON duel_players (player_id);

-- Room games (2-4 players, unrated) are stored from here on.
ALTER TABLE duels DROP CONSTRAINT duels_mode_check;
ALTER TABLE duels ADD CONSTRAINT duels_mode_check CHECK (mode IN ('ranked', 'practice', 'room'));
INSERT INTO duel_players (duel_id, seat, player_id)
SELECT id, 0, player_a FROM duels
UNION ALL
SELECT id, 1, player_b FROM duels WHERE player_b IS NOT NULL;

-- The missed-questions view over every seat (it read player_a and player_b).
CREATE OR REPLACE VIEW missed_questions AS
SELECT p.player_id, d.id AS duel_id, d.bank_id, d.finished_at, dq.question_index, dq.question_id,
       a.choice
  FROM duels d
  JOIN duel_players p ON p.duel_id = d.id
  JOIN duel_questions dq ON dq.duel_id = d.id AND dq.question_index < d.questions_opened
  LEFT JOIN duel_answers a ON a.duel_id = d.id AND a.question_index = dq.question_index AND a.player_id = p.player_id
 WHERE d.state = 'finished' AND d.mode <> 'practice' AND a.correct IS NOT TRUE;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_server') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON duel_players TO quizduel_server;
        GRANT SELECT ON missed_questions TO quizduel_server;
    END IF;
END
$$;
