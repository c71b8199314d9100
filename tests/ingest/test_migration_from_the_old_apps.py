"""The import records moved from publications and the imports app to ingest (issue 23). A
database made by the old code keeps every row and every permission granted on them.

The test takes the test database back to the schema the old code had (ingest unapplied,
publications at 0013: the tables are the same, only Django's state differs), fills it as the
old code would have (rows in the old tables, the old content types, a moderators' group with a
permission on import runs, the imports app's migration recorded), then migrates forward.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from ingest.models import ImportChunk, ImportIssue, ImportRun, PendingFollowUp

pytestmark = pytest.mark.django_db(transaction=True)

OLD_CODE = [("ingest", None), ("publications", "0013_listed_by_duplicate_indexes")]


def _migrate(targets) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    ContentType.objects.clear_cache()


def _latest() -> list[tuple[str, str]]:
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


def test_a_database_made_by_the_old_code_keeps_its_import_records_and_permissions(
    django_user_model,
):
    _migrate(OLD_CODE)
    try:
        # The models as the applied migrations define them: the old code's.
        old = MigrationExecutor(connection)._create_project_state(with_applied_migrations=True).apps
        assert not any(model._meta.app_label == "ingest" for model in old.get_models())
        old_run_model = old.get_model("publications", "ImportRun")
        run = old_run_model.objects.create(
            source="crossref", description="doi: 10.1000/1", status="succeeded", read_count=3
        )
        old.get_model("publications", "ImportChunk").objects.create(
            run=run, path="works.jsonl", start_line=0, end_line=10, next_line=10, done=True
        )
        old.get_model("publications", "ImportIssue").objects.create(
            run=run, line_number=2, reason="malformed JSON", raw="{"
        )
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO imports_pendingfollowup (researcher_ids, created_at) VALUES (%s, %s)",
                [[11, 12], timezone.now()],
            )
            cursor.execute(
                "INSERT INTO django_migrations (app, name, applied) VALUES ('imports', "
                "'0001_initial', now())"
            )
        old_content_types = old.get_model("contenttypes", "ContentType")
        run_type = old_content_types.objects.get(app_label="publications", model="importrun")
        assert old_content_types.objects.filter(
            app_label="imports", model="pendingfollowup"
        ).exists()
        moderators = Group.objects.create(name="Moderators")
        moderators.permissions.add(
            Permission.objects.get(content_type_id=run_type.pk, codename="view_importrun")
        )
    finally:
        _migrate(_latest())

    run = ImportRun.objects.get()
    assert (run.source, run.description, run.status, run.read_count) == (
        "crossref",
        "doi: 10.1000/1",
        ImportRun.Status.SUCCEEDED,
        3,
    )
    assert ImportChunk.objects.get().run == run
    assert ImportIssue.objects.get().reason == "malformed JSON"
    assert PendingFollowUp.objects.get().researcher_ids == [11, 12]
    # The content types moved, with the ids the permissions point to.
    assert ContentType.objects.get_for_model(ImportRun).pk == run_type.pk
    assert ContentType.objects.get_for_model(ImportRun).app_label == "ingest"
    assert ContentType.objects.get_for_model(PendingFollowUp).app_label == "ingest"
    assert not ContentType.objects.filter(app_label__in=["imports"]).exists()
    moderator = django_user_model.objects.create_user(
        username="mod", email="mod@example.org", password="x", is_staff=True
    )
    moderator.groups.add(Group.objects.get(name="Moderators"))
    assert moderator.has_perm("ingest.view_importrun")
