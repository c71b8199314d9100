"""Every real OpenAlex record in the shared corpus imports, or is rejected with a stated reason."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ingest.models import ImportIssue
from publications.models import Source, Topic, Work
from researchers.models import Institution, Researcher

ENTITIES = ("works", "authors", "institutions", "sources", "topics")
# The only reasons a real record may be turned away: it is truly unusable.
UNUSABLE_REASONS = ("work has no title", "record has no id", "duplicate of", "deleted author")


def _records_in(path: Path) -> list[dict]:
    """Read a corpus file independently of the importer: JSON document or JSON Lines."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        text = handle.read()
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if isinstance(document, dict) and "meta" in document:
        return document.get("results") or []
    return [document]


def _corpus_paths(openalex_dir: Path) -> list[Path]:
    return [
        openalex_dir / kind / entity
        for kind in ("api", "snapshot")
        for entity in ENTITIES
        if (openalex_dir / kind / entity).is_dir()
    ]


def _short(value: str) -> str:
    return value.rsplit("/", 1)[-1].upper()


@pytest.fixture
def corpus(testdata_dir: Path) -> list[Path]:
    return _corpus_paths(testdata_dir / "openalex")


@pytest.mark.django_db(transaction=True)
def test_every_corpus_record_imports_or_is_rejected_with_a_reason(run_import, corpus):
    run = run_import(*corpus)

    assert run.status == "succeeded"
    assert (
        run.read_count
        == run.created_count + run.updated_count + run.unchanged_count + run.failed_count
    )
    rejected = ImportIssue.objects.filter(run=run, severity=ImportIssue.Severity.ERROR)
    assert rejected.count() == run.failed_count
    for issue in rejected:
        assert issue.reason.startswith(UNUSABLE_REASONS) or "deleted author" in issue.reason, (
            issue.reason
        )
        assert issue.raw, "a rejected record keeps its raw text"

    expected: dict[str, set[str]] = {entity: set() for entity in ENTITIES}
    for folder in corpus:
        for path in folder.rglob("*"):
            if not path.is_file() or path.name == "manifest":
                continue
            for record in _records_in(path):
                if not record.get("id"):
                    continue
                if folder.name == "works" and not (
                    record.get("title") or record.get("display_name")
                ):
                    continue
                if record.get("display_name") == "Deleted Author":
                    continue
                expected[folder.name].add(_short(record["id"]))
    assert len(expected["works"]) > 100
    assert expected["works"] <= set(Work.objects.values_list("openalex_id", flat=True))
    assert expected["authors"] <= set(Researcher.objects.values_list("openalex_id", flat=True))
    assert expected["institutions"] <= set(
        Institution.objects.values_list("openalex_id", flat=True)
    )
    assert expected["sources"] <= set(Source.objects.values_list("openalex_id", flat=True))
    assert expected["topics"] <= set(Topic.objects.values_list("external_id", flat=True))


@pytest.mark.django_db(transaction=True)
def test_importing_the_corpus_twice_creates_and_updates_nothing_the_second_time(run_import, corpus):
    first = run_import(*corpus)
    works_after_first = Work.objects.count()

    second = run_import(*corpus)

    assert first.created_count > 0
    assert second.created_count == 0
    assert second.updated_count == 0
    assert (
        second.unchanged_count == first.created_count + first.updated_count + first.unchanged_count
    )
    assert Work.objects.count() == works_after_first


@pytest.mark.django_db(transaction=True)
def test_a_duplicate_record_in_one_page_is_reported_and_imported_once(run_import, testdata_dir):
    run = run_import(testdata_dir / "openalex/api/works/rh_works_page_W1981368803_dup.json")

    assert Work.objects.filter(openalex_id="W1981368803").count() == 1
    issue = ImportIssue.objects.get(run=run, external_id="W1981368803")
    assert "duplicate" in issue.reason
    assert run.read_count == 3 and run.failed_count == 1
