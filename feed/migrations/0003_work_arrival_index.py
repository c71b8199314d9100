"""The feed page's arrival scan (feed.selectors.feed, path A): the newest works below a cursor,
newest first, read from an index of the works' arrival (Work.created_at, id).

The index serves only the feed, so it is made here, beside the statement that reads it, rather
than in the publications app's models. One row per work (not per authorship), so the import
writer's cost grows by one small B-tree insert per work. CONCURRENTLY: building it on a large
works table must not block the imports.
"""

from __future__ import annotations

from django.db import migrations


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("feed", "0002_digest_delivery"),
        ("publications", "0007_work_arrival"),
    ]

    operations = [
        migrations.RunSQL(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS feed_work_arrival_idx"
            " ON publications_work (created_at, id)",
            reverse_sql="DROP INDEX CONCURRENTLY IF EXISTS feed_work_arrival_idx",
        ),
    ]
