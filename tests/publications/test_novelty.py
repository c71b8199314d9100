"""Novelty (issue 25, item 5; docs/novelty.md): Wang, Veugelers and Stephan's new pairs of
referenced journals, each weighted by 1 - the cosine of the two journals' co-citation profiles
over the three years before, summed; its percentile in the field and year; a researcher's
median. On a corpus built by hand, with every expected figure worked out in the comments."""

from __future__ import annotations

import datetime
import math

import pytest

from publications.models import (
    Citation,
    NoveltyGap,
    ResearcherNovelty,
    Source,
    TopicLevel,
    Work,
    WorkNovelty,
)
from publications.services import novelty
from tests.factories import (
    AuthorshipFactory,
    ResearcherFactory,
    SourceFactory,
    TopicFactory,
    WorkFactory,
    WorkTopicFactory,
)

pytestmark = pytest.mark.django_db

SQRT6 = math.sqrt(6)


def _work(year: int, *journals: Source, topic=None) -> Work:
    """A work of `year` citing one new work in each journal given (a journal twice: two works)."""
    work = WorkFactory(publication_date=datetime.date(year, 6, 1))
    references = [WorkFactory(source=journal, publication_date=None) for journal in journals]
    Citation.objects.bulk_create([Citation(citing=work, cited=cited) for cited in references])
    if topic is not None:
        WorkTopicFactory(work=work, topic=topic)
    return work


@pytest.fixture
def corpus():
    """Five journals A to E.

    History (no topic needed, they are only the past):
      P0 (2010) cites D, E        pair DE: old, but outside the 2017-2019 window
      P1 (2018) cites A, B, C     pairs AB, AC, BC
      P2 (2019) cites A, B, D     pairs AB, AD, BD
      P3 (2019) cites C, E        pair CE
    Co-citation counts in the window of 2020 (2017-2019), cc(x, y) = works citing both:
      AB 2 (P1, P2), AC 1, BC 1, AD 1, BD 1, CE 1 (DE 0: P0 is before the window)
    Profiles (vectors over the other journals):
      A = (B 2, C 1, D 1)  |A| = sqrt 6       B = (A 2, C 1, D 1)  |B| = sqrt 6
      C = (A 1, B 1, E 1)  |C| = sqrt 3       D = (A 1, B 1)       |D| = sqrt 2
      E = (C 1)            |E| = 1
    The works of 2020, all in the field "Computer science" (topic > subfield > field):
      F1 cites A, B, C, D, E: 10 pairs; old: AB AC BC AD BD CE and DE (P0); new: AE, BE, CD
         AE: A.E = 1 (through C), cos = 1/(sqrt6 * 1) -> distance 1 - 1/sqrt6 = 0.591752
         BE: the same as AE                                        -> 0.591752
         CD: C.D = 1 + 1 (A, B), cos = 2/(sqrt3 sqrt2) = 2/sqrt6   -> 1 - 2/sqrt6 = 0.183503
         score = 3 - 4/sqrt6 = 1.367007
      F2 cites A, A, B, C, D: 5 references, 4 journals, 6 pairs; new: CD (F1's, the same
         year: not before) -> score = 1 - 2/sqrt6 = 0.183503
      F3 cites A, A, B, B, C: 3 journals, pairs AB AC BC all old -> score 0
      F4 cites A, B, E: 3 references, fewer than 5 -> no percentile (few references)
    Percentiles (the share of the other works of the baseline scoring lower), baseline
    {F1, F2, F3}: F3 0/2 = 0, F2 1/2 = 50, F1 2/2 = 100.
    Works before 2020 citing two journals or more: P0, P1, P2, P3 = 4.
    """
    journals = {name: SourceFactory(name=f"Journal {name}") for name in "ABCDE"}
    a, b, c, d, e = journals.values()
    field = TopicFactory(name="Computer science", level=TopicLevel.FIELD)
    subfield = TopicFactory(name="Artificial intelligence", level=TopicLevel.SUBFIELD, parent=field)
    topic = TopicFactory(name="Neural networks", parent=subfield)
    other_field = TopicFactory(name="Medicine", level=TopicLevel.FIELD)
    works = {
        "P0": _work(2010, d, e),
        "P1": _work(2018, a, b, c),
        "P2": _work(2019, a, b, d),
        "P3": _work(2019, c, e),
        "F1": _work(2020, a, b, c, d, e, topic=topic),
        "F2": _work(2020, a, a, b, c, d, topic=topic),
        "F3": _work(2020, a, a, b, b, c, topic=topic),
        "F4": _work(2020, a, b, e, topic=topic),
    }
    # F2's second topic, weaker, is in another field: the primary topic decides.
    WorkTopicFactory(work=works["F2"], topic=other_field, score=0.2)
    return {"journals": journals, "works": works, "field": field}


def _compute(**thresholds):
    options = {"min_baseline": 3, "min_prior_works": 4, **thresholds}
    return novelty.novelty_compute(**options)


def _row(work: Work) -> WorkNovelty:
    return WorkNovelty.objects.get(work=work)


def test_it_scores_the_new_pairs_by_their_distance(corpus):
    _compute()
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
    _compute()
    works = corpus["works"]
    for name, percentile in (("F1", 100), ("F2", 50), ("F3", 0)):
        row = _row(works[name])
        assert row.percentile == pytest.approx(percentile), name
        assert (row.field_id, row.publication_year) == (corpus["field"].pk, 2020)
        assert (row.baseline_size, row.prior_works, row.gap) == (3, 4, "")


def test_a_work_with_too_few_references_gets_no_percentile(corpus):
    _compute()
    f4 = _row(corpus["works"]["F4"])
    # Its pairs are still counted (AB old; AE, BE new), but 3 references are not enough.
    assert (f4.references_with_journal, f4.new_pairs) == (3, 2)
    assert f4.score == pytest.approx(2 - 2 / SQRT6)
    assert (f4.percentile, f4.gap, f4.baseline_size) == (None, NoveltyGap.FEW_REFERENCES, 0)


def test_a_baseline_too_small_gives_no_percentile(corpus):
    # Three works in the field and year: one short of a baseline of four.
    _compute(min_baseline=4)
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
    undated = _work(2020, a, b, c, d, e, topic=TopicFactory())
    Work.objects.filter(pk=undated.pk).update(publication_date=None, publication_year=None)
    no_topic = _work(2020, a, b, c, d, e)
    # A topic with no field above it is its own field: a baseline of one.
    lone = _work(2020, a, b, c, d, e, topic=TopicFactory(name="Somewhere"))
    _compute()
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

    result = _compute()

    # 100, 50, 0 (F4 has none) -> 50; 100 and 50 -> 75; F4 alone -> no figure.
    assert ResearcherNovelty.objects.get(researcher=three).percentile == pytest.approx(50)
    assert ResearcherNovelty.objects.get(researcher=three).works_counted == 3
    assert ResearcherNovelty.objects.get(researcher=two).percentile == pytest.approx(75)
    assert ResearcherNovelty.objects.get(researcher=thin).percentile is None
    assert ResearcherNovelty.objects.get(researcher=thin).works_counted == 0
    assert not ResearcherNovelty.objects.filter(researcher=nothing).exists()
    assert result.researchers == 3


def test_a_second_run_replaces_the_figures(corpus):
    _compute()
    first = dict(WorkNovelty.objects.values_list("work_id", "score"))
    result = _compute()
    assert dict(WorkNovelty.objects.values_list("work_id", "score")) == first
    assert result.works == len(first) == 8
    assert result.works_with_percentile == 3
