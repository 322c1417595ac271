-- The notification record as clients see it. The server's reads use the column form: a function
-- of the table's row type cannot run on a Citus shard, whose rows are of the shard's own type.
CREATE OR REPLACE FUNCTION notification_json(p_id bigint, p_kind text, p_data jsonb, p_created_at timestamptz)
RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_object('id', p_id, 'kind', p_kind, 'data', p_data,
                              'created_at', to_char(p_created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
$$;

-- The same for a row, for operators' SQL on the coordinator.
CREATE OR REPLACE FUNCTION notification_json(n notifications) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT notification_json(n.id, n.kind, n.data, n.created_at)
$$;
