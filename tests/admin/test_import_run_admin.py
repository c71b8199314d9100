"""Import runs, chunks and issues in the admin: read-only, with live counts while a run goes on."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from ingest.models import ImportChunk, ImportIssue, ImportRun

from . import builders

pytestmark = pytest.mark.django_db


def change_url(run: ImportRun) -> str:
    return reverse("admin:ingest_importrun_change", args=[run.pk])


def live_url(run: ImportRun) -> str:
    return reverse("admin:ingest_importrun_live", args=[run.pk])


def test_the_run_page_shows_the_counts_progress_and_rate(admin_client):
    run = builders.running_run()
    content = admin_client.get(change_url(run)).content.decode()
    for figure in ("4,321", "4,000", "200", "100", "21", "3 / 8"):
        assert figure in content
    assert '<progress max="100" value="43">' in content
    assert "43% of 10,000 records" in content
    assert "records/s" in content
    assert 'data-active="true"' in content
    assert "ingest/admin/import_run_live.js" in content
    # Without JavaScript, a running run's page refreshes itself.
    assert 'http-equiv="refresh"' in content


def test_a_finished_run_page_stops_refreshing(admin_client):
    run = builders.running_run(status=ImportRun.Status.SUCCEEDED, finished_at=timezone.now())
    content = admin_client.get(change_url(run)).content.decode()
    assert 'data-active="false"' in content
    assert 'http-equiv="refresh"' not in content


def test_a_run_without_a_known_total_shows_a_bar_without_a_value(admin_client):
    run = builders.running_run(records_total=0)
    content = admin_client.get(live_url(run)).content.decode()
    assert '<progress max="100">' in content
    assert "total not known yet" in content


def test_the_run_changelist_shows_live_progress_for_each_run(admin_client):
    run = builders.running_run()
    content = admin_client.get(reverse("admin:ingest_importrun_changelist")).content.decode()
    assert "4,321" in content
    assert f'data-live-url="{live_url(run)}?compact=1"' in content


def test_the_live_counts_endpoint_returns_the_current_counts(admin_client):
    run = builders.running_run()
    response = admin_client.get(live_url(run))
    assert response.status_code == 200
    content = response.content.decode()
    assert content.lstrip().startswith("<div")
    assert 'data-count="read">4,321<' in content
    assert "no-cache" in response["Cache-Control"]


def test_the_live_counts_endpoint_reflects_an_update_made_after_the_first_fetch(admin_client):
    run = builders.running_run()
    admin_client.get(live_url(run))
    ImportRun.objects.filter(pk=run.pk).update(
        read_count=9876,
        chunks_done=8,
        status=ImportRun.Status.SUCCEEDED,
        finished_at=timezone.now(),
    )
    content = admin_client.get(live_url(run)).content.decode()
    assert 'data-count="read">9,876<' in content
    assert "8 / 8" in content
    assert 'data-active="false"' in content


def test_the_live_counts_endpoint_is_for_staff_only(client, member_client, staff_client, grant):
    run = builders.running_run()
    for outsider in (client, member_client):
        response = outsider.get(live_url(run))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))
    assert staff_client.get(live_url(run)).status_code == 403
    grant("view_importrun")
    assert staff_client.get(live_url(run)).status_code == 200


def test_the_live_counts_endpoint_answers_get_only(admin_client):
    run = builders.running_run()
    assert admin_client.post(live_url(run)).status_code == 405


def test_the_live_counts_endpoint_answers_404_for_an_unknown_run(admin_client):
    assert (
        admin_client.get(reverse("admin:ingest_importrun_live", args=[999999])).status_code == 404
    )


def test_an_import_run_cannot_be_added(admin_client):
    assert admin_client.get(reverse("admin:ingest_importrun_add")).status_code == 403
    content = admin_client.get(reverse("admin:ingest_importrun_changelist")).content.decode()
    assert reverse("admin:ingest_importrun_add") not in content


def test_an_import_run_cannot_be_edited(admin_client):
    run = builders.running_run()
    response = admin_client.post(change_url(run), {"description": "changed", "read_count": "0"})
    assert response.status_code == 403
    run.refresh_from_db()
    assert run.read_count == 4321


@pytest.mark.parametrize("model_name", ["importchunk", "importissue"])
def test_chunks_and_issues_cannot_be_added_or_edited(admin_client, model_name):
    run = builders.import_run()
    row = builders.import_chunk(run) if model_name == "importchunk" else builders.import_issue(run)
    assert admin_client.get(reverse(f"admin:ingest_{model_name}_add")).status_code == 403
    change = reverse(f"admin:ingest_{model_name}_change", args=[row.pk])
    assert admin_client.post(change, {}).status_code == 403


def test_a_superuser_can_delete_a_run_with_its_chunks_and_issues(admin_client):
    run = builders.running_run()
    builders.import_chunk(run)
    builders.import_issue(run)
    delete = reverse("admin:ingest_importrun_delete", args=[run.pk])
    confirmation = admin_client.get(delete).content.decode()
    assert "Import issues: 1" in confirmation
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    assert not ImportRun.objects.exists()
    assert not ImportChunk.objects.exists()
    assert not ImportIssue.objects.exists()


def test_staff_who_are_not_superusers_cannot_delete_a_run(staff_client, grant):
    grant("view_importrun", "delete_importrun")
    run = builders.running_run()
    assert staff_client.get(change_url(run)).status_code == 200
    delete = reverse("admin:ingest_importrun_delete", args=[run.pk])
    assert staff_client.post(delete, {"post": "yes"}).status_code == 403
    assert ImportRun.objects.filter(pk=run.pk).exists()


def test_the_run_page_lists_the_first_issues_and_links_to_all_of_them(admin_client):
    run = builders.running_run()
    for number in range(25):
        builders.import_issue(run, external_id=f"W90{number:02d}", line_number=number + 1)
    builders.import_issue(run, severity=ImportIssue.Severity.WARNING, external_id="W9999")
    response = admin_client.get(change_url(run))
    content = response.content.decode()
    inline = next(
        f for f in response.context["inline_admin_formsets"] if f.opts.model is ImportIssue
    )
    assert len(inline.formset.forms) == 20
    assert "W9000" in content
    assert "W9024" not in content
    assert "25 rejected, 1 imported with a warning" in content
    assert f"{reverse('admin:ingest_importissue_changelist')}?run__id__exact={run.pk}" in content


def test_the_run_page_lists_its_chunks(admin_client):
    run = builders.running_run()
    builders.import_chunk(run, path="snapshot/part_007.gz", done=True)
    content = admin_client.get(change_url(run)).content.decode()
    assert "snapshot/part_007.gz" in content


def test_an_issue_page_shows_reason_location_and_the_raw_payload_escaped(admin_client):
    run = builders.import_run()
    issue = builders.import_issue(
        run,
        path="works/part_001.gz",
        line_number=42,
        external_id="W123",
        reason="display_name is empty",
        raw='{"id": "W123", "title": "<script>alert(1)</script>"}',
    )
    content = admin_client.get(
        reverse("admin:ingest_importissue_change", args=[issue.pk])
    ).content.decode()
    assert "display_name is empty" in content
    assert "works/part_001.gz:42" in content
    assert "W123" in content
    assert '<pre class="import-issue-raw">' in content
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in content
    assert "<script>alert(1)</script>" not in content
