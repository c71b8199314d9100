"""Newest first by the best date known (issue 24, item 1): a work known only by its year sorts
at its year, in every list that sorts by date, not after every dated work."""

from __future__ import annotations

import datetime

import pytest

from claims.selectors import works_for_claimant
from graph.selectors.slices import graph_slice_build
from publications.models import Work
from publications.selectors import WorkListing, works_for_researcher
from tests.factories import (
    AuthorshipFactory,
    InstitutionFactory,
    ResearcherFactory,
    TopicFactory,
    WorkFactory,
    WorkTopicFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def works():
    """A 2026 work known by its year only, dated works of 2025 and 2021, a 2021 year-only work
    and an undated one, made in an order that the old sort (dated first, then by id) breaks."""
    researcher = ResearcherFactory(slug="zhizhen-zhong")
    topic = TopicFactory()
    institution = InstitutionFactory()
    made = {}
    for name, date, year in [
        ("undated", None, None),
        ("year_2026", None, 2026),
        ("year_2021", None, 2021),
        ("dated_2021", datetime.date(2021, 11, 12), 2021),
        ("dated_2025", datetime.date(2025, 1, 7), 2025),
    ]:
        work = WorkFactory(publication_date=date, publication_year=year, title=name)
        AuthorshipFactory(
            work=work, researcher=researcher, position=1, institution_ids=[institution.pk]
        )
        WorkTopicFactory(work=work, topic=topic)
        made[name] = work
    return researcher, topic, institution, made


EXPECTED = ["year_2026", "dated_2025", "dated_2021", "year_2021", "undated"]


def titles(rows) -> list[str]:
    return [row.title for row in rows]


def test_a_year_only_work_is_stored_with_its_years_first_day_as_its_sort_date(works):
    _, _, _, made = works
    stored = Work.objects.in_bulk([w.pk for w in made.values()])
    assert stored[made["year_2026"].pk].sort_date == datetime.date(2026, 1, 1)
    assert stored[made["dated_2025"].pk].sort_date == datetime.date(2025, 1, 7)
    assert stored[made["undated"].pk].sort_date is None


def test_a_year_zero_is_no_date_rather_than_an_error():
    work = WorkFactory(publication_date=None, publication_year=0)
    assert Work.objects.get(pk=work.pk).sort_date is None


def test_the_profile_topic_and_institution_listings_sort_by_the_best_date_known(works):
    researcher, topic, institution, _ = works
    assert titles(WorkListing.for_researcher(researcher.pk)[:10]) == EXPECTED
    assert titles(WorkListing.for_topic(topic.pk)[:10]) == EXPECTED
    assert titles(WorkListing.for_institution(institution.pk)[:10]) == EXPECTED


def test_the_home_pages_recent_works_include_year_only_works_at_their_year(works):
    assert titles(WorkListing.recent()[:10]) == EXPECTED[:-1]


def test_most_cited_breaks_ties_by_the_best_date_known(works):
    researcher, _, _, _ = works
    assert titles(WorkListing.for_researcher(researcher.pk, sort="cited")[:10]) == EXPECTED


def test_the_api_and_the_claimants_list_sort_by_the_best_date_known(works, client):
    researcher, _, _, _ = works
    response = client.get("/api/v1/researchers/zhizhen-zhong/works/")
    assert [w["title"] for w in response.json()["results"]] == EXPECTED
    response = client.get("/api/v1/works/")
    assert [w["title"] for w in response.json()["results"]] == EXPECTED
    assert titles(works_for_researcher(researcher)) == EXPECTED
    assert titles(works_for_claimant(researcher)) == EXPECTED


def test_the_graph_slices_recent_works_sort_by_the_best_date_known(works):
    researcher, _, _, _ = works
    nodes = graph_slice_build(researcher)["nodes"]
    recent = [n["label"] for n in nodes if n["type"] == "work" and "recent" in n["why"]]
    assert recent == EXPECTED[: len(recent)]
    assert len(recent) >= 2
