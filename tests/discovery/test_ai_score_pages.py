"""The AI Score on the pages: "AI Score 48" on the profile beside the Novelty, in the profile's
own statement (its four queries stay four), or "Not enough data"; the "How is this computed?"
page with the model's version, history, back-test and calibration, and each recent work's
forecast with what moved it, in words; why there is no score; escaped text; fixed queries."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse

from discovery.ai_score import services
from discovery.models import ResearcherAiScore
from publications.models import Source, Topic, Work
from researchers.models import Researcher
from tests.factories import ResearcherFactory
from tests.support.snapshots import TableRows, snapshot_restore, snapshot_taken

from .ai_score_corpus import AS_OF_YEAR, Planted, build

pytestmark = pytest.mark.django_db


def _get(url: str) -> str:
    response = Client().get(url)
    assert response.status_code == 200, response.status_code
    return re.sub(r"\s+", " ", response.content.decode())


def _profile(researcher) -> str:
    return reverse("researcher-profile", args=[researcher.slug])


def _explanation(researcher) -> str:
    return reverse("researcher-ai-score", args=[researcher.slug])


@pytest.fixture(scope="module")
def planted_rows(django_db_setup: None, django_db_blocker: Any) -> tuple[Planted, list[TableRows]]:
    """The 600-work corpus, built once per process (about 2 s) in a transaction that is rolled
    back, and kept as its rows (tests/support/snapshots.py)."""
    with django_db_blocker.unblock(), transaction.atomic():
        planted = build(works=600, seed=8, prefix="pages")
        rows = snapshot_taken()
        transaction.set_rollback(True)
    return planted, rows


def _fetched(model: Any, built: list[Any]) -> list[Any]:
    """This test's own instances of the built rows, in the same order."""
    by_id = model.objects.in_bulk([item.pk for item in built])
    return [by_id[item.pk] for item in built]


@pytest.fixture
def planted(settings, planted_rows: tuple[Planted, list[TableRows]]) -> Planted:
    """The corpus's rows copied into this test's transaction, with instances of its own."""
    settings.AI_SCORE_MIN_TRAINING_WORKS = 300
    settings.PROFILE_PAGE_CACHE_SECONDS = 0
    built, rows = planted_rows
    snapshot_restore(rows)
    return replace(
        built,
        works=_fetched(Work, built.works),
        latent=dict(built.latent),
        researchers=_fetched(Researcher, built.researchers),
        venues=_fetched(Source, built.venues),
        topics=_fetched(Topic, built.topics),
    )


def _train():
    return services.ai_score_train(as_of_year=AS_OF_YEAR, rounds=20)


def _scored(planted, *, most: bool = True):
    """The researcher with the most (or fewest) recent works counted in their score."""
    order = "-works_counted" if most else "works_counted"
    row = ResearcherAiScore.objects.exclude(score=None).order_by(order, "researcher_id").first()
    return next(r for r in planted.researchers if r.pk == row.researcher_id), row


def test_the_profile_shows_the_score_beside_the_novelty(planted):
    _train()
    researcher, score = _scored(planted)
    html = _get(_profile(researcher))
    assert f'<li id="ai-score-figure"><strong>{score.label}</strong>AI Score</li>' in html
    assert html.index('id="novelty-figure"') < html.index('id="ai-score-figure"')
    assert f'href="{_explanation(researcher)}">How is this computed?' in html


def test_the_profile_says_not_enough_data_without_a_score(planted):
    html = _get(_profile(planted.researchers[0]))  # no model trained yet
    assert '<strong class="muted">Not enough data</strong>AI Score' in html


def test_the_profile_keeps_its_four_queries_with_a_score(planted, django_assert_num_queries):
    _train()
    researcher, score = _scored(planted)
    with django_assert_num_queries(4):
        html = _get(_profile(researcher))
    assert f"<strong>{score.label}</strong>AI Score" in html


def test_a_new_score_changes_the_cached_profile(planted, settings):
    settings.PROFILE_PAGE_CACHE_SECONDS = 600
    researcher = planted.researchers[0]
    assert "Not enough data</strong>AI Score" in _get(_profile(researcher))
    _train()
    score = ResearcherAiScore.objects.get(researcher=researcher)
    assert score.label
    assert f"<strong>{score.label}</strong>AI Score" in _get(_profile(researcher))


def test_the_explanation_shows_the_model_and_each_recent_work(planted):
    result = _train()
    researcher, score = _scored(planted)
    html = _get(_explanation(researcher))
    assert (
        f"AI Score <strong>{score.label}</strong>: the median forecast percentile of the " in html
    )
    assert f"<strong>v{result.version}</strong>version" in html
    assert f"<strong>{result.labelled_works}</strong>works with three years of citations" in html
    assert f"{result.spearman:.3f}" in html
    assert "published 2021–2022, which it had not seen" in html
    assert html.count("<tr><td>") >= 5  # the calibration by decile
    assert 'id="ai-score-calibration-chart"' in html
    # Each recent work, with what moved its forecast, in words.
    works = re.findall(r'<td><a href="/works/(\d+)/">', html)
    assert len(works) == score.works_counted
    assert all(Work.objects.get(pk=w).publication_year >= AS_OF_YEAR - 4 for w in works)
    assert re.search(r"(raised|lowered) the forecast ×\d\.\d\d", html)


def test_the_explanation_says_why_without_a_model(settings):
    settings.AI_SCORE_MIN_TRAINING_WORKS = 5000
    build(works=200, seed=9, prefix="thin")
    result = _train()
    researcher = ResearcherFactory()
    html = _get(_explanation(researcher))
    assert "<strong>Not enough data</strong>: there is no model: only" in html
    assert f"<strong>No model</strong> (run v{result.version}" in html
    assert "the model needs at least 5000" in html
    assert "Below 5000 works with three complete years of citations" in html
    assert '<strong class="muted">Not enough data</strong>AI Score' in _get(_profile(researcher))


def test_the_explanation_before_any_run_says_so():
    html = _get(_explanation(ResearcherFactory()))
    assert "<strong>No model</strong> has been trained yet" in html


def test_the_explanation_of_a_record_without_recent_works_says_so(planted):
    _train()
    fresh = ResearcherFactory()
    html = _get(_explanation(fresh))
    assert "has not been scored by model v1 yet" in html
    _train()
    html = _get(_explanation(fresh))
    assert "no work on this record was published in 2021-2025" in html


def test_imported_text_is_escaped(planted):
    _train()
    researcher, _ = _scored(planted)
    work = Work.objects.filter(
        authorships__researcher=researcher, publication_year__gte=AS_OF_YEAR - 4
    ).first()
    Work.objects.filter(pk=work.pk).update(title='<script>alert("t")</script>')
    type(researcher).objects.filter(pk=researcher.pk).update(display_name="<b>Bold</b>")
    html = _get(_explanation(researcher))
    assert "<script>alert" not in html and "<b>Bold" not in html
    assert "&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt;" in html
    assert "&lt;b&gt;Bold&lt;/b&gt;" in html


def test_the_explanation_answers_404_and_redirects_a_merged_record(planted):
    client = Client()
    assert client.get(reverse("researcher-ai-score", args=["nobody-here"])).status_code == 404
    survivor = planted.researchers[0]
    merged = ResearcherFactory(merged_into=survivor)
    response = client.get(_explanation(merged))
    assert (response.status_code, response["Location"]) == (301, _explanation(survivor))


def test_the_explanation_refuses_a_post(planted):
    assert Client().post(_explanation(planted.researchers[0])).status_code == 405


def test_the_explanation_runs_the_same_queries_for_few_and_many_works(
    planted, django_assert_num_queries
):
    _train()
    few, few_score = _scored(planted, most=False)
    many, many_score = _scored(planted, most=True)
    assert many_score.works_counted > few_score.works_counted
    # The record; the model; the score; the recent works with their titles.
    for researcher in (few, many):
        with django_assert_num_queries(4):
            _get(_explanation(researcher))
