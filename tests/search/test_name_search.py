"""Researcher name search: the selector shared by the search page, the header box and the API."""

from __future__ import annotations

import pytest

from researchers.name_search import researchers_matching_name
from researchers.selectors import researchers_public
from search.selectors.suggestions import researcher_suggestions
from tests.factories import ResearcherFactory


def names_found(query: str) -> list[str]:
    return [r.display_name for r in researchers_matching_name(researchers_public(), query)]


@pytest.mark.django_db(transaction=True)
def test_every_spelling_of_zhizhen_zhong_finds_him_first_among_the_demo_zhongs(demo_data):
    # The demo holds other Zhongs (Kai Zhong, Kangyou Zhong, Zhong Wang) and Zhongzhu Zhou, who
    # is cited far more: first place has to come from the ranking, not from being alone.
    assert {"Kai Zhong", "Kangyou Zhong", "Zhong Wang"} <= set(names_found("zhong"))
    spellings = [
        "zhizen zhong",  # typo
        "Zhong Zhizhen",  # family name first (also his alternate name)
        "ZHIZHEN",  # capitals, given name only
        "zhízhen zhong",  # accent
        "zhizhen, zhong.",  # punctuation
        "zhizen zong",  # two typos
    ]
    first_by_spelling = {spelling: names_found(spelling)[:1] for spelling in spellings}
    assert first_by_spelling == {spelling: ["Zhizhen Zhong"] for spelling in spellings}


@pytest.mark.django_db(transaction=True)
def test_real_names_are_found_whatever_the_accents_case_typos_and_word_order(state_of_oa):
    expected_first = {
        "Vincent Lariviere": "Vincent Larivière",
        "lariviere vincent": "Vincent Larivière",
        "vincent larivere": "Vincent Larivière",
        "Stefanie Hausten": "Stefanie Haustein",
        "haustein": "Stefanie Haustein",
        "JUAN PABLO ALPERIN": "Juan Pablo Alperín",
        "alperin juan pablo": "Juan Pablo Alperín",
        "Heather Piwowar": "Heather Piwowar",
        "jevin west": "Jevin D. West",
    }
    found_first = {query: names_found(query)[:1] for query in expected_first}
    assert found_first == {query: [name] for query, name in expected_first.items()}


@pytest.mark.django_db
def test_an_alternate_name_finds_the_record_even_with_a_typo():
    ResearcherFactory(
        display_name="J. M. Ferreira", alternate_names=["João Miguel Ferreira Santos"]
    )
    ResearcherFactory(display_name="Joao Santos", cited_by_count=5000)

    assert names_found("joao miguel ferreira santos")[0] == "J. M. Ferreira"
    assert names_found("Joao Migel Ferreira Santos")[0] == "J. M. Ferreira"
    assert names_found("ferreira santos joão miguel")[0] == "J. M. Ferreira"


@pytest.mark.django_db
def test_alternate_names_count_one_at_a_time_not_added_up():
    # Each of these alternate names is close to "wei li"; added up they would beat the record
    # that is exactly "Wei Li", however much less it is cited.
    ResearcherFactory(display_name="Wei Li", cited_by_count=1)
    ResearcherFactory(
        display_name="X. Y.",
        alternate_names=["Wei Lin", "Wei Liu", "Weili Zhang", "Li Weiwei", "Wei-Li Chen"],
        cited_by_count=9000,
    )

    results = list(researchers_matching_name(researchers_public(), "wei li"))

    assert [r.display_name for r in results] == ["Wei Li", "X. Y."]
    assert results[0].name_score == pytest.approx(2.0)
    assert 1.0 < results[1].name_score < 2.0


@pytest.mark.django_db
def test_a_full_name_match_comes_before_more_cited_near_matches():
    ResearcherFactory(display_name="Zhizhen Zheng", cited_by_count=9000)
    ResearcherFactory(display_name="Zhizhen Zhong", cited_by_count=1)

    assert names_found("zhizhen zhong") == ["Zhizhen Zhong", "Zhizhen Zheng"]
    assert names_found("zhizhen zheng") == ["Zhizhen Zheng", "Zhizhen Zhong"]


@pytest.mark.django_db
def test_every_word_of_the_query_must_be_in_the_name_give_or_take_a_typo():
    # Otherwise "Zhizhen Zhong" would list every Zhong, Zhang and Zheng there is.
    ResearcherFactory(display_name="Kai Zhong", cited_by_count=9000)
    ResearcherFactory(display_name="Zhizhen Wang", cited_by_count=9000)
    ResearcherFactory(display_name="Zhizhen Zhong", cited_by_count=1)

    assert names_found("zhizhen zhong") == ["Zhizhen Zhong"]
    assert names_found("zhong") == ["Kai Zhong", "Zhizhen Zhong"]


@pytest.mark.django_db
def test_a_name_typed_part_way_or_with_heavier_typos_is_found_by_trigrams():
    # No word is within one typo of these, so the trigram tier answers.
    ResearcherFactory(display_name="Zhizhen Zhong")
    ResearcherFactory(display_name="Ann Smith")

    assert names_found("zhizhen zh") == ["Zhizhen Zhong"]  # typed part way
    assert names_found("zhiizhenn zhong") == ["Zhizhen Zhong"]  # two typos in one word
    assert names_found("zhizhenzhong") == ["Zhizhen Zhong"]  # no space


@pytest.mark.django_db
def test_the_trigram_tier_stays_out_when_the_words_found_someone():
    # "Zhong Zhizhen" is found word for word; "Zhong Zhizhe" only by trigrams. Had the trigram
    # tier run for the first query, it would have found both.
    ResearcherFactory(display_name="Zhong Zhizhen")
    ResearcherFactory(display_name="Zhongzhizhe Li")

    assert names_found("zhong zhizhen") == ["Zhong Zhizhen"]


@pytest.mark.django_db
def test_equal_matches_come_most_cited_first():
    ResearcherFactory(display_name="Ann Lee", slug="less", cited_by_count=3)
    ResearcherFactory(display_name="Ann Lee", slug="more", cited_by_count=30)

    assert [r.slug for r in researchers_matching_name(researchers_public(), "ann lee")] == [
        "more",
        "less",
    ]


@pytest.mark.django_db
def test_a_piece_of_a_word_finds_the_name():
    ResearcherFactory(display_name="Zhizhen Zhong")

    assert names_found("izhe") == ["Zhizhen Zhong"]


@pytest.mark.django_db
def test_unrelated_names_are_not_matched():
    ResearcherFactory(display_name="Zhizhen Zhong")
    ResearcherFactory(display_name="Ann Smith")

    assert names_found("zhizhen zhong") == ["Zhizhen Zhong"]


@pytest.mark.django_db
def test_merged_records_are_left_out():
    survivor = ResearcherFactory(display_name="Zhizhen Zhong", slug="survivor")
    ResearcherFactory(display_name="Zhizhen Zhong", slug="merged", merged_into=survivor)

    assert [r.slug for r in researchers_matching_name(researchers_public(), "zhong")] == [
        "survivor"
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["", "  ", "?!", "—"])
def test_a_query_without_letters_or_digits_finds_nobody(query):
    ResearcherFactory(display_name="Zhizhen Zhong")

    assert names_found(query) == []


@pytest.mark.django_db
def test_suggestions_need_two_letters_and_stop_at_eight():
    ResearcherFactory.create_batch(12, display_name="Zhizhen Zhong")

    assert researcher_suggestions("z") == []
    assert researcher_suggestions(" z!") == []
    assert len(researcher_suggestions("zh")) == 8
    assert len(researcher_suggestions("zhizhen")) == 8


@pytest.mark.django_db
def test_the_api_search_uses_the_same_name_search(client):
    ResearcherFactory(
        slug="ferreira", display_name="J. M. Ferreira", alternate_names=["João Miguel Ferreira"]
    )
    ResearcherFactory(slug="zhong", display_name="Zhizhen Zhong")

    by_alternate = client.get("/api/v1/researchers/", {"search": "joao migel ferreira"})
    by_typo = client.get("/api/v1/researchers/", {"search": "zhizen zhong"})

    assert [r["slug"] for r in by_alternate.json()["results"]] == ["ferreira"]
    assert [r["slug"] for r in by_typo.json()["results"]] == ["zhong"]
