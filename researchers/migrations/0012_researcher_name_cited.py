"""Header suggestions: the most cited researchers bearing a given name, from an index.

Two letters typed in the header box match tens of thousands of names, too many to rank as the
visitor types, so the suggestions rank the first of them and complete the best names found
with their most cited namesakes (researchers.name_search._best_name_candidates):
`name_normalized = %s ORDER BY cited_by_count DESC, id LIMIT 8`, which this index answers by
reading eight entries, however common the name. Merged records never show, so they are left
out of it.

Not declared in Model.Meta, like the other search indexes (0007, 0008): the search module is
its only reader. Built CONCURRENTLY, so the migration is not atomic.
"""

from __future__ import annotations

from django.db import migrations


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("researchers", "0011_listing_indexes"),
    ]

    operations = [
        migrations.RunSQL(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS researcher_name_cited_idx "
            "ON researchers_researcher (name_normalized, cited_by_count DESC, id) "
            "WHERE merged_into_id IS NULL",
            "DROP INDEX CONCURRENTLY IF EXISTS researcher_name_cited_idx",
        ),
    ]
