"""Imports fanned out to a real Celery worker, started by the test, over the real Redis broker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from bzpeer.celery import app as celery_app
from ingest.models import ImportChunk, ImportIssue, ImportRun
from ingest.services import import_run_create
from ingest.tasks import import_run_enqueue
from publications.models import Authorship, Work
from tests.support.synthetic import iter_works, write_works_snapshot

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

CELERY = Path(sys.executable).with_name("celery")


class Workers:
    def __init__(self, queue: str, log_dir: Path) -> None:
        self.queue = queue
        self.log_dir = log_dir
        self.processes: list[subprocess.Popen] = []
        database = connection.settings_dict
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "bzpeer.settings.test",
            "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
            "CELERY_DEFAULT_QUEUE": queue,
            "IMPORT_BATCH_SIZE": "100",
            "CELERY_VISIBILITY_TIMEOUT": "3",
        }

    def start(self) -> subprocess.Popen:
        number = len(self.processes)
        log = (self.log_dir / f"worker-{number}.log").open("wb")
        process = subprocess.Popen(
            [
                str(CELERY),
                "-A",
                "bzpeer",
                "worker",
                "-Q",
                self.queue,
                "--concurrency",
                "2",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel",
                "info",
                "-n",
                f"{self.queue}-{number}@%h",
            ],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.processes.append(process)
        return process

    def kill(self, process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        """Kill the worker and its pool processes at once, as a crash or an OOM kill would."""
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        process.wait(timeout=30)

    def stop_all(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                self.kill(process, signal.SIGTERM)

    def logs(self) -> str:
        return "\n".join(
            path.read_text(errors="replace")[-3000:] for path in sorted(self.log_dir.glob("*.log"))
        )


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Workers]:
    queue = f"bzpeer-test-{uuid.uuid4().hex[:10]}"
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = queue
    pool = Workers(queue, tmp_path)
    try:
        yield pool
    finally:
        pool.stop_all()
        celery_app.conf.task_default_queue = previous
        with celery_app.connection_for_write() as broker:
            broker.default_channel.queue_purge(queue)


def _wait_for(predicate, *, timeout: float, workers: Workers, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}\n{workers.logs()}")


def _authorships_in(works: int) -> int:
    return sum(
        len(work["authorships"]) for work in iter_works(works=works, authors=max(1, works // 2))
    )


def test_a_worker_imports_a_file_split_into_several_chunks(workers, tmp_path):
    works = 1200
    write_works_snapshot(tmp_path / "snapshot", works=works)
    workers.start()

    call_command("import_openalex", str(tmp_path / "snapshot"), chunk_lines=250, no_progress=True)

    run = ImportRun.objects.get()
    assert run.status == ImportRun.Status.SUCCEEDED
    assert (run.chunks_total, run.chunks_done) == (5, 5)
    assert (run.read_count, run.created_count, run.failed_count) == (works, works, 0)
    assert Work.objects.count() == works
    assert Authorship.objects.count() == _authorships_in(works)


def test_a_worker_killed_mid_run_and_started_again_finishes_with_exact_counts(workers, tmp_path):
    works = 4000
    write_works_snapshot(tmp_path / "snapshot", works=works)
    run, _ = import_run_create(paths=[str(tmp_path / "snapshot")], chunk_lines=500)
    first = workers.start()
    import_run_enqueue(run.pk)

    def some_but_not_all_committed() -> bool:
        run.refresh_from_db()
        return run.read_count >= 300

    _wait_for(some_but_not_all_committed, timeout=120, workers=workers, what="the first batches")
    workers.kill(first)
    run.refresh_from_db()
    assert run.read_count < works, (
        "the run finished before the worker could be killed; make it bigger"
    )
    interrupted_at = run.read_count

    workers.start()
    _wait_for(
        lambda: ImportRun.objects.get(pk=run.pk).is_finished,
        timeout=240,
        workers=workers,
        what="the run to finish",
    )

    run.refresh_from_db()
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert interrupted_at < works
    assert (run.read_count, run.created_count, run.updated_count, run.failed_count) == (
        works,
        works,
        0,
        0,
    )
    assert run.chunks_done == run.chunks_total == 8
    assert not ImportChunk.objects.filter(run=run, done=False).exists()
    assert Work.objects.count() == works
    assert Authorship.objects.count() == _authorships_in(works)
    assert not ImportIssue.objects.exists()


def test_a_run_whose_chunk_messages_were_lost_is_resent_and_finishes(workers, tmp_path):
    from datetime import timedelta

    from django.utils import timezone

    from ingest.services import import_runs_claim_stalled
    from ingest.tasks import import_runs_resume_stalled

    write_works_snapshot(tmp_path / "snapshot", works=300)
    run, _ = import_run_create(paths=[str(tmp_path / "snapshot")], chunk_lines=100)
    # As if its messages had been sent and then lost with a broker restart an hour ago.
    ImportRun.objects.filter(pk=run.pk).update(
        status=ImportRun.Status.RUNNING, last_progress_at=timezone.now() - timedelta(hours=1)
    )
    workers.start()

    import_runs_resume_stalled()  # what beat runs every few minutes

    assert (
        import_runs_claim_stalled(idle_for=timedelta(minutes=30)) == []
    )  # claimed: not resent twice

    _wait_for(
        lambda: ImportRun.objects.get(pk=run.pk).is_finished,
        timeout=120,
        workers=workers,
        what="the run to finish",
    )
    run.refresh_from_db()
    assert (run.status, run.read_count, run.created_count, run.updated_count) == (
        "succeeded",
        300,
        300,
        0,
    )
