"""The follow-up of a run's researchers (metrics, slice summaries, trust, pages) is deferred by
its batches to one drain, and nothing a committed batch touched is ever left out."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from ingest.models import ImportChunk, ImportRun, PendingFollowUp
from ingest.services import (
    import_chunk_process,
    import_run_create,
    researchers_follow_up_drain,
    researchers_follow_up_drain_due,
    researchers_follow_up_slice,
)
from ingest.services.follow_up import DRAIN_LEASE
from researchers.models import Researcher

pytestmark = pytest.mark.django_db(transaction=True)

ADA = "A9800000001"


def _work_lines(fixtures_dir: Path) -> list[dict]:
    return [
        json.loads(line)
        for line in (fixtures_dir / "openalex/works_good.jsonl").read_text().splitlines()
    ]


def _write(path: Path, works: list[dict]) -> Path:
    path.write_text("".join(json.dumps(work) + "\n" for work in works))
    return path


def _import_on_this_process_as_a_worker_would(path: Path) -> ImportRun:
    """The chunk path a worker takes (its batches defer the follow-up), without the drain."""
    run, _ = import_run_create(paths=[str(path)], chunk_lines=1)
    for chunk_id in ImportChunk.objects.filter(run=run).values_list("id", flat=True):
        import_chunk_process(chunk_id=chunk_id, batch_size=1)
    run.refresh_from_db()
    return run


def _metrics(openalex_id: str) -> tuple[int, int, int, int]:
    researcher = Researcher.objects.get(openalex_id=openalex_id)
    return (
        researcher.works_count,
        researcher.cited_by_count,
        researcher.h_index,
        researcher.trust_score,
    )


def test_a_chunked_run_leaves_its_researchers_pending_until_the_drain(fixtures_dir, tmp_path):
    run = _import_on_this_process_as_a_worker_would(
        _write(tmp_path / "works.jsonl", _work_lines(fixtures_dir))
    )

    assert run.status == ImportRun.Status.SUCCEEDED
    # One row per committed batch, nothing refreshed yet.
    assert PendingFollowUp.objects.count() == run.read_count == 3
    assert _metrics(ADA)[0] == 0

    assert researchers_follow_up_drain() == Researcher.objects.count()

    assert not PendingFollowUp.objects.exists()
    works_count, cited_by_count, h_index, trust_score = _metrics(ADA)
    assert works_count == 2
    assert cited_by_count > 0 and h_index > 0 and trust_score > 0


def test_the_drain_gives_the_figures_a_sync_import_gives(run_import, fixtures_dir, tmp_path):
    path = _write(tmp_path / "works.jsonl", _work_lines(fixtures_dir))
    _import_on_this_process_as_a_worker_would(path)
    researchers_follow_up_drain()
    drained = {r: _metrics(r) for r in Researcher.objects.values_list("openalex_id", flat=True)}

    Researcher.objects.update(works_count=0, cited_by_count=0, h_index=0, trust_score=0)
    run_import(path)  # unchanged records: nothing is written, nothing is refreshed
    assert {r: _metrics(r) for r in drained} != drained

    connection.cursor().execute(
        "TRUNCATE publications_work, researchers_researcher, imports_pendingfollowup CASCADE"
    )
    run_import(path)
    assert not PendingFollowUp.objects.exists()
    assert {r: _metrics(r) for r in drained} == drained


def test_a_sync_run_started_again_follows_up_what_the_stopped_one_committed(
    run_import, fixtures_dir, tmp_path
):
    path = _write(tmp_path / "works.jsonl", _work_lines(fixtures_dir))
    run, _ = import_run_create(paths=[str(path)], chunk_lines=1)
    # The first process committed one chunk and stopped.
    first = ImportChunk.objects.filter(run=run).order_by("start_line").first()
    import_chunk_process(chunk_id=first.id, finish_run=False)
    assert PendingFollowUp.objects.count() == 1

    from ingest.services import import_run_process

    run = import_run_process(run_id=run.id)

    assert run.status == ImportRun.Status.SUCCEEDED
    assert not PendingFollowUp.objects.exists()
    assert _metrics(ADA)[0] == 2


def test_a_later_run_that_changes_a_work_refreshes_its_authors(fixtures_dir, tmp_path):
    works = _work_lines(fixtures_dir)
    _import_on_this_process_as_a_worker_would(_write(tmp_path / "v1.jsonl", works))
    researchers_follow_up_drain()
    cited_before = _metrics(ADA)[1]

    works[0]["cited_by_count"] += 100
    works[0]["updated_date"] = "2026-03-01T00:00:00"
    run = _import_on_this_process_as_a_worker_would(_write(tmp_path / "v2.jsonl", works))
    assert (run.updated_count, run.unchanged_count) == (1, 2)
    assert PendingFollowUp.objects.count() == 1  # only the batch that changed something
    researchers_follow_up_drain()

    assert _metrics(ADA)[1] == cited_before + 100


def test_a_drain_that_died_holding_rows_leaves_them_to_the_next_after_its_lease(
    fixtures_dir, tmp_path
):
    _import_on_this_process_as_a_worker_would(
        _write(tmp_path / "works.jsonl", _work_lines(fixtures_dir))
    )
    rows = list(PendingFollowUp.objects.order_by("id"))
    # Another drain holds the first row (it is working on it, or died with it).
    PendingFollowUp.objects.filter(id=rows[0].id).update(claimed_until=timezone.now() + DRAIN_LEASE)

    researchers_follow_up_drain()
    assert list(PendingFollowUp.objects.values_list("id", flat=True)) == [rows[0].id]

    # Its lease ran out: the next drain takes the row.
    PendingFollowUp.objects.update(claimed_until=timezone.now() - timedelta(seconds=1))
    assert researchers_follow_up_drain() == len(rows[0].researcher_ids)
    assert not PendingFollowUp.objects.exists()


@override_settings(IMPORT_FOLLOW_UP_SLICE=1)
def test_a_drain_on_a_worker_hands_its_slices_out_and_each_is_refreshed_once(
    fixtures_dir, tmp_path
):
    path = _write(tmp_path / "works.jsonl", _work_lines(fixtures_dir))
    _import_on_this_process_as_a_worker_would(path)
    researcher_ids = sorted(Researcher.objects.values_list("id", flat=True))
    sent: list[int] = []

    assert researchers_follow_up_drain(slices_send=sent.extend) == len(researcher_ids)

    # The batches' rows became one row per slice: disjoint, in id order, every researcher once,
    # each held for the task it was sent to; nothing refreshed yet.
    slices = list(PendingFollowUp.objects.order_by("id"))
    assert [row.id for row in slices] == sent and len(sent) > 1
    assert [i for row in slices for i in row.researcher_ids] == researcher_ids
    assert all(row.claimed_until > timezone.now() for row in slices)
    assert researchers_follow_up_drain() == 0  # another drain leaves them to their tasks
    assert _metrics(ADA)[0] == 0

    assert sum(researchers_follow_up_slice(row_id=row_id) for row_id in sent) == len(researcher_ids)
    assert researchers_follow_up_slice(row_id=sent[0]) == 0  # a second delivery: nothing to do
    assert not PendingFollowUp.objects.exists()
    handed_out = {r: _metrics(r) for r in Researcher.objects.values_list("openalex_id", flat=True)}
    assert handed_out[ADA][0] == 2

    # The same figures as a drain that refreshes everything itself.
    Researcher.objects.update(works_count=0, cited_by_count=0, h_index=0, trust_score=0)
    PendingFollowUp.objects.create(researcher_ids=researcher_ids)
    assert researchers_follow_up_drain() == len(researcher_ids)
    assert {r: _metrics(r) for r in handed_out} == handed_out


@override_settings(IMPORT_FOLLOW_UP_SLICE=1)
def test_a_slice_whose_task_was_lost_goes_to_the_next_drain_after_its_lease(fixtures_dir, tmp_path):
    _import_on_this_process_as_a_worker_would(
        _write(tmp_path / "works.jsonl", _work_lines(fixtures_dir))
    )
    researchers_follow_up_drain(slices_send=lambda row_ids: None)  # the messages never arrive
    assert researchers_follow_up_drain() == 0

    PendingFollowUp.objects.update(claimed_until=timezone.now() - timedelta(seconds=1))
    assert researchers_follow_up_drain() == Researcher.objects.count()
    assert not PendingFollowUp.objects.exists()
    assert _metrics(ADA)[0] == 2


@override_settings(IMPORT_FOLLOW_UP_MAX_LAG=timedelta(minutes=30))
def test_beat_drains_when_no_run_is_importing_or_the_researchers_waited_too_long(
    fixtures_dir, tmp_path
):
    assert not researchers_follow_up_drain_due()  # nothing pending
    run = _import_on_this_process_as_a_worker_would(
        _write(tmp_path / "works.jsonl", _work_lines(fixtures_dir))
    )
    assert researchers_follow_up_drain_due()  # the run finished (or failed): drain

    # While a run is importing, its batches' researchers wait for it to finish...
    ImportRun.objects.filter(id=run.id).update(
        status=ImportRun.Status.RUNNING, last_progress_at=timezone.now()
    )
    assert not researchers_follow_up_drain_due()
    # ...unless it runs longer than the allowed lag,
    assert researchers_follow_up_drain_due(now=timezone.now() + timedelta(minutes=31))
    # or makes no progress (stalled).
    ImportRun.objects.filter(id=run.id).update(last_progress_at=timezone.now() - timedelta(hours=1))
    assert researchers_follow_up_drain_due()
    # Rows a live drain holds are its own.
    PendingFollowUp.objects.update(claimed_until=timezone.now() + DRAIN_LEASE)
    assert not researchers_follow_up_drain_due()


def _stat(html: str, label: str) -> int:
    match = re.search(rf"<strong[^>]*>(\d+)</strong>{label}<", html)
    assert match, f"no {label} stat"
    return int(match.group(1))


def test_the_profile_never_shows_two_different_works_counts_while_metrics_catch_up(
    client, fixtures_dir, tmp_path
):
    _import_on_this_process_as_a_worker_would(
        _write(tmp_path / "works.jsonl", _work_lines(fixtures_dir))
    )
    slug = Researcher.objects.get(openalex_id=ADA).slug
    assert Researcher.objects.get(openalex_id=ADA).works_count == 0  # stored figure lags

    html = client.get(reverse("researcher-profile", args=[slug])).content.decode()
    assert _stat(html, "works") == 2
    assert "2 published item(s)" in html
    assert "2 works," in html  # the page's description
    assert 'id="metrics-updating"' in html

    researchers_follow_up_drain()

    html = client.get(reverse("researcher-profile", args=[slug])).content.decode()
    assert _stat(html, "works") == 2
    assert "2 published item(s)" in html
    assert 'id="metrics-updating"' not in html


def _gin_pending_tuples() -> dict[str, int]:
    """Rows waiting in the pending list of each GIN index of the works and researchers."""
    with connection.cursor() as cursor:
        cursor.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
        cursor.execute(
            """
            SELECT index_class.relname, (pgstatginindex(i.indexrelid)).pending_tuples
            FROM pg_index i
            JOIN pg_class index_class ON index_class.oid = i.indexrelid
            JOIN pg_am am ON am.oid = index_class.relam
            WHERE am.amname = 'gin'
              AND i.indrelid IN ('publications_work'::regclass, 'researchers_researcher'::regclass)
            """
        )
        return dict(cursor.fetchall())


@override_settings(IMPORT_FOLLOW_UP_SLICE=1)
def test_the_drain_after_a_bulk_load_merges_the_pending_lists_of_the_search_indexes(
    fixtures_dir, tmp_path
):
    """Every search through a GIN index reads its whole pending list, which a bulk load fills;
    the follow-up merges them rather than leave searches slow until autovacuum comes round."""
    _import_on_this_process_as_a_worker_would(
        _write(tmp_path / "works.jsonl", _work_lines(fixtures_dir))
    )
    waiting = _gin_pending_tuples()
    assert waiting["work_search_bucket_gin"] > 0
    assert waiting["researcher_name_trgm"] > 0

    researchers_follow_up_drain()

    assert {name: n for name, n in _gin_pending_tuples().items() if n} == {}
