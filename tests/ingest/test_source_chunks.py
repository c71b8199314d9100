"""Sources made of many small files (an ORCID folder holds one record per file) are planned as
chunks of many files, read one after the other, so a run costs a transaction per batch of
records, not per file; and a chunk resumes after its last committed record."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from django.db import connection

from ingest import sources
from ingest.models import ImportChunk, ImportIssue, ImportRun
from ingest.services import import_run_process, import_source_run_create
from ingest.services.chunks import _chunk_batches
from publications.models import Work
from researchers.models import Researcher

_RECORD_NUMBER = re.compile(r"\(record [0-9]+\)")
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
    # The same result, counts and issues included. Files that carry the same ORCID record twice
    # (a summary and a full copy of one work, in this folder of samples) are written one after
    # the other either way: the second copy is an update, not a duplicate within a batch.
    assert each == grouped
    assert grouped["read"] == len(orcid_files)
    assert grouped["updated"] > 0


def _outcome(run: ImportRun) -> dict[str, object]:
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    # Every record is imported or kept as an issue with its reason.
    rejected = ImportIssue.objects.filter(run=run, severity=ImportIssue.Severity.ERROR).count()
    assert run.failed_count == rejected
    return {
        # Without record numbers: a chunk of its own numbers a file's records from 1.
        "issues": sorted(
            (severity, external_id, _RECORD_NUMBER.sub("(record N)", reason))
            for severity, external_id, reason in ImportIssue.objects.filter(run=run).values_list(
                "severity", "external_id", "reason"
            )
        ),
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


ORCID_WORK = ORCID / "rorcid_work_40038622.json"


def _copies_of_one_orcid_work(folder: Path, titles: list[str]) -> list[Path]:
    """Files a.json, b.json...: the same real ORCID work, each copy with its own title."""
    answer = orjson.loads(ORCID_WORK.read_bytes())
    folder.mkdir()
    paths = []
    for letter, title in zip("abcdefgh", titles, strict=False):
        answer["title"]["title"]["value"] = title
        path = folder / f"{letter}.json"
        path.write_bytes(orjson.dumps(answer))
        paths.append(path)
    return paths


@pytest.mark.django_db(transaction=True)
def test_a_second_copy_of_a_record_in_a_chunk_of_files_updates_the_first(tmp_path):
    _copies_of_one_orcid_work(tmp_path / "copies", ["First copy", "Second copy", "Third copy"])

    run, _ = import_source_run_create(
        source="orcid", paths=[str(tmp_path / "copies")], chunk_records=1000
    )
    assert ImportChunk.objects.get(run=run).paths is not None
    run = import_run_process(run_id=run.id)

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert (run.read_count, run.created_count, run.updated_count, run.failed_count) == (3, 1, 2, 0)
    assert not ImportIssue.objects.filter(run=run, reason__contains="duplicate").exists()
    assert list(Work.objects.values_list("title", flat=True)) == ["Third copy"]


@pytest.mark.django_db(transaction=True)
def test_a_chunk_of_files_cut_at_a_second_copy_resumes_after_its_last_committed_record(tmp_path):
    _copies_of_one_orcid_work(tmp_path / "copies", ["First copy", "Second copy"])
    run, _ = import_source_run_create(
        source="orcid", paths=[str(tmp_path / "copies")], chunk_records=1000
    )
    chunk = ImportChunk.objects.get(run=run)
    batches = list(_chunk_batches(chunk, batch_size=1000))
    assert [(batch.next_line, batch.final, len(batch.lines)) for batch in batches] == [
        (1, False, 1),
        (2, True, 1),
    ]

    # The first batch committed, then the worker died: the chunk goes on from the second copy.
    ImportChunk.objects.filter(pk=chunk.pk).update(next_line=1)
    chunk.refresh_from_db()
    assert [
        (batch.next_line, batch.final, [number for number, _ in batch.lines])
        for batch in _chunk_batches(chunk, batch_size=1000)
    ] == [(2, True, [2])]
