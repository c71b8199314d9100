"""The ingest app takes over the import records: ImportRun, ImportChunk and ImportIssue from
publications, PendingFollowUp from the former imports app (issue 23). Their tables stay where
they are (db_table), so this migration only moves Django's idea of them:

- the four models enter this app's state, nothing in the database changes;
- imports_pendingfollowup is created on a database that never had the imports app (a new one);
  a database made by the old code already has it, with its rows;
- their content types move to app_label "ingest", so the permissions granted on them (the
  moderators' group) and the admin log entries that name them stay attached.

publications 0014 then drops the three models from publications' state.
"""

import django.contrib.postgres.fields
import django.db.models.deletion
from django.db import migrations, models

# (old app_label, model) -> the new app_label
MOVED_CONTENT_TYPES = {
    ("publications", "importrun"): "ingest",
    ("publications", "importchunk"): "ingest",
    ("publications", "importissue"): "ingest",
    ("imports", "pendingfollowup"): "ingest",
}


def follow_up_table_create_if_missing(apps, schema_editor):
    model = apps.get_model("ingest", "PendingFollowUp")
    existing = schema_editor.connection.introspection.table_names()
    if model._meta.db_table not in existing:
        schema_editor.create_model(model)


def content_types_move(apps, schema_editor, *, backwards=False):
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    for (old_label, model), new_label in MOVED_CONTENT_TYPES.items():
        source, target = (new_label, old_label) if backwards else (old_label, new_label)
        if ContentType.objects.using(db).filter(app_label=target, model=model).exists():
            continue  # already there (created by a post_migrate of newer code): keep that one
        ContentType.objects.using(db).filter(app_label=source, model=model).update(
            app_label=target
        )


def content_types_move_back(apps, schema_editor):
    content_types_move(apps, schema_editor, backwards=True)


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("publications", "0013_listed_by_duplicate_indexes"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name='ImportRun',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('source', models.CharField(default='openalex', max_length=30)),
                        ('description', models.TextField(help_text='The paths or the query this run imports.')),
                        ('status', models.CharField(choices=[('pending', 'Pending'), ('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed')], default='pending', max_length=10)),
                        ('records_total', models.PositiveBigIntegerField(default=0, help_text='Lines planned, when known.')),
                        ('read_count', models.PositiveBigIntegerField(default=0)),
                        ('created_count', models.PositiveBigIntegerField(default=0)),
                        ('updated_count', models.PositiveBigIntegerField(default=0)),
                        ('unchanged_count', models.PositiveBigIntegerField(default=0)),
                        ('failed_count', models.PositiveBigIntegerField(default=0)),
                        ('chunks_total', models.PositiveIntegerField(default=0)),
                        ('chunks_done', models.PositiveIntegerField(default=0)),
                        ('error', models.TextField(blank=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('last_progress_at', models.DateTimeField(blank=True, null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                    ],
                    options={
                        'db_table': 'publications_importrun',
                        'ordering': ['-created_at'],
                    },
                ),
                migrations.CreateModel(
                    name='ImportChunk',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('path', models.TextField()),
                        ('paths', django.contrib.postgres.fields.ArrayField(base_field=models.TextField(), blank=True, default=list, size=None)),
                        ('entity', models.CharField(blank=True, max_length=20)),
                        ('start_line', models.PositiveBigIntegerField()),
                        ('end_line', models.PositiveBigIntegerField()),
                        ('start_byte', models.PositiveBigIntegerField(blank=True, null=True)),
                        ('next_line', models.PositiveBigIntegerField()),
                        ('next_byte', models.PositiveBigIntegerField(blank=True, null=True)),
                        ('done', models.BooleanField(default=False)),
                        ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chunks', to='ingest.importrun')),
                    ],
                    options={
                        'db_table': 'publications_importchunk',
                        'ordering': ['run', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='PendingFollowUp',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('researcher_ids', django.contrib.postgres.fields.ArrayField(base_field=models.BigIntegerField(), size=None)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('claimed_until', models.DateTimeField(blank=True, null=True)),
                    ],
                    options={
                        'db_table': 'imports_pendingfollowup',
                        'indexes': [models.Index(fields=['claimed_until', 'id'], name='followup_claimable')],
                    },
                ),
                migrations.CreateModel(
                    name='ImportIssue',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('severity', models.CharField(choices=[('error', 'Rejected'), ('warning', 'Imported with a warning')], default='error', max_length=10)),
                        ('path', models.TextField(blank=True)),
                        ('line_number', models.PositiveBigIntegerField(blank=True, null=True)),
                        ('entity', models.CharField(blank=True, max_length=20)),
                        ('external_id', models.CharField(blank=True, max_length=64)),
                        ('reason', models.TextField()),
                        ('raw', models.TextField(blank=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='issues', to='ingest.importrun')),
                    ],
                    options={
                        'db_table': 'publications_importissue',
                        'ordering': ['run', 'id'],
                        'indexes': [models.Index(fields=['run', 'severity'], name='import_issue_run_idx')],
                    },
                ),
            ],
        ),
        migrations.RunPython(follow_up_table_create_if_missing, migrations.RunPython.noop),
        migrations.RunPython(content_types_move, content_types_move_back),
    ]
