"""The search page, /search/?q=: tabs, results, highlighting, filters, empty state, pages."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from publications.models import TopicLevel
from tests.factories import (
    AuthorshipFactory,
    InstitutionFactory,
    ResearcherFactory,
    SourceFactory,
    TopicFactory,
    UserFactory,
    WorkFactory,
    WorkTopicFactory,
)

pytestmark = pytest.mark.django_db

SEARCH_URL = "/search/"


def result_links(response, pattern: str) -> list[str]:
    """The hrefs in the results list that match pattern, in page order."""
    html = response.content.decode()
    results = html[html.index('id="results-heading"') :]
    return re.findall(rf'href="({pattern})"', results)


@pytest.fixture
def curie_everywhere():
    """One record of each kind with "Curie" in its name or title."""
    institution = InstitutionFactory(name="Institut Curie", country_code="FR")
    researcher = ResearcherFactory(
        display_name="Marie Curie", slug="marie-curie", last_known_institution=institution
    )
    work = WorkFactory(
        title="The Curie temperature of thin magnetic films",
        abstract="Above the Curie point the films lose their order.",
    )
    AuthorshipFactory(work=work, researcher=researcher, position=1)
    topic = TopicFactory(name="Curie point physics", level=TopicLevel.SUBFIELD)
    return {"institution": institution, "researcher": researcher, "work": work, "topic": topic}


def test_without_a_query_it_shows_the_form_and_nothing_else(client):
    response = client.get(SEARCH_URL)

    assert response.status_code == 200
    html = response.content.decode()
    assert "<title>Search · bzpeer</title>" in html
    assert 'id="search-q"' in html
    assert 'aria-label="Kinds of results"' not in html


def test_it_answers_get_only(client):
    assert client.post(SEARCH_URL, {"q": "curie"}).status_code == 405
    assert client.post(reverse("search-suggest"), {"q": "curie"}).status_code == 405


def test_it_needs_no_login_and_shows_the_same_results_to_members(client, curie_everywhere):
    anonymous = client.get(SEARCH_URL, {"q": "curie"})
    client.force_login(UserFactory())
    member = client.get(SEARCH_URL, {"q": "curie"})

    assert anonymous.status_code == member.status_code == 200
    assert result_links(anonymous, '/researchers/[^"]+/') == ["/researchers/marie-curie/"]
    assert result_links(member, '/researchers/[^"]+/') == ["/researchers/marie-curie/"]


def test_each_tab_lists_its_kind_and_links_to_its_page(client, curie_everywhere):
    records = curie_everywhere
    expected = {
        "researchers": reverse("researcher-profile", args=["marie-curie"]),
        "works": reverse("publications:work-detail", args=[records["work"].pk]),
        "topics": reverse("publications:topic-detail", args=[records["topic"].pk]),
        "institutions": reverse("institution-detail", args=[records["institution"].pk]),
    }
    for tab, url in expected.items():
        response = client.get(SEARCH_URL, {"q": "curie", "tab": tab})
        html = response.content.decode()
        assert response.status_code == 200
        assert response.context["tab"] == tab
        assert f'href="{url}"' in html, tab
        assert re.search(rf'href="\?q=curie&amp;tab={tab}" aria-current="page"', html), tab
        # Every tab shows every kind's count.
        counts = {kind: str(count) for kind, count in response.context["counts"].items()}
        assert counts == {"researchers": "1", "works": "1", "topics": "1", "institutions": "1"}


def test_the_page_has_a_real_title_and_description_with_the_query_escaped(client):
    ResearcherFactory(display_name="Zhizhen Zhong")

    response = client.get(SEARCH_URL, {"q": 'zhong <i>"'})
    html = response.content.decode()

    assert "<title>“zhong &lt;i&gt;&quot;”: researchers · bzpeer</title>" in html
    assert re.search(
        r'<meta name="description" content="Researchers matching “zhong &lt;i&gt;&quot;” on bzpeer',
        html,
    )
    assert "<i>" not in html
    assert '<meta name="robots" content="noindex, follow">' in html


def test_without_a_tab_it_opens_the_first_kind_that_has_results(client):
    WorkFactory(title="Sparse attention for graph transformers")

    response = client.get(SEARCH_URL, {"q": "sparse attention"})

    assert response.context["tab"] == "works"
    assert str(response.context["counts"]["researchers"]) == "0"


def test_works_are_ranked_title_matches_first_with_the_matches_highlighted(client):
    abstract_only = WorkFactory(
        title="A survey of methods", abstract="We compare sparse attention with dense layers."
    )
    in_title = WorkFactory(
        title="Sparse attention for graph transformers",
        abstract="Attention that is sparse saves memory on long sequences.",
    )

    response = client.get(SEARCH_URL, {"q": "sparse attention", "tab": "works"})
    html = response.content.decode()

    assert [hit.work.pk for hit in response.context["results"].items] == [
        in_title.pk,
        abstract_only.pk,
    ]
    assert "<mark>Sparse</mark> <mark>attention</mark> for graph transformers" in html
    assert "compare <mark>sparse</mark> <mark>attention</mark> with dense layers" in html


def test_work_search_understands_phrases_and_exclusions(client):
    wanted = WorkFactory(title="Graph neural networks for molecules")
    WorkFactory(title="Neural networks on a graph of proteins")

    phrase = client.get(SEARCH_URL, {"q": '"graph neural"', "tab": "works"})
    excluded = client.get(SEARCH_URL, {"q": "graph -proteins", "tab": "works"})

    assert [hit.work.pk for hit in phrase.context["results"].items] == [wanted.pk]
    assert [hit.work.pk for hit in excluded.context["results"].items] == [wanted.pk]


def test_work_rows_show_authors_venue_and_year(client):
    work = WorkFactory(
        title="Optical circuit switching",
        source=SourceFactory(name="Journal of Lightwave Technology"),
        authors_count=7,
    )
    author = ResearcherFactory(display_name="Zhizhen Zhong", slug="zhizhen-zhong")
    AuthorshipFactory(work=work, researcher=author, position=1)
    AuthorshipFactory(work=work, researcher=None, raw_name="A. Nonymous", position=2)

    html = client.get(SEARCH_URL, {"q": "optical", "tab": "works"}).content.decode()

    assert '<a href="/researchers/zhizhen-zhong/">Zhizhen Zhong</a>, A. Nonymous and 5 more' in html
    assert "Journal of Lightwave Technology" in html
    assert "<span>2020</span>" in html


def test_the_empty_state_says_nothing_matched_and_offers_the_other_tabs(client, curie_everywhere):
    WorkFactory(title="Curie and the discovery of polonium")

    response = client.get(SEARCH_URL, {"q": "polonium", "tab": "researchers"})
    html = response.content.decode()

    assert "No researchers matched “polonium”." in html
    assert "Check the spelling" in html
    assert '<a href="?q=polonium&amp;tab=works">Works (1)</a>' in html


def test_the_empty_state_says_when_nothing_matched_anywhere(client, curie_everywhere):
    html = client.get(SEARCH_URL, {"q": "xylophone"}).content.decode()

    assert "No researchers matched “xylophone”." in html
    assert "Nothing else matched either" in html


def test_an_overlong_query_is_refused_with_a_message(client):
    response = client.get(SEARCH_URL, {"q": "a" * 201})

    assert response.status_code == 200
    assert "Keep the search under 200 characters." in response.content.decode()
    assert "counts" not in response.context


# --- filters ----------------------------------------------------------------------------------


def test_researchers_filter_by_institution_orcid_and_claim(client):
    lab = InstitutionFactory(name="Optics Lab")
    ResearcherFactory(display_name="Kai Zhong", slug="at-lab", last_known_institution=lab)
    ResearcherFactory(display_name="Kai Zhong", slug="with-orcid", orcid="0000-0002-1825-0097")
    ResearcherFactory(display_name="Kai Zhong", slug="claimed", claimed_by=UserFactory())

    def slugs(**filters):
        response = client.get(SEARCH_URL, {"q": "kai zhong", "tab": "researchers", **filters})
        return sorted(r.slug for r in response.context["results"].items)

    assert slugs() == ["at-lab", "claimed", "with-orcid"]
    assert slugs(institution=lab.pk) == ["at-lab"]
    assert slugs(orcid="1") == ["with-orcid"]
    assert slugs(claimed="1") == ["claimed"]
    facets = client.get(SEARCH_URL, {"q": "kai zhong", "tab": "researchers"}).context[
        "institution_facets"
    ]
    assert [(f.label, f.count) for f in facets] == [("Optics Lab", 1)]


def test_works_filter_by_year_range_type_and_topic(client):
    optics = TopicFactory(name="Optical networks")
    old = WorkFactory(title="Optical switching", publication_year=2001, type="article")
    new = WorkFactory(title="Optical switching again", publication_year=2021, type="preprint")
    WorkTopicFactory(work=new, topic=optics)

    def titles(**filters):
        response = client.get(SEARCH_URL, {"q": "optical", "tab": "works", **filters})
        return sorted(hit.work.pk for hit in response.context["results"].items)

    assert titles() == sorted([old.pk, new.pk])
    assert titles(year_from=2010) == [new.pk]
    assert titles(year_to=2010) == [old.pk]
    assert titles(year_from=2000, year_to=2002) == [old.pk]
    assert titles(type="article") == [old.pk]
    assert titles(topic=optics.pk) == [new.pk]
    response = client.get(SEARCH_URL, {"q": "optical", "tab": "works"})
    assert [(f.label, f.count) for f in response.context["topic_facets"]] == [
        ("Optical networks", 1)
    ]
    assert sorted((f.label, f.count) for f in response.context["type_facets"]) == [
        ("article", 1),
        ("preprint", 1),
    ]


def test_topics_filter_by_level(client):
    TopicFactory(name="Optics", level=TopicLevel.FIELD)
    subfield = TopicFactory(name="Applied optics", level=TopicLevel.SUBFIELD)

    response = client.get(SEARCH_URL, {"q": "optics", "tab": "topics", "level": "subfield"})

    assert [t.pk for t in response.context["results"].items] == [subfield.pk]


def test_institutions_filter_by_country(client):
    InstitutionFactory(name="University of Ottawa", country_code="CA")
    french = InstitutionFactory(name="Université de Montréal", country_code="FR")

    response = client.get(SEARCH_URL, {"q": "universite", "tab": "institutions", "country": "fr"})

    assert [i.pk for i in response.context["results"].items] == [french.pk]
    facets = client.get(SEARCH_URL, {"q": "universite", "tab": "institutions"}).context[
        "country_facets"
    ]
    assert sorted(f.value for f in facets) == ["CA", "FR"]


def test_institution_names_match_without_accents_or_case(client):
    montreal = InstitutionFactory(name="Université du Québec à Montréal")

    response = client.get(SEARCH_URL, {"q": "UNIVERSITE DU QUEBEC", "tab": "institutions"})

    assert [i.pk for i in response.context["results"].items] == [montreal.pk]


def test_a_bad_filter_value_is_reported_and_left_out(client):
    WorkFactory(title="Optical switching", publication_year=2001, type="article")

    response = client.get(
        SEARCH_URL, {"q": "optical", "tab": "works", "year_from": "soon", "type": "article"}
    )
    html = response.content.decode()

    assert len(response.context["results"].items) == 1
    assert "From: Enter a whole number. This filter was left out." in html


def test_the_empty_state_with_filters_offers_to_drop_them(client):
    WorkFactory(title="Optical switching", publication_year=2001)

    html = client.get(
        SEARCH_URL, {"q": "optical", "tab": "works", "year_from": 2020}
    ).content.decode()

    assert "No works matched “optical” with these filters." in html
    assert '<a href="?q=optical&amp;tab=works">Search works again without filters</a>' in html


# --- pages ------------------------------------------------------------------------------------


def test_results_come_in_pages_of_twenty(client):
    ResearcherFactory.create_batch(25, display_name="Kai Zhong")

    first = client.get(SEARCH_URL, {"q": "kai zhong"})
    second = client.get(SEARCH_URL, {"q": "kai zhong", "page": 2})

    assert len(first.context["results"].items) == 20
    assert len(second.context["results"].items) == 5
    first_ids = {r.pk for r in first.context["results"].items}
    assert first_ids.isdisjoint(r.pk for r in second.context["results"].items)
    assert 'href="?q=kai+zhong&amp;page=2" rel="next">' in first.content.decode()
    assert "1–20 of 25 researchers" in first.content.decode()
    assert "Page 2 of 2" in second.content.decode()


def test_a_page_past_the_end_says_so(client):
    ResearcherFactory(display_name="Kai Zhong")

    html = client.get(SEARCH_URL, {"q": "kai zhong", "page": 9}).content.decode()

    assert "This page is past the last result." in html


def test_only_the_first_candidate_works_are_ranked_and_the_page_says_so(client, monkeypatch):
    monkeypatch.setattr("search.selectors.works.WORK_CANDIDATE_LIMIT", 5)
    WorkFactory.create_batch(8, title="Optical switching")

    response = client.get(SEARCH_URL, {"q": "optical", "tab": "works"})
    html = response.content.decode()

    assert response.context["results"].total == 5
    assert "1–5 of 5+ works" in html
    assert "More than 5 works match." in html
