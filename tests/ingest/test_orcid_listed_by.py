"""ORCID decides what the researcher says is theirs (issue 15, item 6): the owner of an ORCID
record becomes an author of the works it lists, on the byline slot compatible with their name,
or is kept as "listed by" without a slot. The ORCID record is a real one of the shared corpus
(Charles Tapley Hoyt's, v2.x shape, 26 work groups, none with contributors); the other source's
byline for its first work (DOI 10.3233/jad-201397) is built here, as Crossref would give it
(no Crossref response for this DOI is in the corpus).

A work the owner lists is theirs even without a slot: it is on their profile and in their
works, once, whether or not they also hold (or later take) a slot of its byline."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse

from ingest.models import ImportIssue, ImportRun
from ingest.parsing import ParsedBatch
from ingest.records import (
    CROSSREF,
    ORCID,
    AuthorRef,
    AuthorshipRecord,
    WorkRecord,
    partial_date,
)
from ingest.services.batches import batch_write
from ingest.writer import prepare_works
from publications.models import Authorship, Work, WorkListedBy, WorkSource
from publications.selectors import WorkListing, work_facets_for_researcher
from researchers.models import Researcher
from tests.factories import AuthorshipFactory

# The command reads its run back outside the test's transaction, as the pipeline does.
pytestmark = pytest.mark.django_db(transaction=True)

HOYT = "0000-0003-4423-4370"
DOI = "10.3233/jad-201397"
OTHER_ORCID = "0000-0002-1825-0097"  # ORCID's own example iD, checksum-valid


def _import_orcid(testdata_dir: Path) -> ImportRun:
    path = testdata_dir / "orcid" / "v2.x" / "pyorcidator_record_0000-0003-4423-4370.json"
    call_command("import", "orcid", str(path), sync=True, no_progress=True)
    run = ImportRun.objects.order_by("-id").first()
    assert run is not None and run.status == ImportRun.Status.SUCCEEDED, run and run.error
    return run


def _crossref(*names: tuple[str, str | None], updated: str | None = None) -> WorkRecord:
    return WorkRecord(
        origin=CROSSREF,
        origin_id=DOI,
        doi=DOI,
        title=(
            "A Systems Biology Approach for Hypothesizing the Effect of Genetic Variants on "
            "Neuroimaging Features in Alzheimer's Disease"
        ),
        published=partial_date(2021, 2),
        source_updated_at=updated,
        authorships=tuple(
            AuthorshipRecord(
                position=position,
                raw_name=name,
                author=AuthorRef(
                    display_name=name,
                    given_name=name.rsplit(" ", 1)[0],
                    family_name=name.rsplit(" ", 1)[1],
                    orcid=orcid,
                ),
            )
            for position, (name, orcid) in enumerate(names, start=1)
        ),
    )


def _write(record: WorkRecord) -> None:
    run = ImportRun.objects.create(source="test", description="listed by")
    batch = ParsedBatch(read=1, records={"works": [record]})
    batch.prepared["works"] = prepare_works([record])
    with transaction.atomic():
        batch_write(batch, run_id=run.id, path="listed by")


def test_every_work_of_an_orcid_record_is_listed_by_its_owner(testdata_dir):
    _import_orcid(testdata_dir)

    hoyt = Researcher.objects.get(orcid=HOYT)
    listed_works = set(
        WorkSource.objects.filter(origin=ORCID, origin_id__startswith=HOYT).values_list(
            "work_id", flat=True
        )
    )
    assert len(listed_works) >= 20  # 26 groups; some may be one work
    assert set(WorkListedBy.objects.filter(researcher=hoyt).values_list("work_id", flat=True)) == (
        listed_works
    )
    # ORCID's summaries name no contributors: no byline, so no slot.
    assert not WorkListedBy.objects.filter(position__isnull=False).exists()


def test_the_owner_takes_the_compatible_slot_of_another_sources_byline(testdata_dir):
    _write(_crossref(("Daniel Domingo-Fernández", None), ("Charles Tapley Hoyt", None)))
    work = Work.objects.get(doi=DOI)
    placeholder = work.authorships.get(position=2).researcher
    assert placeholder is not None and placeholder.verification_level == 0

    _import_orcid(testdata_dir)

    hoyt = Researcher.objects.get(orcid=HOYT)
    assert work.authorships.get(position=2).researcher_id == hoyt.pk
    assert WorkListedBy.objects.get(work=work, researcher=hoyt).position == 2
    assert Authorship.objects.filter(researcher=placeholder).count() == 0
    assert Work.objects.filter(doi=DOI).count() == 1

    # Crossref rewrites its byline: he stays on his slot, and no new name-only record appears.
    l0_before = Researcher.objects.filter(verification_level=0).count()
    _write(
        _crossref(
            ("Daniel Domingo-Fernández", None),
            ("Charles Tapley Hoyt", None),
            updated="2030-01-01T00:00:00Z",
        )
    )
    assert work.authorships.get(position=2).researcher_id == hoyt.pk
    assert Authorship.objects.filter(work=work, researcher=hoyt).count() == 1
    assert Researcher.objects.filter(verification_level=0).count() == l0_before


def test_an_identified_namesake_on_the_slot_keeps_it_and_the_work_is_listed_without_a_slot(
    testdata_dir,
):
    _write(_crossref(("Charles Hoyt", OTHER_ORCID)))
    namesake = Researcher.objects.get(orcid=OTHER_ORCID)

    run = _import_orcid(testdata_dir)

    hoyt = Researcher.objects.get(orcid=HOYT)
    work = Work.objects.get(doi=DOI)
    assert work.authorships.get().researcher_id == namesake.pk
    assert WorkListedBy.objects.get(work=work, researcher=hoyt).position is None
    assert ImportIssue.objects.filter(run=run, reason__contains="kept as listed by them").exists()


def test_an_owner_already_on_the_byline_changes_nothing_and_a_reimport_writes_nothing(
    testdata_dir,
):
    _write(_crossref(("Charles Tapley Hoyt", HOYT), ("Daniel Domingo-Fernández", None)))
    work = Work.objects.get(doi=DOI)
    byline = list(work.authorships.order_by("position").values_list("researcher_id", "raw_name"))

    _import_orcid(testdata_dir)
    listed = WorkListedBy.objects.get(work=work)
    _import_orcid(testdata_dir)

    assert list(work.authorships.order_by("position").values_list("researcher_id", "raw_name")) == (
        byline
    )
    assert listed.position == 1
    assert WorkListedBy.objects.get(work=work).updated_at == listed.updated_at


def _works_of(client, researcher: Researcher) -> dict[str, object]:
    """The researcher's works as every reader sees them: the profile's count and list, the
    facets, the API list."""
    profile = client.get(reverse("researcher-profile", args=[researcher.slug]))
    assert profile.status_code == 200
    api = client.get(reverse("api:researcher-works", args=[researcher.slug]), {"page_size": 100})
    listing = WorkListing.for_researcher(researcher.pk)
    return {
        "profile": html.unescape(profile.content.decode()),
        "facets_total": work_facets_for_researcher(researcher.pk).works_total,
        "listed_ids": sorted(work.pk for work in listing[: listing.count()]),
        "api_ids": sorted(work["id"] for work in api.json()["results"]),
        "api_count": api.json()["count"],
    }


def test_the_works_his_orcid_record_lists_without_a_slot_are_his_on_every_page(
    client, testdata_dir
):
    _import_orcid(testdata_dir)
    hoyt = Researcher.objects.get(orcid=HOYT)
    listed = sorted(WorkListedBy.objects.filter(researcher=hoyt).values_list("work_id", flat=True))
    assert listed and not Authorship.objects.filter(researcher=hoyt).exists()

    works = _works_of(client, hoyt)

    assert works["listed_ids"] == works["api_ids"] == listed
    assert works["facets_total"] == works["api_count"] == len(listed)
    assert f"{len(listed)} published item(s)" in works["profile"]
    newest = WorkListing.for_researcher(hoyt.pk)[:1][0]
    assert newest.title in works["profile"]


def test_a_listed_work_counts_once_when_he_also_holds_or_later_takes_a_slot(client, testdata_dir):
    _write(_crossref(("Charles Hoyt", OTHER_ORCID)))
    _import_orcid(testdata_dir)
    hoyt = Researcher.objects.get(orcid=HOYT)
    listed = sorted(WorkListedBy.objects.filter(researcher=hoyt).values_list("work_id", flat=True))
    work = Work.objects.get(doi=DOI)
    # An identified namesake holds the slot: the work is his by his ORCID record, and the
    # namesake's by the byline.
    assert WorkListedBy.objects.get(work=work, researcher=hoyt).position is None
    namesake = Researcher.objects.get(orcid=OTHER_ORCID)
    assert _works_of(client, namesake)["listed_ids"] == [work.pk]

    # Also on the byline of another work he lists without a slot (a link made elsewhere):
    # one work still.
    other = next(work_id for work_id in listed if work_id != work.pk)
    AuthorshipFactory(work_id=other, researcher=hoyt, position=9)
    # And a slot taken later: the byline is rewritten naming him, the writer puts him on it.
    _write(
        _crossref(
            ("Charles Tapley Hoyt", None), ("Someone Else", None), updated="2030-01-01T00:00:00Z"
        )
    )
    assert WorkListedBy.objects.get(work=work, researcher=hoyt).position == 1
    assert work.authorships.get(position=1).researcher_id == hoyt.pk

    works = _works_of(client, hoyt)

    assert works["listed_ids"] == works["api_ids"] == listed
    assert works["facets_total"] == works["api_count"] == len(listed)
    assert f"{len(listed)} published item(s)" in works["profile"]


def test_his_works_count_counts_the_works_he_lists_without_a_slot_once(testdata_dir):
    _write(_crossref(("Charles Tapley Hoyt", None), ("Someone Else", None)))
    _import_orcid(testdata_dir)
    hoyt = Researcher.objects.get(orcid=HOYT)
    listed = WorkListedBy.objects.filter(researcher=hoyt)
    assert listed.filter(position__isnull=False).count() == 1

    assert hoyt.works_count == listed.count()
