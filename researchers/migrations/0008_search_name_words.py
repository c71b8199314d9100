"""Search: word indexes on researcher names, so that a name with a typo per word is found by
exact lookups instead of a trigram scan.

researchers.search looks every word of the query up together with its one-edit variants
(a letter dropped, added, replaced, or two swapped) in a GIN index of the words of each name:
`string_to_array(name_normalized, ' ') && ARRAY[...]`. That costs a few exact lookups in an
index whose keys are whole words, where a trigram scan reads the long posting lists of common
trigrams (see tests/bench/search_bench.py for the figures). The trigram indexes of 0007 stay,
for what the word lookup cannot find: fragments of words, names typed part way, heavier typos.

The two normalizing functions of 0007 become PL/pgSQL with a COST, returning the same
results (so the indexes built on them stay valid). As inlined SQL the planner priced them
like `=`, and with the estimates it makes for `&&` against a few hundred variants it would
pick a sequential scan that runs unaccent on every row (seconds, where the index takes
milliseconds). researchers_normalize_names() also returns '' at once for the usual empty
array, since it runs for every row a trigram scan rechecks.

The search GIN indexes of this app do without a pending list (fastupdate = off): with one,
rows written by an import wait in an unsorted list that every search scans from end to end
until vacuum merges it (up to 4 MB; it made name searches several times slower in the search
benchmark right after an import). Imports pay a little more per row instead.

Built CONCURRENTLY, so the migration is not atomic.
"""

from __future__ import annotations

from django.db import migrations

NORMALIZE_NAMES = r"""
CREATE OR REPLACE FUNCTION researchers_normalize_name(name text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 200 AS $$
BEGIN
    RETURN btrim(regexp_replace(
        lower(public.unaccent('public.unaccent'::regdictionary, name)), '[^a-z0-9]+', ' ', 'g'
    ));
END
$$;
CREATE OR REPLACE FUNCTION researchers_normalize_names(names varchar[]) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 200 AS $$
BEGIN
    IF cardinality(names) = 0 THEN
        RETURN '';
    END IF;
    RETURN researchers_normalize_name(array_to_string(names, ' | '));
END
$$;
"""

NORMALIZE_NAMES_0007 = r"""
CREATE OR REPLACE FUNCTION researchers_normalize_name(name text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 100 AS $$
    SELECT btrim(regexp_replace(
        lower(public.unaccent('public.unaccent'::regdictionary, name)), '[^a-z0-9]+', ' ', 'g'
    ))
$$;
CREATE OR REPLACE FUNCTION researchers_normalize_names(names varchar[]) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 100 AS $$
    SELECT researchers_normalize_name(array_to_string(names, ' | '))
$$;
"""


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("researchers", "0007_search_name_indexes"),
    ]

    operations = [
        migrations.RunSQL(NORMALIZE_NAMES, NORMALIZE_NAMES_0007),
        migrations.RunSQL(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS researcher_name_words "
            "ON researchers_researcher USING gin (string_to_array(name_normalized::text, ' ')) "
            "WITH (fastupdate = off)",
            "DROP INDEX CONCURRENTLY IF EXISTS researcher_name_words",
        ),
        migrations.RunSQL(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS researcher_alternate_name_words "
            "ON researchers_researcher "
            "USING gin (string_to_array(researchers_normalize_names(alternate_names), ' ')) "
            "WITH (fastupdate = off)",
            "DROP INDEX CONCURRENTLY IF EXISTS researcher_alternate_name_words",
        ),
        migrations.RunSQL(
            "ALTER INDEX researcher_alternate_names_trgm SET (fastupdate = off); "
            "ALTER INDEX institution_name_trgm SET (fastupdate = off);",
            "ALTER INDEX researcher_alternate_names_trgm RESET (fastupdate); "
            "ALTER INDEX institution_name_trgm RESET (fastupdate);",
        ),
    ]
