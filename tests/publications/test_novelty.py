"""Novelty (issue 25, item 5; docs/novelty.md): Wang, Veugelers and Stephan's new pairs of
referenced journals, each weighted by 1 - the cosine of the two journals' co-citation profiles
over the three years before, summed; its percentile in the field and year; a researcher's
median. On a corpus built by hand, with every expected figure worked out in the comments."""

from __future__ import annotations

import io
import math

import pytest
from django.core.management import call_command

from publications import tasks
from publications.models import (
    NoveltyGap,
    ResearcherNovelty,
    Work,
    WorkNovelty,
)
from publications.services import novelty
from tests.factories import (
    AuthorshipFactory,
    ResearcherFactory,
    TopicFactory,
)

from .novelty_corpus import compute, novelty_work

pytestmark = pytest.mark.django_db

SQRT6 = math.sqrt(6)


def _row(work: Work) -> WorkNovelty:
    return WorkNovelty.objects.get(work=work)


def test_it_scores_the_new_pairs_by_their_distance(corpus):
    compute()
    works, journals = corpus["works"], corpus["journals"]

    f1 = _row(works["F1"])
    assert (f1.references_held, f1.references_with_journal, f1.journals) == (5, 5, 5)
    assert (f1.pairs, f1.new_pairs) == (10, 3)
    assert f1.score == pytest.approx(3 - 4 / SQRT6)
    a, b, c, d, e = (journals[name].pk for name in "ABCDE")
    # Farthest first: AE and BE (1 - 1/sqrt6), then CD (1 - 2/sqrt6).
    assert f1.new_pair_list == [
        [a, e, pytest.approx(1 - 1 / SQRT6, abs=1e-4)],
        [b, e, pytest.approx(1 - 1 / SQRT6, abs=1e-4)],
        [c, d, pytest.approx(1 - 2 / SQRT6, abs=1e-4)],
    ]
    f2 = _row(works["F2"])
    assert (f2.references_with_journal, f2.journals, f2.pairs, f2.new_pairs) == (5, 4, 6, 1)
    assert f2.score == pytest.approx(1 - 2 / SQRT6)
    f3 = _row(works["F3"])
    assert (f3.pairs, f3.new_pairs, f3.score) == (3, 0, 0)
    assert f3.new_pair_list == []


def test_it_ranks_each_work_in_its_field_and_year(corpus):
    compute()
    works = corpus["works"]
    for name, percentile in (("F1", 100), ("F2", 50), ("F3", 0)):
        row = _row(works[name])
        assert row.percentile == pytest.approx(percentile), name
        assert (row.field_id, row.publication_year) == (corpus["field"].pk, 2020)
        assert (row.baseline_size, row.prior_works, row.gap) == (3, 4, "")


def test_a_work_with_too_few_references_gets_no_percentile(corpus):
    compute()
    f4 = _row(corpus["works"]["F4"])
    # Its pairs are still counted (AB old; AE, BE new), but 3 references are not enough.
    assert (f4.references_with_journal, f4.new_pairs) == (3, 2)
    assert f4.score == pytest.approx(2 - 2 / SQRT6)
    assert (f4.percentile, f4.gap, f4.baseline_size) == (None, NoveltyGap.FEW_REFERENCES, 0)


def test_a_baseline_too_small_gives_no_percentile(corpus):
    # Three works in the field and year: one short of a baseline of four.
    compute(min_baseline=4)
    row = _row(corpus["works"]["F1"])
    assert (row.percentile, row.gap, row.baseline_size) == (None, NoveltyGap.SMALL_BASELINE, 3)
    assert row.score == pytest.approx(3 - 4 / SQRT6)


def test_a_history_too_short_gives_no_percentile(corpus):
    # The default asks for 50 earlier works; the corpus has 4.
    novelty.novelty_compute(min_baseline=3)
    row = _row(corpus["works"]["F1"])
    assert (row.percentile, row.gap, row.prior_works) == (None, NoveltyGap.THIN_HISTORY, 4)


def test_a_work_without_a_year_or_a_field_gets_no_percentile(corpus):
    a, b, c, d, e = corpus["journals"].values()
    undated = novelty_work(2020, a, b, c, d, e, topic=TopicFactory())
    Work.objects.filter(pk=undated.pk).update(publication_date=None, publication_year=None)
    no_topic = novelty_work(2020, a, b, c, d, e)
    # A topic with no field above it is its own field: a baseline of one.
    lone = novelty_work(2020, a, b, c, d, e, topic=TopicFactory(name="Somewhere"))
    compute()
    assert (_row(undated).gap, _row(undated).percentile) == (NoveltyGap.NO_YEAR, None)
    assert (_row(no_topic).gap, _row(no_topic).percentile) == (NoveltyGap.NO_FIELD, None)
    assert (_row(lone).gap, _row(lone).baseline_size) == (NoveltyGap.SMALL_BASELINE, 1)
    # The dated works still rank among themselves only.
    assert _row(corpus["works"]["F1"]).percentile == pytest.approx(100)


def test_a_researcher_novelty_is_the_median_of_their_percentiles(corpus):
    works = corpus["works"]
    three = ResearcherFactory()
    for name in ("F1", "F2", "F3", "F4"):
        AuthorshipFactory(work=works[name], researcher=three)
    two = ResearcherFactory()
    for name in ("F1", "F2"):
        AuthorshipFactory(work=works[name], researcher=two)
    thin = ResearcherFactory()
    AuthorshipFactory(work=works["F4"], researcher=thin)
    nothing = ResearcherFactory()

    result = compute()

    # 100, 50, 0 (F4 has none) -> 50; 100 and 50 -> 75; F4 alone -> no figure.
    assert ResearcherNovelty.objects.get(researcher=three).percentile == pytest.approx(50)
    assert ResearcherNovelty.objects.get(researcher=three).works_counted == 3
    assert ResearcherNovelty.objects.get(researcher=two).percentile == pytest.approx(75)
    assert ResearcherNovelty.objects.get(researcher=thin).percentile is None
    assert ResearcherNovelty.objects.get(researcher=thin).works_counted == 0
    assert not ResearcherNovelty.objects.filter(researcher=nothing).exists()
    assert result.researchers == 3


def test_a_second_run_replaces_the_figures(corpus):
    compute()
    first = dict(WorkNovelty.objects.values_list("work_id", "score"))
    result = compute()
    assert dict(WorkNovelty.objects.values_list("work_id", "score")) == first
    assert result.works == len(first) == 8
    assert result.works_with_percentile == 3


def test_the_command_and_the_task_run_the_computation(corpus):
    out = io.StringIO()
    call_command("compute_novelty", "--no-progress", stdout=out)
    # With the default thresholds the corpus is too thin for a percentile (a history of 4).
    assert "8 works (0 with a percentile), 0 researchers, 4 years" in out.getvalue()
    assert WorkNovelty.objects.count() == 8
    WorkNovelty.objects.all().delete()
    assert tasks.novelty_compute.apply().get() == 8
    # F1, F2, F3; F4 and the history's works have too few references first.
    assert WorkNovelty.objects.filter(gap=NoveltyGap.THIN_HISTORY).count() == 3
