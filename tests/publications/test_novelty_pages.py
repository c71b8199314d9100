"""Novelty on the pages (issue 25, item 5): "Novelty 61%" on the profile and the work page, or
"Not enough data"; the two "How is this computed?" pages, with the new pairs, their distances
and the baseline; imported journal names escaped; a fixed number of queries."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from publications.models import MergedWork, Source
from tests.factories import AuthorshipFactory, ResearcherFactory, WorkFactory

from .novelty_corpus import compute

pytestmark = pytest.mark.django_db


def _get(url: str) -> str:
    response = Client().get(url)
    assert response.status_code == 200, response.status_code
    return re.sub(r"\s+", " ", response.content.decode())


def _work_url(work, name: str = "work-novelty") -> str:
    return reverse(f"publications:{name}", args=[work.pk])


@pytest.fixture
def author(corpus):
    """An author of F1, F2, F3 (percentiles 100, 50, 0: median 50) and F4 (too few references)."""
    researcher = ResearcherFactory(display_name="Ada Novel")
    for name in ("F1", "F2", "F3", "F4"):
        AuthorshipFactory(work=corpus["works"][name], researcher=researcher)
    return researcher


def test_the_work_page_shows_the_percentile_and_links_the_explanation(corpus):
    compute()
    html = _get(_work_url(corpus["works"]["F2"], "work-detail"))
    assert "Novelty <strong>50%</strong>" in html
    assert f'href="{_work_url(corpus["works"]["F2"])}">How is this computed?' in html


def test_the_work_page_says_when_the_data_is_too_thin(corpus):
    compute()
    assert 'Novelty <span class="muted">Not enough data</span>' in _get(
        _work_url(corpus["works"]["F4"], "work-detail")
    )
    # A work no run has reached (none of its references is held).
    assert "Not enough data" in _get(_work_url(WorkFactory(), "work-detail"))


def test_the_explanation_lists_the_new_pairs_and_the_baseline(corpus):
    compute()
    html = _get(_work_url(corpus["works"]["F1"]))
    assert "Novelty <strong>100%</strong>: it scores higher than 100% of the other 2 works" in html
    # 3 - 4/sqrt6 = 1.367; AE and BE at 1 - 1/sqrt6 = 0.592, CD at 1 - 2/sqrt6 = 0.184.
    assert "<strong>1.367</strong>score" in html
    rows = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td></tr>", html)
    assert rows == [
        ("Journal A", "Journal E", "0.592"),
        ("Journal B", "Journal E", "0.592"),
        ("Journal C", "Journal D", "0.184"),
    ]
    assert "Computer science</a>" in html and "Year: 2020" in html
    assert "Works of that field and year with enough references: 3" in html
    assert "Bias against novelty in science" in html and "10.1016/j.respol.2017.06.006" in html


def test_the_explanation_of_a_thin_work_says_why(corpus):
    compute()
    html = _get(_work_url(corpus["works"]["F4"]))
    assert "<strong>Not enough data</strong>: too few of its references are held" in html
    assert "fewer than 5 references held with their journal" in html
    html = _get(_work_url(WorkFactory()))
    assert "none of its references is held here" in html


def test_imported_journal_names_are_escaped_on_the_explanation(corpus):
    Source.objects.filter(name="Journal E").update(name='<script>alert("E")</script>')
    compute()
    html = _get(_work_url(corpus["works"]["F1"]))
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&quot;E&quot;)&lt;/script&gt;" in html


def test_the_profile_shows_the_median(corpus, author, settings):
    settings.PROFILE_PAGE_CACHE_SECONDS = 0
    compute()
    html = _get(reverse("researcher-profile", args=[author.slug]))
    assert '<li id="novelty-figure"><strong>50%</strong>Novelty</li>' in html
    assert (
        f'href="{reverse("researcher-novelty", args=[author.slug])}">How is this computed?' in html
    )
    thin = ResearcherFactory()
    html = _get(reverse("researcher-profile", args=[thin.slug]))
    assert '<strong class="muted">Not enough data</strong>Novelty' in html


def test_a_new_median_changes_the_cached_profile(corpus, author):
    url = reverse("researcher-profile", args=[author.slug])
    assert "Not enough data</strong>Novelty" in _get(url)
    compute()
    assert "<strong>50%</strong>Novelty" in _get(url)


def test_the_researcher_explanation_lists_the_works_counted(corpus, author):
    compute()
    html = _get(reverse("researcher-novelty", args=[author.slug]))
    assert "Novelty <strong>50%</strong>: the median percentile of the 3 works below" in html
    works = corpus["works"]
    # Highest first: F1 100%, F2 50%, F3 0%.
    positions = [html.index(_work_url(works[name])) for name in ("F1", "F2", "F3")]
    assert positions == sorted(positions)
    assert _work_url(works["F4"]) not in html
    assert "Left out: 1 work because too few of its references are held" in html
    assert "Computer science, 2020 (3 works)" in html


def test_the_researcher_explanation_of_a_thin_record_says_so(corpus):
    html = _get(reverse("researcher-novelty", args=[ResearcherFactory().slug]))
    assert "<strong>Not enough data</strong>" in html


def test_the_explanations_answer_404_and_redirect_merged_records(corpus, author):
    client = Client()
    assert client.get(reverse("publications:work-novelty", args=[987654321])).status_code == 404
    assert client.get(reverse("researcher-novelty", args=["nobody-here"])).status_code == 404
    survivor = corpus["works"]["F1"]
    MergedWork.objects.create(id=987654320, survivor=survivor)
    response = client.get(reverse("publications:work-novelty", args=[987654320]))
    assert (response.status_code, response["Location"]) == (301, _work_url(survivor))
    merged = ResearcherFactory(merged_into=author)
    response = client.get(reverse("researcher-novelty", args=[merged.slug]))
    assert response.status_code == 301
    assert response["Location"] == reverse("researcher-novelty", args=[author.slug])


@pytest.mark.parametrize("page", ["work", "researcher"])
def test_the_explanations_refuse_a_post(corpus, author, page):
    url = (
        _work_url(corpus["works"]["F1"])
        if page == "work"
        else reverse("researcher-novelty", args=[author.slug])
    )
    assert Client().post(url).status_code == 405


def test_the_explanations_run_a_fixed_number_of_queries(corpus, author, django_assert_num_queries):
    compute()
    # The work with its journal, novelty and field; the journals of its pairs.
    with django_assert_num_queries(2):
        _get(_work_url(corpus["works"]["F1"]))
    # The record; its median; its works' rows with their titles and fields.
    with django_assert_num_queries(3):
        _get(reverse("researcher-novelty", args=[author.slug]))


def test_the_profile_keeps_its_four_queries_with_a_novelty(
    corpus, author, settings, django_assert_num_queries
):
    settings.PROFILE_PAGE_CACHE_SECONDS = 0
    compute()
    with django_assert_num_queries(4):
        html = _get(reverse("researcher-profile", args=[author.slug]))
    assert "<strong>50%</strong>Novelty" in html


def test_a_new_novelty_gives_the_work_page_a_new_etag(corpus):
    url = _work_url(corpus["works"]["F1"], "work-detail")
    before = Client().get(url)["ETag"]
    compute()
    after = Client().get(url)
    assert after["ETag"] != before
    assert "Novelty <strong>100%</strong>" in after.content.decode()
