-- Distributes the schema over a Citus cluster (issue 24). `duel-server migrate` runs this file
-- after the migrations and the definition files, only on a database where the `citus`
-- extension exists, in one transaction; every step is skipped when already done, so it runs on
-- every migrate. Plain Postgres never sees it. docs/SCALING.md says why each table is where it is.

-- Foreign keys to reference tables need every operation of the transaction on one connection
-- per node.
SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

-- Constraints Citus cannot hold, replaced by what it can (a key with the distribution column) or
-- by the transaction that writes the rows (named beside each).
DO $$
BEGIN
    -- A rematch is created by the transaction that locks the finished duel's row and its offers
    -- (RematchRepository), so at most one rematch per duel holds without a cross-shard unique key.
    ALTER TABLE duels DROP CONSTRAINT IF EXISTS duels_rematch_of_key;
    ALTER TABLE duels DROP CONSTRAINT IF EXISTS duels_rematch_of_fkey;
    -- The rematch's lookup by the duel it rematches (the unique key's index went with it).
    CREATE INDEX IF NOT EXISTS duels_rematch_of ON duels (rematch_of) WHERE rematch_of IS NOT NULL;
    -- An edit points the old version at the new one in the transaction that inserts the new
    -- (ops.edit_question); Citus refuses a table that references itself.
    ALTER TABLE questions DROP CONSTRAINT IF EXISTS questions_replaced_by_fkey;
    -- Rooms stay on the coordinator; a room's game is a duel row (any shard).
    ALTER TABLE duels DROP CONSTRAINT IF EXISTS duels_room_id_fkey;
    ALTER TABLE rooms DROP CONSTRAINT IF EXISTS rooms_duel_id_fkey;
    ALTER TABLE challenges DROP CONSTRAINT IF EXISTS challenges_duel_id_fkey;
    ALTER TABLE rematch_offers DROP CONSTRAINT IF EXISTS rematch_offers_duel_id_fkey;
    -- A player's tables are keyed by player, a duel's by duel: links between them are not co-located.
    ALTER TABLE live_duel_players DROP CONSTRAINT IF EXISTS live_duel_players_duel_id_fkey;
    ALTER TABLE rating_history DROP CONSTRAINT IF EXISTS rating_history_duel_id_fkey;
    -- Ids from a sequence join the distribution column in the key.
    IF EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'duel_commands_pkey'
                AND pg_get_constraintdef(oid) = 'PRIMARY KEY (id)') THEN
        ALTER TABLE duel_commands DROP CONSTRAINT duel_commands_pkey;
        ALTER TABLE duel_commands ADD PRIMARY KEY (duel_id, id);
    END IF;
    IF EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'notifications_pkey'
                AND pg_get_constraintdef(oid) = 'PRIMARY KEY (id)') THEN
        ALTER TABLE notifications DROP CONSTRAINT notifications_pkey;
        ALTER TABLE notifications ADD PRIMARY KEY (player_id, id);
    END IF;
END $$;

-- Citus converts a table only when the tables it references are converted, and refuses some
-- orders; so the foreign keys are set aside while the tables are placed, and put back after.
DO $$
DECLARE
    reference text[] := ARRAY['players', 'banks', 'questions', 'level_titles', 'progress_rules',
                              'achievements', 'ops.settings'];
    by_duel text[] := ARRAY['duel_questions', 'duel_inputs', 'duel_events', 'duel_events_archive',
                            'duel_answers', 'duel_commands'];
    by_player text[] := ARRAY['ratings', 'rating_history', 'live_duel_players', 'game_progress',
                              'player_achievements', 'weekly_goals', 'notifications',
                              'practice_progress', 'quiz_saves', 'quiz_votes', 'question_votes',
                              'authoring_log'];
    coordinator text[] := ARRAY['match_queue', 'rooms', 'room_members', 'challenges', 'rematch_offers',
                                'presence', 'instances', 'question_reports', 'login_failures'];
    keys jsonb;
    k jsonb;
    t text;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'duels'::regclass) THEN
        RETURN;  -- placed by an earlier migrate
    END IF;
    -- Functions of a row of questions make the table depend on itself, which Citus refuses to
    -- place; the definitions applied right after this file create them again.
    DROP FUNCTION IF EXISTS ops.question_key(questions);
    DROP FUNCTION IF EXISTS ops.question_answer(questions);
    SELECT coalesce(jsonb_agg(jsonb_build_object('t', conrelid::regclass::text, 'n', conname,
                                                 'd', pg_get_constraintdef(oid))), '[]')
      INTO keys
      FROM pg_constraint
     WHERE contype = 'f' AND connamespace IN ('public'::regnamespace, 'ops'::regnamespace);
    FOR k IN SELECT * FROM jsonb_array_elements(keys) LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', k->>'t', k->>'n');
    END LOOP;

    -- Small and read-mostly: a copy on every node, so any shard joins them locally.
    FOREACH t IN ARRAY reference LOOP
        PERFORM create_reference_table(t::regclass);
    END LOOP;
    -- A duel and everything keyed by it, co-located by duel id.
    PERFORM create_distributed_table('duels', 'id', shard_count => 8, colocate_with => 'none');
    FOREACH t IN ARRAY by_duel LOOP
        PERFORM create_distributed_table(t::regclass, 'duel_id', colocate_with => 'duels');
    END LOOP;
    -- What belongs to one player, co-located by player id.
    PERFORM create_distributed_table('player_progress', 'player_id', shard_count => 8, colocate_with => 'none');
    FOREACH t IN ARRAY by_player LOOP
        PERFORM create_distributed_table(t::regclass, 'player_id', colocate_with => 'player_progress');
    END LOOP;
    -- Sign-in finds a session by its token's hash.
    PERFORM create_distributed_table('sessions', 'token_hash', shard_count => 8, colocate_with => 'none');
    -- Everything else stays on the coordinator: presence (which instance holds whom: read with
    -- the instances it names), rematch offers (with rooms and challenges: the social state), the queue (its one shard: a matcher's claim
    -- with SKIP LOCKED is a single-shard statement and one entry per player stays a primary
    -- key), rooms, members, challenges, reports, instances, the audit and the schema's own
    -- tables. Those with a foreign key to a reference table become Citus local tables when the
    -- keys are put back. docs/SCALING.md says when the queue would move.

    FOR k IN SELECT * FROM jsonb_array_elements(keys) LOOP
        EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I %s', k->>'t', k->>'n', k->>'d');
    END LOOP;
    -- The coordinator's own tables join Citus's metadata, so a statement may join them with
    -- distributed ones (Citus plans such joins in steps; it refuses them for plain tables).
    FOREACH t IN ARRAY coordinator LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = t::regclass) THEN
            PERFORM citus_add_local_table_to_metadata(t::regclass);
        END IF;
    END LOOP;
END $$;

-- Tables a migration added after the first placement (which returns early on a placed
-- cluster): what belongs to one player, co-located by player id, and what belongs to one duel,
-- co-located by duel id. A first placement made the players' ones Citus local tables when it put
-- their foreign keys to reference tables back; they are distributed from there.
DO $$
DECLARE
    added_by_player text[] := ARRAY['player_banks'];
    added_by_duel text[] := ARRAY['duel_settlements', 'duel_starts', 'duel_inputs_archive'];
    t text;
BEGIN
    FOREACH t IN ARRAY added_by_player LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = t::regclass AND partmethod = 'h') THEN
            PERFORM create_distributed_table(t::regclass, 'player_id', colocate_with => 'player_progress');
        END IF;
    END LOOP;
    FOREACH t IN ARRAY added_by_duel LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = t::regclass AND partmethod = 'h') THEN
            PERFORM create_distributed_table(t::regclass, 'duel_id', colocate_with => 'duels');
        END IF;
    END LOOP;
END $$;

-- Every session of this database modifies shards over one connection per node. A transaction
-- that writes a reference table (a quiz's play count) after writing duels in several shards (the
-- matcher's new games) is refused otherwise, since the reference table's foreign keys need the
-- same connection. The hot path writes one shard per transaction, where this changes nothing.
DO $$
BEGIN
    EXECUTE format('ALTER DATABASE %I SET citus.multi_shard_modify_mode TO sequential', current_database());
END $$;
