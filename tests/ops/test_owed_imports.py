"""Imports from an API are owed in the database (issue 29): an API run waits pending with what
its task needs (ImportRun.fetch_option, fetch_values), and a claimant's ORCID import waits as an
OrcidImportRequest until its task creates that run. A lost message leaves them for their sweep
(import_runs_resume_stalled, orcid_imports_owed_send), and a task delivered twice imports once."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from bzpeer.queueing import registered_task
from claims.models import OrcidImportRequest
from claims.services.orcid_import import orcid_imports_owed_send, orcid_record_refresh
from ingest import tasks as ingest_tasks
from ingest.models import ImportRun
from ingest.services import import_query_run_create
from publications.models import Work
from tests.factories import ResearcherFactory
from tests.graph.conftest import author, work
from tests.support.people import make_member

pytestmark = pytest.mark.django_db

QUERY_TASK = "ingest.tasks.import_query"
FETCH_TASK = "ingest.tasks.import_fetch"
ORCID_TASK = "ingest.tasks.orcid_record_import"
ORCID_ID = "0000-0002-1825-0097"


@pytest.fixture
def sent(monkeypatch) -> dict[str, list[tuple]]:
    """What reaches the broker, by task name: apply_async recorded instead of sent."""
    calls: dict[str, list[tuple]] = {}

    def recorder(name: str):
        return lambda args=(), kwargs=None, **options: calls.setdefault(name, []).append(args)

    for name in (QUERY_TASK, FETCH_TASK, ORCID_TASK):
        monkeypatch.setattr(registered_task(name), "apply_async", recorder(name))
    return calls


@pytest.fixture
def sweep(django_capture_on_commit_callbacks):
    """Run a sweep and send what it queued, as its commit would."""

    def run(function) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return function()

    return run


class OpenAlexPages:
    """The OpenAlex client, answering every query with the same one page of works."""

    def __init__(self, *records: dict) -> None:
        self.records = list(records)

    def __enter__(self) -> OpenAlexPages:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def iter_work_pages(self, filter_expression: str) -> Iterator[list[dict]]:
        yield self.records


def _age(run: ImportRun, **fields: Any) -> None:
    ImportRun.objects.filter(pk=run.pk).update(
        created_at=timezone.now() - timedelta(minutes=11), **fields
    )


def test_an_api_run_whose_message_was_lost_is_sent_again_and_imports_once(sent, sweep, monkeypatch):
    query = "authorships.author.id:A9700000001"
    run = import_query_run_create(query=query)  # the command queued it; the broker lost it
    fresh = import_query_run_create(query="authorships.author.id:A9700000002")
    _age(run)

    sweep(ingest_tasks.import_runs_resume_stalled)
    assert sent[QUERY_TASK] == [(run.pk, query)]  # the fresh one's task may only be late

    pages = OpenAlexPages(work(1, [author("A9700000001"), author("A9700000003")]))
    monkeypatch.setattr(ingest_tasks, "OpenAlexClient", lambda: pages)
    task = registered_task(QUERY_TASK)
    task.run(run.pk, query)
    task.run(run.pk, query)  # the lost message turns up after all
    run.refresh_from_db()
    assert run.status == ImportRun.Status.SUCCEEDED
    assert (run.read_count, run.created_count) == (1, 1)
    assert Work.objects.count() == 1

    sent.clear()
    sweep(ingest_tasks.import_runs_resume_stalled)
    assert sent == {}
    fresh.refresh_from_db()
    assert fresh.status == ImportRun.Status.PENDING


def test_an_api_run_whose_worker_died_is_put_back_and_sent_again(sent, sweep):
    run = import_query_run_create(query="authorships.author.id:A9700000001")
    _age(
        run,
        status=ImportRun.Status.RUNNING,
        last_progress_at=timezone.now() - timedelta(hours=1),
    )

    sweep(ingest_tasks.import_runs_resume_stalled)
    assert sent[QUERY_TASK] == [(run.pk, "authorships.author.id:A9700000001")]
    run.refresh_from_db()
    assert run.status == ImportRun.Status.PENDING  # for the task sent again to take
    sent.clear()
    sweep(ingest_tasks.import_runs_resume_stalled)  # claimed: not sent twice
    assert sent == {}


def test_an_orcid_import_whose_message_was_lost_is_sent_again_and_runs_once(
    sent, sweep, monkeypatch
):
    researcher = ResearcherFactory(display_name="Alice Orcid", orcid=ORCID_ID)
    alice = make_member("alice-orcid-owed@example.org", display_name="Alice Orcid")
    sweep(lambda: orcid_record_refresh(researcher=researcher, user=alice))
    [(orcid, request_id)] = sent.pop(ORCID_TASK)  # queued, and lost with the broker
    assert orcid == ORCID_ID
    assert sweep(orcid_imports_owed_send) == 0  # its task may only be late
    OrcidImportRequest.objects.filter(pk=request_id).update(
        queued_at=timezone.now() - timedelta(minutes=6)
    )

    assert sweep(orcid_imports_owed_send) == 1
    assert sent[ORCID_TASK] == [(ORCID_ID, request_id)]
    assert sweep(orcid_imports_owed_send) == 0  # claimed: not sent again at once

    fetched: list[tuple] = []
    monkeypatch.setattr(ingest_tasks, "import_fetch", lambda *args: fetched.append(args))
    task = registered_task(ORCID_TASK)
    task.run(ORCID_ID, request_id)
    task.run(ORCID_ID, request_id)  # the lost message turns up after all
    [run] = ImportRun.objects.filter(source="orcid")
    assert fetched == [(run.pk, "orcid", "orcid", [ORCID_ID])]
    assert not OrcidImportRequest.objects.exists()
    # From here the run owes the import: pending with what it needs to be sent again.
    assert (run.status, run.fetch_option, run.fetch_values) == ("pending", "orcid", [ORCID_ID])
    _age(run)
    sweep(ingest_tasks.import_runs_resume_stalled)
    assert sent[FETCH_TASK] == [(run.pk, "orcid", "orcid", [ORCID_ID])]


def test_the_import_sweeps_send_nothing_when_nothing_is_owed(sent, sweep):
    done = import_query_run_create(query="authorships.author.id:A9700000001")
    _age(done, status=ImportRun.Status.SUCCEEDED)
    import_query_run_create(query="authorships.author.id:A9700000002")  # just queued
    researcher = ResearcherFactory(orcid=ORCID_ID)
    OrcidImportRequest.objects.create(researcher=researcher, orcid=ORCID_ID)  # just queued

    sweep(ingest_tasks.import_runs_resume_stalled)
    assert sweep(orcid_imports_owed_send) == 0
    assert sent == {}
