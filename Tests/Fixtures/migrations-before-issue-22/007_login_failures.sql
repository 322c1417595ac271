-- Login attempts that count against the throttle (PROTOCOL.md: 5 failures per
-- username, 20 per address, within 5 minutes). In the database, not in each
-- instance's memory, so N instances do not allow N times the attempts. A row is
-- written when an attempt arrives (pipelined guesses cannot all start before the
-- first fails); a successful login deletes its username's rows. Keys are built in
-- SQL with the same lower() the username lookup uses: 'u:<lower(name)>' or 'a:<address>'.
CREATE TABLE login_failures (
    key text        NOT NULL CHECK (key ~ '^[ua]:'),
    at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_key ON login_failures (key, at);
CREATE INDEX login_failures_at ON login_failures (at);

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_server') THEN
        GRANT SELECT, INSERT, DELETE ON login_failures TO quizduel_server;
    END IF;
END
$$;
