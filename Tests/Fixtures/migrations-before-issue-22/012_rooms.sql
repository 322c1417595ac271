-- Play with friends (issue 12): rooms of 2-4 players by invite code, challenges by name,
-- and a rematch after a ranked duel.

-- Seats 3 and 4 of a room's game. Seats 1 and 2 stay in player_a and player_b, so that a
-- ranked duel (the hot path) writes and reads exactly what it did: a table of seats for
-- every game was tried and cost the two-instance scenario most of its throughput
-- (bench/NOTES.md, items 17 and 19).
ALTER TABLE duels ADD COLUMN more_players uuid[];
ALTER TABLE duels ADD CONSTRAINT duels_more_players CHECK (
    more_players IS NULL
    OR (mode = 'room' AND cardinality(more_players) BETWEEN 1 AND 2 AND array_position(more_players, NULL) IS NULL
        AND NOT player_a = ANY(more_players) AND NOT player_b = ANY(more_players)
        AND more_players[1] IS DISTINCT FROM more_players[2]));
-- A player's history finds their games of three or four through this index.
CREATE INDEX duels_more_players ON duels USING gin (more_players) WHERE more_players IS NOT NULL;
ALTER TABLE duels DROP CONSTRAINT duels_mode_check;
ALTER TABLE duels ADD CONSTRAINT duels_mode_check CHECK (mode IN ('ranked', 'room', 'challenge', 'practice'));

-- A room: a host, members (room_members) and the settings of its games. Deleted when its
-- last member leaves; its games keep their rows (duels.room_id becomes NULL).
CREATE TABLE rooms (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- Six characters of an alphabet without look-alikes (no 0/O, 1/I/L, 5/S, 2/Z, 8/B).
    code        text NOT NULL UNIQUE CHECK (code ~ '^[34679ACDEFGHJKMNPQRTUVWXY]{6}$'),
    bank_id     integer NOT NULL REFERENCES banks,
    host        uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    questions   integer NOT NULL CHECK (questions BETWEEN 1 AND 20),
    -- Clients choose 5,000-60,000 (checked when decoding); the default is the server's own,
    -- which a test server may set shorter.
    answer_ms   integer NOT NULL CHECK (answer_ms >= 1),
    max_players integer NOT NULL CHECK (max_players BETWEEN 2 AND 4),
    -- The room's current or last game.
    duel_id     uuid REFERENCES duels,
    games       integer NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- A player is a member of at most one room.
CREATE TABLE room_members (
    player_id  uuid PRIMARY KEY REFERENCES players ON DELETE CASCADE,
    room_id    bigint NOT NULL REFERENCES rooms ON DELETE CASCADE,
    joined_at  timestamptz NOT NULL DEFAULT now(),
    -- When the member's last connection (on any instance) closed; NULL while connected.
    -- After the abandonment delay the member leaves the room.
    gone_since timestamptz
);
CREATE INDEX room_members_room ON room_members (room_id, joined_at);
CREATE INDEX room_members_gone ON room_members (gone_since) WHERE gone_since IS NOT NULL;

ALTER TABLE duels ADD COLUMN room_id bigint REFERENCES rooms ON DELETE SET NULL;
CREATE INDEX duels_room ON duels (room_id) WHERE room_id IS NOT NULL;
-- A ranked duel started by both players' `rematch` of another: at most one per duel.
ALTER TABLE duels ADD COLUMN rematch_of uuid UNIQUE REFERENCES duels;

-- A challenge by name: pending until accepted, declined or expired.
CREATE TABLE challenges (
    id          uuid PRIMARY KEY,
    from_player uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    to_player   uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    bank_id     integer NOT NULL REFERENCES banks,
    state       text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'accepted', 'declined', 'expired')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    duel_id     uuid REFERENCES duels,
    CHECK (from_player <> to_player),
    CHECK ((state = 'accepted') = (duel_id IS NOT NULL))
);
CREATE INDEX challenges_to ON challenges (to_player) WHERE state = 'pending';
CREATE INDEX challenges_from ON challenges (from_player, created_at DESC);
CREATE INDEX challenges_expiry ON challenges (expires_at) WHERE state = 'pending';

-- A player's offer of a rematch of a finished ranked duel; gone when it expires or is taken.
CREATE TABLE rematch_offers (
    duel_id    uuid NOT NULL REFERENCES duels ON DELETE CASCADE,
    player_id  uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (duel_id, player_id)
);
CREATE INDEX rematch_offers_expiry ON rematch_offers (expires_at);

-- Every question a player missed, now from every seat (rooms add seats 3 and 4).
CREATE OR REPLACE VIEW missed_questions AS
SELECT d.player_a AS player_id, d.id AS duel_id, d.bank_id, d.finished_at, dq.question_index, dq.question_id,
       a.choice
  FROM duels d
  JOIN duel_questions dq ON dq.duel_id = d.id AND dq.question_index < d.questions_opened
  LEFT JOIN duel_answers a ON a.duel_id = d.id AND a.question_index = dq.question_index AND a.player_id = d.player_a
 WHERE d.state = 'finished' AND d.mode <> 'practice' AND a.correct IS NOT TRUE
UNION ALL
SELECT d.player_b, d.id, d.bank_id, d.finished_at, dq.question_index, dq.question_id, a.choice
  FROM duels d
  JOIN duel_questions dq ON dq.duel_id = d.id AND dq.question_index < d.questions_opened
  LEFT JOIN duel_answers a ON a.duel_id = d.id AND a.question_index = dq.question_index AND a.player_id = d.player_b
 WHERE d.state = 'finished' AND d.mode <> 'practice' AND d.player_b IS NOT NULL AND a.correct IS NOT TRUE
UNION ALL
SELECT s.player_id, d.id, d.bank_id, d.finished_at, dq.question_index, dq.question_id, a.choice
  FROM duels d
  CROSS JOIN LATERAL unnest(d.more_players) AS s(player_id)
  JOIN duel_questions dq ON dq.duel_id = d.id AND dq.question_index < d.questions_opened
  LEFT JOIN duel_answers a ON a.duel_id = d.id AND a.question_index = dq.question_index AND a.player_id = s.player_id
 WHERE d.state = 'finished' AND d.more_players IS NOT NULL AND a.correct IS NOT TRUE;

-- Live games with every seat's name, and rooms for operators.
DROP VIEW ops.live_duels;
CREATE VIEW ops.live_duels AS
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

CREATE VIEW ops.rooms AS
SELECT r.code, b.slug AS bank, h.username AS host, r.questions, r.answer_ms, r.max_players, r.games,
       (SELECT array_agg(p.username ORDER BY m.joined_at) FROM room_members m JOIN players p ON p.id = m.player_id
         WHERE m.room_id = r.id) AS members,
       r.duel_id AS current_duel, r.created_at
  FROM rooms r JOIN banks b ON b.id = r.bank_id JOIN players h ON h.id = r.host
 ORDER BY r.created_at;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_server') THEN
        GRANT SELECT ON missed_questions TO quizduel_server;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_operator') THEN
        GRANT SELECT ON ops.live_duels, ops.rooms TO quizduel_operator;
    END IF;
END
$$;
