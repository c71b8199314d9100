from django.db import migrations


class Migration(migrations.Migration):
    """Issue 30: every search page counts the topics whose name is like the query
    (search.selectors.topics_institutions.topics_matching), and without an index that was a
    sequential scan running researchers_normalize_name (unaccent, a regular expression) and
    `%>` on every topic's name: about 4 µs a topic, some 17 ms a search with OpenAlex's ~4,500
    topics. The trigram index on the same expression serves it, as institution_name_trgm does
    for institutions (researchers migration 0007, where the function is defined); the other
    half of the condition, a category code ("cs.CV", `code__iexact`, so `upper(code)`), gets a
    btree of its own, without which the planner cannot OR the two indexes and scans the table."""

    dependencies = [
        ("publications", "0019_work_search_bucket_index"),
        ("researchers", "0007_search_name_indexes"),
    ]

    operations = [
        migrations.RunSQL(
            "CREATE INDEX IF NOT EXISTS topic_name_trgm ON publications_topic "
            "USING gin (researchers_normalize_name(name) gin_trgm_ops) WITH (fastupdate = off)",
            "DROP INDEX IF EXISTS topic_name_trgm",
        ),
        migrations.RunSQL(
            "CREATE INDEX IF NOT EXISTS topic_code_upper ON publications_topic (upper(code))",
            "DROP INDEX IF EXISTS topic_code_upper",
        ),
    ]
