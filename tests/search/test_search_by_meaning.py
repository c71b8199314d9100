"""The works tab's by-meaning mode and the works search API: a paraphrase finds its paper."""

from __future__ import annotations

import pytest
from django.urls import reverse

from discovery import embedder
from search.selectors.meaning import reciprocal_rank_fusion
from tests.support.discovery import REAL_MODEL_GROUP

pytestmark = [pytest.mark.django_db, REAL_MODEL_GROUP]

# "A Novel Coronavirus from Patients with Pneumonia in China, 2019" (NEJM), said in other
# words: not every word of it is in the title or abstract, so full-text search finds nothing.
PARAPHRASE = "a new virus behind an outbreak of lung infections traced to a food market"
TARGET = "W3001897055"


def _page(client, **params):
    return client.get(reverse("search"), {"tab": "works", **params})


def test_a_paraphrase_finds_its_paper_by_meaning_and_not_by_words(client, embedded_corpus):
    target = embedded_corpus[TARGET]

    by_words = _page(client, q=PARAPHRASE)
    by_meaning = _page(client, q=PARAPHRASE, mode="meaning")

    assert by_words.status_code == 200
    assert target.id not in [hit.work.id for hit in by_words.context["results"].items]
    assert by_meaning.status_code == 200
    hits = by_meaning.context["results"].items
    assert target.id in [hit.work.id for hit in hits[:3]]
    (found,) = [hit for hit in hits if hit.work.id == target.id]
    assert found.matched_by == ("meaning",)
    assert "Matched by meaning" in by_meaning.content.decode()


def test_the_works_tab_counts_the_works_it_lists_by_meaning(client, embedded_corpus):
    by_words = _page(client, q=PARAPHRASE)
    by_meaning = _page(client, q=PARAPHRASE, mode="meaning")

    assert by_words.context["counts"]["works"].count == 0
    listed = by_meaning.context["results"].total
    assert listed > 0
    (works_tab,) = [tab for tab in by_meaning.context["tabs"] if tab["kind"] == "works"]
    assert works_tab["count"].count == listed
    assert f'Works <span class="tab-count">{listed}</span>' in by_meaning.content.decode()


def test_a_work_found_both_ways_ranks_above_one_found_once(client, embedded_corpus):
    response = _page(client, q="coronavirus pneumonia", mode="meaning")

    hits = response.context["results"].items
    assert hits[0].matched_by == ("words", "meaning")
    assert {hit.work.openalex_id for hit in hits[:2]} <= {TARGET, "W3008827533"} | {
        hit.work.openalex_id for hit in hits if hit.matched_by == ("words", "meaning")
    }
    assert "Matched by words and meaning" in response.content.decode()


def test_fusion_adds_the_reciprocal_ranks_of_each_list():
    fused = reciprocal_rank_fusion({"words": [1, 2, 3], "meaning": [3, 4]}, k=60)

    assert [item for item, _score, _by in fused] == [3, 1, 2, 4]
    assert fused[0][1] == pytest.approx(1 / 63 + 1 / 61)
    assert fused[0][2] == ("words", "meaning")
    assert fused[3][2] == ("meaning",)


def test_an_unknown_mode_answers_400_with_a_message(client, db):
    response = _page(client, q="virus", mode="telepathy")

    assert response.status_code == 400
    assert "Search mode must be" in response.content.decode()


def test_without_an_index_the_page_says_so_and_shows_the_words_matches(
    client, real_works, index_dir
):
    response = _page(client, q="coronavirus pneumonia", mode="meaning")

    assert response.status_code == 200
    assert response.context["meaning_available"] is False
    assert 'id="meaning-unavailable"' in response.content.decode()
    assert response.context["results"].items


def test_words_mode_never_loads_the_model(client, embedded_corpus, monkeypatch):
    def refuse(**_kwargs):
        raise AssertionError("a words-only search loaded the model")

    monkeypatch.setattr(embedder, "loaded_model", refuse)

    assert _page(client, q="coronavirus").status_code == 200


@pytest.mark.parametrize("extra_works", [0, 30])
def test_by_meaning_runs_the_same_queries_whatever_the_data(
    client, embedded_corpus, extra_works, django_assert_max_num_queries
):
    from discovery.services.embeddings import work_embeddings_compute_all
    from discovery.services.index import work_index_build
    from tests.factories import AuthorshipFactory, WorkFactory
    from tests.support.discovery import embed_remembered

    for number in range(extra_works):
        work = WorkFactory(title=f"Coronavirus pneumonia cohort {number}", abstract=PARAPHRASE)
        AuthorshipFactory.create_batch(3, work=work)
    work_embeddings_compute_all(embed=embed_remembered)
    work_index_build()
    _page(client, q=PARAPHRASE, mode="meaning")  # the model and the index opened once

    # The tab counts (4), the words' ranked ids, the neighbours kept by the filters, the page's
    # headlines, the works, their authors, and the two facets: 11 at any size.
    with django_assert_max_num_queries(11):
        response = _page(client, q="coronavirus pneumonia", mode="meaning")
    assert response.status_code == 200


def test_the_api_searches_by_meaning(client, embedded_corpus):
    response = client.get(reverse("api:search-works"), {"q": PARAPHRASE, "mode": "meaning"})

    assert response.status_code == 200
    body = response.json()
    assert body["mode"] == "meaning" and body["meaning_available"] is True
    ids = [result["id"] for result in body["results"]]
    assert embedded_corpus[TARGET].id in ids[:3]
    assert body["results"][ids.index(embedded_corpus[TARGET].id)]["matched_by"] == ["meaning"]
    words = client.get(reverse("api:search-works"), {"q": PARAPHRASE}).json()
    assert embedded_corpus[TARGET].id not in [result["id"] for result in words["results"]]


@pytest.mark.parametrize(
    "params", [{"q": "virus", "mode": "telepathy"}, {"mode": "meaning"}, {"q": "x", "page": "0"}]
)
def test_the_api_answers_400_to_bad_parameters(client, db, params):
    response = client.get(reverse("api:search-works"), params)

    assert response.status_code == 400
    assert response.json()


def test_the_api_schema_names_the_mode(client, db):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json")

    assert schema.status_code == 200
    text = schema.content.decode()
    assert "/api/v1/search/works/" in text and "meaning" in text
