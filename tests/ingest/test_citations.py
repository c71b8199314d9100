"""The citation graph (issue 25, item 1): references imported from OpenAlex and Crossref become
citations between works held here, in any order, through merges, and against hostile lists.

Through the pipeline's own parser and writer, batch by batch, in the test's transaction."""

from __future__ import annotations

import json

import orjson
import pytest
from django.db import connection, transaction
from django.utils import timezone

from ingest import sources
from ingest.models import ImportIssue, ImportRun
from ingest.parsing import parse_batch
from ingest.records import CROSSREF, OPENALEX
from ingest.services import citations_resolve_waiting
from ingest.services.batches import batch_write_isolating_refusals
from ingest.services.merged_ids import work_merge
from ingest.validation import MAX_REFERENCES
from publications.models import Citation, UnresolvedReference, Work, WorkSource

from .test_import_openalex_testdata import _records_in

pytestmark = pytest.mark.django_db


def _write(source: str, raws: list[bytes]) -> ImportRun:
    run = ImportRun.objects.create(source=source, description="test")
    batch = parse_batch(
        enumerate(raws, start=1),
        mapper=sources.mapper_of(source),
        source=source,
        path="test",
        run_id=run.pk,
    )
    with transaction.atomic():
        batch_write_isolating_refusals(batch, run_id=run.pk, path="test")
    return run


def _work(number: int, *references: str, **fields) -> bytes:
    record = {
        "id": f"https://openalex.org/W96{number:08d}",
        "title": f"Work {number}",
        "publication_year": 2020,
        "type": "article",
        "referenced_works": [f"https://openalex.org/W96{ref:08d}" for ref in references],
        "authorships": [],
    }
    record.update(fields)
    return orjson.dumps(record)


def _id(number: int) -> int:
    return Work.objects.get(openalex_id=f"W96{number:08d}").pk


def _pairs() -> set[tuple[str, str]]:
    """Citations as (citing, cited) OpenAlex ids."""
    ids = dict(Work.objects.values_list("id", "openalex_id"))
    return {(ids[c.citing_id], ids[c.cited_id]) for c in Citation.objects.all()}


def _w(number: int) -> str:
    return f"W96{number:08d}"


def test_the_real_openalex_records_cite_each_other_as_their_reference_lists_say(testdata_dir):
    works_files = sorted(
        path
        for path in (testdata_dir / "openalex").rglob("*")
        if path.is_file() and "works" in path.parts and path.name != "manifest"
    )
    raw_records = [record for path in works_files for record in _records_in(path)]
    for path in works_files:
        _write(OPENALEX, [orjson.dumps(record) for record in _records_in(path)])

    held = set(Work.objects.exclude(openalex_id=None).values_list("openalex_id", flat=True))
    # Read from the files independently of the importer: every reference of a stored work to
    # another stored work.
    expected = {
        (citing, cited)
        for record in raw_records
        if isinstance(record, dict) and isinstance(record.get("id"), str)
        for citing in [record["id"].rsplit("/", 1)[-1].upper()]
        if citing in held
        for reference in record.get("referenced_works") or []
        for cited in [reference.rsplit("/", 1)[-1].upper()]
        if cited in held and cited != citing
    }
    # The corpus's README counts 78 references among its 144 works; a few name works the
    # importer turns away with a stated reason (no title).
    assert len(expected) >= 70
    assert _pairs() == expected
    # The references to works not held wait, by their OpenAlex id.
    waiting = set(UnresolvedReference.objects.values_list("identifier", flat=True))
    assert waiting and all(identifier.startswith("openalex:W") for identifier in waiting)
    assert not any(identifier.removeprefix("openalex:") in held for identifier in waiting)

    # Importing the same files again changes nothing.
    before = (Citation.objects.count(), UnresolvedReference.objects.count())
    for path in works_files:
        _write(OPENALEX, [orjson.dumps(record) for record in _records_in(path)])
    assert (Citation.objects.count(), UnresolvedReference.objects.count()) == before


def test_a_reference_becomes_a_citation_whichever_work_arrives_first():
    _write(OPENALEX, [_work(1, 2, 3)])  # cites 2 and 3, neither held yet
    assert _pairs() == set()
    assert UnresolvedReference.objects.count() == 2

    _write(OPENALEX, [_work(2)])
    assert _pairs() == {(_w(1), _w(2))}
    _write(OPENALEX, [_work(3, 1)])  # arrives citing the first work back
    assert _pairs() == {(_w(1), _w(2)), (_w(1), _w(3)), (_w(3), _w(1))}
    assert UnresolvedReference.objects.count() == 0


def test_a_reference_by_doi_finds_the_work_of_another_source(testdata_dir):
    """Crossref's references with a DOI link to the works held by that DOI, whichever source
    brought them; those without one are kept as text on the work."""
    path = testdata_dir / "crossref" / "csl" / "hab_csl_10.1126_science.169.3946.635.json"
    item = json.loads(path.read_text())
    item = item.get("message", item)
    with_doi = [r["DOI"].lower() for r in item["reference"] if r.get("DOI")]
    unstructured = [r for r in item["reference"] if not r.get("DOI")]
    assert with_doi and unstructured
    cited_doi = with_doi[0]
    _write(OPENALEX, [_work(10, doi=f"https://doi.org/{cited_doi}")])

    _write(CROSSREF, [orjson.dumps(item)])

    citing = Work.objects.get(doi=item["DOI"].lower())
    assert set(Citation.objects.filter(citing=citing).values_list("cited_id", flat=True)) == {
        _id(10)
    }
    waiting = set(
        UnresolvedReference.objects.filter(citing=citing).values_list("identifier", flat=True)
    )
    assert waiting == {f"doi:{doi}" for doi in set(with_doi) - {cited_doi}}
    fields = WorkSource.objects.get(work=citing, origin=CROSSREF).fields
    assert len(fields["unlinked_references"]) == len(unstructured)
    assert "Waller R. Essayes of Natural Experiments (1964)." in fields["unlinked_references"]


def test_a_merged_work_takes_its_citations_to_its_survivor_once_and_never_to_itself():
    # 1 cites 3 and a work not held (99); 2 cites 3 and 1; 3 cites 2; 4 cites 1 and 2.
    _write(OPENALEX, [_work(1, 3, 99), _work(2, 3, 1), _work(3, 2), _work(4, 1, 2)])
    one, two = Work.objects.get(pk=_id(1)), Work.objects.get(pk=_id(2))

    with transaction.atomic():
        work_merge(source=one, survivor=two)  # OpenAlex merged 1 into 2

    assert _pairs() == {(_w(2), _w(3)), (_w(3), _w(2)), (_w(4), _w(2))}
    assert list(UnresolvedReference.objects.values_list("citing_id", "identifier")) == [
        (two.pk, f"openalex:{_w(99)}")
    ]


def test_a_hostile_reference_list_is_stored_cleaned_with_a_warning_and_the_run_succeeds():
    many = list(range(100_000, 100_000 + MAX_REFERENCES + 500))
    raws = [
        # itself, a duplicate and a malformed entry among the references
        _work(
            5,
            5,
            6,
            6,
            **{
                "referenced_works": [
                    "https://openalex.org/W9600000005",
                    "https://openalex.org/W9600000006",
                    "https://openalex.org/W9600000006",
                    "https://openalex.org/A5000000001",
                    "not an id",
                    12345,
                ]
            },
        ),
        _work(7, *many),
        _work(6),
    ]
    run = _write(OPENALEX, raws)

    assert set(Work.objects.values_list("openalex_id", flat=True)) == {_w(5), _w(6), _w(7)}
    assert _pairs() == {(_w(5), _w(6))}
    assert UnresolvedReference.objects.filter(citing_id=_id(7)).count() == MAX_REFERENCES
    warnings = list(
        ImportIssue.objects.filter(run=run, severity=ImportIssue.Severity.WARNING).values_list(
            "reason", flat=True
        )
    )
    assert any("references: 3 not a work identifier, left out" in w for w in warnings)
    assert any(f"{MAX_REFERENCES:,} kept" in w for w in warnings)
    assert not ImportIssue.objects.filter(run=run, severity=ImportIssue.Severity.ERROR).exists()


def test_the_sweep_links_a_reference_a_concurrent_batch_left_waiting():
    _write(OPENALEX, [_work(20), _work(21)])
    # As a batch that did not yet see work 21 would have left it.
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO publications_unresolvedreference (citing_id, identifier) VALUES (%s, %s)",
            [_id(20), f"openalex:{_w(21)}"],
        )

    assert citations_resolve_waiting() == 1
    assert _pairs() == {(_w(20), _w(21))}
    assert not UnresolvedReference.objects.exists()
    assert citations_resolve_waiting() == 0


def test_a_work_the_writer_absorbs_leaves_no_derived_row_behind():
    """The writer deletes an absorbed work with SQL after work_references_move; its novelty
    row (a database constraint points at the work) must be gone by then."""
    from ingest.writer import work_references_move
    from publications.models import CitationDegree, RelatedWork, WorkNovelty

    _write(OPENALEX, [_work(30, 31), _work(31), _work(32, 30)])
    absorbed, survivor, other = _id(30), _id(31), _id(32)
    WorkNovelty.objects.create(work_id=absorbed, publication_year=2020, computed_at=timezone.now())
    CitationDegree.objects.create(work_id=absorbed, cited_by=1, references=1)
    RelatedWork.objects.create(
        work_id=absorbed, related_id=other, cocitations=0, shared_references=1, score=1, rank=1
    )
    RelatedWork.objects.create(
        work_id=other, related_id=absorbed, cocitations=0, shared_references=1, score=1, rank=1
    )
    with transaction.atomic(), connection.cursor() as cursor:
        work_references_move(cursor, [(absorbed, survivor)])
    assert not WorkNovelty.objects.filter(work_id=absorbed).exists()
    assert not CitationDegree.objects.filter(work_id=absorbed).exists()
    assert not RelatedWork.objects.filter(work_id=absorbed).exists()
    assert not RelatedWork.objects.filter(related_id=absorbed).exists()
    # Its citation moved to the survivor (32 cited 30, now 31; 30 cited 31: itself, gone).
    assert {(c, d) for c, d in _pairs() if _w(32) in (c, d)} == {(_w(32), _w(31))}
