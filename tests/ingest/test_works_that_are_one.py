"""Two existing works that are one (issue 15, item 6): an arXiv preprint stored as one work and
its publisher's DOI as another, then a record carrying both. The preprint is a real record of the
shared corpus (arXiv 2202.12139 in query_all-testing_start0_max10.atom.xml, whose entry names
its IEEE DOI); its earlier copy is the same entry without the DOI (as arXiv listed it before the
authors added it), and the publisher's record is built from the entry's DOI, title and authors
as Crossref gives them (no Crossref response for this DOI is in the corpus)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from django.db import connection, transaction

from claims.models import SplitRequest
from graph.services import researcher_metrics_refresh
from ingest.arxiv.atom import parse_feed
from ingest.arxiv.mapper import map_entry
from ingest.models import ImportIssue, ImportRun
from ingest.parsing import ParsedBatch
from ingest.records import (
    CROSSREF,
    AuthorRef,
    AuthorshipRecord,
    SourceRecord,
    TopicRecord,
    WorkRecord,
    WorkTopicRecord,
    partial_date,
)
from ingest.services.batches import batch_write
from ingest.writer import prepare_works
from publications.models import Authorship, MergedWork, Work, WorkSource, WorkTopic, WorkVersion
from researchers.models import Researcher
from tests.collaboration.factories import invite
from tests.factories import ResearcherFactory, UserFactory
from tests.support.people import verified_researcher

pytestmark = pytest.mark.django_db

ARXIV_ID = "2202.12139"
DOI = "10.1109/icstw55395.2022.00035"
ORCID_ID = "0000-0002-1825-0097"  # ORCID's own example iD, checksum-valid


def _write(*records: WorkRecord) -> tuple[dict[str, int], ImportRun]:
    run = ImportRun.objects.create(source="test", description="works that are one")
    batch = ParsedBatch(read=len(records), records={"works": list(records)})
    batch.prepared["works"] = prepare_works(list(records))
    with transaction.atomic():
        return batch_write(batch, run_id=run.id, path="works that are one"), run


def _arxiv(testdata_dir: Path) -> WorkRecord:
    feed = parse_feed(
        (testdata_dir / "arxiv" / "api" / "query_all-testing_start0_max10.atom.xml").read_bytes()
    )
    (entry,) = [e for e in feed.entries if e.arxiv_id == ARXIV_ID]
    record = map_entry(entry)
    assert record.doi == DOI and record.arxiv_id == ARXIV_ID and len(record.authorships) >= 2
    return record


def _publisher(arxiv: WorkRecord, *, orcid: str | None = ORCID_ID) -> WorkRecord:
    """The publisher's record: the DOI, no arXiv id; the first author with her ORCID iD."""
    first, *others = arxiv.authorships
    assert first.author is not None
    return WorkRecord(
        origin=CROSSREF,
        origin_id=DOI,
        doi=DOI,
        title=arxiv.title,
        published=partial_date(2022, 4, 1),
        source=SourceRecord(name="2022 IEEE ICSTW", publisher="IEEE"),
        cited_by_count=5,
        authorships=(
            dataclasses.replace(first, author=dataclasses.replace(first.author, orcid=orcid)),
            *others,
        ),
        topics=(WorkTopicRecord(TopicRecord("T11000", "Software Testing", "topic"), 0.9),),
    )


def _two_works(testdata_dir: Path) -> tuple[WorkRecord, Work, Work]:
    arxiv = _arxiv(testdata_dir)
    _write(dataclasses.replace(arxiv, doi=None))
    _write(_publisher(arxiv))
    preprint, published = Work.objects.order_by("id")
    assert (preprint.arxiv_id, preprint.doi) == (ARXIV_ID, None)
    assert (published.arxiv_id, published.doi) == (None, DOI)
    return arxiv, preprint, published


def test_a_record_naming_both_works_makes_them_one_with_every_source_and_version(testdata_dir):
    arxiv, preprint, published = _two_works(testdata_dir)

    totals, run = _write(arxiv)

    work = Work.objects.get()
    assert work.pk == preprint.pk  # the oldest survives
    assert (work.doi, work.arxiv_id) == (DOI, ARXIV_ID)
    assert totals["updated"] == 1
    assert set(WorkSource.objects.values_list("origin", "work_id")) == {
        ("arxiv", work.pk),
        (CROSSREF, work.pk),
    }
    assert set(WorkVersion.objects.values_list("kind", "identifier")) == {
        ("preprint", ARXIV_ID),
        ("published", DOI),
    }
    # Crossref's venue and citations, arXiv's categories and the publisher's topic: united.
    assert work.source is not None and work.source.name == "2022 IEEE ICSTW"
    assert work.cited_by_count == 5
    topics = set(WorkTopic.objects.filter(work=work).values_list("topic__external_id", flat=True))
    assert {"T11000", "arxiv:cs.SE"} <= topics
    assert MergedWork.objects.get(pk=published.pk).survivor_id == work.pk
    assert ImportIssue.objects.filter(run=run, reason__contains="merged into it").count() == 1
    assert not ImportIssue.objects.filter(reason__contains="the two are not linked").exists()


def test_the_authors_are_united_once_and_the_counts_and_h_index_do_not_double(testdata_dir):
    arxiv, preprint, published = _two_works(testdata_dir)
    author = Researcher.objects.get(orcid=ORCID_ID)
    names = [a.raw_name for a in arxiv.authorships]

    _write(arxiv)

    work = Work.objects.get()
    # The shown byline is Crossref's (it comes before arXiv), moved from the absorbed work.
    assert work.byline_origin == CROSSREF
    byline = list(work.authorships.order_by("position"))
    assert [a.raw_name for a in byline] == names
    assert byline[0].researcher_id == author.pk
    linked = [a.researcher_id for a in byline if a.researcher_id]
    assert len(linked) == len(set(linked))
    assert work.authors_count == len(names)
    researcher_metrics_refresh(researcher_ids=[author.pk])
    author.refresh_from_db()
    assert (author.works_count, author.cited_by_count, author.h_index) == (1, 5, 1)
    # The preprint's name-only records are on no work any more, and their figures say so.
    orphans = Researcher.objects.filter(verification_level=0).exclude(
        pk__in=Authorship.objects.filter(researcher__isnull=False).values("researcher")
    )
    researcher_metrics_refresh(researcher_ids=list(orphans.values_list("pk", flat=True)))
    assert all(r.works_count == 0 for r in orphans.all())


def test_an_identified_author_of_the_absorbed_byline_keeps_their_work(testdata_dir):
    """The preprint's first slot was linked to an identified record (as a claimant's upload
    does); the survivor shows the publisher's byline, where that name is a name-only record:
    the identified one takes the slot, once, and the name-only one gives way."""
    arxiv = _arxiv(testdata_dir)
    _write(dataclasses.replace(arxiv, doi=None))
    preprint = Work.objects.get()
    first = arxiv.authorships[0]
    person = ResearcherFactory(display_name=first.raw_name, openalex_id="A999000111")
    Authorship.objects.filter(work=preprint, position=first.position).update(researcher=person)
    _write(_publisher(arxiv, orcid=None))
    placeholder = Authorship.objects.exclude(work=preprint).get(position=first.position)
    assert placeholder.researcher is not None and placeholder.researcher.verification_level == 0

    _write(arxiv)

    work = Work.objects.get()
    assert work.byline_origin == CROSSREF
    assert Authorship.objects.filter(researcher=person).count() == 1
    assert work.authorships.get(position=first.position).researcher_id == person.pk
    linked = [rid for rid in work.authorships.values_list("researcher_id", flat=True) if rid]
    assert len(linked) == len(set(linked))
    researcher_metrics_refresh(researcher_ids=[person.pk, placeholder.researcher_id])
    person.refresh_from_db()
    assert person.works_count == 1
    assert Researcher.objects.get(pk=placeholder.researcher_id).works_count == 0


def test_the_merged_away_work_page_answers_301_with_the_survivor(client, testdata_dir):
    arxiv, preprint, published = _two_works(testdata_dir)
    _write(arxiv)

    response = client.get(f"/works/{published.pk}/")

    assert response.status_code == 301
    assert response["Location"] == f"/works/{preprint.pk}/"
    assert client.get(f"/works/{preprint.pk}/").status_code == 200
    assert client.get("/works/999999999/").status_code == 404


def test_split_requests_and_invitation_anchors_follow_the_survivor(testdata_dir):
    arxiv, preprint, published = _two_works(testdata_dir)
    author = Researcher.objects.get(orcid=ORCID_ID)
    split = SplitRequest.objects.create(
        researcher=author, work=published, requested_by=UserFactory()
    )
    alice = verified_researcher("alice@example.org", "Alice Example", "alice-example")
    bob = verified_researcher("bob@example.org", "Bob Example", "bob-example")
    invitation = invite(alice, bob)
    invitation.anchor_works.add(published, preprint)

    _write(arxiv)

    split.refresh_from_db()
    assert split.work_id == preprint.pk
    assert list(invitation.anchor_works.values_list("pk", flat=True)) == [preprint.pk]


def test_reimporting_every_record_after_the_merge_changes_nothing(testdata_dir):
    arxiv, preprint, published = _two_works(testdata_dir)
    _write(arxiv)
    before = list(Authorship.objects.order_by("id").values_list())

    for record in (arxiv, _publisher(arxiv)):
        totals, _ = _write(record)
        assert (totals["created"], totals["updated"], totals["unchanged"]) == (0, 0, 1)
    assert Work.objects.count() == 1
    assert list(Authorship.objects.order_by("id").values_list()) == before


def test_two_works_with_different_openalex_ids_are_never_united():
    def openalex(work_id: str, **ids: str) -> WorkRecord:
        return WorkRecord(
            openalex_id=work_id,
            title=f"Work {work_id}",
            publication_year=2020,
            authorships=(
                AuthorshipRecord(1, "Ann Example", AuthorRef(display_name="Ann Example")),
            ),
            **ids,
        )

    _write(openalex("W1", doi="10.1000/one"))
    _write(openalex("W2", arxiv_id="2001.00001"))
    both = WorkRecord(
        origin=CROSSREF,
        origin_id="10.1000/one",
        doi="10.1000/one",
        arxiv_id="2001.00001",
        title="Work W1",
        published=partial_date(2020),
    )

    _write(both)

    assert Work.objects.count() == 2
    assert not MergedWork.objects.exists()
    assert ImportIssue.objects.filter(reason__contains="the two are not linked").exists()


def test_every_foreign_key_to_a_work_is_moved_by_the_merge():
    """A table that points at works and is not handled would lose its rows (or fail the merge)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT conrelid::regclass::text FROM pg_constraint
            WHERE contype = 'f' AND confrelid = 'publications_work'::regclass
            """
        )
        tables = {table for (table,) in cursor.fetchall()}
    assert tables == {
        "publications_authorship",
        "publications_worktopic",
        "publications_workversion",
        "publications_worksource",
        "publications_mergedwork",
        "publications_formeropenalexworkid",
        "publications_worklistedby",
        "claims_splitrequest",
        "collaboration_invitation_anchor_works",
        # Derived from the citations and rewritten whole by each novelty run: an absorbed
        # work's row goes with it (cascade), the survivor's is recomputed by the next run.
        "publications_worknovelty",
        # Derived from the citations: an absorbed work's rows go with it, and its survivor and
        # neighbours are queued for their related works by citations_move
        # (tests/publications/test_related_works.py).
        "publications_relatedwork",
        "publications_citationdegree",
    }
    # The citation tables point at works without a database constraint (publications.models:
    # Citation); the merge moves them too (writer/citations.py: citations_move), as
    # tests/ingest/test_citations.py checks.
