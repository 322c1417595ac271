-- Questions an import skipped in this transaction so far (duplicates: see ops.insert_question).
CREATE OR REPLACE FUNCTION ops.skipped_questions() RETURNS integer LANGUAGE sql STABLE AS $$
    SELECT coalesce(nullif(current_setting('quizduel.skipped_questions', true), ''), '0')::integer
$$;
