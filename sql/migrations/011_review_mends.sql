-- Mends from review of 009 and 010: privileges that must not depend on the roles existing,
-- one owner for "end these sessions" and for "questions a player missed", a safer archive,
-- and checks that state what the store really holds. The functions and views it mended live in
-- sql/functions and sql/views; no `ops` function is PUBLIC's (sql/grants.sql).

-- Functions the owner creates from now on are not PUBLIC's, whether or not the roles exist yet:
-- each is granted by name or by schema (sql/grants.sql).
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

-- The audit trail names who really acted: whatever an INSERT says, the actor and time are
-- the session's own (operators may insert rows, so a function cannot be the only guard).
\ir ../functions/ops.audit_stamp.sql
CREATE TRIGGER audit_stamp BEFORE INSERT OR UPDATE ON ops.audit FOR EACH ROW EXECUTE FUNCTION ops.audit_stamp();

-- What the store holds: practice games have no winner (a NULL player_b made the old
-- winner check pass for anyone), and only the modes something creates.
ALTER TABLE duels ADD CONSTRAINT duels_practice_no_winner CHECK (mode <> 'practice' OR winner IS NULL);
ALTER TABLE duels DROP CONSTRAINT duels_mode_check;
ALTER TABLE duels ADD CONSTRAINT duels_mode_check CHECK (mode IN ('ranked', 'practice'));
