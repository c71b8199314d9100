"""Exactly once across processes: `send_digests` killed with SIGKILL part way and run again, two
runs at once, and the workers' path (a real Celery worker). Each run is another process, so the
emails go to a folder (tests.feed.outbox) and are counted there."""

from __future__ import annotations

import datetime
import email
import os
import re
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
from feed import services as feed_services
from notifications.models import DigestDelivery, NotificationPreference
from tests.ingest.test_import_on_workers import Workers

from .digest_support import DAY, MONDAY_8, following, member, recent_work, researcher
from .outbox import recipients, senders

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
    # Far longer than the runs below take even on a loaded machine (a 10 s lease ran out while
    # the second run started); its expiry is reached by moving the clock, below.
    lease = 300
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


def _digest_workers(tmp_path: Path, outbox: Path, **settings: object):
    """A real Celery worker of two processes on a queue of this test's own, mailing into the
    outbox, with these settings."""
    queue = f"bzpeer-test-digests-{uuid.uuid4().hex[:10]}"
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = queue
    pool = Workers(queue, tmp_path)
    pool.env.update(environment(outbox, FEED_DIGEST_CHUNK_SIZE=3, **settings))
    pool.env["CELERY_DEFAULT_QUEUE"] = queue
    try:
        pool.start()
        yield pool
    finally:
        pool.stop_all()
        celery_app.conf.task_default_queue = previous
        with celery_app.connection_for_write() as broker:
            broker.default_channel.queue_purge(queue)


@pytest.fixture
def digest_worker(tmp_path: Path, outbox: Path):
    yield from _digest_workers(tmp_path, outbox)


@pytest.fixture
def slow_digest_worker(tmp_path: Path, outbox: Path):
    """A digest worker whose mail server takes 0.2 s a message, so each chunk's task stays
    busy while others are claimed."""
    yield from _digest_workers(tmp_path, outbox, BZPEER_TEST_SEND_DELAY=0.2)


@pytest.mark.worker
def test_without_sync_a_worker_sends_the_digests_in_chunks(
    followers, digest_worker, outbox, settings
):
    # The chunks are cut where they are queued (here, not in the worker): three users a task.
    settings.DIGEST_CHUNK_SIZE = 3
    call_command("send_digests", "--period", "weekly", "--at", MONDAY_8.isoformat())
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and len(recipients(outbox)) < USERS:
        time.sleep(0.1)
    assert Counter(recipients(outbox)) == Counter(user.email for user in followers), (
        digest_worker.logs()
    )
    assert DigestDelivery.objects.filter(emailed=True).count() == USERS
    assert "feed.tasks.digest_deliveries_send" in digest_worker.logs()


@pytest.fixture
def many_followers() -> list:
    """Twenty-four users due for a weekly digest of Ada's new work, and three who are not: one
    at 08:00 in no time zone of theirs this hour, one who muted her, one with the digest off."""
    ada = researcher("Ada Lovelace")
    due = [following(member(f"many{number}"), ada) for number in range(3 * USERS)]
    following(member("tokyo", time_zone="Asia/Tokyo"), ada)
    muted = following(member("muted"), ada)
    feed_services.follow_mute_set(user=muted, target=ada, muted=True)
    off = following(member("off"), ada)
    NotificationPreference.objects.create(user=off, category="digest", delivery="off")
    recent_work(ada, arrived=MONDAY_8 - DAY, title="On the analytical engine")
    return due


# Celery's worker log names each task by its id when it takes it and when it ends.
_CHUNK_TASK_RECEIVED = re.compile(
    r"Task feed\.tasks\.digest_deliveries_send\[([0-9a-f-]+)\] received"
)
_CHUNK_TASK_ENDED = re.compile(
    r"Task feed\.tasks\.digest_deliveries_send\[([0-9a-f-]+)\] (?:succeeded in|raised)"
)


def _until_finished(worker: Workers, *, timeout: float = 120) -> None:
    """Until no delivery is unfinished and every chunk task the worker took has ended (by its
    id: a task still sending could otherwise mail a duplicate after the assertions)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        logs = worker.logs()
        received = set(_CHUNK_TASK_RECEIVED.findall(logs))
        ended = set(_CHUNK_TASK_ENDED.findall(logs))
        unfinished = DigestDelivery.objects.filter(finished_at__isnull=True).exists()
        if not unfinished and received and received <= ended:
            return
        time.sleep(0.1)
    pytest.fail(f"the deliveries were not all finished\n{worker.logs()}")


@pytest.mark.worker
def test_both_processes_of_one_worker_send_the_chunks_each_due_user_once(
    many_followers, slow_digest_worker, outbox, settings
):
    # Queued twice, as two overlapping hourly runs would: the second plans nobody and queues
    # the same chunks again, which the worker's two processes claim while the first's are
    # still being sent (a slow mail server keeps each chunk busy).
    # The chunks are cut where they are queued (here): three users a task, nine tasks a run.
    settings.DIGEST_CHUNK_SIZE = 3
    call_command("send_digests", "--period", "weekly", "--at", MONDAY_8.isoformat())
    call_command("send_digests", "--period", "weekly", "--at", MONDAY_8.isoformat())
    _until_finished(slow_digest_worker)
    assert Counter(recipients(outbox)) == Counter(user.email for user in many_followers), (
        slow_digest_worker.logs()
    )
    # Both pool processes sent chunks (the outbox names each message's sender).
    assert len(senders(outbox)) == 2, senders(outbox)
    deliveries = DigestDelivery.objects.filter(period="weekly")
    assert deliveries.filter(emailed=True).count() == len(many_followers)
    # The muted follower's delivery was planned and finished with nothing to send; the user
    # in Tokyo and the one who turned the digest off were never planned.
    assert deliveries.count() == len(many_followers) + 1
    assert not deliveries.filter(finished_at__isnull=True).exists()
    for path in outbox.glob("*.eml"):
        message = email.message_from_bytes(path.read_bytes())
        assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert message["List-Unsubscribe"].startswith("<https://bzpeer.example/")


@pytest.mark.worker
def test_a_worker_and_a_sync_run_at_once_send_each_due_user_once(
    many_followers, slow_digest_worker, outbox, tmp_path, settings
):
    # The --sync run (slower to start) first, so that both are claiming chunks at once.
    env = environment(outbox, BZPEER_TEST_SEND_DELAY=0.2, FEED_DIGEST_CHUNK_SIZE=3)
    settings.DIGEST_CHUNK_SIZE = 3
    sync_run = start_run(env, tmp_path / "sync.log")
    call_command("send_digests", "--period", "weekly", "--at", MONDAY_8.isoformat())
    assert sync_run.wait(timeout=120) == 0
    _until_finished(slow_digest_worker)
    assert Counter(recipients(outbox)) == Counter(user.email for user in many_followers), (
        slow_digest_worker.logs()
    )
    assert DigestDelivery.objects.filter(emailed=True).count() == len(many_followers)


@pytest.fixture
def named_digest_worker(tmp_path: Path, outbox: Path):
    """A digest worker whose database sessions carry an application name of their own (libpq's
    PGAPPNAME), kept longer than this test takes (CONN_MAX_AGE)."""
    name = f"digest-worker-{uuid.uuid4().hex[:10]}"
    for pool in _digest_workers(tmp_path, outbox, PGAPPNAME=name, DB_CONN_MAX_AGE=600):
        pool.application_name = name
        yield pool


@pytest.mark.worker
def test_a_worker_keeps_its_database_sessions_from_one_chunk_to_the_next(
    many_followers, named_digest_worker, outbox, settings
):
    # Nine chunks of three for the worker's two processes (bzpeer.task_connections: the chunks
    # keep their connection; Celery's fixup alone would close it after each task).
    settings.DIGEST_CHUNK_SIZE = 3
    call_command("send_digests", "--period", "weekly", "--at", MONDAY_8.isoformat())
    _until_finished(named_digest_worker)
    assert Counter(recipients(outbox)) == Counter(user.email for user in many_followers)
    claims = DigestDelivery.objects.values_list("claimed_at", flat=True).distinct()
    assert len(claims) == 9
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT backend_start FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s",
            [named_digest_worker.application_name],
        )
        sessions = [started for (started,) in cursor.fetchall()]
    # A session per pool process is still open once the tasks are done, and one of them was
    # opened before the first chunk was claimed: it outlived the task of that chunk.
    assert 1 <= len(sessions) <= 2, named_digest_worker.logs()
    assert min(sessions) < min(claims)
