"""The CV link in the profile's header and the printable CV page (issue 24, item 14):
/researchers/<slug>/cv/ holds identity, positions, education, awards and works, escaped, in a
fixed number of queries, with a print stylesheet."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from tests.factories import AuthorshipFactory, ResearcherFactory, WorkFactory
from tests.researchers.test_profile_cv import _cv_of_the_seeds, _entry, _text

pytestmark = pytest.mark.django_db


def test_the_profile_header_links_to_the_cv_when_the_record_has_one(client):
    researcher = ResearcherFactory(display_name="Zhuang Wang")
    _cv_of_the_seeds(researcher)
    html = client.get(reverse("researcher-profile", args=[researcher.slug])).content.decode()
    header = html[html.index('id="researcher-name"') : html.index("</section>")]
    assert '<a class="cv-link" href="#cv">CV</a>' in header
    assert 'id="cv"' in html
    assert f'href="/researchers/{researcher.slug}/cv/">Printable CV</a>' in html


def test_a_record_without_cv_entries_has_no_cv_link(client):
    researcher = ResearcherFactory()
    html = client.get(reverse("researcher-profile", args=[researcher.slug])).content.decode()
    assert 'class="cv-link"' not in html


def test_the_cv_page_holds_identity_positions_education_awards_and_works(client):
    researcher = ResearcherFactory(
        display_name="Zhuang Wang", orcid="0000-0002-1825-0097", openalex_id="A5000000001"
    )
    _cv_of_the_seeds(researcher)
    older = WorkFactory(title="An older paper", publication_date=datetime.date(2021, 3, 2))
    newer = WorkFactory(title="A newer paper", publication_date=None, publication_year=2024)
    for work in (older, newer):
        AuthorshipFactory(work=work, researcher=researcher, position=1, raw_name="Zhuang Wang")

    response = client.get(reverse("researcher-cv", args=[researcher.slug]))

    assert response.status_code == 200
    html = response.content.decode()
    assert "css/print.css" in html
    text = _text(response)
    expected_in_order = [
        "Zhuang Wang",
        "0000-0002-1825-0097",
        "A5000000001",
        "Experience",
        "Amazon Web Services AI",
        "Education",
        "Awards",
        "Works",
        "A newer paper",
        "2024",
        "An older paper",
        "Mar 2, 2021",
    ]
    positions = [text.find(expected) for expected in expected_in_order]
    assert -1 not in positions, [
        e for e, p in zip(expected_in_order, positions, strict=True) if p < 0
    ]
    assert positions == sorted(positions)


def test_the_cv_page_runs_the_same_queries_for_a_small_and_a_large_record(
    client, django_assert_num_queries
):
    small = ResearcherFactory()
    large = ResearcherFactory()
    for index in range(40):
        _entry(large, str(index), organisation=f"Organisation {index}", start_year=1990)
        AuthorshipFactory(researcher=large, position=1)
    AuthorshipFactory(researcher=small, position=1)

    # The record with its CV, one statement of works (fewer than the page shows: no count).
    with django_assert_num_queries(2):
        assert client.get(reverse("researcher-cv", args=[small.slug])).status_code == 200
    with django_assert_num_queries(2):
        response = client.get(reverse("researcher-cv", args=[large.slug]))
    assert "Organisation 39" in _text(response)


def test_the_cv_page_escapes_imported_text(client):
    researcher = ResearcherFactory(display_name="<i>Zhuang</i>")
    _entry(researcher, "1", organisation="<script>alert(1)</script>", role="<b>Lead</b>")
    AuthorshipFactory(
        researcher=researcher,
        position=1,
        raw_name="<img src=x>",
        work=WorkFactory(title="<u>T</u>"),
    )
    html = client.get(reverse("researcher-cv", args=[researcher.slug])).content.decode()
    for raw in ("<script>alert(1)</script>", "<b>Lead</b>", "<i>Zhuang</i>", "<img src=x>"):
        assert raw not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_an_unknown_record_is_not_found_and_a_merged_one_redirects(client):
    survivor = ResearcherFactory(slug="survivor")
    ResearcherFactory(slug="merged", merged_into=survivor)
    assert client.get("/researchers/nobody/cv/").status_code == 404
    response = client.get("/researchers/merged/cv/")
    assert (response.status_code, response["Location"]) == (301, "/researchers/survivor/cv/")


def test_the_cv_page_refuses_a_post(client):
    researcher = ResearcherFactory()
    assert client.post(reverse("researcher-cv", args=[researcher.slug])).status_code == 405
