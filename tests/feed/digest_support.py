"""Helpers of the digest tests: members with an address and a time zone, follows, works that
arrived at a given time, and runs of `send_digests` at a given clock."""

from __future__ import annotations

import datetime
from io import StringIO

from django.core import mail
from django.core.management import call_command

from feed import services as feed_services
from tests.factories import ResearcherFactory, UserFactory

from .conftest import work_by

UTC = datetime.UTC
SITE = "https://bzpeer.example"
# Monday 30 November 2026, 08:00 UTC: a weekly digest of a user in UTC is due in this hour.
MONDAY_8 = datetime.datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
DAY = datetime.timedelta(days=1)
HOUR = datetime.timedelta(hours=1)


def member(name: str, *, time_zone: str = "UTC", **fields):
    fields.setdefault("email", f"{name}@example.org")
    return UserFactory(username=name, time_zone=time_zone, **fields)


def following(user, *targets):
    for target in targets:
        feed_services.follow_create(user=user, target=target)
    return user


def researcher(name: str):
    return ResearcherFactory(display_name=name)


def recent_work(*researchers, arrived: datetime.datetime, published_days_ago: int = 10, **fields):
    """A work published `published_days_ago` before it arrived."""
    published = (arrived - datetime.timedelta(days=published_days_ago)).date()
    return work_by(*researchers, at=arrived, publication_date=published, **fields)


def send_digests(period: str, at: datetime.datetime, *, sync: bool = True) -> str:
    out = StringIO()
    arguments = ["send_digests", "--period", period, "--at", at.isoformat()]
    call_command(*arguments, *(["--sync"] if sync else []), stdout=out)
    return out.getvalue()


def digests_to(user) -> list:
    return [message for message in mail.outbox if message.to == [user.email]]
