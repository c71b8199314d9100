"""Search: a vocabulary of the words of researcher names, so that a word with two or three
typos is matched to the few real words closest to it, and the researchers bearing those are
found through the word indexes of 0008, instead of a trigram scan of every full name.

- researchers_name_word: each word of a name or an alternate name once (tens of thousands of
  rows where there are hundreds of thousands of names). COLLATE "C" so that the primary key
  answers a range by first letter or by prefix (`word >= 'gu' AND word < 'gv'`) byte by byte.
- researchers_name_words_built: one row, the highest researcher id the vocabulary has read.
  Researchers above it are not in the vocabulary yet; the search matches them by trigrams as
  before, through researchers_name_words_up_to(): STABLE, so the planner evaluates it when it
  estimates `id > researchers_name_words_up_to()` and reads the few newer rows by primary key.
- fuzzystrmatch, for levenshtein_less_equal (a contrib module, like pg_trgm and unaccent;
  trusted, so the database owner may create it).

The vocabulary is refreshed by researchers.name_words.name_words_refresh (see there); the
migration fills it once. No Django model: researchers.name_words is its only reader and writer,
as researchers.name_search is the word indexes' only reader.
"""

from __future__ import annotations

from django.contrib.postgres.operations import CreateExtension
from django.db import migrations

CREATE_TABLES = r"""
CREATE TABLE IF NOT EXISTS researchers_name_word (
    word text COLLATE "C" PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS researchers_name_words_built (
    id smallint PRIMARY KEY CHECK (id = 1),
    researchers_up_to bigint NOT NULL,
    refreshed_at timestamptz NOT NULL
);
CREATE OR REPLACE FUNCTION researchers_name_words_up_to() RETURNS bigint
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
    RETURN coalesce(
        (SELECT researchers_up_to FROM researchers_name_words_built WHERE id = 1), 0
    );
END
$$;
-- The real words a query word may stand for (researchers.name_words.vocabulary_words_sql),
-- with at most `completions` of the words it begins. PL/pgSQL, so its statements are planned
-- once per session, not within every name search.
CREATE OR REPLACE FUNCTION researchers_name_word_candidates(
    query_word text, variants text[], query_words_count int, completions int
) RETURNS text[] LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
DECLARE
    n int := length(query_word);
    -- Two typos in four letters make another word ("izhe" is two edits from "iohe"), which
    -- only the other words of the query can rule out: alone, a short word is allowed one.
    -- A swap is two edits for levenshtein, so two typos with a swap in them are three.
    edits int := CASE
        WHEN n <= 4 AND query_words_count = 1 THEN 1 WHEN n <= 5 THEN 2 ELSE 3
    END;
    first_letter text := left(query_word, 1);
    past_first_letter text := chr(ascii(left(query_word, 1)) + 1);
    past_prefix text := left(query_word, -1) || chr(ascii(right(query_word, 1)) + 1);
BEGIN
    IF n > 100 THEN  -- a hundred letters is no name word; levenshtein stops at 255
        RETURN ARRAY(
            SELECT word COLLATE "default" FROM researchers_name_word WHERE word = ANY(variants)
        );
    END IF;
    IF n < 3 THEN  -- too short to be fuzzy; only the query's last word can be a beginning
        RETURN ARRAY(
            SELECT found.word COLLATE "default" FROM (
                SELECT word FROM researchers_name_word WHERE word = ANY(variants)
                UNION
                (SELECT word FROM researchers_name_word
                 WHERE word >= query_word COLLATE "C" AND word < past_prefix COLLATE "C"
                 ORDER BY word LIMIT completions)
            ) AS found(word)
        );
    END IF;
    RETURN ARRAY(
        SELECT found.word COLLATE "default" FROM (
            SELECT word FROM researchers_name_word WHERE word = ANY(variants)
            UNION
            (SELECT word FROM researchers_name_word
             WHERE word >= first_letter COLLATE "C" AND word < past_first_letter COLLATE "C"
             AND length(word) BETWEEN n - 2 AND n + 2
             AND levenshtein_less_equal(word, query_word, edits) <= edits
             ORDER BY levenshtein_less_equal(word, query_word, edits), word LIMIT 32)
            UNION
            (SELECT word FROM researchers_name_word
             WHERE word >= query_word COLLATE "C" AND word < past_prefix COLLATE "C"
             ORDER BY word LIMIT completions)
        ) AS found(word)
    );
END
$$;
"""

DROP_TABLES = r"""
DROP FUNCTION IF EXISTS researchers_name_word_candidates(text, text[], int, int);
DROP FUNCTION IF EXISTS researchers_name_words_up_to();
DROP TABLE IF EXISTS researchers_name_words_built;
DROP TABLE IF EXISTS researchers_name_word;
"""

# The same statement as researchers.name_words.NAME_WORDS_REFRESH_SQL from id 0, frozen here.
FILL = r"""
WITH up_to AS (SELECT coalesce(max(id), 0) AS id FROM researchers_researcher),
added AS (
    INSERT INTO researchers_name_word (word)
    SELECT DISTINCT name_word FROM researchers_researcher AS researcher,
    unnest(string_to_array(researcher.name_normalized::text, ' ')
           || string_to_array(researchers_normalize_names(researcher.alternate_names), ' '))
        AS name_word
    WHERE researcher.merged_into_id IS NULL AND name_word <> ''
    ON CONFLICT DO NOTHING
    RETURNING 1
)
INSERT INTO researchers_name_words_built (id, researchers_up_to, refreshed_at)
SELECT 1, up_to.id, now() FROM up_to
ON CONFLICT (id) DO UPDATE
SET researchers_up_to = excluded.researchers_up_to, refreshed_at = excluded.refreshed_at;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("researchers", "0016_researcher_name_match_tokens"),
    ]

    operations = [
        CreateExtension("fuzzystrmatch"),
        migrations.RunSQL(CREATE_TABLES, DROP_TABLES),
        migrations.RunSQL(FILL, migrations.RunSQL.noop),
    ]
