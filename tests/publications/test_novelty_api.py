"""A work's novelty in the works API (issue 25, item 5): the percentile and what it was computed
from, or null with the reason the data is too thin; joined into the query that loads the works,
so the list keeps its query count."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import WorkFactory

from .novelty_corpus import compute

pytestmark = pytest.mark.django_db


def test_the_work_detail_carries_its_percentile_and_the_explanation_link(client, corpus):
    compute()
    work = corpus["works"]["F2"]

    novelty = client.get(f"/api/v1/works/{work.pk}/").json()["novelty"]

    assert novelty["percentile"] == 50.0
    assert novelty["gap"] == ""
    assert novelty["how_computed"] == reverse("publications:work-novelty", args=[work.pk])
    assert novelty["new_pairs"] >= 1


def test_a_work_with_too_few_references_says_why_it_has_no_percentile(client, corpus):
    compute()
    novelty = client.get(f"/api/v1/works/{corpus['works']['F4'].pk}/").json()["novelty"]

    assert novelty["percentile"] is None
    assert novelty["gap"] == "few_references"
    assert "too few of its references" in novelty["gap_reason"]


def test_a_work_no_run_has_reached_has_a_null_novelty(client):
    work = WorkFactory()
    assert client.get(f"/api/v1/works/{work.pk}/").json()["novelty"] is None


def test_the_list_reads_novelties_without_a_query_more(
    client, corpus, django_assert_max_num_queries
):
    compute()
    # COUNT, the page with its venue and novelty, the authors, the topics.
    with django_assert_max_num_queries(4):
        results = client.get("/api/v1/works/?page_size=50").json()["results"]

    with_percentile = [
        w for w in results if w["novelty"] and w["novelty"]["percentile"] is not None
    ]
    assert {w["id"] for w in with_percentile} >= {corpus["works"][n].pk for n in ("F1", "F2", "F3")}
