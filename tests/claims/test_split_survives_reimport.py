"""An accepted split request holds against later imports (issue 15): the researcher said "this
work is not mine", a moderator agreed, and neither another source rewriting the byline nor their
own ORCID record listing the work puts them back on it. On the real ORCID record of the shared
corpus (Charles Tapley Hoyt's), with another source's byline for its first work built here as
in tests/ingest/test_orcid_listed_by.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from claims.models import SplitRequest
from claims.services import split_request_resolve
from ingest.models import ImportRun
from publications.models import Work, WorkListedBy
from researchers.models import Researcher
from tests.ingest.test_orcid_listed_by import DOI, HOYT, _crossref, _write
from tests.support.people import make_member

# The command reads its run back outside the test's transaction, as the pipeline does.
pytestmark = pytest.mark.django_db(transaction=True)


def _import_orcid(testdata_dir: Path) -> None:
    path = testdata_dir / "orcid" / "v2.x" / "pyorcidator_record_0000-0003-4423-4370.json"
    call_command("import", "orcid", str(path), sync=True, no_progress=True)
    run = ImportRun.objects.order_by("-id").first()
    assert run is not None and run.status == ImportRun.Status.SUCCEEDED, run and run.error


def _split_accepted(researcher: Researcher, work: Work) -> None:
    claimant = make_member("hoyt@example.org", display_name="Charles")
    moderator = make_member("mod@example.org", display_name="Mo Derator", is_staff=True)
    split = SplitRequest.objects.create(researcher=researcher, work=work, requested_by=claimant)
    split_request_resolve(split_request=split, moderator=moderator, accept=True)


def test_a_split_work_stays_off_the_record_when_its_byline_and_the_orcid_record_come_again(
    testdata_dir,
):
    _write(_crossref(("Daniel Domingo-Fernández", None), ("Charles Tapley Hoyt", None)))
    _import_orcid(testdata_dir)
    hoyt = Researcher.objects.get(orcid=HOYT)
    work = Work.objects.get(doi=DOI)
    assert work.authorships.get(position=2).researcher_id == hoyt.pk
    listed = WorkListedBy.objects.filter(researcher=hoyt).count()

    _split_accepted(hoyt, work)
    hoyt.refresh_from_db()
    assert work.authorships.get(position=2).researcher_id is None
    assert not WorkListedBy.objects.filter(researcher=hoyt, work=work).exists()
    assert hoyt.works_count == listed - 1

    # Crossref rewrites its byline, then his ORCID record, which lists the work, comes again.
    _write(
        _crossref(
            ("Daniel Domingo-Fernández", None),
            ("Charles Tapley Hoyt", None),
            updated="2030-01-01T00:00:00Z",
        )
    )
    _import_orcid(testdata_dir)

    hoyt.refresh_from_db()
    assert work.authorships.get(position=2).researcher_id is None
    assert not work.authorships.filter(researcher=hoyt).exists()
    assert not WorkListedBy.objects.filter(researcher=hoyt, work=work).exists()
    # His other works are still his.
    assert WorkListedBy.objects.filter(researcher=hoyt).count() == listed - 1
    assert hoyt.works_count == listed - 1


def test_a_split_work_he_listed_without_a_slot_is_not_listed_again(testdata_dir):
    _import_orcid(testdata_dir)
    hoyt = Researcher.objects.get(orcid=HOYT)
    listing = WorkListedBy.objects.filter(researcher=hoyt, position__isnull=True).first()
    assert listing is not None
    listed = WorkListedBy.objects.filter(researcher=hoyt).count()

    _split_accepted(hoyt, listing.work)
    _import_orcid(testdata_dir)

    hoyt.refresh_from_db()
    assert not WorkListedBy.objects.filter(researcher=hoyt, work=listing.work).exists()
    assert hoyt.works_count == listed - 1


def test_a_byline_that_names_him_by_his_orcid_id_leaves_him_off_a_split_work(testdata_dir):
    _write(_crossref(("Charles Tapley Hoyt", HOYT), ("Daniel Domingo-Fernández", None)))
    hoyt = Researcher.objects.get(orcid=HOYT)
    work = Work.objects.get(doi=DOI)
    _split_accepted(hoyt, work)

    _write(
        _crossref(
            ("Charles Tapley Hoyt", HOYT),
            ("Daniel Domingo-Fernández", None),
            updated="2030-01-01T00:00:00Z",
        )
    )

    assert work.authorships.get(position=1).researcher_id is None
    hoyt.refresh_from_db()
    assert hoyt.works_count == 0
