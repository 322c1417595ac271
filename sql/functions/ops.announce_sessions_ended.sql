-- Sessions that end are announced on `sessions_ended` (payload: token hashes in hex, comma-
-- separated, at most 100 per NOTIFY to stay under the 8000-byte limit), so every instance
-- closes their sockets. The one place that announces them; returns how many.
CREATE OR REPLACE FUNCTION ops.announce_sessions_ended(p_hashes bytea[]) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('sessions_ended', string_agg(encode(h, 'hex'), ','))
       FROM (SELECT h, (row_number() OVER () - 1) / 100 AS chunk FROM unnest(p_hashes) AS h) numbered
      GROUP BY chunk;
    RETURN coalesce(cardinality(p_hashes), 0);
END
$$;
