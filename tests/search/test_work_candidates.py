"""Which works the works tab ranks when more match than it ranks (issue 30): the first matches
in id order, read a bucket of ids at a time, the same on every request; and the tab's count,
page and facets all read from them."""

from __future__ import annotations

import pytest

from publications.models import WORK_SEARCH_BUCKET_SHIFT
from tests.factories import TopicFactory, WorkFactory, WorkTopicFactory

pytestmark = pytest.mark.django_db

SEARCH_URL = "/search/"
BUCKET = 1 << WORK_SEARCH_BUCKET_SHIFT


def ranked_ids(client, **params) -> list[int]:
    response = client.get(SEARCH_URL, {"q": "optical", "tab": "works", **params})
    return sorted(hit.work.pk for hit in response.context["results"].items)


def test_beyond_the_candidate_limit_the_earliest_matches_are_ranked_every_time(client, monkeypatch):
    monkeypatch.setattr("search.selectors.works.WORK_CANDIDATE_LIMIT", 3)
    # Spread over four buckets of ids, the first of them holding no match at all.
    ids = [BUCKET + 7, 2 * BUCKET, 2 * BUCKET + 1, 3 * BUCKET + 5, 5 * BUCKET]
    for work_id in reversed(ids):
        WorkFactory(id=work_id, title="Optical switching")
    WorkFactory(id=3, title="Acoustic switching")

    first = ranked_ids(client)

    assert first == ids[:3]
    assert ranked_ids(client) == first
    assert ranked_ids(client, page=2) == []


def test_matches_in_buckets_far_apart_are_all_found_and_counted(client):
    ids = [1, BUCKET - 1, BUCKET, 40 * BUCKET + 3]
    for work_id in ids:
        WorkFactory(id=work_id, title="Optical switching")

    response = client.get(SEARCH_URL, {"q": "optical"})

    assert response.context["tab"] == "works"
    assert str(response.context["counts"]["works"]) == "4"
    assert sorted(hit.work.pk for hit in response.context["results"].items) == ids


def test_facets_count_the_matches_the_other_filters_keep(client):
    optics, photonics = TopicFactory(name="Optical networks"), TopicFactory(name="Photonics")
    article = WorkFactory(title="Optical switching", type="article")
    preprints = WorkFactory.create_batch(2, title="Optical switching again", type="preprint")
    WorkTopicFactory(work=article, topic=photonics)
    for work in preprints:
        WorkTopicFactory(work=work, topic=optics)

    response = client.get(SEARCH_URL, {"q": "optical", "tab": "works", "topic": optics.pk})

    # The topic facet ignores the chosen topic (every match counts), the type facet keeps it.
    assert sorted((f.label, f.count) for f in response.context["topic_facets"]) == [
        ("Optical networks", 2),
        ("Photonics", 1),
    ]
    assert [(f.label, f.count) for f in response.context["type_facets"]] == [("preprint", 2)]
    assert str(response.context["counts"]["works"]) == "3"
