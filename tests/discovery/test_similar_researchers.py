"""Similar researchers: computed from the researchers' embeddings, shown on the profile with
the reason, in a fragment loaded after the page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from discovery.models import SimilarResearcher
from discovery.services.embeddings import work_embeddings_compute_all
from discovery.services.similar import similar_researchers_compute
from tests.factories import AuthorshipFactory, ResearcherFactory, TopicFactory, WorkTopicFactory
from tests.support.discovery import (
    CHEMCROW_ARTICLE,
    CHEMCROW_PREPRINT,
    REAL_MODEL_GROUP,
    embed_remembered,
)

pytestmark = [pytest.mark.django_db, REAL_MODEL_GROUP]

PAPERQA = "W4389761608"
COVID_CLINICAL, COVID_VIRUS = "W3008827533", "W3001897055"
WORD_VECTORS, PAGERANK = "W2250539671", "W1854214752"


@pytest.fixture
def researchers(real_works):
    """Four researchers: two who write on language models for chemistry and science (the
    ChemCrow article, its preprint, PaperQA), one on the new coronavirus, one on words and
    links (GloVe, PageRank)."""
    agents = TopicFactory(name="Large language models & <agents>")
    people = {
        "ada": ResearcherFactory(display_name="Ada <b>Agents</b>", slug="ada"),
        "ben": ResearcherFactory(display_name="Ben Bench", slug="ben"),
        "cyd": ResearcherFactory(display_name="Cyd Corona", slug="cyd"),
        "dan": ResearcherFactory(display_name="Dan Distributional", slug="dan"),
    }
    works = {
        "ada": [CHEMCROW_ARTICLE, PAPERQA],
        "ben": [CHEMCROW_PREPRINT],
        "cyd": [COVID_CLINICAL, COVID_VIRUS],
        "dan": [WORD_VECTORS, PAGERANK],
    }
    for name, openalex_ids in works.items():
        for openalex_id in openalex_ids:
            AuthorshipFactory(work=real_works[openalex_id], researcher=people[name])
    for openalex_id in (CHEMCROW_ARTICLE, CHEMCROW_PREPRINT, PAPERQA):
        WorkTopicFactory(work=real_works[openalex_id], topic=agents)
    work_embeddings_compute_all(embed=embed_remembered)
    similar_researchers_compute()
    return people


def test_the_closest_researcher_comes_first_with_a_shared_topic_and_the_closest_works(
    researchers, real_works
):
    ada, ben = researchers["ada"], researchers["ben"]

    first = SimilarResearcher.objects.filter(researcher=ada).order_by("rank").first()

    assert first.similar_id == ben.id and first.rank == 1
    assert first.shared_topic_name == "Large language models & <agents>"
    assert (first.researcher_work_id, first.similar_work_id) == (
        real_works[CHEMCROW_ARTICLE].id,
        real_works[CHEMCROW_PREPRINT].id,
    )
    ben_first = SimilarResearcher.objects.filter(researcher=ben).order_by("rank").first()
    assert ben_first.similar_id == ada.id
    # The coronavirus researcher is further from Ada than Ben is, if listed at all.
    distant = SimilarResearcher.objects.filter(researcher=ada, similar=researchers["cyd"])
    assert all(row.score < first.score for row in distant)


def test_a_second_run_replaces_the_rows_instead_of_adding(researchers):
    before = SimilarResearcher.objects.count()

    similar_researchers_compute()

    assert SimilarResearcher.objects.count() == before
    assert before > 0


def test_the_panel_says_why_links_both_ways_and_escapes_text(client, researchers):
    response = client.get(reverse("researcher-similar", args=["ada"]))

    assert response.status_code == 200
    html = response.content.decode()
    assert 'href="/researchers/ben/"' in html
    assert (
        "Both write about Large language models &amp; &lt;agents&gt;; closest pair of works:"
        in html
    )
    assert "Augmenting large language models with chemistry tools</a> and" in html
    assert "<b>Agents</b>" not in html and "Ada &lt;b&gt;Agents&lt;/b&gt;" in html
    back = client.get(reverse("researcher-similar", args=["ben"])).content.decode()
    assert 'href="/researchers/ada/"' in back and "Ada &lt;b&gt;Agents&lt;/b&gt;" in back


@pytest.mark.parametrize("others", [0, 12])
def test_the_panel_runs_two_queries_whatever_the_data(
    client, researchers, real_works, others, django_assert_num_queries
):
    for number in range(others):
        extra = ResearcherFactory(slug=f"extra-{number}")
        AuthorshipFactory(work=real_works[CHEMCROW_PREPRINT], researcher=extra)
    similar_researchers_compute()

    with django_assert_num_queries(2):
        response = client.get(reverse("researcher-similar", args=["ada"]))
    assert response.status_code == 200


def test_a_researcher_without_similar_ones_is_told_so(client, db):
    ResearcherFactory(slug="alone")

    response = client.get(reverse("researcher-similar", args=["alone"]))

    assert response.status_code == 200
    assert "No similar researchers yet" in response.content.decode()


def test_the_panel_refuses_post_and_unknown_slugs(client, db):
    ResearcherFactory(slug="someone")

    assert client.post(reverse("researcher-similar", args=["someone"])).status_code == 405
    assert client.get(reverse("researcher-similar", args=["nobody-here"])).status_code == 404


def test_the_profile_loads_the_panel_after_the_page(client, db, settings):
    settings.PROFILE_PAGE_CACHE_SECONDS = 0
    ResearcherFactory(slug="someone")

    html = client.get(reverse("researcher-profile", args=["someone"])).content.decode()

    assert 'hx-get="/researchers/someone/similar/"' in html
