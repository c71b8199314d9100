"""One work per real work (issue 15, item 6): small hand-built records of several sources,
through the shared writer in the same batches the pipeline writes."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from ingest.models import ImportRun
from ingest.parsing import ParsedBatch
from ingest.records import (
    ARXIV,
    BIBTEX,
    CROSSREF,
    ORCID,
    AuthorRef,
    AuthorshipRecord,
    SourceRecord,
    VersionRecord,
    WorkRecord,
    partial_date,
)
from ingest.services.batches import batch_write
from ingest.writer import prepare_works
from ingest.writer.identity import normalize_arxiv_id, orcid_is_valid
from publications.models import Work, WorkSource, WorkTopic, WorkVersion
from researchers.models import Researcher

pytestmark = pytest.mark.django_db

DOI = "10.1038/s41586-021-03819-2"
ORCID_ID = "0000-0002-1825-0097"  # ORCID's own example iD, checksum-valid


def _write(*records: WorkRecord) -> dict[str, int]:
    run = ImportRun.objects.create(source="test", description="hand-built")
    batch = ParsedBatch(read=len(records), records={"works": list(records)})
    batch.prepared["works"] = prepare_works(list(records))
    with transaction.atomic():
        return batch_write(batch, run_id=run.id, path="hand-built")


def _author(name: str, *, orcid: str | None = None, position: int = 1) -> AuthorshipRecord:
    given, family = name.rsplit(" ", 1)
    return AuthorshipRecord(
        position=position,
        raw_name=name,
        author=AuthorRef(display_name=name, given_name=given, family_name=family, orcid=orcid),
    )


def _openalex() -> WorkRecord:
    return WorkRecord(
        openalex_id="W3177828909",
        title="Highly accurate protein structure prediction with AlphaFold",
        doi=DOI,
        publication_date="2021-07-15",
        publication_year=2021,
        cited_by_count=30000,
        counts_by_year=((2023, 10000),),
        authorships=(
            AuthorshipRecord(
                position=1,
                raw_name="John Jumper",
                author=AuthorRef(openalex_id="A5046999931", display_name="John Jumper"),
            ),
        ),
    )


def _crossref() -> WorkRecord:
    return WorkRecord(
        origin=CROSSREF,
        origin_id=DOI,
        doi=DOI,
        title="Highly accurate protein structure prediction with AlphaFold",
        published=partial_date(2021, 7, 15),
        source=SourceRecord(name="Nature", issns=("0028-0836", "1476-4687"), publisher="Springer"),
        cited_by_count=25000,
        authorships=(_author("John Jumper"), _author("Richard Evans", position=2)),
    )


def _bibtex() -> WorkRecord:
    return WorkRecord(
        origin=BIBTEX,
        origin_id="refs.bib:jumper2021",
        doi=DOI,
        title="Highly accurate protein structure prediction with {AlphaFold}",
        published=partial_date(2021),
        source=SourceRecord(name="Nature"),
        authorships=(_author("John Jumper"),),
    )


def test_the_orcid_checksum_and_arxiv_ids_are_read_as_their_sources_define_them():
    assert orcid_is_valid(ORCID_ID)
    assert orcid_is_valid("0000-0002-9079-593X")
    assert not orcid_is_valid("0000-0002-1825-0098")
    assert normalize_arxiv_id("arXiv:2101.00001v3") == "2101.00001"
    assert normalize_arxiv_id("hep-th/9901001v2") == "hep-th/9901001"
    assert normalize_arxiv_id("not an id") is None


def test_the_same_doi_from_openalex_crossref_and_bibtex_is_one_work():
    _write(_openalex())
    _write(_crossref())
    _write(_bibtex())

    work = Work.objects.get()
    assert set(WorkSource.objects.values_list("origin", flat=True)) == {
        "openalex",
        CROSSREF,
        BIBTEX,
    }
    # Precedence: OpenAlex for citations and the byline, Crossref for the venue and the date.
    assert work.cited_by_count == 30000
    assert work.source is not None and work.source.name == "Nature"
    assert work.openalex_id == "W3177828909"
    assert work.byline_origin == "openalex"
    assert list(work.authorships.values_list("raw_name", flat=True)) == ["John Jumper"]


def test_one_batch_holding_the_same_doi_from_three_sources_makes_one_work():
    totals = _write(_crossref(), _bibtex(), _openalex())

    assert Work.objects.count() == 1
    assert WorkSource.objects.count() == 3
    assert totals["created"] == 1 and totals["updated"] == 2


def test_reimporting_each_source_changes_nothing():
    for record in (_openalex(), _crossref(), _bibtex()):
        _write(record)
    work = Work.objects.get()
    before = (work.updated_at, list(WorkSource.objects.order_by("id").values_list("updated_at")))

    for record in (_openalex(), _crossref(), _bibtex()):
        totals = _write(record)
        assert (totals["created"], totals["updated"], totals["unchanged"]) == (0, 0, 1)
    work.refresh_from_db()
    assert (
        work.updated_at,
        list(WorkSource.objects.order_by("id").values_list("updated_at")),
    ) == before


def test_reimporting_one_source_keeps_what_another_contributed():
    _write(_crossref())
    _write(_openalex())
    changed = _openalex()
    object.__setattr__(changed, "cited_by_count", 31000)
    _write(changed)

    work = Work.objects.get()
    assert work.cited_by_count == 31000
    assert work.source is not None and work.source.name == "Nature"  # Crossref's, kept


def _arxiv(*, doi: str | None) -> WorkRecord:
    return WorkRecord(
        origin=ARXIV,
        origin_id="2101.00001",
        arxiv_id="2101.00001",
        doi=doi,
        type="preprint",
        title="A preprint that was published later",
        published=partial_date(2021, 1, 1),
        versions=(
            VersionRecord("v1", partial_date(2021, 1, 1)),
            VersionRecord("v2", partial_date(2021, 5, 2)),
        ),
        categories=("cs.LG", "stat.ML"),
        journal_ref="J. Stuff 12 (2021) 1-10",
        authorships=(_author("Ada Lovelace", orcid=ORCID_ID),),
    )


def _published() -> WorkRecord:
    return WorkRecord(
        origin=CROSSREF,
        origin_id="10.1000/j.stuff.2021.1",
        doi="10.1000/j.stuff.2021.1",
        title="A preprint that was published later",
        published=partial_date(2021, 9),
        cited_by_count=7,
        authorships=(_author("Ada Lovelace", orcid=ORCID_ID),),
    )


@pytest.mark.parametrize("arxiv_first", [True, False])
def test_an_arxiv_preprint_and_its_doi_version_are_one_work_with_two_versions(arxiv_first):
    records = [_arxiv(doi="10.1000/j.stuff.2021.1"), _published()]
    for record in records if arxiv_first else reversed(records):
        _write(record)

    work = Work.objects.get()
    assert work.arxiv_id == "2101.00001"
    assert work.doi == "10.1000/j.stuff.2021.1"
    assert work.journal_ref == "J. Stuff 12 (2021) 1-10"
    assert work.publication_date_precision == "month"  # Crossref's date, month-precise
    versions = {v.kind: v for v in WorkVersion.objects.filter(work=work)}
    assert set(versions) == {"preprint", "published"}
    assert (versions["preprint"].first_label, versions["preprint"].latest_label) == ("v1", "v2")
    # arXiv's categories are the work's topics, Crossref's byline is the one shown.
    assert set(
        WorkTopic.objects.filter(work=work).values_list("topic__external_id", flat=True)
    ) == {"arxiv:cs.LG", "arxiv:stat.ML"}
    # The author is one researcher (her ORCID iD), with one work, not two.
    ada = Researcher.objects.get(orcid=ORCID_ID)
    assert ada.authorships.count() == 1


def test_the_counts_and_h_index_of_a_preprint_and_its_published_version_do_not_double():
    from graph.services import researcher_metrics_refresh

    _write(_arxiv(doi="10.1000/j.stuff.2021.1"))
    _write(_published())
    ada = Researcher.objects.get(orcid=ORCID_ID)
    researcher_metrics_refresh(researcher_ids=[ada.id])
    ada.refresh_from_db()
    assert (ada.works_count, ada.cited_by_count, ada.h_index) == (1, 7, 1)


def test_a_name_only_author_is_one_l0_record_found_again_on_reimport():
    record = WorkRecord(
        origin=BIBTEX,
        origin_id="cv.bib:turing1936",
        title="On computable numbers, with an application to the Entscheidungsproblem",
        published=partial_date(1936),
        authorships=(_author("Alan Turing"),),
    )
    _write(record)
    changed = WorkRecord(
        **{**{f: getattr(record, f) for f in record.__dataclass_fields__}, "abstract": "new"}
    )
    _write(changed)

    turing = Researcher.objects.get(display_name="Alan Turing")
    assert turing.verification_level == 0
    assert turing.authorships.count() == 1


def test_a_record_without_doi_or_arxiv_id_finds_its_work_by_title_year_and_first_author():
    _write(_crossref())
    _write(
        WorkRecord(
            origin=ORCID,
            origin_id=f"{ORCID_ID}:12345",
            title="Highly Accurate Protein Structure Prediction with AlphaFold",
            published=partial_date(2021),
            authorships=(_author("John Jumper"),),
        )
    )
    assert Work.objects.count() == 1
    assert WorkSource.objects.count() == 2


def test_one_batch_finds_a_title_only_record_its_work_as_two_batches_would():
    title_only = WorkRecord(
        origin=ORCID,
        origin_id=f"{ORCID_ID}:12345",
        title="Highly Accurate Protein Structure Prediction with AlphaFold",
        published=partial_date(2021),
        authorships=(_author("John Jumper"),),
    )
    totals = _write(_crossref(), title_only)

    assert Work.objects.count() == 1
    assert WorkSource.objects.count() == 2
    assert totals["created"] == 1 and totals["updated"] == 1


def test_an_invalid_orcid_checksum_makes_no_researcher_with_it():
    _write(
        WorkRecord(
            origin=CROSSREF,
            origin_id="10.1000/x",
            doi="10.1000/x",
            title="A work with a mistyped ORCID iD",
            authorships=(_author("Grace Hopper", orcid="0000-0002-1825-0098"),),
        )
    )
    assert not Researcher.objects.filter(orcid="0000-0002-1825-0098").exists()
    assert Researcher.objects.get(display_name="Grace Hopper").verification_level == 0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM publications_importissue WHERE reason LIKE '%%checksum%%'"
        )
        assert cursor.fetchone()[0] == 1
