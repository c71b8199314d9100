"""Search indexes: trigram indexes over alternate names and institution names.

researchers_normalize_name(text) is the SQL twin of researchers.names.normalize_name for text
that has no stored normalized column (alternate names, institution names): accents folded by
unaccent, lower case, everything but a-z and 0-9 turned into single spaces. It is IMMUTABLE so
that expression indexes can use it; unaccent itself is only STABLE because its dictionary could
change, so the dictionary is named explicitly (the usual wrapper). If the unaccent rules ever
change, REINDEX these two indexes.

The indexes are built CONCURRENTLY so that applying this to a loaded database does not block
imports, which is why the migration is not atomic. They are not declared in Model.Meta: they
index a function, not a field, and the search module (researchers/search.py) is the only reader.
"""

from __future__ import annotations

from django.db import migrations

CREATE_FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION researchers_normalize_name(name text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT btrim(regexp_replace(
        lower(public.unaccent('public.unaccent'::regdictionary, name)), '[^a-z0-9]+', ' ', 'g'
    ))
$$;
CREATE OR REPLACE FUNCTION researchers_normalize_names(names varchar[]) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT researchers_normalize_name(array_to_string(names, ' | '))
$$;
"""

DROP_FUNCTIONS = """
DROP FUNCTION IF EXISTS researchers_normalize_names(varchar[]);
DROP FUNCTION IF EXISTS researchers_normalize_name(text);
"""


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("researchers", "0006_page_indexes"),
    ]

    operations = [
        migrations.RunSQL(CREATE_FUNCTIONS, DROP_FUNCTIONS),
        migrations.RunSQL(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS researcher_alternate_names_trgm "
            "ON researchers_researcher "
            "USING gin (researchers_normalize_names(alternate_names) gin_trgm_ops)",
            "DROP INDEX CONCURRENTLY IF EXISTS researcher_alternate_names_trgm",
        ),
        migrations.RunSQL(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS institution_name_trgm "
            "ON researchers_institution "
            "USING gin (researchers_normalize_name(name) gin_trgm_ops)",
            "DROP INDEX CONCURRENTLY IF EXISTS institution_name_trgm",
        ),
    ]
