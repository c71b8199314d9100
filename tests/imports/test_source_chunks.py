"""Sources made of many small files (an ORCID folder holds one record per file) are planned as
chunks of many files, read one after the other, so a run costs a transaction per batch of
records, not per file; and a chunk resumes after its last committed record."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection

from imports.services import import_run_process, import_source_run_create
from publications.importers import sources
from publications.models import ImportChunk, ImportIssue, ImportRun, Work
from researchers.models import Researcher

ORCID = Path(__file__).resolve().parents[2].parent / "shared" / "testdata" / "orcid" / "v3.0"


@pytest.fixture
def orcid_files() -> list[Path]:
    if not ORCID.exists():
        pytest.fail(f"test data missing: {ORCID}")
    files, _ = sources.reader_of("orcid").files([str(ORCID)])
    assert len(files) > 10
    return files


@pytest.mark.django_db(transaction=True)
def test_a_folder_of_orcid_files_is_one_chunk_read_file_after_file(orcid_files):
    run, _ = import_source_run_create(source="orcid", paths=[str(ORCID)], chunk_records=1000)

    (chunk,) = ImportChunk.objects.filter(run=run)
    assert chunk.paths == [str(path) for path in orcid_files]
    assert (chunk.start_line, chunk.end_line) == (0, len(orcid_files))
    assert chunk.path == str(ORCID)

    grouped = _outcome(import_run_process(run_id=run.id))

    # The same files, each its own chunk (as before grouping), into empty tables: the same result.
    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE publications_work, researchers_researcher, publications_importrun,"
            " imports_pendingfollowup CASCADE"
        )
    run, _ = import_source_run_create(source="orcid", paths=[str(ORCID)], chunk_records=1)
    assert ImportChunk.objects.filter(run=run).count() == len(orcid_files)
    each = _outcome(import_run_process(run_id=run.id))
    # The same records read and works stored. Files that carry the same ORCID record twice (a
    # summary and a full copy of one work, in this folder of samples) count as an update when
    # each is a chunk of its own, and the second copy as a duplicate within its batch (an issue
    # with that reason) when they share one, as two copies of a record in one OpenAlex batch
    # do; the first copy is stored either way.
    for key in ("read", "created", "works"):
        assert each[key] == grouped[key], key
    assert grouped["read"] == len(orcid_files)


def _outcome(run: ImportRun) -> dict[str, object]:
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    # Every record is imported or kept as an issue with its reason.
    rejected = ImportIssue.objects.filter(run=run, severity=ImportIssue.Severity.ERROR).count()
    assert run.failed_count == rejected
    return {
        "read": run.read_count,
        "created": run.created_count,
        "updated": run.updated_count,
        "unchanged": run.unchanged_count,
        "failed": run.failed_count,
        "works": Work.objects.count(),
        "researchers": Researcher.objects.count(),
    }


@pytest.mark.django_db(transaction=True)
def test_small_files_are_grouped_up_to_the_chunk_size(orcid_files):
    run, _ = import_source_run_create(source="orcid", paths=[str(ORCID)], chunk_records=5)

    chunks = list(ImportChunk.objects.filter(run=run).order_by("id"))
    assert len(chunks) == -(-len(orcid_files) // 5)
    assert [p for chunk in chunks for p in (chunk.paths or [chunk.path])] == [
        str(path) for path in orcid_files
    ]
    assert all(chunk.end_line - chunk.start_line <= 5 for chunk in chunks)


def test_a_chunk_of_files_resumes_after_its_last_committed_record(orcid_files):
    reader = sources.reader_of("orcid")
    whole = list(sources.read_records_of_files(reader, orcid_files, start=0, end=len(orcid_files)))
    assert [number for number, _ in whole] == list(range(1, len(orcid_files) + 1))

    rest = list(sources.read_records_of_files(reader, orcid_files, start=3, end=len(orcid_files)))

    assert rest == whole[3:]
