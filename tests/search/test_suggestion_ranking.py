"""The header suggestions' ranking: the name search's order, computed inside the candidate scan,
with a cap on how many matches are ranked."""

from __future__ import annotations

import pytest

from researchers.name_search import researchers_best_matching_name, researchers_matching_name
from researchers.selectors import researchers_public
from tests.factories import ResearcherFactory


def slugs(researchers) -> list[str]:
    return [researcher.slug for researcher in researchers]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "query",
    ["zhong", "zhizen zhong", "Zhong Zhizhen", "zh", "kai", "li", "wang", "izhe", "zhizhen zh"],
)
def test_below_the_cap_they_are_the_first_of_the_name_search(demo_data, query):
    expected = slugs(researchers_matching_name(researchers_public(), query)[:8])

    assert slugs(researchers_best_matching_name(query, limit=8, ranked_at_most=1000)) == expected


@pytest.mark.django_db
def test_past_the_cap_the_best_name_brings_its_most_cited_namesakes():
    # Only the first three matches are ranked: one Zhizhen Zhong and two Zhizhen Zhengs.
    ResearcherFactory(display_name="Zhizhen Zhong", slug="zhong-0", cited_by_count=0)
    ResearcherFactory.create_batch(2, display_name="Zhizhen Zheng", cited_by_count=900)
    for cited in range(1, 12):
        ResearcherFactory(display_name="Zhizhen Zhong", slug=f"zhong-{cited}", cited_by_count=cited)
    survivor = ResearcherFactory(display_name="Zhizhen Zhong", slug="zhong-survivor")
    ResearcherFactory(
        display_name="Zhizhen Zhong", slug="zhong-merged", cited_by_count=5000, merged_into=survivor
    )

    found = researchers_best_matching_name("zhizhen zhong", limit=8, ranked_at_most=3)

    assert slugs(found) == [f"zhong-{cited}" for cited in range(11, 3, -1)]


@pytest.mark.django_db
def test_past_the_cap_a_record_found_by_an_alternate_name_brings_no_namesakes():
    ResearcherFactory(
        display_name="Ann Lee", slug="found", alternate_names=["Zhizhen Zhong"], cited_by_count=1
    )
    ResearcherFactory(display_name="Ann Lee", slug="namesake", cited_by_count=50)

    found = researchers_best_matching_name("zhizhen zhong", limit=8, ranked_at_most=1)

    assert slugs(found) == ["found"]
