-- Who may run the functions and read the views of sql/functions and sql/views. Applied on every
-- migrate after them, in the same transaction, so it states the whole policy and the database
-- follows it: every function's EXECUTE for PUBLIC, quizduel_operator and quizduel_server is set
-- to exactly this (a new function, or a grant or revoke made by hand, included), and every view
-- gets its SELECT. Other roles' rights are left alone. Table grants stay in the migrations that
-- create the tables.
--
-- The policy:
--   * no function is PUBLIC's, whether or not the roles exist (without them a PUBLIC function
--     would be everyone's): each role gets its functions by name or by schema (migration 011 also
--     makes the owner's new functions nobody's by default);
--   * `ops` is the operators' schema: quizduel_operator runs every `ops` function and reads every
--     `ops` view. Those that touch players, sessions or duels run with the owner's rights
--     (SECURITY DEFINER, fixed search_path), so operators never read those tables themselves;
--   * `public` holds the server's helpers: quizduel_server runs every `public` function and reads
--     every `public` view (migration 009's default privileges also give it DML on every relation
--     of `public`, these views included), and operators none of them;
--   * of `ops`, the server runs only what it needs: the checks of the question columns (it writes
--     players' questions, and a CHECK runs with the writer's rights), the draw weight, the hourly
--     upkeep and the announcement of ended sessions.
-- Functions that extensions own are not ours and are left alone.
--
-- Roles are created by migration 003 when the migrating user may; whichever exist get their
-- rights here, so after creating them later, run `duel-server migrate` again.
DO $$
DECLARE
    v_server constant text[] := ARRAY['choices_valid', 'choice_set_valid', 'accepted_valid', 'question_weight',
                                      'archive_events', 'purge_expired_sessions', 'prune_notifications',
                                      'announce_sessions_ended'];
    v_operator boolean := EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_operator');
    v_has_server boolean := EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'quizduel_server');
    f record;
BEGIN
    FOR f IN
        SELECT p.oid::regprocedure AS fn, n.nspname AS schema, p.proname AS name
          FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname IN ('public', 'ops')
           AND NOT EXISTS (SELECT 1 FROM pg_depend d
                            WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
         ORDER BY p.oid
    LOOP
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f.fn);
        IF v_operator THEN
            EXECUTE format(CASE WHEN f.schema = 'ops' THEN 'GRANT EXECUTE ON FUNCTION %s TO quizduel_operator'
                                ELSE 'REVOKE EXECUTE ON FUNCTION %s FROM quizduel_operator' END, f.fn);
        END IF;
        IF v_has_server THEN
            EXECUTE format(CASE WHEN f.schema = 'public' OR f.name = ANY (v_server)
                                THEN 'GRANT EXECUTE ON FUNCTION %s TO quizduel_server'
                                ELSE 'REVOKE EXECUTE ON FUNCTION %s FROM quizduel_server' END, f.fn);
        END IF;
    END LOOP;
    FOR f IN
        SELECT c.oid::regclass AS view, n.nspname AS schema
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname IN ('public', 'ops') AND c.relkind = 'v'
           AND NOT EXISTS (SELECT 1 FROM pg_depend d
                            WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
         ORDER BY c.oid
    LOOP
        IF f.schema = 'ops' AND v_operator THEN
            EXECUTE format('GRANT SELECT ON %s TO quizduel_operator', f.view);
        ELSIF f.schema = 'public' AND v_has_server THEN
            EXECUTE format('GRANT SELECT ON %s TO quizduel_server', f.view);
        END IF;
    END LOOP;
END
$$;
