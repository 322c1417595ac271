-- Decodes the HTML entities that trivia APIs put in text: named (&quot; &amp;
-- &eacute; ...) and numeric (&#039; &#x27;).
CREATE OR REPLACE FUNCTION ops.html_decode(p_text text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    v_out text := '';
    v_rest text := p_text;
    v_match text[];
    v_named constant jsonb := '{
        "quot": "\"", "amp": "&", "apos": "''", "lt": "<", "gt": ">", "nbsp": " ",
        "eacute": "é", "Eacute": "É", "egrave": "è", "ecirc": "ê", "euml": "ë",
        "aacute": "á", "agrave": "à", "acirc": "â", "auml": "ä", "Auml": "Ä", "aring": "å", "atilde": "ã",
        "iacute": "í", "igrave": "ì", "icirc": "î", "iuml": "ï",
        "oacute": "ó", "ograve": "ò", "ocirc": "ô", "ouml": "ö", "Ouml": "Ö", "otilde": "õ", "oslash": "ø",
        "uacute": "ú", "ugrave": "ù", "ucirc": "û", "uuml": "ü", "Uuml": "Ü",
        "ntilde": "ñ", "Ntilde": "Ñ", "ccedil": "ç", "Ccedil": "Ç", "szlig": "ß",
        "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“", "hellip": "…",
        "ndash": "–", "mdash": "—", "deg": "°", "pi": "π", "shy": "", "times": "×", "divide": "÷",
        "prime": "′", "Prime": "″", "trade": "™", "reg": "®", "copy": "©", "euro": "€", "pound": "£"
    }';
    v_pos integer;
    v_entity text;
    v_decoded text;
BEGIN
    LOOP
        v_pos := strpos(v_rest, '&');
        EXIT WHEN v_pos = 0;
        v_out := v_out || left(v_rest, v_pos - 1);
        v_rest := substr(v_rest, v_pos);
        v_match := regexp_match(v_rest, '^&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z]{2,8});');
        v_decoded := NULL;
        IF v_match IS NOT NULL THEN
            v_entity := v_match[1];
            IF v_entity ~ '^#[xX]' THEN
                v_decoded := chr(('x' || lpad(substr(v_entity, 3), 8, '0'))::bit(32)::integer);
            ELSIF v_entity ~ '^#' THEN
                v_decoded := chr(substr(v_entity, 2)::integer);
            ELSE
                v_decoded := v_named ->> v_entity;
            END IF;
        END IF;
        IF v_decoded IS NULL THEN
            v_out := v_out || '&';
            v_rest := substr(v_rest, 2);
        ELSE
            v_out := v_out || v_decoded;
            v_rest := substr(v_rest, length(v_match[1]) + 3);
        END IF;
    END LOOP;
    RETURN v_out || v_rest;
END
$$;
