-- Games of other modes than ranked (issue 12), starting with practice: one player, unrated.
-- A practice game has no second player (player_b NULL); games of three or four players
-- (rooms) will list their players in a table of their own.
ALTER TABLE duels ADD COLUMN mode text NOT NULL DEFAULT 'ranked'
    CHECK (mode IN ('ranked', 'room', 'challenge', 'practice'));
ALTER TABLE duels ALTER COLUMN player_b DROP NOT NULL;
ALTER TABLE duels ADD CONSTRAINT duels_second_player CHECK ((mode = 'practice') = (player_b IS NULL));

-- What practice taught: a question a player got right in two different practice games since
-- they last missed it is learned and leaves their mistakes notebook (a later miss puts it
-- back, and counting starts again). Written when a practice game finishes.
CREATE TABLE practice_progress (
    player_id     uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    question_id   bigint NOT NULL REFERENCES questions,
    correct_games integer NOT NULL CHECK (correct_games >= 1),
    -- When the current count started: a miss after it starts the count again.
    since         timestamptz NOT NULL DEFAULT now(),
    -- The last practice game that counted, so one game never counts twice.
    last_duel     uuid NOT NULL,
    learned_at    timestamptz,
    PRIMARY KEY (player_id, question_id),
    CHECK ((learned_at IS NOT NULL) = (correct_games >= 2))
);
-- Granted to quizduel_server by the default privileges of migration 009.

-- Practice games have no second player: list them too, with their mode.
CREATE OR REPLACE VIEW ops.live_duels AS
SELECT d.id AS duel_id, b.slug AS bank, pa.username AS player_a, pb.username AS player_b,
       d.state, d.questions_opened, d.last_seq, d.created_at,
       now() - d.created_at AS age,
       round(greatest(0, extract(epoch FROM now()) * 1000 - d.next_deadline_ms) / 1000.0, 1) AS overdue_s,
       d.mode
  FROM duels d
  JOIN banks b ON b.id = d.bank_id
  JOIN players pa ON pa.id = d.player_a
  LEFT JOIN players pb ON pb.id = d.player_b
 WHERE d.state <> 'finished'
 ORDER BY d.created_at;
