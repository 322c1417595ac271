-- Roles: an operator role that manages banks and reads statistics but cannot
-- see players or duels, and the server's own role with what it needs.
-- Both are group roles (NOLOGIN): grant them to login roles, for example
--   CREATE ROLE alice LOGIN PASSWORD '...' IN ROLE quizduel_operator;
-- Creating roles needs CREATEROLE; without it this migration only says so, and
-- the grants are left for a database administrator to run.
-- Who runs which function and reads which view is sql/grants.sql's, applied on every migrate.
DO $$
DECLARE
    v_can boolean;
BEGIN
    SELECT rolsuper OR rolcreaterole INTO v_can FROM pg_roles WHERE rolname = current_user;
    IF NOT v_can THEN
        RAISE NOTICE 'not allowed to create roles: quizduel_operator and quizduel_server were not set up';
        RETURN;
    END IF;
    -- Roles are shared by every database of the cluster: another database's
    -- migration may create them at the same moment, so losing that race is fine.
    BEGIN
        CREATE ROLE quizduel_operator NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
        NULL;
    END;
    BEGIN
        CREATE ROLE quizduel_server NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
        NULL;
    END;

    -- Operators: banks and questions, reports, and the ops schema; no players, sessions or duels.
    GRANT USAGE ON SCHEMA ops TO quizduel_operator;
    GRANT SELECT ON ALL TABLES IN SCHEMA ops TO quizduel_operator;
    GRANT SELECT, INSERT, UPDATE ON banks, questions TO quizduel_operator;
    GRANT USAGE ON SEQUENCE banks_id_seq, questions_id_seq TO quizduel_operator;
    GRANT SELECT, UPDATE (resolved_at) ON question_reports TO quizduel_operator;

    -- The server: everything it reads and writes, no DDL.
    GRANT USAGE ON SCHEMA ops TO quizduel_server;
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO quizduel_server;
    GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO quizduel_server;
END
$$;
