"""`python manage.py send_digests --period daily|weekly [--sync] [--at ISO-DATETIME]`

Sends the email digests due in the hour that contains the run's clock (now, or --at): daily
ones to users for whom it is 08:xx there, weekly ones on their Monday. Without --sync the
deliveries go to the Celery workers in chunks (a task each, queued after commit); with --sync
they are computed and sent here, through the configured email backend. Safe to run again or
twice at once: each user gets one digest per period (feed.services.digests, through
notifications' digest deliveries).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from feed import services
from notifications.models import DigestPeriod


def _clock(value: str | None) -> datetime:
    if value is None:
        return timezone.now()
    try:
        clock = datetime.fromisoformat(value)
    except ValueError as error:
        raise CommandError(f"--at: not an ISO date and time: {value!r}") from error
    # A clock without an offset is UTC, as the site's clock is.
    return clock if clock.tzinfo is not None else clock.replace(tzinfo=UTC)


class Command(BaseCommand):
    help = "Send the email digests due in the hour that contains now (or --at)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--period", required=True, choices=DigestPeriod.values)
        parser.add_argument(
            "--sync",
            action="store_true",
            help="Compute and send in this process instead of queueing tasks for the workers.",
        )
        parser.add_argument(
            "--at",
            metavar="ISO-DATETIME",
            help="The run's clock (default now; without an offset, UTC): digests due in its hour.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        period, clock = options["period"], _clock(options["at"])
        if not options["sync"]:
            queued = services.digests_queue(period=period, clock=clock)
            self.stdout.write(
                f"{period} digests at {clock.isoformat()}: {queued.plan.planned} planned, "
                f"{len(queued.plan.pending)} to send in {queued.chunks} tasks"
            )
            return
        plan = services.digests_plan(period=period, clock=clock)
        emailed = empty = 0
        for chunk in services.digest_chunks(plan.pending):
            outcome = services.digest_deliveries_send(delivery_ids=chunk)
            emailed += outcome.emailed
            empty += outcome.empty
        self.stdout.write(
            f"{period} digests at {clock.isoformat()}: {plan.planned} planned, "
            f"{len(plan.pending)} to send, {emailed} emailed, {empty} with nothing to send"
        )
