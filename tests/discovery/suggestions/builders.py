"""Building the small graphs the suggestion tests read: joint works through the factories,
coauthor edges through graph's own refresh, citations as the writer stores them, and claimed
people through the real claim services (tests.support.people)."""

from __future__ import annotations

import datetime

from graph.services import coauthor_edges_refresh
from publications.models import Citation, Topic, Work
from researchers.models import Researcher
from tests.factories import AuthorshipFactory, ResearcherFactory, WorkFactory, WorkTopicFactory
from tests.support.people import verified_researcher


def claimed(name: str, *, open_to_collaborate: bool = True):
    """A verified researcher (an approved L3 claim on a record of their own); `user.record`."""
    slug = name.lower().replace(" ", "-")
    user = verified_researcher(f"{slug}@example.org", name, slug)
    if not open_to_collaborate:
        Researcher.objects.filter(pk=user.record.pk).update(open_to_collaborate=False)
        user.record.open_to_collaborate = False
    return user


def unclaimed(name: str) -> Researcher:
    return ResearcherFactory(display_name=name)


def work_by(*researchers: Researcher, year: int = 2015, topics: tuple[Topic, ...] = ()) -> Work:
    """A work of these researchers (in this order) published in `year`, tagged with `topics`."""
    work = WorkFactory(publication_date=datetime.date(year, 6, 1), authors_count=len(researchers))
    for position, researcher in enumerate(researchers, start=1):
        AuthorshipFactory(work=work, researcher=researcher, position=position)
    for topic in topics:
        WorkTopicFactory(work=work, topic=topic)
    return work


def cites(citing: Work, cited: Work) -> None:
    Citation.objects.create(citing=citing, cited=cited)


def edges_refreshed(*researchers: Researcher) -> None:
    """Graph's coauthor edges of these researchers, as after an import."""
    coauthor_edges_refresh(researcher_ids=[r.pk for r in researchers])
