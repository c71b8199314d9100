"""ORCID decides what the researcher says is theirs (issue 15, item 6): the owner of an ORCID
record becomes an author of the works it lists, on the byline slot compatible with their name,
or is kept as "listed by" without a slot. The ORCID record is a real one of the shared corpus
(Charles Tapley Hoyt's, v2.x shape, 26 work groups, none with contributors); the other source's
byline for its first work (DOI 10.3233/jad-201397) is built here, as Crossref would give it
(no Crossref response for this DOI is in the corpus)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import transaction

from imports.parsing import ParsedBatch
from imports.services.batches import batch_write
from publications.importers.records import (
    CROSSREF,
    ORCID,
    AuthorRef,
    AuthorshipRecord,
    WorkRecord,
    partial_date,
)
from publications.importers.writer import prepare_works
from publications.models import (
    Authorship,
    ImportIssue,
    ImportRun,
    Work,
    WorkListedBy,
    WorkSource,
)
from researchers.models import Researcher

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
