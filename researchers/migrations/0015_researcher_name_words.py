"""Indexes for the name resolver's candidate lookup (publications.importers.writer.resolver):
the first and the last word of a researcher's normalised name, so a batch's blocking words
(researchers.names.blocking_keys) find their candidates with two index scans. Built
concurrently: the table is large and written to by imports."""

from django.db import migrations


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("researchers", "0014_cv_entry")]

    operations = [
        migrations.RunSQL(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS researcher_name_first_word"
            " ON researchers_researcher ((split_part(name_normalized, ' ', 1)))"
            " WHERE merged_into_id IS NULL",
            "DROP INDEX CONCURRENTLY IF EXISTS researcher_name_first_word",
        ),
        migrations.RunSQL(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS researcher_name_last_word"
            " ON researchers_researcher ((regexp_replace(name_normalized, '^.* ', '')))"
            " WHERE merged_into_id IS NULL",
            "DROP INDEX CONCURRENTLY IF EXISTS researcher_name_last_word",
        ),
    ]
