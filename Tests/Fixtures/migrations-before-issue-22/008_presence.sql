-- Presence across instances (issue 10 items 1 and 2).
--
-- A player is present while any live instance holds a connection of theirs: each
-- instance keeps one row per player it holds. When an instance's last connection of a
-- player closes, it deletes its row and only reports the player gone from their live
-- duel if no other live instance holds a row. An instance whose heartbeat stops for
-- 10 s is dead: any live instance deletes it, its presence rows and the queue entries
-- it held (`match_queue.instance`), and reports its players gone from their duels.
CREATE TABLE presence (
    player_id uuid        NOT NULL REFERENCES players ON DELETE CASCADE,
    instance  text        NOT NULL,
    since     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (player_id, instance)
);
CREATE INDEX presence_instance ON presence (instance);

-- The instance holding the waiter's connection; NULL for rows queued before this migration.
ALTER TABLE match_queue ADD COLUMN instance text;
CREATE INDEX match_queue_instance ON match_queue (instance);

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_server') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON presence TO quizduel_server;
    END IF;
END
$$;
