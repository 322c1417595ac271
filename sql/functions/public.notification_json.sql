-- The notification record as clients see it.
CREATE OR REPLACE FUNCTION notification_json(n notifications) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object('id', n.id, 'kind', n.kind, 'data', n.data,
                              'created_at', to_char(n.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
$$;
