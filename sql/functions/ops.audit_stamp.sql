-- The audit trail names who really acted: whatever an INSERT says, the actor and time are
-- the session's own (operators may insert rows, so a function cannot be the only guard).
CREATE OR REPLACE FUNCTION ops.audit_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.actor := session_user;
    NEW.at := now();
    RETURN NEW;
END
$$;
