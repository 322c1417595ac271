-- The engine state is written and read whole by the server, never queried inside
-- by operators: `json` keeps the exact text the server wrote (so it can recognize
-- a state it already holds decoded) and costs Postgres no jsonb conversion.
ALTER TABLE duels ALTER COLUMN engine TYPE json USING engine::json;
