"""The researcher's own figures beside the ones computed here (issue 24, item 13): the profile
labels each set with where it comes from, the stated one with its source and date; the API
carries both."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from tests.factories import ResearcherFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def zhong():
    return ResearcherFactory(
        slug="zhizhen-zhong",
        h_index=2,
        i10_index=1,
        works_count=2,
        cited_by_count=13,
        stated_h_index=10,
        stated_i10_index=11,
        stated_works_count=26,
        stated_cited_by_count=512,
        stated_two_year_mean_citedness=3.25,
        stated_figures_source="openalex",
        stated_figures_as_of=datetime.date(2026, 11, 1),
    )


def _section(html: str, section_id: str) -> str:
    start = html.index(f'id="{section_id}"')
    return html[start : html.index("</section>", start)]


def test_the_profile_shows_both_sets_each_labelled(client, zhong, settings):
    settings.PROFILE_PAGE_CACHE_SECONDS = 0
    html = client.get(reverse("researcher-profile", args=[zhong.slug])).content.decode()

    computed = _section(html, "figures-computed")
    assert "Computed on bzpeer" in computed
    assert "<strong>2</strong>h-index" in computed
    stated = _section(html, "figures-stated")
    assert "Stated by OpenAlex" in stated
    assert '<time datetime="2026-11-01">Nov 1, 2026</time>' in stated
    assert "<strong>10</strong>h-index" in stated
    assert "<strong>11</strong>i10-index" in stated
    assert "<strong>26</strong>works" in stated
    assert "<strong>512</strong>citations" in stated
    assert "<strong>3.25</strong>2-year mean citedness" in stated


def test_a_record_no_source_states_figures_for_shows_only_its_own(client, settings):
    settings.PROFILE_PAGE_CACHE_SECONDS = 0
    researcher = ResearcherFactory()
    html = client.get(reverse("researcher-profile", args=[researcher.slug])).content.decode()
    assert 'id="figures-computed"' in html
    assert 'id="figures-stated"' not in html


def test_the_api_carries_both(client, zhong):
    data = client.get("/api/v1/researchers/zhizhen-zhong/").json()
    assert (data["h_index"], data["works_count"]) == (2, 2)
    assert data["stated_figures"] == {
        "source": "openalex",
        "source_label": "OpenAlex",
        "as_of": "2026-11-01",
        "works_count": 26,
        "cited_by_count": 512,
        "h_index": 10,
        "i10_index": 11,
        "two_year_mean_citedness": 3.25,
    }


def test_the_api_says_null_where_no_source_states_any(client):
    researcher = ResearcherFactory()
    data = client.get(f"/api/v1/researchers/{researcher.slug}/").json()
    assert data["stated_figures"] is None
