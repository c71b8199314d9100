"""The hand-built novelty corpus's helpers (the corpus itself: conftest.py's `corpus`)."""

from __future__ import annotations

import datetime

from publications.models import Citation, Source, Work
from publications.services import novelty
from tests.factories import WorkFactory, WorkTopicFactory


def novelty_work(year: int, *journals: Source, topic=None) -> Work:
    """A work of `year` citing one new work in each journal given (a journal twice: two works)."""
    work = WorkFactory(publication_date=datetime.date(year, 6, 1))
    references = [WorkFactory(source=journal, publication_date=None) for journal in journals]
    Citation.objects.bulk_create([Citation(citing=work, cited=cited) for cited in references])
    if topic is not None:
        WorkTopicFactory(work=work, topic=topic)
    return work


def compute(**thresholds) -> novelty.NoveltyResult:
    """The computation with thresholds the corpus meets (a baseline of 3, a history of 4)."""
    options = {"min_baseline": 3, "min_prior_works": 4, **thresholds}
    return novelty.novelty_compute(**options)
