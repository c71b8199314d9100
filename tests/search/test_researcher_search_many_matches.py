"""The researchers tab for a short name that thousands of records share: the page and its count
are researchers_matching_name's (every match ranked, every match counted), in one query."""

from __future__ import annotations

import itertools

import pytest

from researchers.models import Researcher
from researchers.name_search import researchers_matching_name
from researchers.names import normalize_name
from researchers.selectors import researchers_public
from search.selectors.researchers import ResearcherFilters, researcher_search
from tests.factories import InstitutionFactory, ResearcherFactory

NO_FILTERS = ResearcherFilters()
SYLLABLES = ["ba", "chen", "li", "ru", "ta", "mo", "el", "pe", "xi", "wu", "da", "io"]


def bulk_researchers(names_and_citations: list[tuple[str, int]], **fields) -> list[Researcher]:
    built = []
    for display_name, cited_by_count in names_and_citations:
        researcher = ResearcherFactory.build(
            display_name=display_name, cited_by_count=cited_by_count, **fields
        )
        researcher.name_normalized = normalize_name(display_name)
        built.append(researcher)
    return Researcher.objects.bulk_create(built)


@pytest.fixture
def many_kos():
    """1,728 records named "Ko" and three syllables (1,728 distinct names), a few "Ko Ko"s,
    one found by its alternate name, one with an ORCID iD at an institution, and others."""
    names = [
        (f"Ko {a.title()}{b}{c}", (index * 37) % 500)
        for index, (a, b, c) in enumerate(itertools.product(SYLLABLES, repeat=3))
    ]
    bulk_researchers(names)
    bulk_researchers([("Ko Ko", 3), ("Ko Ko", 40), ("Ko Ko Ko", 2), ("Ko Kolimo", 900)])
    institution = InstitutionFactory(name="Kyoto")
    ResearcherFactory(
        display_name="Kenji Ota", alternate_names=["Ko Ko"], cited_by_count=5,
        last_known_institution=institution,
    )  # fmt: skip
    ResearcherFactory(
        display_name="Ko Taba", orcid="0000-0002-1825-0097", last_known_institution=institution
    )
    bulk_researchers([("Li Chen", 10), ("Kora Ma", 10)])
    return institution


def ranked(query: str, filters: ResearcherFilters = NO_FILTERS) -> list[int]:
    matches = researchers_matching_name(researchers_public(), query)
    if filters.institution_id is not None:
        matches = matches.filter(last_known_institution_id=filters.institution_id)
    if filters.has_orcid:
        matches = matches.filter(orcid__isnull=False)
    return list(matches.values_list("id", flat=True))


@pytest.mark.django_db
def test_a_name_thousands_share_is_ranked_and_counted_whole_in_one_query(
    many_kos, django_assert_num_queries
):
    every_match = ranked("Ko Ko")
    assert len(every_match) == 1_728 + 4 + 2

    with django_assert_num_queries(1):
        first = researcher_search(query="Ko Ko")
    with django_assert_num_queries(1):
        third = researcher_search(query="Ko Ko", page=3)

    # The most cited exact "Ko Ko" first, then the other, then the record known as "Ko Ko".
    assert [r.display_name for r in first.items[:3]] == ["Ko Ko", "Ko Ko", "Kenji Ota"]
    assert [r.cited_by_count for r in first.items[:2]] == [40, 3]
    assert [r.id for r in first.items] == every_match[:20]
    assert [r.id for r in third.items] == every_match[40:60]
    assert first.total == third.total == len(every_match)
    kenji = first.items[2]
    assert kenji.last_known_institution.name == "Kyoto"
    assert kenji.name_score == pytest.approx(2.0)


@pytest.mark.django_db
def test_its_filters_narrow_the_page_and_the_count(many_kos):
    by_institution = ResearcherFilters(institution_id=many_kos.id)
    with_orcid = ResearcherFilters(has_orcid=True)

    at_kyoto = researcher_search(query="Ko Ko", filters=by_institution)
    orcid_only = researcher_search(query="ko", filters=with_orcid)

    assert [r.display_name for r in at_kyoto.items] == ["Kenji Ota", "Ko Taba"]
    assert [r.id for r in at_kyoto.items] == ranked("Ko Ko", by_institution)
    assert at_kyoto.total == 2
    assert [r.display_name for r in orcid_only.items] == ["Ko Taba"]
    assert orcid_only.total == 1


@pytest.mark.django_db
def test_the_search_page_says_how_many_matched(many_kos, client):
    response = client.get("/search/", {"q": "ko ko", "tab": "researchers"})

    assert f"1–20 of {len(ranked('ko ko'))} researchers" in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("institution_id", [2**63, 10**20, -(2**63) - 1])
def test_an_institution_id_past_bigint_finds_nobody_instead_of_failing(institution_id) -> None:
    ResearcherFactory(display_name="Ko Ko")
    found = researcher_search(
        query="Ko Ko", filters=ResearcherFilters(institution_id=institution_id)
    )
    assert found.items == [] and found.total == 0
    assert researcher_search(query="Ko Ko").total == 1
