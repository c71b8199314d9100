"""`manage.py import SOURCE PATH...` for every source: in this process (--sync) and on a real
Celery worker, re-imports that change nothing, bad records kept as issues with their reason,
and a worker killed mid-run that loses nothing (the OpenAlex test's approach, for Crossref)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from django.core.management import CommandError, call_command

from ingest.models import ImportChunk, ImportIssue, ImportRun
from ingest.services import import_source_run_create
from ingest.tasks import import_run_enqueue
from publications.models import Work, WorkSource
from tests.ingest.test_import_on_workers import Workers, _wait_for, workers  # noqa: F401

TESTDATA = Path(__file__).resolve().parents[2].parent / "shared" / "testdata"

# One small real file per source (../shared/testdata); the bad records of each are issues.
FILES = {
    "orcid": TESTDATA / "orcid" / "v3.0" / "orcid-model_record-full-3.0.json",
    "arxiv": TESTDATA / "arxiv" / "api" / "id_1707.08567.atom.xml",
    "crossref": TESTDATA / "crossref" / "works" / "hab_work_10.1038_srep16696.json",
    "bibtex": TESTDATA / "dblp" / "dblp_standard.bib",
    "openalex": TESTDATA / "openalex" / "api" / "works" / "bv_W2741809807.json",
}


def _run() -> ImportRun:
    return ImportRun.objects.order_by("-id").first()


def _path_of(source: str) -> Path:
    path = FILES[source]
    if not path.exists():
        pytest.fail(f"test data missing: {path}")
    return path


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("source", sorted(FILES))
def test_each_source_imports_with_sync_and_a_second_run_changes_nothing(source):
    call_command("import", source, str(_path_of(source)), sync=True, no_progress=True)
    first = _run()
    assert first.status == ImportRun.Status.SUCCEEDED, first.error
    assert first.read_count > 0
    errors = ImportIssue.objects.filter(run=first, severity=ImportIssue.Severity.ERROR).count()
    assert first.failed_count == errors
    works = Work.objects.count()

    call_command("import", source, str(_path_of(source)), sync=True, no_progress=True)
    second = _run()
    assert second.status == ImportRun.Status.SUCCEEDED, second.error
    assert (second.created_count, second.updated_count) == (0, 0)
    assert second.read_count == first.read_count
    assert Work.objects.count() == works


@pytest.mark.django_db(transaction=True)
def test_an_arxiv_api_error_entry_and_a_crossref_404_become_issues_with_their_reason():
    call_command(
        "import",
        "arxiv",
        str(TESTDATA / "arxiv" / "api" / "id_abc_error_400.atom.xml"),
        sync=True,
        no_progress=True,
    )
    run = _run()
    assert run.failed_count >= 1
    assert ImportIssue.objects.filter(run=run, severity="error").exclude(reason="").exists()

    call_command(
        "import",
        "crossref",
        str(TESTDATA / "crossref" / "errors" / "pqa_404_datacite_arxiv_doi.txt"),
        sync=True,
        no_progress=True,
    )
    run = _run()
    assert run.failed_count == 1
    assert "not found" in ImportIssue.objects.get(run=run).reason.lower()


@pytest.mark.django_db(transaction=True)
def test_an_unknown_source_and_a_missing_path_are_refused_with_a_message(tmp_path):
    with pytest.raises(CommandError, match="invalid choice"):
        call_command("import", "scopus", str(tmp_path), sync=True)
    with pytest.raises(CommandError, match="no such file"):
        call_command("import", "bibtex", str(tmp_path / "missing.bib"), sync=True)
    with pytest.raises(CommandError, match="either PATHs"):
        call_command("import", "crossref", sync=True)


def _crossref_list(path: Path, works: int) -> Path:
    items = [
        {
            "DOI": f"10.9999/synthetic.{number}",
            "type": "journal-article",
            "title": [f"Synthetic work number {number}"],
            "issued": {"date-parts": [[2020, 1 + number % 12]]},
            "container-title": ["Journal of Synthetic Results"],
            "ISSN": ["1234-5679"],
            "author": [
                {"given": "Ada", "family": f"Author{number % 50}", "sequence": "first"},
                {"given": "Bob", "family": f"Coauthor{number % 70}", "sequence": "additional"},
            ],
            "is-referenced-by-count": number % 7,
        }
        for number in range(works)
    ]
    path.write_bytes(
        orjson.dumps({"status": "ok", "message-type": "work-list", "message": {"items": items}})
    )
    return path


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_import_command_fans_a_crossref_file_out_to_a_worker(workers, tmp_path):  # noqa: F811
    path = _crossref_list(tmp_path / "works.json", 600)
    workers.start()

    call_command("import", "crossref", str(path), chunk_lines=200, no_progress=True)

    run = _run()
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert (run.chunks_total, run.chunks_done) == (3, 3)
    assert (run.read_count, run.created_count, run.failed_count) == (600, 600, 0)
    assert WorkSource.objects.filter(origin="crossref").count() == 600


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_crossref_run_loses_nothing(workers, tmp_path):  # noqa: F811
    works = 3000
    path = _crossref_list(tmp_path / "works.json", works)
    run, _ = import_source_run_create(source="crossref", paths=[str(path)], chunk_records=500)
    first = workers.start()
    import_run_enqueue(run.pk)

    def some_but_not_all_committed() -> bool:
        run.refresh_from_db()
        return run.read_count >= 200

    _wait_for(some_but_not_all_committed, timeout=120, workers=workers, what="the first batches")
    workers.kill(first)
    run.refresh_from_db()
    assert run.read_count < works, "the run finished before the worker could be killed"

    workers.start()
    _wait_for(
        lambda: ImportRun.objects.get(pk=run.pk).is_finished,
        timeout=240,
        workers=workers,
        what="the run to finish",
    )
    run.refresh_from_db()
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert (run.read_count, run.created_count, run.updated_count, run.failed_count) == (
        works,
        works,
        0,
        0,
    )
    assert not ImportChunk.objects.filter(run=run, done=False).exists()
    assert Work.objects.count() == works
    assert not ImportIssue.objects.filter(severity="error").exists()
