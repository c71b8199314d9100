"""The name resolver's candidates by (family name, first initial) key: a GIN index of match
tokens per researcher, so the learned resolver (ingest.resolution.evidence) reads the records
whose keys can meet a mention's, a bounded number per key, instead of every stored name
sharing a first or last word (a scan of the table that grew with the corpus).

researchers_name_match_tokens(name_normalized, display_name, dblp_id) returns:
- '=word' for the first and last word of every name (a mention without a given name, or with
  a dblp homonym key, meets every name of its words: researchers.names.keys_meet);
- for a name the resolver parses by its simple split (researchers.names._simple_split: two or
  three words, no comma, no word nameparser treats specially, no LaTeX, no homonym number, no
  dblp id, each word one normalised word), its match keys exactly as
  researchers.names.PersonName.match_keys computes them: 'family|initial' for the family of
  the last word, of the last two (three words), and for two words of more than one letter the
  name read family first;
- for any other name, '~word' for its first and last word: the resolver reads those by word,
  as before, and parses them in Python.

An expression index: PostgreSQL computes it wherever a name is written (the writer's COPYs,
the ORM, merges, the admin), and the migration's CREATE INDEX is the backfill. The word list
is nameparser's, normalised, as installed when the migration runs (a later nameparser with more
special words only makes a few names read by their words). PL/pgSQL with a COST, as 0008's
functions, so the planner does not price it like `=` and scan. Built CONCURRENTLY.
"""

from __future__ import annotations

from django.db import migrations


def _special_words() -> list[str]:
    """nameparser's special words (researchers.names.special_words), normalised as the stored
    names are, since the function compares them with name_normalized's words."""
    from researchers.names import normalize_name, special_words

    words: set[str] = set()
    for word in special_words():
        words.update(normalize_name(word.strip(".")).split())
    return sorted(words)


def _function_sql() -> str:
    special = "ARRAY[" + ",".join(f"'{w}'" for w in _special_words()) + "]::text[]"
    return rf"""
CREATE OR REPLACE FUNCTION researchers_name_match_tokens(
    name_normalized text, display_name text, dblp_id text
) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 200 AS $$
DECLARE
    words text[] := string_to_array(coalesce(name_normalized, ''), ' ');
    n int := coalesce(cardinality(words), 0);
    tokens text[];
BEGIN
    IF n = 0 THEN
        RETURN '{{}}';
    END IF;
    tokens := ARRAY['=' || words[1], '=' || words[n]];
    IF dblp_id IS NOT NULL OR n NOT BETWEEN 2 AND 3
       OR coalesce(cardinality(string_to_array(display_name, ' ')), 0) <> n
       OR display_name ~ '[,\\{{}}$]'
       OR words[n] ~ '^[0-9]{{4}}$'
       OR words && {special} THEN
        RETURN tokens || ARRAY['~' || words[1], '~' || words[n]];
    END IF;
    tokens := tokens || (words[n] || '|' || left(words[1], 1));
    IF n = 3 THEN
        tokens := tokens || (words[2] || words[3] || '|' || left(words[1], 1));
    ELSIF length(words[1]) > 1 AND length(words[2]) > 1 THEN
        tokens := tokens || (words[1] || '|' || left(words[2], 1));
    END IF;
    RETURN tokens;
END
$$;
"""


def create_function(apps, schema_editor):  # type: ignore[no-untyped-def]
    schema_editor.execute(_function_sql())


def drop_function(apps, schema_editor):  # type: ignore[no-untyped-def]
    schema_editor.execute("DROP FUNCTION IF EXISTS researchers_name_match_tokens(text, text, text)")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("researchers", "0015_researcher_stated_figures"),
    ]

    operations = [
        migrations.RunPython(create_function, drop_function),
        migrations.RunSQL(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS researcher_name_match_tokens "
            "ON researchers_researcher USING gin (researchers_name_match_tokens("
            "name_normalized::text, display_name::text, dblp_id::text)) "
            "WITH (fastupdate = off) WHERE merged_into_id IS NULL",
            "DROP INDEX CONCURRENTLY IF EXISTS researcher_name_match_tokens",
        ),
    ]
