"""ImportRun, ImportChunk and ImportIssue belong to the ingest app now (ingest 0001, which took
them into its state with their tables). Here they leave publications' state only: the tables
and their rows stay."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("publications", "0013_listed_by_duplicate_indexes"),
        ("ingest", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveField(model_name="importissue", name="run"),
                migrations.RemoveField(model_name="importchunk", name="run"),
                migrations.DeleteModel(name="ImportChunk"),
                migrations.DeleteModel(name="ImportIssue"),
                migrations.DeleteModel(name="ImportRun"),
            ],
        ),
    ]
