"""The researcher profile: the reference page's sections, in its order, for any size of record."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.factories import AuthorshipFactory, ResearcherFactory, UserFactory, WorkFactory

pytestmark = pytest.mark.django_db


def _text(response) -> str:
    """The visible text of the page's main element, tags stripped."""
    html = response.content.decode()
    html = html[html.index("<main") : html.index("</main>")]
    html = re.sub(r"<script.*?</script>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_sections_follow_the_reference_page_order(client, researcher_with_works):
    researcher = researcher_with_works(2, display_name="Zhizhen Zhong")

    text = _text(client.get(reverse("researcher-profile", args=[researcher.slug])))

    expected_in_order = [
        "Researcher profile",
        "Zhizhen Zhong",
        "Zhizhen Zhong contributes to research discovery and scholarly infrastructure.",
        "Affiliation not imported",
        "Open to collaborate",
        "Trust snapshot",
        "Quick read",
        "Trust 0 - Unverified",
        "Verification L1",
        "Unclaimed author",
        "2 works",
        "0 followers",
        "Decide how to stay connected",
        "Follow researcher 0",
        "How to connect with this researcher",
        "Log in to claim",
        "Direct collaboration",
        "Claim this author entity first to unlock direct invitations.",
        "Research graph",
        "See the researcher in context",
        "Open full explorer",
        "Building this graph slice",
        "BZPEER is loading the nearby papers, people, topics and institutions for this page.",
        "h-index",
        "Published work",
        "2 published item(s)",
    ]
    positions = [text.find(fragment) for fragment in expected_in_order]
    missing = [
        fragment
        for fragment, position in zip(expected_in_order, positions, strict=True)
        if position < 0
    ]
    assert not missing, missing
    assert positions == sorted(positions), "sections out of order"


def test_the_profile_runs_the_same_queries_for_5_and_500_works(
    client, researcher_with_works, django_assert_max_num_queries
):
    small = researcher_with_works(5)
    large = researcher_with_works(500)
    user = UserFactory()
    client.force_login(user)
    # The inbox badge is read on the first signed-in page and cached (issue 24, item 15).
    client.get(reverse("home"))

    with django_assert_max_num_queries(16) as small_queries:
        assert client.get(reverse("researcher-profile", args=[small.slug])).status_code == 200
    with django_assert_max_num_queries(len(small_queries.captured_queries)) as large_queries:
        response = client.get(reverse("researcher-profile", args=[large.slug]))
    assert response.status_code == 200
    assert len(large_queries.captured_queries) == len(small_queries.captured_queries)
    assert "500 published item(s)" in _text(response)


@pytest.mark.parametrize("works", [5, 500])
def test_a_visitor_gets_the_profile_in_four_queries_whatever_its_size(
    client, researcher_with_works, django_assert_num_queries, settings, works
):
    # The record, the filter choices, one page of works, the claim panel's counts.
    settings.PROFILE_PAGE_CACHE_SECONDS = 0
    researcher = researcher_with_works(works)

    with django_assert_num_queries(4):
        response = client.get(reverse("researcher-profile", args=[researcher.slug]))

    assert response.status_code == 200
    assert f"{works} published item(s)" in _text(response)


def test_works_can_be_sorted_filtered_and_paged(client, researcher_with_works):
    researcher = researcher_with_works(45)
    url = reverse("researcher-profile", args=[researcher.slug])

    most_cited = client.get(url, {"sort": "cited"}).context["works_page"].object_list
    assert [w.cited_by_count for w in most_cited] == sorted(
        (w.cited_by_count for w in most_cited), reverse=True
    )
    assert most_cited[0].cited_by_count == 6

    of_2003 = client.get(url, {"year": 2003}).context["works_page"]
    assert of_2003.paginator.count == 3 and {w.publication_year for w in of_2003.object_list} == {
        2003
    }

    second_page = client.get(url, {"page": 2}).context["works_page"]
    assert (second_page.number, len(second_page.object_list), second_page.paginator.num_pages) == (
        2,
        20,
        3,
    )

    topic_id = of_2003.object_list[0].listed_topics[0]["id"]
    in_topic = client.get(url, {"topic": topic_id}).context["works_page"]
    assert in_topic.paginator.count == 15


def test_bad_filter_values_are_reported_not_a_server_error(client, researcher_with_works):
    researcher = researcher_with_works(3)

    response = client.get(
        reverse("researcher-profile", args=[researcher.slug]), {"year": "abc", "page": "zzz"}
    )

    assert response.status_code == 200
    assert "not understood" in _text(response)
    assert response.context["works_page"].paginator.count == 3


def test_an_htmx_filter_request_gets_only_the_works_list(client, researcher_with_works):
    researcher = researcher_with_works(3)

    response = client.get(
        reverse("researcher-profile", args=[researcher.slug]),
        {"sort": "cited"},
        headers={"HX-Request": "true", "HX-Target": "works"},
    )

    assert response.status_code == 200
    assert "<html" not in response.content.decode()
    assert response.content.decode().count('class="work"') == 3


def test_a_merged_record_redirects_permanently_to_its_survivor(client):
    survivor = ResearcherFactory()
    merged = ResearcherFactory(merged_into=survivor)

    response = client.get(reverse("researcher-profile", args=[merged.slug]))

    assert response.status_code == 301
    assert response["Location"] == reverse("researcher-profile", args=[survivor.slug])


def test_an_unknown_slug_gets_a_friendly_404(client):
    response = client.get("/researchers/nobody-here/")

    assert response.status_code == 404
    assert "We could not find that researcher" in _text(response)


def test_the_profile_answers_only_get(client):
    researcher = ResearcherFactory()
    assert client.post(reverse("researcher-profile", args=[researcher.slug])).status_code == 405


def test_the_profile_carries_person_json_ld_safely(client):
    researcher = ResearcherFactory(
        display_name="Eve </script><script>alert(1)</script>", orcid="0000-0002-1825-0097"
    )

    html = client.get(reverse("researcher-profile", args=[researcher.slug])).content.decode()

    block = re.search(
        r'<script type="application/ld\+json">(.*?)</script>', html, flags=re.S
    ).group(1)
    assert '"@type":"Person"' in block
    assert "https://orcid.org/0000-0002-1825-0097" in block
    assert "<script>" not in block and "\\u003C/script\\u003E" in block


def test_the_citation_chart_is_drawn_without_script(client):
    researcher = ResearcherFactory(
        citations_by_year={"2023": 4, "2024": 10, "2025": 2}, cited_by_count=16
    )

    html = client.get(reverse("researcher-profile", args=[researcher.slug])).content.decode()

    chart = re.search(r"<svg.*?</svg>", html, flags=re.S).group(0)
    assert chart.count("<rect") == 3
    assert "2024: 10 citations" in chart
    assert 'height="120.0"' in chart  # the busiest year fills the plot
    assert 'height="48.0"' in chart  # 4 of 10


def test_authors_on_a_work_are_linked_in_byline_order(client):
    researcher = ResearcherFactory(display_name="First Author")
    coauthor = ResearcherFactory(display_name="Second Author")
    work = WorkFactory()
    AuthorshipFactory(work=work, researcher=coauthor, position=2, raw_name="Second Author")
    AuthorshipFactory(work=work, researcher=researcher, position=1, raw_name="First Author")

    html = client.get(reverse("researcher-profile", args=[researcher.slug])).content.decode()

    first = html.index(f'href="/researchers/{researcher.slug}/">First Author')
    second = html.index(f'href="/researchers/{coauthor.slug}/">Second Author')
    assert first < second
