"""The GIN index of name match tokens over every record, not only those not merged away.

The resolver's lookup by name (ingest.resolution.evidence._candidates_by_name) read it through
a partial index whose predicate, `merged_into_id IS NULL`, two btree indexes share: with
statistics that described another state of the table (a TRUNCATE, rows written since in the
same transaction), the planner took that predicate as selective and scanned a whole btree
instead, running the token function on every record for every token (426 s for one lookup in
the test suite). Over the whole table the lookup can say "not merged" in a form no partial
index answers, so the GIN index is its only index.
"""

from django.db import migrations


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("researchers", "0017_name_words"),
    ]

    operations = [
        migrations.RunSQL(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS researcher_name_match_tokens_all "
            "ON researchers_researcher USING gin (researchers_name_match_tokens("
            "name_normalized::text, display_name::text, dblp_id::text)) "
            "WITH (fastupdate = off)",
            "DROP INDEX CONCURRENTLY IF EXISTS researcher_name_match_tokens_all",
        ),
        migrations.RunSQL(
            "DROP INDEX CONCURRENTLY IF EXISTS researcher_name_match_tokens",
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS researcher_name_match_tokens "
            "ON researchers_researcher USING gin (researchers_name_match_tokens("
            "name_normalized::text, display_name::text, dblp_id::text)) "
            "WITH (fastupdate = off) WHERE merged_into_id IS NULL",
        ),
    ]
