"""The broker loses its messages in the middle of a run (issue 29): a Redis of the test's own as
broker and cache, a real worker on it, an import run and an immediate notification email in
flight; the Redis is emptied (FLUSHALL, as a restart without persistence) and the worker killed.
The database knows what is owed, and the sweeps beat runs (called here, with the clocks moved)
send it again: every record is imported exactly once and the email is sent once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from django.db import connection
from django.utils import timezone

from ingest.models import ImportChunk, ImportIssue, ImportRun
from ingest.services import import_run_create
from ingest.tasks import import_run_enqueue, import_runs_resume_stalled
from notifications.models import Notification
from notifications.services import notification_create
from notifications.services.notifications import notification_emails_owed_send
from publications.models import Authorship, Work
from tests.bzpeer.servers import RedisServer
from tests.support.celery_broker import celery_broker_pointed_at
from tests.support.people import make_member
from tests.support.synthetic import iter_works, write_works_snapshot

pytestmark = [pytest.mark.worker, pytest.mark.server, pytest.mark.django_db(transaction=True)]

CELERY = Path(sys.executable).with_name("celery")
WORKS = 4000


class Broker:
    """The test's Redis as this process's broker and a worker's, on a queue of the test's own."""

    def __init__(self, server: RedisServer, log_dir: Path) -> None:
        self.server = server
        self.queue = f"bzpeer-flush-{uuid.uuid4().hex[:10]}"
        self.log_dir = log_dir
        self.processes: list[subprocess.Popen] = []
        database = connection.settings_dict
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "bzpeer.settings.test",
            "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
            "TEST_REDIS_URL": server.url(),
            "CELERY_DEFAULT_QUEUE": self.queue,
            "IMPORT_BATCH_SIZE": "100",
            "CELERY_VISIBILITY_TIMEOUT": "3",
        }

    def start_worker(self) -> subprocess.Popen:
        number = len(self.processes)
        process = subprocess.Popen(
            [str(CELERY), "-A", "bzpeer", "worker", "-Q", self.queue, "--concurrency", "2"]
            + ["--without-gossip", "--without-mingle", "--without-heartbeat"]
            + ["--loglevel", "info", "-n", f"{self.queue}-{number}@%h"],
            env=self.env,
            stdout=(self.log_dir / f"worker-{number}.log").open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.processes.append(process)
        return process

    def kill(self, process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        process.wait(timeout=30)

    def flush(self) -> None:
        client = redis.Redis.from_url(self.server.url())
        try:
            client.flushall()
        finally:
            client.close()

    def logs(self) -> str:
        return "\n".join(
            path.read_text(errors="replace")[-3000:] for path in sorted(self.log_dir.glob("*.log"))
        )


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    server = RedisServer(tmp_path)
    server.start()
    pool = Broker(server, tmp_path)
    try:
        with celery_broker_pointed_at(server.url(), queue=pool.queue):
            yield pool
            for process in pool.processes:
                if process.poll() is None:
                    pool.kill(process, signal.SIGTERM)
    finally:
        for process in pool.processes:
            if process.poll() is None:
                pool.kill(process, signal.SIGKILL)
        server.stop()


def _wait_for(predicate, *, timeout: float, broker: Broker, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}\n{broker.logs()}")


def test_what_the_broker_lost_mid_run_is_swept_again_and_done_once(broker, tmp_path):
    write_works_snapshot(tmp_path / "snapshot", works=WORKS)
    run, _ = import_run_create(paths=[str(tmp_path / "snapshot")], chunk_lines=500)
    first = broker.start_worker()
    import_run_enqueue(run.pk)
    _wait_for(
        lambda: ImportRun.objects.get(pk=run.pk).read_count >= 300,
        timeout=120,
        broker=broker,
        what="the first batches",
    )
    # The broker loses every message (queued and unacknowledged), and the worker dies.
    broker.flush()
    broker.kill(first)
    run.refresh_from_db()
    assert run.read_count < WORKS, "the run finished before the flush; make it bigger"
    # An immediate email queued while no worker runs, lost with the next flush.
    alice = make_member("alice-flush@example.org", display_name="Alice Flush")
    notification = notification_create(
        user=alice, category="claims", kind="claim_approved", subject="Hi", message="Approved."
    )
    broker.flush()

    # Later: the clocks moved past each sweep's grace period, beat's sweeps run.
    ImportRun.objects.filter(pk=run.pk).update(last_progress_at=timezone.now() - timedelta(hours=1))
    Notification.objects.filter(pk=notification.pk).update(
        created_at=timezone.now() - timedelta(minutes=3)
    )
    broker.start_worker()
    import_runs_resume_stalled()
    assert notification_emails_owed_send() == 1

    _wait_for(
        lambda: (
            ImportRun.objects.get(pk=run.pk).is_finished
            and Notification.objects.get(pk=notification.pk).emailed_at is not None
        ),
        timeout=240,
        broker=broker,
        what="the run to finish and the email to be sent",
    )
    run.refresh_from_db()
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert (run.read_count, run.created_count, run.updated_count, run.failed_count) == (
        WORKS,
        WORKS,
        0,
        0,
    )
    assert run.chunks_done == run.chunks_total == 8
    assert not ImportChunk.objects.filter(run=run, done=False).exists()
    assert Work.objects.count() == WORKS
    authorships = sum(
        len(work["authorships"]) for work in iter_works(works=WORKS, authors=WORKS // 2)
    )
    assert Authorship.objects.count() == authorships
    assert not ImportIssue.objects.exists()
    # Nothing is owed any more: the sweeps send nothing again.
    assert notification_emails_owed_send() == 0
    logs = "".join(path.read_text(errors="replace") for path in tmp_path.glob("worker-*.log"))
    emailed = logs.count(f"notification {notification.pk} emailed to user")
    assert emailed == 1, broker.logs()
