"""The header box's suggestions (htmx): a few researchers, name and institution, linking to
their profiles."""

from __future__ import annotations

import pytest

from tests.factories import InstitutionFactory, ResearcherFactory

pytestmark = pytest.mark.django_db

SUGGEST_URL = "/search/suggest/"


@pytest.mark.parametrize("query", ["", "z", " z ", "?!"])
def test_it_answers_under_two_letters_with_an_empty_response(client, query):
    ResearcherFactory(display_name="Zhizhen Zhong")

    response = client.get(SUGGEST_URL, {"q": query}, headers={"HX-Request": "true"})

    assert response.status_code == 200
    assert response.content == b""


def test_it_suggests_researchers_with_institution_linking_to_their_profiles(client):
    lab = InstitutionFactory(name="Massachusetts Institute of Technology")
    ResearcherFactory(
        display_name="Zhizhen Zhong", slug="zhizhen-zhong", last_known_institution=lab
    )
    ResearcherFactory(display_name="Zhizhen Zheng", slug="zhizhen-zheng", cited_by_count=900)

    response = client.get(SUGGEST_URL, {"q": "zhizen zhong"}, headers={"HX-Request": "true"})
    html = response.content.decode()

    assert response.status_code == 200
    first = html.index('href="/researchers/zhizhen-zhong/"')
    assert first < html.index('href="/researchers/zhizhen-zheng/"')
    assert "Massachusetts Institute of Technology" in html
    assert 'href="/search/?q=zhizen%20zhong">All results for “zhizen zhong”' in html


def test_it_says_when_no_researcher_matches_and_offers_the_full_search(client):
    ResearcherFactory(display_name="Zhizhen Zhong")

    html = client.get(SUGGEST_URL, {"q": "xylophone"}).content.decode()

    assert "No researcher by that name." in html
    assert 'href="/search/?q=xylophone"' in html


def test_it_leaves_merged_records_out(client):
    survivor = ResearcherFactory(display_name="Zhizhen Zhong", slug="survivor")
    ResearcherFactory(display_name="Zhizhen Zhong", slug="merged", merged_into=survivor)

    html = client.get(SUGGEST_URL, {"q": "zhizhen"}).content.decode()

    assert 'href="/researchers/survivor/"' in html
    assert 'href="/researchers/merged/"' not in html
