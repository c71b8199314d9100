"""Exactly once across processes: `send_digests` killed with SIGKILL part way and run again, two
runs at once, and the workers' path (a real Celery worker). Each run is another process, so the
emails go to a folder (tests.feed.outbox) and are counted there."""

from __future__ import annotations

import datetime
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import F

from bzpeer.celery import app as celery_app
from notifications.models import DigestDelivery
from tests.ingest.test_import_on_workers import Workers

from .digest_support import DAY, MONDAY_8, following, member, recent_work, researcher
from .outbox import recipients

pytestmark = pytest.mark.django_db(transaction=True)

MANAGE = Path(__file__).resolve().parents[2] / "manage.py"
USERS = 8


@pytest.fixture
def outbox(tmp_path: Path) -> Path:
    folder = tmp_path / "outbox"
    folder.mkdir()
    return folder


@pytest.fixture
def followers() -> list:
    ada = researcher("Ada Lovelace")
    users = [following(member(f"reader{number}"), ada) for number in range(USERS)]
    recent_work(ada, arrived=MONDAY_8 - DAY, title="On the analytical engine")
    return users


def environment(outbox: Path, **settings: object) -> dict[str, str]:
    database = connection.settings_dict
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.feed.outbox_settings",
        "DATABASE_URL": (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}"
            f"/{database['NAME']}"
        ),
        "BZPEER_TEST_OUTBOX": str(outbox),
        "SITE_URL": "https://bzpeer.example",
        **{name: str(value) for name, value in settings.items()},
    }


def start_run(env: dict[str, str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            str(MANAGE),
            "send_digests",
            "--period",
            "weekly",
            "--sync",
            "--at",
            MONDAY_8.isoformat(),
        ],
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )


def wait_for(predicate, *, timeout: float, what: str, logs: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    texts = "\n".join(path.read_text(errors="replace")[-2000:] for path in logs.glob("*.log"))
    pytest.fail(f"timed out waiting for {what}\n{texts}")


def test_a_run_killed_part_way_and_run_again_sends_each_user_exactly_one(
    followers, outbox, tmp_path
):
    lease = 10
    env = environment(
        outbox,
        BZPEER_TEST_SEND_DELAY=0.4,
        FEED_DIGEST_CHUNK_SIZE=3,
        FEED_DIGEST_LEASE_SECONDS=lease,
    )
    first = start_run(env, tmp_path / "first.log")
    wait_for(lambda: len(recipients(outbox)) >= 4, timeout=60, what="4 emails", logs=tmp_path)
    # The fifth send is under way (each waits 0.4 s before the message exists): kill it there,
    # with the second chunk claimed and one of its users sent.
    time.sleep(0.15)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    sent = Counter(recipients(outbox))
    assert 4 <= sum(sent.values()) < USERS and set(sent.values()) == {1}
    held = DigestDelivery.objects.filter(claimed_at__isnull=False, finished_at__isnull=True)
    assert held.count() == 2  # the rest of the killed run's chunk, claimed and unsent

    # The send delay was there so the first run could be killed mid-send; the next runs
    # send at once.
    env["BZPEER_TEST_SEND_DELAY"] = "0"
    # Run again at once: the never-claimed users are sent; the dead run's claims are not yet
    # past their lease, so nobody is sent twice and its two users wait.
    again = start_run(env, tmp_path / "again.log")
    assert again.wait(timeout=60) == 0
    sent = Counter(recipients(outbox))
    assert set(sent.values()) == {1} and sum(sent.values()) == USERS - 2

    # Past the lease, the next run takes the dead run's rows over. The clock is moved, not
    # waited for: the dead run's claims are made older than the lease.
    held.update(claimed_at=F("claimed_at") - datetime.timedelta(seconds=lease + 1))
    last = start_run(env, tmp_path / "last.log")
    assert last.wait(timeout=60) == 0
    assert Counter(recipients(outbox)) == Counter(user.email for user in followers)
    assert DigestDelivery.objects.filter(finished_at__isnull=False, emailed=True).count() == USERS


def test_two_runs_at_once_send_each_user_exactly_one(followers, outbox, tmp_path):
    env = environment(outbox, BZPEER_TEST_SEND_DELAY=0.2, FEED_DIGEST_CHUNK_SIZE=2)
    runs = [start_run(env, tmp_path / f"run{number}.log") for number in range(2)]
    assert [run.wait(timeout=120) for run in runs] == [0, 0]
    assert Counter(recipients(outbox)) == Counter(user.email for user in followers)
    outputs = [(tmp_path / f"run{number}.log").read_text() for number in range(2)]
    emailed = [int(text.split(" emailed")[0].rsplit(" ", 1)[1]) for text in outputs]
    # However the two shared the chunks (each claims a chunk before sending it), together they
    # sent each user one.
    assert sum(emailed) == USERS, outputs
    assert DigestDelivery.objects.count() == USERS


def test_a_second_run_in_another_process_sends_nothing(followers, outbox, tmp_path):
    env = environment(outbox)
    assert start_run(env, tmp_path / "one.log").wait(timeout=60) == 0
    assert start_run(env, tmp_path / "two.log").wait(timeout=60) == 0
    assert Counter(recipients(outbox)) == Counter(user.email for user in followers)
    assert "0 planned, 0 to send" in (tmp_path / "two.log").read_text()


@pytest.fixture
def digest_worker(tmp_path: Path, outbox: Path):
    """A real Celery worker on a queue of this test's own, mailing into the outbox."""
    queue = f"bzpeer-test-digests-{uuid.uuid4().hex[:10]}"
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = queue
    pool = Workers(queue, tmp_path)
    pool.env.update(environment(outbox, FEED_DIGEST_CHUNK_SIZE=3))
    pool.env["CELERY_DEFAULT_QUEUE"] = queue
    try:
        pool.start()
        yield pool
    finally:
        pool.stop_all()
        celery_app.conf.task_default_queue = previous
        with celery_app.connection_for_write() as broker:
            broker.default_channel.queue_purge(queue)


@pytest.mark.worker
def test_without_sync_a_worker_sends_the_digests_in_chunks(followers, digest_worker, outbox):
    call_command("send_digests", "--period", "weekly", "--at", MONDAY_8.isoformat())
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and len(recipients(outbox)) < USERS:
        time.sleep(0.1)
    assert Counter(recipients(outbox)) == Counter(user.email for user in followers), (
        digest_worker.logs()
    )
    assert DigestDelivery.objects.filter(emailed=True).count() == USERS
    assert "feed.tasks.digest_deliveries_send" in digest_worker.logs()
