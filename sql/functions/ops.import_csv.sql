-- Imports questions of every type from CSV. The first row names the columns, in any order:
--   prompt, answer (required); type (default single), choices (options separated by '|'),
--   matching (text questions), tolerance (number questions).
-- `answer` is the key as ops.add_question takes it. For example:
--   type,prompt,choices,answer,matching,tolerance
--   single,Capital of Peru?,Lima|Quito|Bogotá,A,,
--   multiple,Which are noble gases?,Neon|Iron|Argon,A|C,,
--   boolean,Water boils at 100 °C at sea level.,,true,,
--   text,Chemical symbol of gold?,,Au,exact,
--   number,How many bones in an adult human?,,206,,0
-- All or nothing: an error names the line and the field, and nothing is imported. A question
-- the bank already holds is skipped and reported with a NOTICE naming its line (see
-- ops.insert_question). Returns the number of questions added.
CREATE OR REPLACE FUNCTION ops.import_csv(p_bank text, p_csv text, p_source text DEFAULT 'csv')
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    -- Questions skipped before this import (duplicates: ops.insert_question counts them).
    v_skipped_before integer := ops.skipped_questions();
    v_bank integer := ops.bank_id(p_bank);
    v_header text[];
    v_known text[] := ARRAY['type', 'prompt', 'choices', 'answer', 'matching', 'tolerance'];
    v_column text;
    v_row record;
    v_count integer := 0;
    v_first boolean := true;
    v_tolerance double precision;
    v_choices text[];

BEGIN
    IF p_csv IS NULL OR btrim(p_csv) = '' THEN
        RAISE EXCEPTION 'csv: empty' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR v_row IN SELECT * FROM ops.csv_rows(p_csv) LOOP
        IF v_first THEN
            SELECT array_agg(lower(btrim(h)) ORDER BY n) INTO v_header
              FROM unnest(v_row.fields) WITH ORDINALITY AS u(h, n);
            FOREACH v_column IN ARRAY v_header LOOP
                IF NOT v_column = ANY (v_known) THEN
                    RAISE EXCEPTION 'line %, header: unknown column "%" (known: %)', v_row.line, v_column,
                        array_to_string(v_known, ', ') USING ERRCODE = 'invalid_parameter_value';
                END IF;
            END LOOP;
            IF (SELECT count(DISTINCT h) FROM unnest(v_header) h) <> cardinality(v_header) THEN
                RAISE EXCEPTION 'line %, header: a column is named twice', v_row.line
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            IF NOT ('prompt' = ANY (v_header) AND 'answer' = ANY (v_header)) THEN
                RAISE EXCEPTION 'line %, header: the columns prompt and answer are required', v_row.line
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            v_first := false;
            CONTINUE;
        END IF;
        IF cardinality(v_row.fields) <> cardinality(v_header) THEN
            RAISE EXCEPTION 'line %: % fields, but the header names %', v_row.line, cardinality(v_row.fields),
                cardinality(v_header) USING ERRCODE = 'invalid_parameter_value';
        END IF;
        v_tolerance := NULL;
        IF nullif(btrim(v_row.fields[array_position(v_header, 'tolerance')]), '') IS NOT NULL THEN
            BEGIN
                v_tolerance := btrim(v_row.fields[array_position(v_header, 'tolerance')])::double precision;
            EXCEPTION WHEN invalid_text_representation OR numeric_value_out_of_range THEN
                RAISE EXCEPTION 'line %, tolerance: must be a number', v_row.line USING ERRCODE = 'invalid_parameter_value';
            END;
        END IF;
        SELECT array_agg(btrim(c) ORDER BY n) INTO v_choices
          FROM unnest(string_to_array(nullif(btrim(v_row.fields[array_position(v_header, 'choices')]), ''), '|'))
               WITH ORDINALITY AS u(c, n);
        PERFORM ops.insert_question(
            v_bank, v_row.fields[array_position(v_header, 'prompt')],
            nullif(btrim(v_row.fields[array_position(v_header, 'type')]), ''),
            v_row.fields[array_position(v_header, 'answer')], v_choices,
            nullif(btrim(v_row.fields[array_position(v_header, 'matching')]), ''), v_tolerance,
            p_source, 'line ' || v_row.line);
        v_count := v_count + 1;
    END LOOP;
    IF v_count = 0 THEN
        RAISE EXCEPTION 'csv: no questions after the header' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- Only what was added: the duplicates skipped are not counted.
    RETURN v_count - (ops.skipped_questions() - v_skipped_before);
END
$$;
