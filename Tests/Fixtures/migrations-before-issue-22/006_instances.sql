-- Running duel-server instances, each heartbeating about once a second.
--
-- An instance announces its duels' events with NOTIFY only while another live
-- instance exists: with one instance nobody needs them, and a NOTIFY per commit
-- cost about 14 % of the server's and Postgres's CPU at human pace (bench/NOTES.md).
-- A starting instance that finds a live peer waits until the peer has seen its
-- heartbeat before it accepts players.
CREATE TABLE instances (
    id           text PRIMARY KEY CHECK (id ~ '^[a-z0-9-]{1,64}$'),
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now()
);

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_server') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON instances TO quizduel_server;
    END IF;
END
$$;
