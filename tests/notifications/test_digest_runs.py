"""The daily digest of notifications across processes (issue 23, item 3): a run killed with
SIGKILL part way leaves its deliveries claimed; a run at once sends nobody twice, and past the
lease the next run takes them over with the notifications they carried. The emails go to a
folder (tests.feed.outbox), as in the feed's digest runs."""

from __future__ import annotations

import datetime
import email
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from django.db.models import F
from django.utils import timezone

from notifications import services
from notifications.kinds import DAILY_DIGEST_SCOPE, Delivery, NotificationCategory
from notifications.models import DigestDelivery, Notification
from tests.feed.outbox import recipients
from tests.feed.test_digest_runs import environment, wait_for
from tests.support.people import make_member

pytestmark = pytest.mark.django_db(transaction=True)

MANAGE = Path(__file__).resolve().parents[2] / "manage.py"
USERS = 4
LEASE = 10


@pytest.fixture
def outbox(tmp_path: Path) -> Path:
    folder = tmp_path / "outbox"
    folder.mkdir()
    return folder


@pytest.fixture
def readers() -> list:
    users = []
    for number in range(USERS):
        user = make_member(f"daily{number}@example.org")
        services.notification_preference_set(
            user=user, category=NotificationCategory.CLAIMS, delivery=Delivery.DAILY
        )
        for item in range(2):
            services.notification_create(
                user=user,
                category=NotificationCategory.CLAIMS,
                kind="k",
                subject=f"Item {item} for {number}",
                message="m",
            )
        users.append(user)
    return users


def start_run(env: dict[str, str], log: Path, clock: datetime.datetime) -> subprocess.Popen:
    code = (
        "import datetime\n"
        "from notifications import services\n"
        f"plan = services.notification_digests_plan(clock=datetime.datetime.fromisoformat("
        f"{clock.isoformat()!r}))\n"
        "for chunk in services.digest_chunks(plan.pending):\n"
        "    print(services.notification_digest_deliveries_send(delivery_ids=chunk))\n"
    )
    return subprocess.Popen(
        [sys.executable, str(MANAGE), "shell", "-c", code],
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )


def listed(folder: Path) -> Counter:
    """(recipient, item) -> how many emails listed it."""
    counts: Counter = Counter()
    for path in folder.glob("*.eml"):
        message = email.message_from_bytes(path.read_bytes())
        text = next(
            part.get_payload(decode=True).decode()
            for part in message.walk()
            if part.get_content_type() == "text/plain"
        )
        for line in text.splitlines():
            if line.startswith("* "):
                counts[message["To"], line.removeprefix("* ")] += 1
    return counts


def test_a_killed_runs_deliveries_are_taken_over_after_the_lease_each_sent_once(
    readers, outbox, tmp_path
):
    clock = timezone.now() + datetime.timedelta(minutes=5)
    env = environment(
        outbox, BZPEER_TEST_SEND_DELAY=0.5, DIGEST_CHUNK_SIZE=10, DIGEST_LEASE_SECONDS=LEASE
    )
    first = start_run(env, tmp_path / "first.log", clock)
    wait_for(lambda: len(recipients(outbox)) >= 1, timeout=60, what="1 email", logs=tmp_path)
    # The second send is under way (each waits 0.5 s before the message exists): kill it there.
    time.sleep(0.15)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    (sent_first,) = recipients(outbox)
    assert sent_first in {user.email for user in readers}
    held = DigestDelivery.objects.filter(
        category=DAILY_DIGEST_SCOPE, claimed_at__isnull=False, finished_at__isnull=True
    )
    assert held.count() == USERS - 1
    # The killed run's notifications stay bound to its deliveries, none marked emailed.
    assert Notification.objects.filter(
        digest_delivery__isnull=False, emailed_at__isnull=True
    ).count() == 2 * (USERS - 1)

    # The send delay was there so the first run could be killed mid-send; the next runs
    # send at once.
    env["BZPEER_TEST_SEND_DELAY"] = "0"
    # At once: the dead run's claims are not past their lease, so nothing more is sent.
    again = start_run(env, tmp_path / "again.log", clock)
    assert again.wait(timeout=60) == 0
    assert len(recipients(outbox)) == 1

    # Past the lease (the claims made older, not waited for), the next run takes them over.
    held.update(claimed_at=F("claimed_at") - datetime.timedelta(seconds=LEASE + 1))
    last = start_run(env, tmp_path / "last.log", clock)
    assert last.wait(timeout=60) == 0, (tmp_path / "last.log").read_text()
    assert Counter(recipients(outbox)) == Counter(user.email for user in readers)
    assert listed(outbox) == Counter(
        {
            (user.email, f"Item {item} for {number}"): 1
            for number, user in enumerate(readers)
            for item in range(2)
        }
    )
    assert not Notification.objects.filter(emailed_at__isnull=True).exists()
    assert DigestDelivery.objects.filter(emailed=True).count() == USERS
