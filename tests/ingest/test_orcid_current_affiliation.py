"""The current position of a researcher's ORCID CV is an affiliation, labelled with its source
(issue 24, item 6): on the real ORCID record of Charles Tapley Hoyt (v2.x), whose CV lists
Harvard Medical School since 2021 and three positions that ended."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from ingest.orcid.mapper import map_record
from ingest.orcid.reader import READER
from ingest.orcid.writer import write_cv_entries
from ingest.records import CvEntryRecord
from researchers.models import Affiliation, Institution, Researcher
from researchers.services import StatedAffiliation, affiliations_replace_for_source

pytestmark = pytest.mark.django_db

HOYT = "0000-0003-4423-4370"


def _cv_records(testdata_dir) -> list[CvEntryRecord]:
    path = testdata_dir / "orcid" / "v2.x" / f"pyorcidator_record_{HOYT}.json"
    (raw,) = list(READER.records(path))
    return [r for r in map_record(raw) if isinstance(r, CvEntryRecord)]


def _write(records) -> None:
    with connection.cursor() as cursor:
        write_cv_entries(cursor, records)


def _hoyt(**fields) -> Researcher:
    return Researcher.objects.create(
        slug="charles-tapley-hoyt", display_name="Charles Tapley Hoyt", orcid=HOYT, **fields
    )


# The identity badge of a position another source states.
ORCID_BADGE = 'Harvard Medical School <span class="muted">· from ORCID</span>'


def _profile(researcher: Researcher) -> str:
    return Client().get(reverse("researcher-profile", args=[researcher.slug])).content.decode()


def test_the_current_employment_becomes_an_orcid_affiliation_and_the_ended_ones_do_not(
    testdata_dir,
):
    hoyt = _hoyt()
    assert "Affiliation not imported" in _profile(hoyt)

    _write(_cv_records(testdata_dir))

    (affiliation,) = Affiliation.objects.filter(researcher=hoyt).select_related("institution")
    assert (affiliation.source, affiliation.institution.name) == ("orcid", "Harvard Medical School")
    assert (affiliation.role, affiliation.start_year, affiliation.end_year) == (
        "Postdoctoral Research Fellow",
        2021,
        None,
    )
    page = _profile(hoyt)
    assert "Affiliation not imported" not in page
    assert ORCID_BADGE in page


def test_importing_the_record_again_changes_nothing(testdata_dir):
    hoyt = _hoyt()
    _write(_cv_records(testdata_dir))
    first = list(Affiliation.objects.filter(researcher=hoyt).values_list("institution_id", "role"))
    institutions = Institution.objects.count()

    _write(_cv_records(testdata_dir))

    again = list(Affiliation.objects.filter(researcher=hoyt).values_list("institution_id", "role"))
    assert again == first and Institution.objects.count() == institutions


def test_an_openalex_institution_is_shown_before_the_orcid_one(testdata_dir):
    openalex = Institution.objects.create(openalex_id="I136199984", name="Harvard University")
    hoyt = _hoyt(last_known_institution=openalex)
    _write(_cv_records(testdata_dir))

    page = _profile(hoyt)
    assert "Harvard University" in page and ORCID_BADGE not in page


def test_institutions_are_found_by_ror_or_name_and_a_position_that_ended_goes():
    known = Institution.objects.create(name="University of Bonn", ror="041nas322")
    one = Researcher.objects.create(slug="one", display_name="One")
    two = Researcher.objects.create(slug="two", display_name="Two")
    affiliations_replace_for_source(
        source="orcid",
        researcher_ids=[one.pk, two.pk],
        stated=[
            StatedAffiliation(one.pk, "Universität Bonn", ror="041nas322"),
            StatedAffiliation(one.pk, "Fraunhofer  SCAI"),
            StatedAffiliation(two.pk, "fraunhofer scai"),
        ],
    )
    assert Affiliation.objects.get(researcher=one, institution=known).source == "orcid"
    scai = Institution.objects.get(name="Fraunhofer SCAI")  # created once, found by name
    assert set(
        Affiliation.objects.filter(institution=scai).values_list("researcher", flat=True)
    ) == {
        one.pk,
        two.pk,
    }

    # The next import of one's record no longer lists Bonn: that affiliation goes, the other
    # sources' stay.
    Affiliation.objects.create(researcher=one, institution=known, source="openalex")
    affiliations_replace_for_source(
        source="orcid",
        researcher_ids=[one.pk],
        stated=[StatedAffiliation(one.pk, "Fraunhofer SCAI")],
    )
    assert set(Affiliation.objects.filter(researcher=one).values_list("source", "institution")) == {
        ("orcid", scai.pk),
        ("openalex", known.pk),
    }


def test_an_organisation_name_with_markup_is_shown_as_text():
    researcher = Researcher.objects.create(slug="markup", display_name="Markup")
    affiliations_replace_for_source(
        source="orcid",
        researcher_ids=[researcher.pk],
        stated=[StatedAffiliation(researcher.pk, "<script>alert(1)</script> Institute")],
    )
    page = _profile(researcher)
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Institute" in page
