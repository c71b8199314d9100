"""Users and helpers of the feed tests: alice follows, bob is another user, charlie a visitor."""

from __future__ import annotations

import datetime

from django.utils import timezone

from publications.models import Work
from tests.factories import AuthorshipFactory, WorkFactory, WorkTopicFactory


def arrived(work: Work, at: datetime.datetime) -> Work:
    """Pretend the work reached us at `at` (the trigger copies it to its authorships/topics)."""
    Work.objects.filter(pk=work.pk).update(created_at=at)
    work.refresh_from_db()
    return work


def minutes_ago(minutes: float) -> datetime.datetime:
    return timezone.now() - datetime.timedelta(minutes=minutes)


def work_by(*researchers, at: datetime.datetime | None = None, topics=(), **fields) -> Work:
    work = WorkFactory(**fields)
    for position, researcher in enumerate(researchers, start=1):
        AuthorshipFactory(work=work, researcher=researcher, position=position)
    for topic in topics:
        WorkTopicFactory(work=work, topic=topic)
    if at is not None:
        arrived(work, at)
    return work
