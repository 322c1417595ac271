-- CSV, split into rows of fields (RFC 4180: fields in double quotes may hold commas, line
-- breaks and doubled quotes; CRLF or LF line ends; blank lines are skipped). Each row comes
-- with its line number, for error messages.
CREATE OR REPLACE FUNCTION ops.csv_rows(p_csv text) RETURNS TABLE (line integer, fields text[])
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_chars text[] := regexp_split_to_array(p_csv, '');
    v_count integer := coalesce(array_length(v_chars, 1), 0);
    v_i integer := 1;
    v_ch text;
    v_field text := '';
    v_row text[] := '{}';
    v_quoted boolean := false;
    v_line integer := 1;
    v_row_line integer := 1;
    v_touched boolean := false;
BEGIN
    WHILE v_i <= v_count LOOP
        v_ch := v_chars[v_i];
        IF v_quoted THEN
            IF v_ch = '"' THEN
                IF v_i < v_count AND v_chars[v_i + 1] = '"' THEN
                    v_field := v_field || '"';
                    v_i := v_i + 1;
                ELSE
                    v_quoted := false;
                END IF;
            ELSE
                IF v_ch = E'\n' THEN v_line := v_line + 1; END IF;
                v_field := v_field || v_ch;
            END IF;
        ELSIF v_ch = '"' AND v_field = '' THEN
            v_quoted := true;
            v_touched := true;
        ELSIF v_ch = ',' THEN
            v_row := v_row || v_field;
            v_field := '';
            v_touched := true;
        ELSIF v_ch = E'\r' AND v_i < v_count AND v_chars[v_i + 1] = E'\n' THEN
            NULL;  -- the LF that follows ends the row
        ELSIF v_ch = E'\n' THEN
            IF v_touched OR v_field <> '' THEN
                line := v_row_line; fields := v_row || v_field;
                RETURN NEXT;
            END IF;
            v_row := '{}'; v_field := ''; v_touched := false;
            v_line := v_line + 1;
            v_row_line := v_line;
        ELSE
            v_field := v_field || v_ch;
        END IF;
        v_i := v_i + 1;
    END LOOP;
    IF v_quoted THEN
        RAISE EXCEPTION 'line %: a quoted field is not closed', v_row_line USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF v_touched OR v_field <> '' THEN
        line := v_row_line; fields := v_row || v_field;
        RETURN NEXT;
    END IF;
END
$$;
