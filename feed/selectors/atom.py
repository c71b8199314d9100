"""The works the Atom feeds list: a researcher's or a topic's newest arrivals, read from the
arrival index (feed/atom.py serves them)."""

from __future__ import annotations

from publications.models import Topic, Work
from researchers.models import Researcher

ATOM_ITEMS = 30


def works_newest_arrivals_of_researcher(
    researcher: Researcher, *, limit: int = ATOM_ITEMS
) -> list[Work]:
    """The researcher's newest arrivals (the Atom feed), from the arrival index."""
    work_ids = (
        researcher.authorships.order_by("-work_created_at", "-work_id")
        # A researcher twice on one byline gives the work twice: read a few more, keep one.
        .values_list("work_id", flat=True)[: limit * 2]
    )
    return _works_by_arrival(list(dict.fromkeys(work_ids))[:limit])


def works_newest_arrivals_of_topic(topic: Topic, *, limit: int = ATOM_ITEMS) -> list[Work]:
    work_ids = topic.work_topics.order_by("-work_created_at", "-work_id").values_list(
        "work_id", flat=True
    )[:limit]
    return _works_by_arrival(list(work_ids))


def _works_by_arrival(work_ids: list[int]) -> list[Work]:
    works = (
        Work.objects.filter(pk__in=work_ids)
        .select_related("source")
        .prefetch_related("authorships")
        .order_by("-created_at", "-id")
    )
    return list(works)
