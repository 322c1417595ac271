-- Functions and views moved out of the migrations into sql/functions and sql/views (issue 22),
-- re-applied on every migrate. Migration 017 had wrapped each import under its old name,
-- counting only what it added, around the body renamed ops.import_csv_all, ops.import_quiz_all
-- and ops.import_opentdb_all; each import is one function again (its file), so those go.
DROP FUNCTION IF EXISTS ops.import_csv_all(text, text, text);
DROP FUNCTION IF EXISTS ops.import_quiz_all(text, jsonb, text);
DROP FUNCTION IF EXISTS ops.import_opentdb_all(text, jsonb, text);
